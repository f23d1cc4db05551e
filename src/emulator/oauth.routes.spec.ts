import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { searchconsole } from '@googleapis/searchconsole';
import { CodeChallengeMethod, OAuth2Client } from 'google-auth-library';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SCOPES } from './emulator-routing.js';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { GoogleEmulator } from './google-emulator.js';

const CLIENT = { clientId: 'web-client.apps.googleusercontent.com', clientSecret: 'GOCSPX-web-secret' };
const EMAIL = 'https://www.googleapis.com/auth/userinfo.email';

let emulator: GoogleEmulator;
let callback: Server;
let redirectUri: string;

beforeAll(async () => {
  emulator = await GoogleEmulator.start();
  // The app's redirect target: a real page for the browser to land on.
  callback = createServer((_req, res) => res.end('callback reached'));
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  emulator.registerOAuthClient({ ...CLIENT, redirectUris: [redirectUri] });
});
afterAll(async () => {
  await emulator.close();
  await new Promise((resolve) => callback.close(resolve));
});

function oauthClient(): OAuth2Client {
  return new OAuth2Client({
    ...CLIENT,
    redirectUri,
    endpoints: {
      oauth2AuthBaseUrl: `${emulator.url}/o/oauth2/v2/auth`,
      oauth2TokenUrl: emulator.tokenUrl,
      oauth2RevokeUrl: `${emulator.url}/revoke`,
    },
  });
}

async function authUrl(client: OAuth2Client, scope: string[], state = 'state-123') {
  const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync();
  const url = client.generateAuthUrl({
    access_type: 'offline',
    prompt: 'consent',
    include_granted_scopes: true,
    scope,
    state,
    code_challenge: codeChallenge,
    code_challenge_method: CodeChallengeMethod.S256,
  });
  return { url, codeVerifier };
}

/** Answers the consent page over plain HTTP, as a browser posting the form would. */
async function consent(url: string, input: { user: string; untick?: string[]; decision?: 'allow' | 'deny' }): Promise<URL> {
  const html = await (await fetch(url)).text();
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  if (!request) {
    throw new Error(`no consent form: ${html}`);
  }
  const form = new URLSearchParams({ request, user: input.user, decision: input.decision ?? 'allow' });
  for (const s of new URL(url).searchParams.get('scope')!.split(' ')) {
    if (!input.untick?.includes(s)) {
      form.append('scope', s);
    }
  }
  const res = await fetch(`${emulator.url}/o/oauth2/v2/auth/consent`, { method: 'POST', body: form, redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

async function connect(user: string, scope: string[], untick: string[] = []) {
  const client = oauthClient();
  const { url, codeVerifier } = await authUrl(client, scope);
  const back = await consent(url, { user, untick });
  const { tokens } = await client.getToken({ code: back.searchParams.get('code')!, codeVerifier });
  client.setCredentials(tokens);
  return { client, tokens };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: { status: number; response: { data: unknown } }) => ({ status: e.status, data: e.response?.data }),
  );

const sc = (auth: OAuth2Client) => searchconsole({ version: 'v1', auth, rootUrl: `${emulator.url}/` });

describe('authorization code + PKCE with the real OAuth2Client', () => {
  it('exchanges the code for offline tokens carrying exactly the granted scopes, and userinfo names the chosen user', async () => {
    const { client, tokens } = await connect(
      'alice@example.com',
      ['openid', 'email', SCOPES.webmastersReadonly, SCOPES.webmasters],
      [SCOPES.webmasters],
    );
    expect(tokens.refresh_token).toMatch(/^1\/\/0/);
    expect(tokens.access_token).toMatch(/^ya29\./);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.scope!.split(' ').sort()).toEqual(['openid', EMAIL, SCOPES.webmastersReadonly].sort());
    const info = await client.request<Record<string, unknown>>({ url: `${emulator.url}/oauth2/v3/userinfo` });
    expect(info.data).toEqual({ sub: '110000000000000000001', email: 'alice@example.com', email_verified: true });
  });

  it('answers userinfo 401 for a token without openid/email', async () => {
    const { client } = await connect('bob@example.net', [SCOPES.webmastersReadonly]);
    const e = await failure(client.request({ url: `${emulator.url}/oauth2/v3/userinfo` }));
    expect(e.status).toBe(401);
  });

  it('refuses a code used twice and a wrong code_verifier with invalid_grant', async () => {
    const client = oauthClient();
    const first = await authUrl(client, ['openid', SCOPES.webmastersReadonly]);
    const code = (await consent(first.url, { user: 'alice@example.com' })).searchParams.get('code')!;
    await client.getToken({ code, codeVerifier: first.codeVerifier });
    const twice = await failure(client.getToken({ code, codeVerifier: first.codeVerifier }));
    expect(twice).toMatchObject({ status: 400, data: { error: 'invalid_grant' } });

    const second = await authUrl(client, ['openid', SCOPES.webmastersReadonly]);
    const code2 = (await consent(second.url, { user: 'alice@example.com' })).searchParams.get('code')!;
    const wrong = await failure(client.getToken({ code: code2, codeVerifier: first.codeVerifier }));
    expect(wrong).toMatchObject({ status: 400, data: { error: 'invalid_grant', error_description: 'Invalid code verifier.' } });
  });

  it('refreshes for the same user and scopes; after revocation refresh is invalid_grant and the access token stops working', async () => {
    const { client, tokens } = await connect('alice@example.com', ['openid', SCOPES.webmastersReadonly]);
    const refreshed = await client.refreshAccessToken();
    expect(refreshed.credentials.access_token).not.toBe(tokens.access_token);
    expect(refreshed.credentials.scope).toBe(tokens.scope);
    expect((await sc(client).sites.list()).status).toBe(200);

    await client.revokeToken(tokens.refresh_token!);
    const e = await failure(client.refreshAccessToken());
    expect(e).toEqual({ status: 400, data: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } });
    const after = await fetch(`${emulator.url}/webmasters/v3/sites`, {
      headers: { authorization: `Bearer ${refreshed.credentials.access_token}` },
    });
    expect(after.status).toBe(401);
  });

  it("lets a test fail one user's refresh with a 5xx, leaving the grant and other users intact", async () => {
    const bob = await connect('bob@example.net', [SCOPES.webmastersReadonly]);
    const alice = await connect('alice@example.com', [SCOPES.webmastersReadonly]);
    // Every attempt fails (the client library retries 5xx on its own).
    emulator.injectFault({
      route: 'token',
      status: 503,
      times: Infinity,
      bodyMatches: { grant_type: 'refresh_token', emulator_user: 'bob@example.net' },
    });
    try {
      const e = await failure(bob.client.refreshAccessToken());
      expect(e.status).toBe(503);
      expect((await alice.client.refreshAccessToken()).credentials.access_token).toMatch(/^ya29\./);
    } finally {
      emulator.clearFaults();
    }
    expect((await bob.client.refreshAccessToken()).credentials.access_token).toMatch(/^ya29\./);
  });
});

