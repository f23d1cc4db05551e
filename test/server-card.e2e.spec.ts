import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { SearchConsoleMcpModule } from '../src/search-console-mcp.module.js';
import { connectHttp } from './support/clients.js';
import { freePort, rawRequest } from './support/raw-http.js';
import { type InProcessServer, startInProcess } from './support/server.js';

// The server card (SEP-2127, experimental): served at <mcp url>/server-card as
// application/mcp-server-card+json, listed in /.well-known/ai-catalog.json, generated from
// server.json and package.json, and valid against the proposal's schema.json (pinned in
// test/server-card/, with its commit).

const REPO = join(import.meta.dirname, '..');
const serverJson = JSON.parse(readFileSync(join(REPO, 'server.json'), 'utf8'));
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8'));
const schema = JSON.parse(readFileSync(join(import.meta.dirname, 'server-card/schema.json'), 'utf8'));

const ajv = new Ajv2020({ allErrors: true, strict: false });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema(schema, 'server-card.schema.json');
const validateCard = ajv.getSchema('server-card.schema.json#/$defs/ServerCard')!;

function valid(card: unknown): string[] {
  return validateCard(card) ? [] : (validateCard.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

const TOKEN = 'card-test-http-token-0123456789';

describe('the server card of the standalone server', () => {
  let open: InProcessServer;
  let guarded: InProcessServer;
  beforeAll(async () => {
    [open, guarded] = await Promise.all([startInProcess({}), startInProcess({ GSC_HTTP_TOKEN: TOKEN })]);
  });
  afterAll(async () => {
    await Promise.all([open?.close(), guarded?.close()]);
  });

  it('is a valid Server Card by the pinned schema (which rejects a broken one)', async () => {
    const res = await fetch(`${open.url}/server-card`, { headers: { accept: 'application/mcp-server-card+json' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/mcp-server-card+json');
    const card = (await res.json()) as Record<string, unknown>;
    expect(valid(card)).toEqual([]);
    // The validator does enforce the schema: the same card without a name, or with a dated $schema, fails.
    const { name: _name, ...nameless } = card;
    expect(valid(nameless)).not.toEqual([]);
    expect(valid({ ...card, $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server-card.schema.json' })).not.toEqual(
      [],
    );
  });

  it('says who the server is from server.json and package.json, and lists no tools', async () => {
    const card = (await (await fetch(`${open.url}/server-card`)).json()) as Record<string, any>;
    expect(card).toMatchObject({
      $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
      name: serverJson.name,
      title: serverJson.title,
      description: serverJson.description,
      version: pkg.version,
      websiteUrl: serverJson.websiteUrl,
      repository: serverJson.repository,
    });
    expect(Object.keys(card).sort()).toEqual(['$schema', 'description', 'name', 'remotes', 'repository', 'title', 'version', 'websiteUrl']);
    expect(JSON.stringify(card)).not.toMatch(/list_sites|"tools"|"prompts"|"resources"/);
  });

  it('agrees with what a connected client observes: the endpoint, the revisions and the version', async () => {
    const card = (await (await fetch(`${open.url}/server-card`)).json()) as Record<string, any>;
    expect(card.remotes).toEqual([{ type: 'streamable-http', url: open.url, supportedProtocolVersions: expect.any(Array) }]);
    for (const revision of ['2025-11-25', '2026-07-28'] as const) {
      expect(card.remotes[0].supportedProtocolVersions).toContain(revision);
      const client = await connectHttp(card.remotes[0].url, { revision });
      try {
        expect(client.raw.getServerVersion()).toMatchObject({ version: card.version });
      } finally {
        await client.close();
      }
    }
  });

  it('is public (no token, CORS for any page), cached an hour and revalidated by ETag', async () => {
    const first = await fetch(`${guarded.url}/server-card`, { headers: { origin: 'https://client.example' } });
    expect(first.status).toBe(200);
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.headers.get('access-control-expose-headers')).toBe('ETag');
    expect(first.headers.get('cache-control')).toBe('public, max-age=3600');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const again = await fetch(`${guarded.url}/server-card`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    const preflight = await fetch(`${guarded.url}/server-card`, {
      method: 'OPTIONS',
      headers: { origin: 'https://client.example', 'access-control-request-headers': 'if-none-match' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/If-None-Match/);
    // The endpoint itself still wants the token.
    expect((await fetch(guarded.url, { method: 'POST', body: '{}' })).status).toBe(401);
  });

  it('describes the shared-token header a client must send, never the token', async () => {
    const text = await (await fetch(`${guarded.url}/server-card`)).text();
    expect(text).not.toContain(TOKEN);
    const card = JSON.parse(text) as Record<string, any>;
    expect(valid(card)).toEqual([]);
    expect(card.remotes[0].headers).toEqual([
      expect.objectContaining({ name: 'Authorization', isRequired: true, isSecret: true, value: 'Bearer {token}' }),
    ]);
    // Without a token there is nothing to send.
    const openCard = (await (await fetch(`${open.url}/server-card`)).json()) as Record<string, any>;
    expect(openCard.remotes[0].headers).toBeUndefined();
  });

  it('validates the Host: a DNS-rebinding page gets nothing', async () => {
    const res = await rawRequest(`${open.url}/server-card`, { headers: { host: 'attacker.example' } });
    expect(res.status).toBe(403);
    expect(res.text).not.toContain(serverJson.name);
  });

  it('is listed in /.well-known/ai-catalog.json, whose entry leads to it', async () => {
    const res = await fetch(`${open.origin}/.well-known/ai-catalog.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/ai-catalog+json');
    const catalog = (await res.json()) as { specVersion: string; entries: Record<string, string>[] };
    expect(catalog).toEqual({
      specVersion: '1.0',
      entries: [
        {
          identifier: 'urn:air:google-search-console-mcp.github.io:mcp:google-search-console-mcp',
          type: 'application/mcp-server-card+json',
          url: `${open.url}/server-card`,
        },
      ],
    });
    const card = (await (await fetch(catalog.entries[0].url)).json()) as Record<string, unknown>;
    expect(card.name).toBe(serverJson.name);
  });

  it('names GSC_PUBLIC_URL behind a proxy, not the address it was reached on', async () => {
    const server = await startInProcess({ GSC_PUBLIC_URL: 'https://mcp.corp.example', GSC_HTTP_TOKEN: TOKEN });
    try {
      const res = await rawRequest(`${server.url}/server-card`, { headers: { host: 'mcp.corp.example' } });
      expect(res.status).toBe(200);
      expect(res.json.remotes[0].url).toBe('https://mcp.corp.example/mcp');
      const catalog = await rawRequest(`${server.origin}/.well-known/ai-catalog.json`, { headers: { host: 'mcp.corp.example' } });
      expect(catalog.json.entries[0].url).toBe('https://mcp.corp.example/mcp/server-card');
    } finally {
      await server.close();
    }
  });
});

describe('the server card inside a host Nest app', () => {
  let app: INestApplication;
  let origin: string;
  const start = async (aiCatalog?: boolean) => {
    const port = await freePort();
    const moduleRef = await Test.createTestingModule({
      imports: [
        SearchConsoleMcpModule.forRoot({
          settings: { GSC_STATE_DIR: mkdtempSync(join(tmpdir(), 'gsc-card-nest-')) },
          path: 'search-console/mcp',
          ...(aiCatalog === undefined ? {} : { aiCatalog }),
        }),
      ],
    }).compile();
    const nest = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
    nest.setGlobalPrefix('api');
    await nest.listen(port, '127.0.0.1');
    return { nest, origin: `http://127.0.0.1:${port}` };
  };
  afterAll(async () => {
    await app?.close();
  });

  it("sits beside the MCP endpoint under the global prefix; the site catalog stays the host's unless asked for", async () => {
    ({ nest: app, origin } = await start());
    const res = await fetch(`${origin}/api/search-console/mcp/server-card`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as Record<string, any>;
    expect(valid(card)).toEqual([]);
    expect(card.remotes[0].url).toBe(`${origin}/api/search-console/mcp`);
    expect((await fetch(`${origin}/api/.well-known/ai-catalog.json`)).status).toBe(404);
    await app.close();

    ({ nest: app, origin } = await start(true));
    const catalog = (await (await fetch(`${origin}/api/.well-known/ai-catalog.json`)).json()) as { entries: { url: string }[] };
    expect(catalog.entries[0].url).toBe(`${origin}/api/search-console/mcp/server-card`);
    expect((await fetch(catalog.entries[0].url)).status).toBe(200);
  });
});
