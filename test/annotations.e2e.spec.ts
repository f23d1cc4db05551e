import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, connectStdio, type TestClient, text, type ToolResult } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { startConnectedGoogle } from './support/connected-kit.js';
import { connectAs } from './support/principals.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { TestIssuer } from './support/test-issuer.js';

// Team annotations (PRODUCT.md §5e, issue 32 item 3) on the emulator-backed
// server with the official clients of both revisions: who sees and deletes
// which note under the policy file, the allowlist, read-only mode, the notes
// inside query_search_analytics answers, ops' /admin/annotations, the bound,
// and notes that outlive a restart (SQLite) and hold across two servers on one
// redis-server. The emulator's request log witnesses that none of it reaches Google.

const AUDIENCE = 'https://mcp.test.example/mcp';
const WWW = SEED_PROPERTIES.owned; // https://www.example.com/
const BLOG = SEED_PROPERTIES.blog; // https://blog.example.net/
const ADMIN_TOKEN = 'admin-token-for-the-annotation-tests-0123456789';
const REVISIONS = ['2026-07-28', '2025-11-25'] as const;
const TOOLS = ['add_annotation', 'delete_annotation', 'list_annotations'];

const POLICY = {
  rules: [
    { principals: ['lead@corp.example'], tools: ['*'], annotations: 'admin' },
    { principals: ['carol@agency.example'], tools: ['*'], annotations: 'own' },
    { principals: ['dave@corp.example'], tools: ['essential'] },
    { principals: ['erin@corp.example'], tools: ['*'], sites: [BLOG] },
    { principals: ['*@corp.example'], tools: ['*'] },
  ],
};

const folder = mkdtempSync(join(tmpdir(), 'gsc-annotations-'));
const policyFile = join(folder, 'policy.json');
writeFileSync(policyFile, JSON.stringify(POLICY));

let google: TestGoogle;
let issuer: TestIssuer;
let server: InProcessServer;
beforeAll(async () => {
  google = await startGoogle();
  issuer = await TestIssuer.start({ audience: AUDIENCE });
  server = await startInProcess({
    ...google.env,
    GSC_AUTH_ISSUER: issuer.issuer,
    GSC_AUTH_AUDIENCE: AUDIENCE,
    GSC_POLICY_FILE: policyFile,
    GSC_ALLOWED_SITES: `${WWW},${BLOG}`,
    GSC_ADMIN_TOKEN: ADMIN_TOKEN,
    GSC_STATE_DIR: join(folder, 'state'),
  });
});
afterAll(async () => {
  await server?.close();
  await issuer?.close();
  await google?.emulator.close();
  rmSync(folder, { recursive: true, force: true });
});

async function as<T>(email: string, revision: (typeof REVISIONS)[number], use: (client: TestClient) => Promise<T>): Promise<T> {
  const token = await issuer.mint({ email, sub: `sub-${email}` });
  const client = await connectHttp(server.url, { revision }, { authorization: `Bearer ${token}` });
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}
const call = (email: string, name: string, args: Record<string, unknown>, revision: (typeof REVISIONS)[number] = '2026-07-28') =>
  as(email, revision, (c) => c.call(name, args));
const listed = async (email: string, site: string = WWW) =>
  (await call(email, 'list_annotations', { site_url: site })).structuredContent!.annotations as any[];
