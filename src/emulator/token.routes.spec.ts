import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { searchconsole } from '@googleapis/searchconsole';
import { JWT, OAuth2Client } from 'google-auth-library';
import { emulatorJwtClient, emulatorRefreshClient } from './emulator-clients.js';
import { SCOPES } from './emulator-routing.js';
import { startEmulatorKit, type EmulatorKit } from '../../test/support/emulator-kit.js';
import { generateServiceAccountKey } from './service-account-key.js';

const UNAUTHENTICATED_MESSAGE =
  'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.';

let kit: EmulatorKit;

beforeAll(async () => {
  kit = await startEmulatorKit({}, { 'owner@example.com': [SCOPES.webmasters, SCOPES.webmastersReadonly] });
});
afterAll(() => kit.emulator.close());
beforeEach(() => kit.emulator.reset());

const scFor = (auth: JWT | OAuth2Client) => searchconsole({ version: 'v1', auth, rootUrl: `${kit.emulator.url}/` });
const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: { status: number; message: string; response: { data: unknown } }) => ({
      status: e.status,
      message: e.message,
      data: e.response.data,
    }),
  );

describe('jwt-bearer grant', () => {
  it('verifies the signed assertion, records the grant and issues a ya29 token', async () => {
    const auth = emulatorJwtClient(kit.emulator.url, kit.key, [SCOPES.webmastersReadonly]);
    const token = await auth.getAccessToken();
    expect(token.token).toMatch(/^ya29\./);
    expect(kit.emulator.tokenGrants).toEqual([
      { grantType: 'jwt-bearer', principal: kit.key.client_email, scopes: [SCOPES.webmastersReadonly], ok: true },
    ]);
    const req = kit.emulator.requests[0];
    expect(req).toMatchObject({ method: 'POST', rawPath: '/token', route: 'token', status: 200, principal: kit.key.client_email });
    expect(req.body).toMatchObject({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: expect.any(String) });
    expect(kit.emulator.apiRequests()).toEqual([]);
  });

  it('rejects an assertion signed with another key', async () => {
    const impostor = generateServiceAccountKey(kit.key.client_email);
    const auth = emulatorJwtClient(kit.emulator.url, impostor.key, [SCOPES.webmasters]);
    const e = await failure(auth.getAccessToken());
    expect(e.status).toBe(400);
    expect(e.data).toEqual({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
    expect(kit.emulator.tokenGrants.at(-1)).toMatchObject({ ok: false, error: 'invalid_grant', scopes: [SCOPES.webmasters] });
  });

  it('rejects an unknown service account', async () => {
    const stranger = generateServiceAccountKey('stranger@other-project.iam.gserviceaccount.com');
    const e = await failure(emulatorJwtClient(kit.emulator.url, stranger.key, [SCOPES.webmasters]).getAccessToken());
    expect(e.data).toEqual({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });
  });

  it('impersonates a delegated subject, who becomes the principal', async () => {
    const auth = emulatorJwtClient(kit.emulator.url, kit.key, [SCOPES.webmasters], 'owner@example.com');
    await scFor(auth).sites.list();
    expect(kit.emulator.tokenGrants[0]).toEqual({
      grantType: 'jwt-bearer',
      principal: 'owner@example.com',
      subject: 'owner@example.com',
      scopes: [SCOPES.webmasters],
      ok: true,
    });
    expect(kit.emulator.apiRequests()[0].principal).toBe('owner@example.com');
  });

  it.each([
    ['a subject nobody delegated', 'nobody@example.com', [SCOPES.webmasters]],
    ['a scope the admin did not delegate', 'owner@example.com', [SCOPES.webmasters, SCOPES.indexing]],
  ])('answers 401 unauthorized_client for %s', async (_name, subject, scopes) => {
    const e = await failure(emulatorJwtClient(kit.emulator.url, kit.key, scopes, subject).getAccessToken());
    expect(e.status).toBe(401);
    expect(e.message).toMatch(/^unauthorized_client: Client is unauthorized/);
    expect(e.data).toEqual({
      error: 'unauthorized_client',
      error_description:
        'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
    });
    expect(kit.emulator.tokenGrants.at(-1)).toMatchObject({ subject, scopes, ok: false });
  });

  it('accepts self-signed JWTs (useJWTAccessWithScope) without calling /token', async () => {
    const auth = new JWT({
      email: kit.key.client_email,
      key: kit.key.private_key,
      keyId: kit.key.private_key_id,
      scopes: [SCOPES.webmasters],
    });
    auth.useJWTAccessWithScope = true;
    await expect(scFor(auth).sites.list()).resolves.toMatchObject({ status: 200 });
    expect(kit.emulator.requests.map((r) => r.route)).toEqual(['sites.list']);
    expect(kit.emulator.requests[0].principal).toBe(kit.key.client_email);
  });
});

describe('refresh_token grant', () => {
  const creds = { clientId: 'cid.apps.googleusercontent.com', clientSecret: 'shh', refreshToken: '1//rt' };
  beforeEach(() => {
    kit.emulator.registerRefreshToken({ ...creds, user: 'person@example.com', scopes: [SCOPES.webmastersReadonly] });
  });

  it('issues a token carrying the registered scopes for the registered user', async () => {
    const auth = emulatorRefreshClient(kit.emulator.tokenUrl, creds);
    await scFor(auth).sites.list();
    expect(kit.emulator.requests[0].body).toEqual({
      refresh_token: '1//rt',
      client_id: creds.clientId,
      client_secret: 'shh',
      grant_type: 'refresh_token',
    });
    expect(kit.emulator.tokenGrants).toEqual([
      { grantType: 'refresh_token', principal: 'person@example.com', scopes: [SCOPES.webmastersReadonly], ok: true },
    ]);
    expect(kit.emulator.apiRequests()[0].principal).toBe('person@example.com');
    // readonly was all the user granted
    const e = await failure(scFor(auth).sites.add({ siteUrl: 'https://x.example.io/' }, { retry: false }));
    expect(e.status).toBe(403);
  });

  it('answers invalid_grant for a revoked refresh token', async () => {
    const auth = emulatorRefreshClient(kit.emulator.tokenUrl, { ...creds, refreshToken: '1//revoked' });
    const e = await failure(auth.getAccessToken());
    expect(e.status).toBe(400);
    expect(e.data).toEqual({ error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
    expect(kit.emulator.tokenGrants.at(-1)).toMatchObject({ grantType: 'refresh_token', ok: false, error: 'invalid_grant' });
  });

  it('answers invalid_client for a wrong client secret', async () => {
    const e = await failure(emulatorRefreshClient(kit.emulator.tokenUrl, { ...creds, clientSecret: 'nope' }).getAccessToken());
    expect(e.status).toBe(401);
    expect(e.data).toEqual({ error: 'invalid_client', error_description: 'Unauthorized' });
  });
});

describe('bearer checks on API calls', () => {
  it('answers 401 UNAUTHENTICATED without a token, in the classic shape on /webmasters', async () => {
    const res = await fetch(`${kit.emulator.url}/webmasters/v3/sites`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('invalid_token');
    expect(await res.json()).toEqual({
      error: {
        code: 401,
        message: UNAUTHENTICATED_MESSAGE,
        errors: [
          { message: 'Invalid Credentials', domain: 'global', reason: 'authError', locationType: 'header', location: 'Authorization' },
        ],
        status: 'UNAUTHENTICATED',
      },
    });
  });

  it('answers 401 without errors[] on the One Platform surfaces, for unknown and expired tokens', async () => {
    const unknown = await fetch(`${kit.emulator.url}/v3/urlNotifications/metadata?url=x`, {
      headers: { authorization: 'Bearer ya29.nope' },
    });
    expect(await unknown.json()).toEqual({ error: { code: 401, message: UNAUTHENTICATED_MESSAGE, status: 'UNAUTHENTICATED' } });

    const expired = kit.emulator.issueAccessToken({ principal: 'x@example.com', scopes: [SCOPES.webmasters], lifetimeSeconds: -1 });
    const client = new OAuth2Client();
    client.setCredentials({ access_token: expired, expiry_date: Date.now() + 3600_000 });
    const e = await failure(scFor(client).sites.list({}, { retry: false }));
    expect(e.status).toBe(401);
    expect(kit.emulator.apiRequests().at(-1)).toMatchObject({ status: 401, principal: undefined });
  });

  it('accepts a directly issued token (static-token demo mode)', async () => {
    const client = new OAuth2Client();
    client.setCredentials({
      access_token: kit.emulator.issueAccessToken({ principal: 'demo@example.com', scopes: [SCOPES.webmasters] }),
      expiry_date: Date.now() + 3600_000,
    });
    await expect(scFor(client).sites.list()).resolves.toMatchObject({ status: 200 });
    expect(kit.emulator.apiRequests().at(-1)!.principal).toBe('demo@example.com');
  });
});
