import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import {
  ClientCredentialsProvider as V2ClientCredentials,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/client';
import { ClientCredentialsProvider as V1ClientCredentials } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { connectHttp, text } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';
import { modernToolCall } from './support/modern-wire.js';
import { freePort, INITIALIZE, rawRequest } from './support/raw-http.js';
import { TestIssuer } from './support/test-issuer.js';

// The built server as an OAuth 2.1 resource server (PRODUCT §8b; MCP
// authorization 2025-11-25): the 401 challenge, the RFC 9728 documents, the
// tokens it must refuse, an issuer that is down, and the official clients of
// both protocol revisions getting in with tokens from a real signing issuer
// (test/support/test-issuer.ts) — including the SDKs' own OAuth discovery,
// driven by nothing but our 401.

const now = () => Math.floor(Date.now() / 1000);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let google: TestGoogle;
let issuer: TestIssuer;
let server: HttpBinary;
/** The server's canonical URL, used as its audience (the form the MCP specification prefers). */
let audience: string;
let port: number;

beforeAll(async () => {
  google = await startGoogle();
  port = await freePort();
  audience = `http://127.0.0.1:${port}/mcp`;
  issuer = await TestIssuer.start({ audience });
  issuer.registerClient('alice-cli', 'alice-cli-secret-0123456789', { email: 'alice@corp.example', groups: ['seo'] });
  server = await spawnHttpBinary({
    ...google.env,
    GSC_HTTP_PORT: String(port),
    GSC_AUTH_ISSUER: issuer.issuer,
    GSC_AUTH_AUDIENCE: audience,
  });
});
afterAll(async () => {
  await server?.stop();
  await issuer?.close();
  await google?.emulator.close();
});

beforeEach(() => google.emulator.reset());

const metadataUrl = () => `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;

describe('without a token', () => {
  it.each([
    ['POST initialize (2025-11-25)', { method: 'POST', body: INITIALIZE }],
    [
      'POST tools/call (2026-07-28)',
      {
        method: 'POST',
        body: {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'list_sites', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
        },
      },
    ],
    ['GET (the 2025 stream)', { method: 'GET', headers: { accept: 'text/event-stream' } }],
    ['DELETE (ending a session)', { method: 'DELETE', headers: { 'mcp-session-id': 'whatever' } }],
  ])('%s → 401 with WWW-Authenticate: Bearer resource_metadata="…" and no error code', async (_, options) => {
    const res = await rawRequest(server.url, options);
    expect(res.status).toBe(401);
    // RFC 6750 §3.1: no error code when the request carried no credential at all.
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
    expect(res.json).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32000, message: expect.stringMatching(/Authorization: Bearer/) },
      id: null,
    });
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });

  it('a token in the query string is not a token (MCP: never in the URI)', async () => {
    const token = await issuer.mint();
    const res = await rawRequest(`${server.url}?access_token=${token}`, { method: 'POST', body: INITIALIZE });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
  });

  it('the SDK reads the challenge and finds the document through it', async () => {
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(INITIALIZE),
    });
    await res.text();
    const params = extractWWWAuthenticateParams(res);
    expect(params.resourceMetadataUrl?.href).toBe(metadataUrl());
    const discovered = await discoverOAuthProtectedResourceMetadata(server.url, { resourceMetadataUrl: params.resourceMetadataUrl });
    expect(discovered).toMatchObject({ resource: audience, authorization_servers: [issuer.issuer] });
  });
});

describe('the protected-resource metadata (RFC 9728)', () => {
  it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])(
    '%s is public and names this resource and its issuer',
    async (path) => {
      const res = await rawRequest(`${server.origin}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      // Without GSC_PUBLIC_URL the resource is the audience (a URL here); no scopes are configured, so none are listed.
      expect(res.json).toEqual({ resource: audience, authorization_servers: [issuer.issuer], bearer_methods_supported: ['header'] });
    },
  );

  it('is refused to a DNS-rebinding Host like every route', async () => {
    const res = await rawRequest(`${server.origin}/.well-known/oauth-protected-resource`, { headers: { host: 'attacker.example' } });
    expect(res.status).toBe(403);
  });
});