const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${server.origin}/admin/${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
const googleRoutes = () => google.emulator.apiRequests().map((r) => r.route);
/** Pacific days relative to an analytics answer's window. */
const shift = (date: string, days: number) => new Date(Date.parse(`${date}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe('on a server with a policy file, over both revisions', () => {
  it('lists the three tools to those whose rule allows them, each closed-world, and answers others as unknown tools', async () => {
    for (const revision of REVISIONS) {
      const tools = await as('alice@corp.example', revision, (c) => c.listTools());
      const mine = tools.filter((t) => TOOLS.includes(t.name));
      expect(mine.map((t) => [t.name, t.annotations])).toEqual([
        ['add_annotation', { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
        ['delete_annotation', { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
        ['list_annotations', { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }],
      ]);
      expect(mine.find((t) => t.name === 'add_annotation').inputSchema.properties.text.description).toBe('At most 120 characters.');
      const dave = await as('dave@corp.example', revision, (c) => c.listTools());
      expect(dave.map((t) => t.name).filter((n) => TOOLS.includes(n))).toEqual([]);
    }
    await expect(
      as('dave@corp.example', '2026-07-28', (c) => c.call('add_annotation', { site_url: WWW, date: '2026-11-02', text: 'x' })),
    ).rejects.toThrow(/Tool add_annotation not found/);
  });

  it('a note one person adds is listed to another, with its author, and shows in analytics answers whose window holds it', async () => {
    const window = (await call('alice@corp.example', 'query_search_analytics', { site_url: WWW, period: 'last28days' })).structuredContent!;
    const inside = shift(window.start_date, 3);
    const before = shift(window.start_date, -5);
    const added = await call(
      'alice@corp.example',
      'add_annotation',
      { site_url: WWW, date: inside, text: 'Migrated the blog to /news/', tag: 'release' },
      '2025-11-25',
    );
    expect(added.isError).toBeFalsy();
    const id = added.structuredContent!.annotation.id as string;
    expect(text(added)).toContain(
      `Added to ${WWW} (this server's own notes, not Google data): ${inside} "Migrated the blog to /news/" [release] by alice@corp.example`,
    );
    await call('bob@corp.example', 'add_annotation', { site_url: WWW, date: before, text: 'Robots.txt fixed' });

    const bobSees = await listed('bob@corp.example');
    expect(bobSees).toEqual(
      expect.arrayContaining([{ id, date: inside, text: 'Migrated the blog to /news/', tag: 'release', author: 'alice@corp.example' }]),
    );

    const answer = await call('bob@corp.example', 'query_search_analytics', { site_url: WWW, period: 'last28days' }, '2025-11-25');
    expect(answer.structuredContent!.annotations).toEqual([
      { id, date: inside, text: 'Migrated the blog to /news/', tag: 'release', author: 'alice@corp.example' },
    ]);
    expect(text(answer)).toContain(
      `Annotations in this window (1 team note, kept by this server, not Google data): ${inside} "Migrated the blog to /news/" [release] by alice@corp.example (id ${id}).`,
    );
    // compare: the previous window's notes come too.
    const compared = await call('bob@corp.example', 'query_search_analytics', {
      site_url: WWW,
      period: 'last28days',
      compare: 'previous_period',
    });
    expect(compared.structuredContent!.annotations.map((a: any) => a.date)).toEqual([before, inside]);
    // Someone whose rule does not give them list_annotations gets the numbers without the notes.
    const dave = await call('dave@corp.example', 'query_search_analytics', { site_url: WWW, period: 'last28days' });
    expect(dave.structuredContent!.annotations).toBeUndefined();
    expect(text(dave)).not.toContain('Annotations in this window');
    expect(googleRoutes().filter((r) => /annotation/i.test(r))).toEqual([]);
  });

  it('refuses what the schema or the rules refuse, in a sentence, and stores nothing', async () => {
    const long = await call('alice@corp.example', 'add_annotation', { site_url: WWW, date: '2026-11-02', text: 'x'.repeat(121) });
    expect(long.isError).toBe(true);
    expect(text(long)).toContain('text has 121 characters; a note holds at most 120, as in Search Console. Nothing was stored.');
    const stranger = await call('alice@corp.example', 'add_annotation', {
      site_url: 'https://www.other.example/',
      date: '2026-11-02',
      text: 'x',
    });
    expect(text(stranger)).toContain(`https://www.other.example/ is outside this server's allowed properties (${WWW}, ${BLOG})`);
    // erin's rule narrows her to the blog: the www property is refused, naming her rule.
    const erin = await call('erin@corp.example', 'list_annotations', { site_url: WWW });
    expect(text(erin)).toContain(`is outside the properties allowed to erin@corp.example (${BLOG})`);
    const theirs = (await listed('alice@corp.example'))[0].id as string;
    const erinDeletes = await call('erin@corp.example', 'delete_annotation', { id: theirs });
    expect(text(erinDeletes)).toContain(
      `The annotation ${theirs} belongs to ${WWW}, which is outside the properties allowed to erin@corp.example`,
    );
    expect((await listed('alice@corp.example')).map((a) => a.id)).toContain(theirs);
  });

  it('only the author or an annotations admin deletes a note; an "own" rule keeps a private notebook', async () => {
    const note = (await call('alice@corp.example', 'add_annotation', { site_url: BLOG, date: '2026-10-01', text: 'Theme change' }))
      .structuredContent!.annotation;
    const byBob = await call('bob@corp.example', 'delete_annotation', { id: note.id }, '2025-11-25');
    expect(byBob.isError).toBe(true);
    expect(text(byBob)).toContain(`was written by alice@corp.example; only its author`);
    expect(text(byBob)).toContain('Nothing was changed.');
    expect((await listed('bob@corp.example', BLOG)).map((a) => a.id)).toContain(note.id);

    const privateNote = (await call('carol@agency.example', 'add_annotation', { site_url: BLOG, date: '2026-10-02', text: 'Client call' }))
      .structuredContent!.annotation;
    expect((await listed('carol@agency.example', BLOG)).map((a) => a.text)).toEqual(['Client call']);
    expect((await listed('bob@corp.example', BLOG)).map((a) => a.text)).not.toContain('Client call');

    const byLead = await call('lead@corp.example', 'delete_annotation', { id: note.id });
    expect(byLead.structuredContent!.deleted).toMatchObject({ id: note.id, author: 'alice@corp.example' });
    expect((await listed('alice@corp.example', BLOG)).map((a) => a.id)).not.toContain(note.id);
    // The admin rule does not reach into someone's private notebook over MCP: it reads as a note that is not there.
    expect(text(await call('lead@corp.example', 'delete_annotation', { id: privateNote.id }))).toContain('that you can see');

    const audit = (await (await admin('audit?outcome=annotation_deleted')).json()) as { entries: any[] };
    expect(audit.entries[0]).toMatchObject({
      tool: 'delete_annotation',
      principal: 'lead@corp.example',
      target_principal: 'alice@corp.example',
    });
  });
});

