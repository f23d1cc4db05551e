import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startGoogle, type TestGoogle } from './support/google.js';
import { INITIALIZE, rawRequest } from './support/raw-http.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { TestIssuer } from './support/test-issuer.js';

// The RFC 9728 document and the challenge that points at it, for the ways a
// deployment names itself (PRODUCT §8b): `resource` is GSC_PUBLIC_URL + /mcp,
// else the audience when it is a URL, else the URL the request came in on; the
// challenge's resource_metadata is built from where the endpoint is served.
// In-process servers: these are settings, not process behaviour.

let google: TestGoogle;
let issuer: TestIssuer;
const servers: InProcessServer[] = [];

beforeAll(async () => {
  google = await startGoogle();
  issuer = await TestIssuer.start();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await issuer?.close();
  await google?.emulator.close();
});

async function serve(env: Record<string, string>): Promise<InProcessServer> {
  const server = await startInProcess({ ...google.env, ...env });
  servers.push(server);
  return server;
}

const oauth = (audience: string, extra: Record<string, string> = {}) => ({
  GSC_AUTH_ISSUER: issuer.issuer,
  GSC_AUTH_AUDIENCE: audience,
  ...extra,
});
const port = (server: InProcessServer) => new URL(server.origin).port;

async function documents(server: InProcessServer, host?: string) {
  const headers = host ? { host } : undefined;
  const root = await rawRequest(`${server.origin}/.well-known/oauth-protected-resource`, { headers });
  const endpoint = await rawRequest(`${server.origin}/.well-known/oauth-protected-resource/mcp`, { headers });
  expect(root.status).toBe(200);
  expect(endpoint.json).toEqual(root.json);
  return root.json as Record<string, unknown>;
}

async function challenge(server: InProcessServer, host?: string): Promise<string> {
  const res = await rawRequest(server.url, { body: INITIALIZE, headers: host ? { host } : undefined });
  expect(res.status).toBe(401);
  return String(res.headers['www-authenticate']);
}

describe('GSC_PUBLIC_URL names the resource (behind a proxy)', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await serve(oauth('api://search-console', { GSC_PUBLIC_URL: 'https://mcp.corp.example' }));
  });

  it('the documents say resource = GSC_PUBLIC_URL + /mcp, whatever Host the request came with', async () => {
    for (const host of ['mcp.corp.example', `127.0.0.1:${port(server)}`]) {
      expect(await documents(server, host)).toEqual({
        resource: 'https://mcp.corp.example/mcp',
        authorization_servers: [issuer.issuer],
        bearer_methods_supported: ['header'],
      });
    }
  });

  it('the challenge points at the public document', async () => {
    expect(await challenge(server, 'mcp.corp.example')).toBe(
      'Bearer resource_metadata="https://mcp.corp.example/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it('a Host other than the public one or loopback is refused', async () => {
    expect((await rawRequest(`${server.origin}/.well-known/oauth-protected-resource`, { headers: { host: 'other.example' } })).status).toBe(
      403,
    );
    expect((await rawRequest(server.url, { body: INITIALIZE, headers: { host: 'other.example' } })).status).toBe(403);
  });
});

describe('GSC_PUBLIC_URL with a path (the server under /search-console on a shared host)', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await serve(oauth('https://corp.example/search-console/mcp', { GSC_PUBLIC_URL: 'https://corp.example/search-console/' }));
  });

  it('resource keeps the path; the challenge inserts the well-known string after the host (RFC 9728 §3.1)', async () => {
    expect((await documents(server, 'corp.example')).resource).toBe('https://corp.example/search-console/mcp');
    expect(await challenge(server, 'corp.example')).toBe(
      'Bearer resource_metadata="https://corp.example/.well-known/oauth-protected-resource/search-console/mcp"',
    );
  });
});

describe('without GSC_PUBLIC_URL', () => {
  it('an audience that is a URL is the resource', async () => {
    const server = await serve(oauth('https://mcp.test.example/mcp'));
    expect((await documents(server)).resource).toBe('https://mcp.test.example/mcp');
    // The challenge always points at a document this server serves: built from the request, not the audience.
    expect(await challenge(server)).toBe(
      `Bearer resource_metadata="http://127.0.0.1:${port(server)}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('an audience that is not a URL (api://…) leaves the resource to the URL the request came in on', async () => {
    const server = await serve(oauth('api://search-console'));
    expect((await documents(server)).resource).toBe(`http://127.0.0.1:${port(server)}/mcp`);
    expect((await documents(server, `localhost:${port(server)}`)).resource).toBe(`http://localhost:${port(server)}/mcp`);
  });
});

describe('outside OAuth mode there is no protected-resource document', () => {
  it.each([
    ['loopback without a token (principal local)', {}],
    ['GSC_HTTP_TOKEN (principal token)', { GSC_HTTP_TOKEN: 'a-shared-bearer-token-0123456789' }],
  ])('%s: both well-known paths are 404', async (_, env) => {
    const server = await serve(env);
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      expect((await rawRequest(`${server.origin}${path}`)).status).toBe(404);
    }
  });

  it('the shared token’s 401 is a plain Bearer challenge, without resource_metadata', async () => {
    const server = await serve({ GSC_HTTP_TOKEN: 'a-shared-bearer-token-0123456789' });
    const res = await rawRequest(server.url, { body: INITIALIZE });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).not.toMatch(/resource_metadata/);
  });
});