describe('tokens that must be refused: 401 with error="invalid_token"', () => {
  const cases: [string, () => Promise<string> | string][] = [
    ['another issuer', () => issuer.mint({ iss: 'http://127.0.0.1:1/other-issuer' })],
    ['another audience', () => issuer.mint({ aud: 'https://other.example/mcp' })],
    ['an audience list without this server', () => issuer.mint({ aud: ['https://a.example/', 'https://b.example/'] })],
    ['expired an hour ago', () => issuer.mint({ iat: now() - 7200, exp: now() - 3600 })],
    ['expired past the 60 s leeway', () => issuer.mint({ iat: now() - 700, exp: now() - 90 })],
    ['not valid for another hour (nbf)', () => issuer.mint({ nbf: now() + 3600 })],
    ['without exp', () => issuer.mint({ exp: undefined })],
    ['signed by a key the issuer never published (under its kid)', () => issuer.mint({ signWith: 'foreign' })],
    ['signed by a key the issuer never published (its own kid)', () => issuer.mint({ signWith: 'foreign', kid: 'not-a-published-kid' })],
    ['alg: none', () => issuer.forgeNone()],
    ['HS256 keyed with the public key (PEM)', () => issuer.forgeHs256WithPublicKey()],
    ['HS256 keyed with the public key (JWK)', () => issuer.forgeHs256WithPublicKey({}, 'jwk')],
    ['an unverified e-mail address', () => issuer.mint({ email_verified: false })],
    ['a groups claim that is one string, not a list (a mis-mapped claim)', () => issuer.mint({ groups: 'seo' })],
    ['a principal claim that is not a string', () => issuer.mint({ email: ['alice@corp.example'] })],
    ['a signature cut off', async () => (await issuer.mint()).replace(/\.[^.]+$/, '.')],
    ['not a JWT', () => 'opaque-access-token-0123456789'],
  ];

  it.each(cases)('%s', async (_, make) => {
    const token = await make();
    for (const body of [
      INITIALIZE,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'list_sites', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
      },
    ]) {
      const res = await rawRequest(server.url, { body, headers: bearer(token) });
      expect(res.status).toBe(401);
      const challenge = String(res.headers['www-authenticate']);
      expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="([^"]+)"$/);
      expect(challenge).toContain(`resource_metadata="${metadataUrl()}"`);
      // The sentence says what is wrong and carries nothing of the token.
      expect(challenge).not.toContain(token.split('.')[1]?.slice(0, 16) || token);
      expect(res.json.error.message).toMatch(/The access token is refused: /);
    }
    expect(google.emulator.apiRequests()).toHaveLength(0);
  });

  it('a malformed Authorization header is refused the same way', async () => {
    const res = await rawRequest(server.url, { body: INITIALIZE, headers: { authorization: 'Basic YWxpY2U6c2VjcmV0' } });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(
      /^Bearer error="invalid_token", error_description="The Authorization header is not a Bearer token", resource_metadata=/,
    );
  });
});

describe('tokens that must be accepted', () => {
  it.each([
    ['a fresh token', () => issuer.mint()],
    ['expired 30 s ago (inside the leeway)', () => issuer.mint({ iat: now() - 600, exp: now() - 30 })],
    ['valid from 30 s from now (inside the leeway)', () => issuer.mint({ nbf: now() + 30 })],
    ['an audience list that contains this server', () => issuer.mint({ aud: ['https://other.example/', audience] })],
    ['no email claim: the principal is sub', () => issuer.mint({ email: undefined, sub: 'opaque-subject-42' })],
  ])('%s', async (_, make) => {
    const answer = await modernToolCall(server.url, 'list_sites', {}, { headers: bearer(await make()) });
    expect(answer.status).toBe(200);
    expect(answer.body.result.isError).toBeFalsy();
    expect(answer.body.result.structuredContent.sites.length).toBeGreaterThan(0);
  });
});

