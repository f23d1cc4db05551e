import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { emulatorJwtClient } from './emulator-clients.js';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { SCOPES } from './emulator-routing.js';
import { startEmulatorKit, type EmulatorKit } from '../../test/support/emulator-kit.js';
import { generateServiceAccountKey } from './service-account-key.js';
import { searchconsole } from '@googleapis/searchconsole';

let kit: EmulatorKit;
let token: string;

beforeAll(async () => {
  kit = await startEmulatorKit({ now: () => new Date('2026-11-30T20:30:00Z') });
  token = (await kit.auth.getAccessToken()).token!;
});
afterAll(() => kit.emulator.close());
beforeEach(() => kit.emulator.reset());

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: { status: number; message: string; response: { data: unknown; headers: Headers } }) => ({
      status: e.status,
      message: e.message,
      data: e.response.data,
      headers: e.response.headers,
    }),
  );
const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${kit.emulator.url}/__emulator/${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

describe('routing', () => {
  it('answers an unknown path with a Google-style 404 and logs it as unknown', async () => {
    const res = await fetch(`${kit.emulator.url}/webmasters/v3/nothing`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 404, status: 'NOT_FOUND', errors: [{ reason: 'notFound' }] } });
    expect(kit.emulator.requests.at(-1)).toMatchObject({ route: 'unknown', status: 404, rawPath: '/webmasters/v3/nothing' });
  });

  it('answers a wrong method with 405', async () => {
    const res = await fetch(`${kit.emulator.url}/webmasters/v3/sites`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ error: { code: 405, errors: [{ reason: 'httpMethodNotAllowed' }] } });
  });

  it('answers malformed JSON with 400', async () => {
    const res = await fetch(`${kit.emulator.url}/webmasters/v3/sites/sc-domain%3Aexample.com/searchAnalytics/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"startDate":',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });
});

describe('fault injection', () => {
  it("answers an injected 429 with Retry-After and the route's own quota body, once", async () => {
    kit.emulator.injectFault({ route: 'sites.list', status: 429, retryAfter: 7 });
    const e = await failure(kit.sc.sites.list({}, { retry: false }));
    expect(e.status).toBe(429);
    expect(e.headers.get('retry-after')).toBe('7');
    expect(e.data).toEqual({
      error: {
        code: 429,
        message: 'Rate Limit Exceeded',
        errors: [{ message: 'Rate Limit Exceeded', domain: 'usageLimits', reason: 'rateLimitExceeded' }],
        status: 'RESOURCE_EXHAUSTED',
      },
    });
    expect(e.message).toBe('Rate Limit Exceeded');
    await expect(kit.sc.sites.list()).resolves.toMatchObject({ status: 200 });
    expect(kit.emulator.apiRequests().map((r) => r.status)).toEqual([429, 200]);
  });

  it('lets the client library retry a GET through injected 503s', async () => {
    kit.emulator.injectFault({ route: 'sites.get', status: 503, times: 2 });
    await expect(kit.sc.sites.get({ siteUrl: SEED_PROPERTIES.owned })).resolves.toMatchObject({ status: 200 });
    expect(kit.emulator.apiRequests().map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('answers 500 as backendError/INTERNAL and changes no state', async () => {
    kit.emulator.injectFault({ route: 'sitemaps.submit', status: 500 });
    const feedpath = 'https://www.example.com/faulted.xml';
    const e = await failure(kit.sc.sitemaps.submit({ siteUrl: SEED_PROPERTIES.owned, feedpath }, { retry: false }));
    expect(e.data).toMatchObject({ error: { code: 500, status: 'INTERNAL', errors: [{ reason: 'backendError' }] } });
    expect(kit.emulator.state.sitemapsOf(SEED_PROPERTIES.owned).some((s) => s.sitemap.path === feedpath)).toBe(false);
    expect(kit.emulator.apiRequests().at(-1)).toMatchObject({ route: 'sitemaps.submit', status: 500, params: { feedpath } });
  });

  it("uses the One Platform shape on inspection, '*' matches every API route but not /token, and Infinity lasts until cleared", async () => {
    kit.emulator.injectFault({ route: '*', status: 503, times: Infinity, message: 'down for maintenance' });
    const e = await failure(
      kit.sc.urlInspection.index.inspect({ requestBody: { inspectionUrl: 'https://www.example.com/', siteUrl: SEED_PROPERTIES.owned } }),
    );
    expect(e.data).toEqual({ error: { code: 503, message: 'down for maintenance', status: 'UNAVAILABLE' } });
    const fresh = emulatorJwtClient(kit.emulator.url, kit.key, [SCOPES.webmasters]);
    await expect(fresh.getAccessToken()).resolves.toMatchObject({ token: expect.stringMatching(/^ya29\./) });
    kit.emulator.clearFaults();
    await expect(kit.sc.sites.list()).resolves.toMatchObject({ status: 200 });
  });

  it('sends a custom body verbatim', async () => {
    kit.emulator.injectFault({ route: 'urlNotifications.getMetadata', status: 403, body: { error: { code: 403, message: 'custom' } } });
    const e = await failure(kit.idx.urlNotifications.getMetadata({ url: 'https://www.example.com/jobs/senior-engineer' }));
    expect(e.data).toEqual({ error: { code: 403, message: 'custom' } });
  });
});

describe('latency', () => {
  it('delays the chosen route (also when faulted) without delaying others', async () => {
    kit.emulator.setLatency('sites.list', 300);
    kit.emulator.injectFault({ route: 'sites.list', status: 429 });
    const order: string[] = [];
    const slow = failure(kit.sc.sites.list({}, { retry: false })).then((e) => order.push(`list:${e.status}`));
    const fast = kit.sc.sites.get({ siteUrl: SEED_PROPERTIES.owned }).then((r) => order.push(`get:${r.status}`));
    await Promise.all([slow, fast]);
    expect(order).toEqual(['get:200', 'list:429']);
  });
});

describe('control endpoints', () => {
  it('exposes the log and grants, and never logs itself', async () => {
    await kit.sc.sites.list();
    const requests = await control('GET', 'requests');
    expect(requests.body).toEqual([expect.objectContaining({ route: 'sites.list', status: 200, rawPath: '/webmasters/v3/sites' })]);
    expect((await control('GET', 'token-grants')).status).toBe(200);
    expect(kit.emulator.requests).toHaveLength(1);
  });

  it('injects faults and latency, clears them, and resets', async () => {
    expect((await control('POST', 'faults', { route: 'sites.get', status: 500, times: 'Infinity' })).status).toBe(200);
    expect((await failure(kit.sc.sites.get({ siteUrl: SEED_PROPERTIES.owned }, { retry: false }))).status).toBe(500);
    expect((await control('DELETE', 'faults')).status).toBe(200);
    await expect(kit.sc.sites.get({ siteUrl: SEED_PROPERTIES.owned })).resolves.toMatchObject({ status: 200 });
    expect((await control('POST', 'latency', { route: '*', ms: 1 })).status).toBe(200);
    expect((await control('POST', 'faults', { route: 'sites.get' })).status).toBe(400);

    await kit.sc.sites.delete({ siteUrl: SEED_PROPERTIES.blog });
    expect((await control('POST', 'reset')).status).toBe(200);
    expect(kit.emulator.state.sites.get(SEED_PROPERTIES.blog)).toBe('siteOwner');
    expect(kit.emulator.requests).toEqual([]);
  });

  it('places verification tokens and registers service accounts', async () => {
    const site = { type: 'INET_DOMAIN', identifier: 'example.io' };
    expect((await control('POST', 'place-token', { site, method: 'DNS_TXT' })).status).toBe(200);
    await expect(kit.sv.insert({ verificationMethod: 'DNS_TXT', requestBody: { site } })).resolves.toMatchObject({ status: 200 });

    const other = generateServiceAccountKey('other@other-project.iam.gserviceaccount.com');
    const registered = await control('POST', 'service-accounts', { clientEmail: other.key.client_email, publicKeyPem: other.publicKeyPem });
    expect(registered.status).toBe(200);
    const auth = emulatorJwtClient(kit.emulator.url, other.key, [SCOPES.webmastersReadonly]);
    const sc = searchconsole({ version: 'v1', auth, rootUrl: `${kit.emulator.url}/` });
    await expect(sc.sites.list()).resolves.toMatchObject({ status: 200 });
    expect((await control('GET', 'token-grants')).body).toContainEqual(
      expect.objectContaining({ principal: other.key.client_email, ok: true }),
    );
  });
});
