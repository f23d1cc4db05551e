import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, text } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';

const TOKEN = 'http-token-for-tests-0123456789';
let google: TestGoogle;
let server: HttpBinary;

beforeAll(async () => {
  google = await startGoogle();
  server = await spawnHttpBinary({ ...google.env, GSC_HTTP_TOKEN: TOKEN });
});
afterAll(async () => {
  await server.stop();
  await google.emulator.close();
});
beforeEach(() => google.emulator.reset());

const auth = { Authorization: `Bearer ${TOKEN}` };

describe.each(['2025-11-25', '2026-07-28'] as const)('the built binary over Streamable HTTP, client speaking %s', (revision) => {
  it('lists tools and serves list_sites / get_site / add_site against Google', async () => {
    const client = await connectHttp(server.url, { revision }, auth);
    try {
      const tools = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_sites', 'get_site', 'add_site', 'delete_site']));
      const listed = await client.call('list_sites');
      expect(listed.structuredContent?.sites).toContainEqual({ site_url: SEED_PROPERTIES.blog, permission_level: 'siteOwner' });
      const got = await client.call('get_site', { site_url: 'https://blog.example.net' });
      expect(got.structuredContent).toEqual({ site_url: SEED_PROPERTIES.blog, permission_level: 'siteOwner' });
      const added = await client.call('add_site', { site_url: 'sc-domain:New-Domain.example' });
      expect(added.structuredContent).toMatchObject({ site_url: 'sc-domain:new-domain.example', added: true });
      expect(google.emulator.apiRequests().map((r) => `${r.method} ${r.route} ${r.params.siteUrl ?? ''}`.trim())).toEqual([
        'GET sites.list',
        `GET sites.get ${SEED_PROPERTIES.blog}`,
        'PUT sites.add sc-domain:new-domain.example',
        'GET sites.get sc-domain:new-domain.example',
      ]);
    } finally {
      await client.close();
    }
  });

  it('turns a Google error into a sentence, as an isError result', async () => {
    const client = await connectHttp(server.url, { revision }, auth);
    try {
      const result = await client.call('get_site', { site_url: 'https://not-mine.example/' });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/https:\/\/not-mine\.example\//);
      expect(text(result)).toMatch(/Nothing was changed/);
    } finally {
      await client.close();
    }
  });
});

describe('HTTP endpoint protection', () => {
  const post = (headers: Record<string, string>) =>
    fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '0' } },
      }),
    });

  it('refuses a missing or wrong bearer token with 401', async () => {
    expect((await post({})).status).toBe(401);
    const wrong = await post({ Authorization: 'Bearer wrong-token-wrong-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('refuses a foreign Origin (DNS rebinding) with 403 and a JSON-RPC error body', async () => {
    const res = await post({ ...auth, Origin: 'http://evil.example.com' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('refuses a foreign Host header on a loopback bind', async () => {
    // fetch() cannot set Host, so speak plain node:http.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        server.url,
        { method: 'POST', headers: { ...auth, Host: 'evil.example.com', 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });

  it('accepts a localhost Origin', async () => {
    const res = await post({ ...auth, Origin: 'http://localhost:5173' });
    expect(res.status).toBe(200);
  });

  it('answers /admin/health on loopback', async () => {
    const res = await fetch(`${server.origin}/admin/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('logs the credential kind and principal but never the key', () => {
    expect(server.stderr()).toMatch(
      /credential: service_account gsc-test@demo-project\.iam\.gserviceaccount\.com from GSC_SERVICE_ACCOUNT_KEY/,
    );
    expect(server.stderr()).not.toMatch(/PRIVATE KEY|http-token-for-tests/);
  });
});
