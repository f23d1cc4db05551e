import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectHttp } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { startInProcess } from './support/server.js';

const S = 'https://www.googleapis.com/auth/';
let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google.emulator.close());

/** Starts a server with these settings, makes one call, and returns the scopes its token request asked Google for. */
async function scopesRequested(env: Record<string, string>, tool = 'list_sites', args: Record<string, unknown> = {}) {
  const server = await startInProcess({ ...google.env, ...env });
  const client = await connectHttp(server.url, { revision: '2026-07-28' });
  try {
    const before = google.emulator.tokenGrants.length;
    await client.call(tool, args);
    const grants = google.emulator.tokenGrants.slice(before);
    expect(grants).toHaveLength(1);
    return { scopes: [...grants[0].scopes].sort(), tools: (await client.listTools()).map((t) => t.name) };
  } finally {
    await client.close();
    await server.close();
  }
}

describe('the OAuth scopes follow the registered tools', () => {
  it('all tools: webmasters, indexing and siteverification', async () => {
    expect((await scopesRequested({})).scopes).toEqual([`${S}indexing`, `${S}siteverification`, `${S}webmasters`]);
  });

  it('GSC_READ_ONLY=true: webmasters.readonly (Site Verification has no read-only scope)', async () => {
    const { scopes, tools } = await scopesRequested({ GSC_READ_ONLY: 'true' });
    expect(scopes).toEqual([`${S}indexing`, `${S}siteverification`, `${S}webmasters.readonly`]);
    expect(tools).not.toContain('add_site');
  });

  it('GSC_ALLOW_TOOLS=essential: only webmasters.readonly', async () => {
    expect((await scopesRequested({ GSC_ALLOW_TOOLS: 'essential' })).scopes).toEqual([`${S}webmasters.readonly`]);
  });

  it('GSC_ALLOW_TOOLS=list_*: read scopes of the listing tools', async () => {
    const { scopes, tools } = await scopesRequested({ GSC_ALLOW_TOOLS: 'list_*' });
    // list_annotations needs no Google scope: it reads this server's own store.
    expect(tools).toEqual(['list_annotations', 'list_sitemaps', 'list_sites', 'list_verified_sites']);
    expect(scopes).toEqual([`${S}siteverification`, `${S}webmasters.readonly`]);
  });

  it('denying the Indexing tools drops the indexing scope', async () => {
    expect((await scopesRequested({ GSC_DENY_TOOLS: 'request_indexing,get_indexing_status' })).scopes).toEqual([
      `${S}siteverification`,
      `${S}webmasters`,
    ]);
  });

  it('denying every Search Console write asks for webmasters.readonly', async () => {
    const { scopes } = await scopesRequested({ GSC_DENY_TOOLS: 'add_site,delete_*,submit_*' });
    expect(scopes).toEqual([`${S}indexing`, `${S}siteverification`, `${S}webmasters.readonly`]);
  });

  it('a delegated service account asks as its subject, and a scope the admin did not delegate fails the token request', async () => {
    const narrow = await scopesRequested({ GSC_IMPERSONATE: 'delegate@example.com', GSC_ALLOW_TOOLS: 'essential' });
    expect(narrow.scopes).toEqual([`${S}webmasters.readonly`]);
    expect(google.emulator.tokenGrants.at(-1)).toMatchObject({ ok: true, subject: 'delegate@example.com' });

    const server = await startInProcess({ ...google.env, GSC_IMPERSONATE: 'delegate@example.com' });
    const client = await connectHttp(server.url, { revision: '2026-07-28' });
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/unauthorized_client.*Domain-wide delegation/s);
      expect(google.emulator.tokenGrants.at(-1)).toMatchObject({ ok: false, subject: 'delegate@example.com' });
    } finally {
      await client.close();
      await server.close();
    }
  });
});