describe('per-user Search Console permissions', () => {
  it('shows two users different properties and answers 403 for one the user cannot see', async () => {
    const alice = await connect('alice@example.com', [SCOPES.webmastersReadonly]);
    const bob = await connect('bob@example.net', [SCOPES.webmastersReadonly]);
    const list = async (c: OAuth2Client) =>
      ((await sc(c).sites.list()).data.siteEntry ?? []).map((s) => `${s.siteUrl} ${s.permissionLevel}`);
    const aliceSites = await list(alice.client);
    const bobSites = await list(bob.client);
    expect(aliceSites).toContain(`${SEED_PROPERTIES.owned} siteOwner`);
    expect(bobSites).toContain(`${SEED_PROPERTIES.owned} siteRestrictedUser`);
    expect(bobSites).toContain(`${SEED_PROPERTIES.blog} siteOwner`);
    expect(aliceSites).not.toContain(`${SEED_PROPERTIES.blog} siteOwner`);
    const e = await failure(sc(alice.client).sites.get({ siteUrl: SEED_PROPERTIES.blog }));
    expect(e.status).toBe(403);
    expect(JSON.stringify(e.data)).toContain(`User does not have sufficient permission for site '${SEED_PROPERTIES.blog}'.`);
  });
});

describe('authorization endpoint validation', () => {
  const base = () => ({
    client_id: CLIENT.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: SCOPES.webmastersReadonly,
    code_challenge: 'a'.repeat(43),
    code_challenge_method: 'S256',
  });
  const get = async (params: Record<string, string>) => {
    const res = await fetch(`${emulator.url}/o/oauth2/v2/auth?${new URLSearchParams(params).toString()}`, { redirect: 'manual' });
    return { status: res.status, text: await res.text() };
  };
  it.each([
    [{ client_id: 'nope' }, 401, 'invalid_client'],
    [{ redirect_uri: 'https://evil.example/cb' }, 400, 'redirect_uri_mismatch'],
    [{ response_type: 'token' }, 400, 'invalid_request'],
    [{ code_challenge_method: 'plain' }, 400, 'invalid_request'],
    [{ scope: 'https://www.googleapis.com/auth/drive' }, 400, 'invalid_scope'],
    [{ access_type: 'forever' }, 400, 'invalid_request'],
  ])('refuses %j with an error page', async (override, status, error) => {
    const r = await get({ ...base(), ...override });
    expect(r.status).toBe(status);
    expect(r.text).toContain(`Error ${status}: ${error}`);
  });
  it('escapes page values', async () => {
    const r = await get({ ...base(), redirect_uri: '<script>x</script>' });
    expect(r.text).not.toContain('<script>');
    expect(r.text).toContain('&#60;script&#62;');
  });
  it('lets a Desktop client redirect to any loopback port and path (native-app loopback rule), and nowhere else', async () => {
    const desktop = { clientId: 'desktop-client.apps.googleusercontent.com', clientSecret: 'GOCSPX-desktop', redirectUris: [] };
    emulator.registerOAuthClient({ ...desktop, type: 'desktop' });
    const consent = (uri: string) => get({ ...base(), client_id: desktop.clientId, redirect_uri: uri });
    for (const uri of ['http://127.0.0.1:49152/connect/google/callback', 'http://[::1]:8080/', 'http://localhost:3000/cb']) {
      expect((await consent(uri)).text).toContain('Choose an account');
    }
    for (const uri of ['https://127.0.0.1:49152/cb', 'http://127.0.0.2:49152/cb', 'http://evil.example:49152/cb']) {
      expect((await consent(uri)).text).toContain('Error 400: redirect_uri_mismatch');
    }
    // A Web client keeps the exact match: another port of the same loopback address is refused.
    expect((await get({ ...base(), redirect_uri: redirectUri.replace(/:\d+\//, ':1/') })).text).toContain('redirect_uri_mismatch');
  });
});

describe('incremental authorization and control API', () => {
  it('adds earlier grants back with include_granted_scopes, and a permission set over HTTP changes that user only', async () => {
    const first = await connect('carol@example.org', ['openid', SCOPES.indexing]);
    expect(first.tokens.scope!.split(' ')).toContain(SCOPES.indexing);
    const second = await connect('carol@example.org', ['openid', SCOPES.webmastersReadonly]);
    expect(second.tokens.scope!.split(' ').sort()).toEqual(['openid', SCOPES.indexing, SCOPES.webmastersReadonly].sort());

    expect((await sc(second.client).sites.list()).data).toEqual({});
    const res = await fetch(`${emulator.url}/__emulator/user-permissions`, {
      method: 'POST',
      body: JSON.stringify({ email: 'carol@example.org', siteUrl: SEED_PROPERTIES.blog, level: 'siteFullUser' }),
    });
    expect(res.status).toBe(200);
    expect((await sc(second.client).sites.list()).data).toEqual({
      siteEntry: [{ siteUrl: SEED_PROPERTIES.blog, permissionLevel: 'siteFullUser' }],
    });
    const bad = await fetch(`${emulator.url}/__emulator/user-permissions`, {
      method: 'POST',
      body: JSON.stringify({ email: 'carol@example.org', siteUrl: 'x', level: 'admin' }),
    });
    expect(bad.status).toBe(400);
  });
});

describe('per-user view beyond sites', () => {
  it("applies a user's levels to URL Inspection and Indexing ownership", async () => {
    const bob = await connect('bob@example.net', [SCOPES.webmastersReadonly, SCOPES.indexing]);
    const alice = await connect('alice@example.com', [SCOPES.webmastersReadonly, SCOPES.indexing]);
    const inspect = (c: OAuth2Client, siteUrl: string) =>
      c.request({
        url: `${emulator.url}/v1/urlInspection/index:inspect`,
        method: 'POST',
        data: { inspectionUrl: `${siteUrl}post`, siteUrl },
      });
    expect((await inspect(bob.client, SEED_PROPERTIES.blog)).status).toBe(200);
    expect((await failure(inspect(alice.client, SEED_PROPERTIES.blog))).status).toBe(403);
    const publish = (c: OAuth2Client) =>
      c.request({
        url: `${emulator.url}/v3/urlNotifications:publish`,
        method: 'POST',
        data: { url: `${SEED_PROPERTIES.owned}page`, type: 'URL_UPDATED' },
      });
    expect((await publish(alice.client)).status).toBe(200);
    // Bob is only a restricted user of www.example.com: not an owner.
    expect((await failure(publish(bob.client))).status).toBe(403);
  });
});