describe('/admin/annotations', () => {
  it('lists every note for ops (private ones too), filters by property and window, and deletes one, audited; the admin token is required', async () => {
    expect((await fetch(`${server.origin}/admin/annotations`)).status).toBe(401);
    const all = (await (await admin('annotations')).json()) as { annotations: any[]; count: number };
    expect(all.count).toBe(all.annotations.length);
    const client = all.annotations.find((a) => a.text === 'Client call');
    expect(client).toMatchObject({ property: BLOG, author: 'carol@agency.example', private: true });
    const blog = (await (await admin(`annotations?property=${encodeURIComponent('https://Blog.example.net')}`)).json()) as {
      annotations: any[];
    };
    expect(blog.annotations.every((a) => a.property === BLOG)).toBe(true);
    const window = (await (await admin('annotations?start_date=2026-10-02&end_date=2026-10-02')).json()) as { annotations: any[] };
    expect(window.annotations.map((a) => a.text)).toEqual(['Client call']);
    expect((await admin('annotations?start_date=yesterday')).status).toBe(400);
    expect((await admin('annotations?site=x')).status).toBe(400);

    const gone = await admin(`annotations/${encodeURIComponent(client.id)}`, { method: 'DELETE' });
    expect(gone.status).toBe(200);
    expect(await gone.json()).toMatchObject({ status: 'ok', deleted: { id: client.id } });
    expect((await listed('carol@agency.example', BLOG)).map((a) => a.text)).not.toContain('Client call');
    const again = await admin(`annotations/${encodeURIComponent(client.id)}`, { method: 'DELETE' });
    expect([again.status, ((await again.json()) as any).reason]).toEqual([404, expect.stringContaining('nothing was changed')]);
    expect((await admin('annotations/nonsense', { method: 'DELETE' })).status).toBe(400);
    const audit = (await (await admin('audit?outcome=annotation_deleted&principal=admin')).json()) as { entries: any[] };
    expect(audit.entries[0]).toMatchObject({
      tool: 'DELETE /admin/annotations',
      principal: 'admin',
      target_principal: 'carol@agency.example',
    });
  });
});

describe('read-only mode', () => {
  it('registers list_annotations only; the other two are unknown tools, and listing still works', async () => {
    const readOnly = await startInProcess({ ...google.env, GSC_READ_ONLY: 'true' });
    try {
      for (const revision of REVISIONS) {
        const client = await connectHttp(readOnly.url, { revision });
        try {
          expect((await client.listTools()).map((t) => t.name).filter((n) => TOOLS.includes(n))).toEqual(['list_annotations']);
          await expect(client.call('add_annotation', { site_url: WWW, date: '2026-11-02', text: 'x' })).rejects.toThrow(
            /Tool add_annotation not found/,
          );
          expect((await client.call('list_annotations', { site_url: WWW })).isError).toBeFalsy();
        } finally {
          await client.close();
        }
      }
    } finally {
      await readOnly.close();
    }
  });
});