describe('the official clients authenticate with tokens from the issuer, over Streamable HTTP', () => {
  it('v2 client pinned to 2026-07-28, the SDK’s ClientCredentialsProvider: it discovers the issuer from our 401 and asks for a token for this resource (RFC 8707)', async () => {
    const before = issuer.tokenRequests.length;
    const client = await connectHttp(server.url, {
      revision: '2026-07-28',
      authProvider: new V2ClientCredentials({
        clientId: 'alice-cli',
        clientSecret: 'alice-cli-secret-0123456789',
        expectedIssuer: issuer.issuer,
      }),
    });
    try {
      expect((await client.listTools()).length).toBe(24);
      const result = await client.call('get_site', { site_url: 'https://www.example.com/' });
      expect(result.isError).toBeFalsy();
      const requests = issuer.tokenRequests.slice(before);
      expect(requests).toHaveLength(1);
      expect(requests[0]).toMatchObject({ clientId: 'alice-cli', form: { grant_type: 'client_credentials', resource: audience } });
    } finally {
      await client.close();
    }
  });

  it('v1 client on 2025-11-25, the SDK’s ClientCredentialsProvider: the same discovery, and a session', async () => {
    const before = issuer.tokenRequests.length;
    const client = await connectHttp(server.url, {
      revision: '2025-11-25',
      authProvider: new V1ClientCredentials({
        clientId: 'alice-cli',
        clientSecret: 'alice-cli-secret-0123456789',
        expectedIssuer: issuer.issuer,
      }),
    });
    try {
      expect(client.raw.transport.sessionId).toEqual(expect.any(String));
      expect((await client.listTools()).length).toBe(24);
      expect((await client.call('list_sitemaps', { site_url: 'https://www.example.com/' })).isError).toBeFalsy();
      expect(issuer.tokenRequests.slice(before).map((r) => r.form.resource)).toEqual([audience]);
    } finally {
      await client.close();
    }
  });

  it('v2 client with a minimal AuthProvider: an expired token gets the 401, onUnauthorized fetches a fresh one, the retry goes through', async () => {
    let current = await issuer.mint({ iat: now() - 7200, exp: now() - 3600 });
    const unauthorized: string[] = [];
    const client = await connectHttp(server.url, {
      revision: '2026-07-28',
      authProvider: {
        token: async () => current,
        onUnauthorized: async ({ response }: { response: Response }) => {
          unauthorized.push(response.headers.get('www-authenticate') ?? '');
          current = await issuer.mint();
        },
      },
    });
    try {
      expect((await client.listTools()).map((t) => t.name)).toContain('list_sites');
      expect(unauthorized).toHaveLength(1);
      expect(unauthorized[0]).toMatch(/error="invalid_token", error_description="the access token has expired"/);
    } finally {
      await client.close();
    }
  });

  it('v1 client with a static Authorization header', async () => {
    const client = await connectHttp(server.url, { revision: '2025-11-25' }, bearer(await issuer.mint()));
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBeFalsy();
      expect(text(result)).toMatch(/https:\/\/www\.example\.com\//);
    } finally {
      await client.close();
    }
  });

  it('every request of a 2025 session is authenticated on its own: the session id without the token is 401', async () => {
    const token = await issuer.mint();
    const init = await rawRequest(server.url, { body: INITIALIZE, headers: bearer(token) });
    const session = String(init.headers['mcp-session-id']);
    expect(session).toMatch(/\S/);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const without = await rawRequest(server.url, {
      body: list,
      headers: { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(without.status).toBe(401);
    const expired = await rawRequest(server.url, {
      body: list,
      headers: {
        ...bearer(await issuer.mint({ iat: now() - 7200, exp: now() - 3600 })),
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
    });
    expect(expired.status).toBe(401);
    const withToken = await rawRequest(server.url, {
      body: list,
      headers: { ...bearer(token), 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(withToken.status).toBe(200);
    expect(withToken.json.result.tools).toHaveLength(24);
  });
});

describe('an issuer that cannot be reached: 503 with Retry-After, never 401', () => {
  // A fresh server each time: the first token makes it discover the issuer's keys.
  const startAgainst = async (issuerUrl: string) =>
    spawnHttpBinary({ ...google.env, GSC_AUTH_ISSUER: issuerUrl, GSC_AUTH_AUDIENCE: 'https://mcp.test.example/mcp' });

  const expectUnavailable = async (target: HttpBinary, token: string) => {
    const res = await rawRequest(target.url, { body: INITIALIZE, headers: bearer(token) });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.json.error.message).toMatch(/cannot be checked right now: the issuer signing keys cannot be fetched/);
  };

  it('the issuer’s host does not answer', async () => {
    const gone = await TestIssuer.start({ audience: 'https://mcp.test.example/mcp' });
    const token = await gone.mint();
    await gone.close();
    const target = await startAgainst(gone.issuer);
    try {
      await expectUnavailable(target, token);
      // Without a token there is nothing to check: still the 401 challenge.
      expect((await rawRequest(target.url, { body: INITIALIZE })).status).toBe(401);
      expect(target.stderr()).toMatch(/OAuth issuer http:\/\/127\.0\.0\.1:\d+: fetching the metadata at .* failed/);
    } finally {
      await target.stop();
    }
  });

  it('the key set answers 503', async () => {
    const down = await TestIssuer.start({ audience: 'https://mcp.test.example/mcp' });
    down.jwksStatus = 503;
    const target = await startAgainst(down.issuer);
    try {
      await expectUnavailable(target, await down.mint());
      expect(down.jwksRequests).toBe(1);
      // Inside the cooldown nothing more is asked of an issuer that is already struggling.
      await expectUnavailable(target, await down.mint());
      expect(down.jwksRequests).toBe(1);
    } finally {
      await target.stop();
      await down.close();
    }
  });

  it('the issuer accepts the connection and never answers (5 s deadline)', async () => {
    const hung = await TestIssuer.start({ audience: 'https://mcp.test.example/mcp' });
    hung.hang = true;
    const target = await startAgainst(hung.issuer);
    try {
      await expectUnavailable(target, await hung.mint());
    } finally {
      await target.stop();
      await hung.close();
    }
  }, 20000);
});
