// The connect page on the standalone HTTP server bound to loopback without a
// token (principal `local`), clicked through in headless Chromium against the
// Google emulator (PRODUCT.md §8d): the happy path, a link used twice, an
// expired link, a replayed `state`, an answer reaching another browser, a
// denied consent and an unticked scope — each checked in the grant store.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Browser, BrowserContext } from 'playwright-core';
import { ConnectRequests } from '../src/accounts/connect-requests.js';
import { GrantStore } from '../src/accounts/grant-store.js';
import { Clock } from '../src/common/clock.js';
import { SCOPES } from '../src/emulator/emulator-routing.js';
import { GoogleEmulator } from '../src/emulator/google-emulator.js';
import { clickThrough, connectedEnv, GOOGLE_CLIENT, open, replicasSharingRedis } from './support/connect-kit.js';
import { ManualClock } from './support/manual-clock.js';
import { rawRequest } from './support/raw-http.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { launchChromium } from './support/views-browser.js';

let emulator: GoogleEmulator;
let server: InProcessServer;
let browser: Browser;
let context: BrowserContext;
const clock = new ManualClock(new Date());

beforeAll(async () => {
  emulator = await GoogleEmulator.start();
  server = await startInProcess(connectedEnv(emulator), [[Clock, clock]]);
  emulator.registerOAuthClient({ ...GOOGLE_CLIENT, redirectUris: [`${server.origin}/connect/google/callback`] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await emulator?.close();
});
beforeEach(async () => {
  await context?.close();
  context = await browser.newContext();
  for (const grant of await grants()) {
    await server.app.get(GrantStore).remove('local', grant.googleSub);
  }
});

const grants = () => server.app.get(GrantStore).list('local');
const link = (scopes: string[] = [SCOPES.webmastersReadonly]) => server.app.get(ConnectRequests).create('local', scopes);

describe('connect page on loopback HTTP (principal local)', () => {
  it('a link names no one, and its page sends the browser to Google with PKCE S256, a state, offline access, consent and exactly the scopes', async () => {
    const { url } = await link([SCOPES.webmastersReadonly, SCOPES.webmasters]);
    expect(url).toMatch(new RegExp(`^${server.origin}/connect/google\\?request=[A-Za-z0-9_-]{32}$`));
    const answer = await rawRequest(url);
    expect(answer.status).toBe(302);
    const google = new URL(String(answer.headers.location));
    expect(`${google.origin}${google.pathname}`).toBe(`${emulator.url}/o/oauth2/v2/auth`);
    const q = Object.fromEntries(google.searchParams);
    expect(q).toMatchObject({
      client_id: GOOGLE_CLIENT.clientId,
      redirect_uri: `${server.origin}/connect/google/callback`,
      response_type: 'code',
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      code_challenge_method: 'S256',
    });
    expect(q.scope.split(' ').sort()).toEqual(['email', 'openid', SCOPES.webmasters, SCOPES.webmastersReadonly].sort());
    expect(q.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.state).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // Plain http on loopback: a plain cookie name, HttpOnly and SameSite=Lax, never Secure.
    const cookie = String(answer.headers['set-cookie']);
    expect(cookie).toMatch(/^gsc_connect=[A-Za-z0-9_-]{32}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax$/);
    expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('the happy path: Alice allows, the page says who is connected for whom, and the grant is stored with the granted scopes', async () => {
    const page = await context.newPage();
    const end = await clickThrough(page, (await link()).url, { googleUser: 'alice@example.com' });
    expect(end.status).toBe(200);
    expect(end.text).toContain(`Connected alice@example.com to the Search Console server at ${server.origin} for you, the local user.`);
    expect(end.headers['content-security-policy']).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(end.headers['cache-control']).toBe('no-store');
    expect(end.headers['content-type']).toBe('text/html; charset=utf-8');
    const [grant, ...others] = await grants();
    expect(others).toEqual([]);
    expect(grant).toMatchObject({ principal: 'local', googleEmail: 'alice@example.com', googleSub: '110000000000000000001' });
    expect(grant.scopes).toContain(SCOPES.webmastersReadonly);
    expect(grant.refreshToken).toMatch(/^1\/\/0/);
    expect(grant.connectedAt).toBe(clock.now().toISOString());
  });

  it('a link used twice: the second visit is refused and nothing more is stored', async () => {
    const { url } = await link();
    await clickThrough(await context.newPage(), url, { googleUser: 'alice@example.com' });
    const again = await clickThrough(await (await browser.newContext()).newPage(), url, { googleUser: 'bob@example.net' });
    expect(again.status).toBe(410);
    expect(again.text).toContain('already used');
    expect((await grants()).map((g) => g.googleEmail)).toEqual(['alice@example.com']);
  });

  it('an expired link (past ten minutes) is refused and nothing is stored', async () => {
    const { url } = await link();
    clock.advance(10 * 60_000 + 1_000);
    const end = await open(await context.newPage(), url);
    expect(end.status).toBe(410);
    expect(end.text).toContain('has expired');
    expect(await grants()).toEqual([]);
  });

  it('a replayed state (the callback opened again) is refused, and the stored grant is untouched', async () => {
    const page = await context.newPage();
    const end = await clickThrough(page, (await link()).url, { googleUser: 'alice@example.com' });
    expect(end.status).toBe(200);
    const before = await grants();
    const replay = await open(page, end.url);
    expect(new URL(replay.url).pathname).toBe('/connect/google/callback');
    expect(replay.status).toBe(400);
    expect(replay.text).toContain('unknown, expired or was already used');
    expect(await grants()).toEqual(before);
  });

  it('an answer that reaches another browser than the one that opened the link is refused', async () => {
    const first = await context.newPage();
    await clickThrough(first, (await link()).url, { stopAtConsent: true });
    const other = await (await browser.newContext()).newPage();
    const end = await clickThrough(other, first.url(), { googleUser: 'alice@example.com' });
    expect(end.status).toBe(403);
    expect(end.text).toContain('different browser');
    expect(await grants()).toEqual([]);
  });

  it('consent denied: the page says nothing was stored, and nothing was', async () => {
    const end = await clickThrough(await context.newPage(), (await link()).url, { deny: true });
    expect(end.status).toBe(200);
    expect(end.text).toContain('nothing was stored');
    expect(await grants()).toEqual([]);
  });

  it('one scope unticked: the stored grant lacks it and the page says so', async () => {
    const end = await clickThrough(await context.newPage(), (await link([SCOPES.webmastersReadonly, SCOPES.webmasters])).url, {
      googleUser: 'bob@example.net',
      untick: [SCOPES.webmasters],
    });
    expect(end.status).toBe(200);
    expect(end.text).toContain(`Connected bob@example.net to the Search Console server at ${server.origin} for you, the local user.`);
    expect(end.text).toContain(
      `bob@example.net did not grant “View and manage Search Console data for your verified sites” (${SCOPES.webmasters}).`,
    );
    expect(end.text).toContain('run only through another Google account you connected that granted it');
    const [grant] = await grants();
    expect(grant.scopes).toContain(SCOPES.webmastersReadonly);
    expect(grant.scopes).not.toContain(SCOPES.webmasters);
  });

  it('Google answering the exchange without a refresh token: nothing is stored, and the page says to remove the access and try again', async () => {
    emulator.injectFault({
      route: 'token',
      status: 200,
      body: { access_token: 'ya29.no-refresh', expires_in: 3599, token_type: 'Bearer', scope: `openid ${SCOPES.webmastersReadonly}` },
      bodyMatches: { grant_type: 'authorization_code' },
    });
    const end = await clickThrough(await context.newPage(), (await link()).url, { googleUser: 'alice@example.com' });
    expect(end.status).toBe(502);
    expect(end.text).toContain('without a refresh token');
    expect(end.text).toContain('https://myaccount.google.com/permissions');
    expect(await grants()).toEqual([]);
  });

  it('Google refusing the code exchange: the page names Google’s error code and nothing is stored', async () => {
    emulator.injectFault({
      route: 'token',
      status: 400,
      body: { error: 'invalid_grant', error_description: 'Bad Request' },
      bodyMatches: { grant_type: 'authorization_code' },
    });
    const end = await clickThrough(await context.newPage(), (await link()).url, { googleUser: 'alice@example.com' });
    expect(end.status).toBe(502);
    expect(end.text).toContain('Google did not accept the sign-in answer (invalid_grant), so nothing was stored.');
    expect(await grants()).toEqual([]);
  });

  it('an unknown request id gets 404 and the page escapes what it shows', async () => {
    const answer = await rawRequest(`${server.origin}/connect/google?request=%3Cscript%3E`);
    expect(answer.status).toBe(404);
    expect(answer.text).not.toContain('<script>');
    expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
  });
});

describe('connect page behind https (GSC_PUBLIC_URL)', () => {
  it('links and redirect URIs use the public URL, and the browser cookie is __Host- and Secure', async () => {
    const behind = await startInProcess({ ...connectedEnv(emulator), GSC_PUBLIC_URL: 'https://gsc.test.example' });
    try {
      const { url } = await behind.app.get(ConnectRequests).create('local', [SCOPES.webmastersReadonly]);
      expect(url).toMatch(/^https:\/\/gsc\.test\.example\/connect\/google\?request=[A-Za-z0-9_-]{32}$/);
      // As the TLS-terminating proxy passes it on.
      const answer = await rawRequest(url.replace('https://gsc.test.example', behind.origin), { headers: { host: 'gsc.test.example' } });
      expect(answer.status).toBe(302);
      expect(new URL(String(answer.headers.location)).searchParams.get('redirect_uri')).toBe(
        'https://gsc.test.example/connect/google/callback',
      );
      expect(String(answer.headers['set-cookie'])).toMatch(
        /^__Host-gsc_connect=[A-Za-z0-9_-]{32}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/,
      );
    } finally {
      await behind.close();
    }
  });
});

describe('two replicas sharing Redis', () => {
  it('a link made by one replica is served, answered and stored by the other: requests, states and grants live in the store', async () => {
    const { serving, asking, close } = await replicasSharingRedis(emulator, server.origin);
    try {
      const { url } = await asking.app.get(ConnectRequests).create('local', [SCOPES.webmastersReadonly]);
      expect(url.startsWith(`${serving.origin}/connect/google?request=`)).toBe(true);
      const page = await (await browser.newContext()).newPage();
      const end = await clickThrough(page, url, { googleUser: 'bob@example.net' });
      expect(end.text).toContain('Connected bob@example.net to the Search Console server at');
      expect((await asking.app.get(GrantStore).list('local')).map((g) => g.googleEmail)).toEqual(['bob@example.net']);
      expect((await open(page, url)).status).toBe(410);
    } finally {
      await close();
    }
  });
});