describe('connected accounts', () => {
  it('the annotation tools act as no Google account: no google_account argument, no connect link, nothing sent', async () => {
    const connected = await startConnectedGoogle();
    const local = await startInProcess(connected.env);
    const client = await connectHttp(local.url, { revision: '2026-07-28' });
    try {
      const tools = new Map((await client.listTools()).map((t) => [t.name, t]));
      expect(tools.get('get_site').inputSchema.properties.google_account).toBeDefined();
      for (const name of TOOLS) {
        expect([name, tools.get(name).inputSchema.properties.google_account]).toEqual([name, undefined]);
      }
      // No grant exists: a Google tool would ask to connect; a note needs none.
      const added = await client.call('add_annotation', { site_url: WWW, date: '2026-11-02', text: 'No Google account needed' });
      expect(added.isError).toBeFalsy();
      expect((await client.call('list_annotations', { site_url: WWW })).structuredContent!.annotations).toHaveLength(1);
      expect(connected.emulator.apiRequests()).toEqual([]);
    } finally {
      await client.close();
      await local.close();
      await connected.close();
    }
  });
});

describe('the bound', () => {
  it('keeps 200 per property: the 201st note drops the oldest, and says so', async () => {
    const bounded = await startInProcess(google.env);
    const client = await connectAs(bounded, 'local');
    try {
      let last: ToolResult | undefined;
      for (let i = 0; i < 201; i++) {
        last = await client.call('add_annotation', { site_url: BLOG, date: '2026-09-01', text: `note ${i}` });
      }
      expect(text(last!)).toMatch(
        /https:\/\/blog\.example\.net\/ keeps 200 annotations, so its oldest was dropped: 2026-09-01 "note 0" \(id \d+-\d+@https:\/\/blog\.example\.net\/\)\./,
      );
      const left = (await client.call('list_annotations', { site_url: BLOG })).structuredContent!.annotations as any[];
      expect(left).toHaveLength(200);
      expect([left[0].text, left[199].text]).toEqual(['note 1', 'note 200']);
    } finally {
      await client.close();
      await bounded.close();
    }
  });
});

describe('state that outlives a process', () => {
  it('SQLite: a note added over stdio is there after the server restarts on the same folder', async () => {
    const state = mkdtempSync(join(tmpdir(), 'gsc-annotations-restart-'));
    const env = { ...google.env, GSC_STATE_DIR: state };
    try {
      const first = await connectStdio(env, { revision: '2026-07-28' });
      const id = (await first.call('add_annotation', { site_url: WWW, date: '2026-11-20', text: 'Before the restart' })).structuredContent!
        .annotation.id;
      await first.close();
      const second = await connectStdio(env, { revision: '2025-11-25' });
      try {
        const notes = (await second.call('list_annotations', { site_url: WWW })).structuredContent!.annotations;
        expect(notes).toEqual([{ id, date: '2026-11-20', text: 'Before the restart' }]);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  });

  describe('Redis: two servers on one redis-server', () => {
    let redis: RedisServer;
    let a: InProcessServer;
    let b: InProcessServer;
    beforeAll(async () => {
      redis = await startRedisServer();
      const env = { ...google.env, GSC_REDIS_URL: redis.url, GSC_HTTP_TOKEN: 'replica-token-0123456789abcdef' };
      a = await startInProcess(env);
      b = await startInProcess(env);
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
      await redis?.stop();
    });

    it('a note added on one is listed, and deleted, on the other', async () => {
      const headers = { authorization: 'Bearer replica-token-0123456789abcdef' };
      const onA = await connectHttp(a.url, { revision: '2026-07-28' }, headers);
      const onB = await connectHttp(b.url, { revision: '2025-11-25' }, headers);
      try {
        const id = (await onA.call('add_annotation', { site_url: WWW, date: '2026-11-21', text: 'Seen by every replica' }))
          .structuredContent!.annotation.id;
        expect((await onB.call('list_annotations', { site_url: WWW })).structuredContent!.annotations.map((n: any) => n.id)).toEqual([id]);
        expect((await onB.call('delete_annotation', { id })).isError).toBeFalsy();
        expect((await onA.call('list_annotations', { site_url: WWW })).structuredContent!.annotations).toEqual([]);
        const ops = (await (await fetch(`${a.origin}/admin/annotations`)).json()) as { count: number };
        expect(ops.count).toBe(0);
      } finally {
        await onA.close();
        await onB.close();
      }
    });
  });
});
