import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { emulatorJwtClient } from './emulator-clients.js';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { SCOPES } from './emulator-routing.js';
import { startEmulatorKit, type EmulatorKit } from '../../test/support/emulator-kit.js';
import type { FaultSpec } from './emulator-types.js';

const NOW = new Date('2026-11-30T20:30:00Z');
let kit: EmulatorKit;
let token: string;

beforeAll(async () => {
  kit = await startEmulatorKit({ now: () => NOW });
  token = (await kit.auth.getAccessToken()).token!;
});
afterAll(() => kit.emulator.close());
beforeEach(() => kit.emulator.reset());

const raw = (path: string, init: RequestInit = {}) =>
  fetch(`${kit.emulator.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string>) },
  });
const SITE_PATH = `/webmasters/v3/sites/${encodeURIComponent(SEED_PROPERTIES.owned)}`;
const control = (body: unknown) =>
  fetch(`${kit.emulator.url}/__emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('hang: the request is read and never answered', () => {
  it('leaves the caller waiting until its own deadline, on an API route; the log records no status', async () => {
    kit.emulator.injectFault({ route: 'sites.get', kind: 'hang' });
    await expect(kit.sc.sites.get({ siteUrl: SEED_PROPERTIES.owned }, { timeout: 300, retry: false })).rejects.toThrow(
      /aborted due to timeout/,
    );
    expect(kit.emulator.apiRequests()).toEqual([expect.objectContaining({ route: 'sites.get', status: 0 })]);
    await expect(kit.sc.sites.get({ siteUrl: SEED_PROPERTIES.owned })).resolves.toMatchObject({ status: 200 });
  });

  it('hangs the token endpoint too, and close() ends promptly, destroying the held sockets', async () => {
    const own = await startEmulatorKit({ now: () => NOW });
    own.emulator.injectFault({ route: 'token', kind: 'hang', times: Infinity });
    own.emulator.injectFault({ route: 'sites.list', kind: 'hang' });
    const fresh = emulatorJwtClient(own.emulator.url, own.key, [SCOPES.webmasters]);
    const tokenCall = fresh.getAccessToken().then(
      () => 'answered',
      () => 'failed',
    );
    const held = fetch(`${own.emulator.url}/webmasters/v3/sites`, { headers: { authorization: 'Bearer x' } }).then(
      () => 'answered',
      () => 'failed',
    );
    await waitFor(() => own.emulator.requests.filter((r) => r.status === 0).length === 2);
    await own.emulator.close(); // would never return if the held sockets kept the server open
    expect(await held).toBe('failed');
    expect(await tokenCall).toBe('failed');
    expect(own.emulator.requests.map((r) => [r.route, r.status])).toEqual(
      expect.arrayContaining([
        ['token', 0],
        ['sites.list', 0],
      ]),
    );
  });

  it('with applied: true the write happens although no answer comes', async () => {
    const feedpath = 'https://www.example.com/hung-sitemap.xml';
    kit.emulator.injectFault({ route: 'sitemaps.submit', kind: 'hang', applied: true });
    await expect(
      kit.sc.sitemaps.submit({ siteUrl: SEED_PROPERTIES.owned, feedpath }, { timeout: 300, retry: false }),
    ).rejects.toBeDefined();
    expect(kit.emulator.state.sitemapsOf(SEED_PROPERTIES.owned).some((e) => e.sitemap.path === feedpath)).toBe(true);
  });

  it('without applied the write does not happen', async () => {
    const feedpath = 'https://www.example.com/never-sitemap.xml';
    kit.emulator.injectFault({ route: 'sitemaps.submit', kind: 'hang' });
    await expect(
      kit.sc.sitemaps.submit({ siteUrl: SEED_PROPERTIES.owned, feedpath }, { timeout: 300, retry: false }),
    ).rejects.toBeDefined();
    expect(kit.emulator.state.sitemapsOf(SEED_PROPERTIES.owned).some((e) => e.sitemap.path === feedpath)).toBe(false);
  });
});

describe('truncated: a 200 application/json body cut mid-way', () => {
  it('sends the first half of the real answer, with a matching content-length', async () => {
    const whole = await (await raw(SITE_PATH)).text();
    kit.emulator.injectFault({ route: 'sites.get', kind: 'truncated' });
    const res = await raw(SITE_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    const cut = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(cut));
    expect(cut).toBe(whole.slice(0, Math.floor(whole.length / 2)));
    expect(() => JSON.parse(cut)).toThrow();
  });

  it('reaches the real client library as a 200 whose data is not the object the method returns', async () => {
    kit.emulator.injectFault({ route: 'sites.get', kind: 'truncated' });
    const res = await kit.sc.sites.get({ siteUrl: SEED_PROPERTIES.owned });
    expect(res.status).toBe(200);
    expect(typeof res.data).toBe('string');
    expect(res.data.siteUrl).toBeUndefined();
  });

  it('cuts a given body at cutAt, never sending a whole JSON value', async () => {
    kit.emulator.injectFault({ route: 'sites.list', kind: 'truncated', body: { siteEntry: [] }, cutAt: 5 });
    expect(await (await raw('/webmasters/v3/sites')).text()).toBe('{\n  "');
    kit.emulator.injectFault({ route: 'sites.list', kind: 'truncated', body: {}, cutAt: 99 });
    expect(await (await raw('/webmasters/v3/sites')).text()).toBe('{');
  });

  it('carries the request out (the answer was Google’s) and cuts even an empty answer', async () => {
    const feedpath = 'https://www.example.com/cut-sitemap.xml';
    kit.emulator.injectFault({ route: 'sitemaps.submit', kind: 'truncated' });
    const res = await raw(`${SITE_PATH}/sitemaps/${encodeURIComponent(feedpath)}`, { method: 'PUT' });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.startsWith('{')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
    expect(kit.emulator.state.sitemapsOf(SEED_PROPERTIES.owned).some((e) => e.sitemap.path === feedpath)).toBe(true);
  });

  it('works on the token endpoint: the client gets no token', async () => {
    const own = await startEmulatorKit({ now: () => NOW });
    try {
      own.emulator.injectFault({ route: 'token', kind: 'truncated', times: Infinity });
      await expect(emulatorJwtClient(own.emulator.url, own.key, [SCOPES.webmasters]).getAccessToken()).rejects.toBeDefined();
      expect(own.emulator.tokenGrants.length).toBeGreaterThan(0); // minted, then mangled on the way back
    } finally {
      await own.emulator.close();
    }
  });
});

describe('array and html: a 200 that is not the object', () => {
  it('array: a JSON array body reaches the client as data', async () => {
    kit.emulator.injectFault({ route: 'sites.list', kind: 'array' });
    const res = await kit.sc.sites.list();
    expect(res.status).toBe(200);
    expect(res.data).toEqual([]);
    kit.emulator.injectFault({ route: 'urlInspection.index.inspect', kind: 'array', body: [{ inspectionResult: {} }] });
    const inspected = await kit.sc.urlInspection.index.inspect({
      requestBody: { inspectionUrl: 'https://www.example.com/', siteUrl: SEED_PROPERTIES.owned },
    });
    expect(inspected.data).toEqual([{ inspectionResult: {} }]);
  });

  it('html: a captive portal page as text/html, 200 by default or the status given', async () => {
    kit.emulator.injectFault({ route: 'sites.list', kind: 'html' });
    const res = await raw('/webmasters/v3/sites');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toMatch(/^<!DOCTYPE html>[\s\S]*log in to this network/);
    kit.emulator.injectFault({ route: 'sites.list', kind: 'html', status: 502, body: '<html>Bad Gateway</html>' });
    const e = await kit.sc.sites.list({}, { retry: false }).catch((err: { status: number; message: string }) => err);
    expect(e).toMatchObject({ status: 502, message: '<html>Bad Gateway</html>' });
  });

  it("'*' reaches every API route, never the token endpoint", async () => {
    kit.emulator.injectFault({ route: '*', kind: 'array', times: 2 });
    expect((await kit.sc.sites.list()).data).toEqual([]);
    expect((await kit.idx.urlNotifications.getMetadata({ url: 'https://www.example.com/jobs/x' })).data).toEqual([]);
    await expect(emulatorJwtClient(kit.emulator.url, kit.key, [SCOPES.webmasters]).getAccessToken()).resolves.toMatchObject({
      token: expect.any(String),
    });
  });
});

describe('the fault API', () => {
  it('takes every kind over HTTP and keeps {route, status} working', async () => {
    for (const body of [
      { route: 'sites.list', kind: 'array' },
      { route: 'sites.list', status: 503 },
      { route: 'sites.list', preset: 'user_rate_limit_exceeded' },
      { route: 'token', kind: 'hang', times: 'Infinity' },
    ]) {
      expect((await control(body)).status).toBe(200);
    }
    expect((await kit.sc.sites.list()).data).toEqual([]);
    expect((await kit.sc.sites.list({}, { retry: false }).catch((e: { status: number }) => e)).status).toBe(503);
    expect((await kit.sc.sites.list({}, { retry: false }).catch((e: { status: number }) => e)).status).toBe(403);
  });

  const refused: Array<[string, Partial<FaultSpec> | Record<string, unknown>, RegExp]> = [
    ['no route', { status: 500 }, /route/],
    ['no status, preset or kind', { route: 'sites.get' }, /needs \{route, status\} or \{route, preset\}/],
    ['an unknown kind', { route: 'sites.get', kind: 'slow' }, /kind must be one of status, hang, truncated, array, html/],
    ['an unknown preset', { route: 'sites.get', preset: 'nope' }, /preset must be one of/],
    ['a preset with a garbage kind', { route: 'sites.get', preset: 'service_disabled', kind: 'array' }, /use it with kind "status"/],
    ['a preset on the token endpoint', { route: 'token', preset: 'service_disabled' }, /token endpoint has none/],
    ['a status that is not HTTP', { route: 'sites.get', status: 42 }, /HTTP status code/],
    ['a bad cutAt', { route: 'sites.get', kind: 'truncated', cutAt: -1 }, /cutAt/],
    ['a bodyMatches that is not an object', { route: 'sites.get', status: 500, bodyMatches: [1] }, /bodyMatches must be an object/],
  ];

  it.each(refused)('refuses %s, in code and over HTTP', async (_what, body, message) => {
    expect(() => kit.emulator.injectFault(body as FaultSpec)).toThrow(message);
    const res = await control(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(message);
  });
});

describe('bodyMatches: a fault for some requests of a route only', () => {
  it('hits only the request whose body has those values (the second page of an export), in code and over HTTP', async () => {
    const query = (startRow: number) =>
      kit.sc.searchanalytics.query(
        {
          siteUrl: SEED_PROPERTIES.owned,
          requestBody: { startDate: '2026-11-01', endDate: '2026-11-07', dimensions: ['query'], rowLimit: 5, startRow },
        },
        { retry: false },
      );
    kit.emulator.injectFault({ route: 'searchanalytics.query', status: 500, bodyMatches: { startRow: 5 } });
    expect((await query(0)).status).toBe(200);
    expect((await query(5).catch((e: { status: number }) => e)).status).toBe(500);
    expect((await query(5)).status).toBe(200); // used up
    expect(
      (await control({ route: 'searchanalytics.query', status: 503, bodyMatches: { dimensions: ['query'], startRow: 0 } })).status,
    ).toBe(200);
    expect((await query(5)).status).toBe(200);
    expect((await query(0).catch((e: { status: number }) => e)).status).toBe(503);
  });
});

describe('echo: an answer that quotes what the request carried', () => {
  it('the token endpoint echoes form fields in error_description, in its own format, with the error code asked for', async () => {
    kit.emulator.injectFault({
      route: 'token',
      status: 400,
      reason: 'invalid_grant',
      message: 'Bad token {form.refresh_token} for {form.client_secret}',
    });
    const res = await fetch(kit.emulator.tokenUrl, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: '1//echo-me', client_secret: 'GOCSPX-echo', client_id: 'x' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'Bad token 1//echo-me for GOCSPX-echo' });
  });

  it('an API route echoes the bearer token in its error message', async () => {
    kit.emulator.injectFault({ route: 'sites.get', status: 403, reason: 'forbidden', message: 'Token {bearer} may not read this' });
    const res = await raw(SITE_PATH);
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      error: { code: 403, message: `Token ${token} may not read this`, errors: [{ reason: 'forbidden' }], status: 'PERMISSION_DENIED' },
    });
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
