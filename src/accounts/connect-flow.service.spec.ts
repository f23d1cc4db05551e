import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OAUTH_CLIENT, startConnectedGoogle, type ConnectedGoogle } from '../../test/support/connected-kit.js';
import { WEBMASTERS_READONLY } from '../../test/support/grant-fixtures.js';
import { Clock } from '../common/clock.js';
import { loadConfig } from '../config/config.js';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { ConnectFlow, type ConnectSite } from './connect-flow.service.js';
import { ConnectRequests } from './connect-requests.js';
import { GrantStore } from './grant-store.js';

// The connect callback (PRODUCT.md §8d) alone: ConnectFlow behind a plain Node server on a free port,
// the emulator as Google, and HTTP requests made as a browser makes them (its cookie, Google's
// redirect), so each refusal of the callback can be tried on its own.

const PRINCIPAL = 'ann@corp.example';
let google: ConnectedGoogle;
let server: Server;
let base: string;
let store: SqliteStateStore;
let grants: GrantStore;
let requests: ConnectRequests;
const events: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'gsc-connect-flow-'));

beforeAll(async () => {
  jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  google = await startConnectedGoogle();
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  google.emulator.registerOAuthClient({ ...OAUTH_CLIENT, redirectUris: [`${base}/connect/google/callback`] });
  const config = loadConfig({
    CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
    GSC_STATE_DIR: dir,
    GSC_GRANT_ENCRYPTION_KEYS: `k1:${Buffer.alloc(32, 5).toString('base64')}`,
    ...google.env,
  });
  store = new SqliteStateStore(dir);
  const clock = new Clock();
  requests = new ConnectRequests(config, store, clock);
  requests.servePagesWith({ base: () => Promise.resolve(base) });
  grants = new GrantStore(store, config);
  const flow = new ConnectFlow(config, store, requests, grants, clock);
  flow.recordEventsWith((entry) => {
    events.push(entry.event);
    return Promise.resolve();
  });
  const site: ConnectSite = { base, proof: { kind: 'principal', principal: () => Promise.resolve(PRINCIPAL) }, server: 'the test server' };
  server.on('request', (req, res) => {
    void flow.route(req, res, site).then((routed) => {
      if (!routed) {
        res.writeHead(404).end();
      }
    });
  });
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  await google.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A connect link opened in a browser and answered at Google: the callback URL Google sends the browser to, and the browser's cookie. */
async function toCallback(decision: 'allow' | 'deny' = 'allow'): Promise<{ callback: string; cookie: string; requestId: string }> {
  const link = await requests.create(PRINCIPAL, [WEBMASTERS_READONLY]);
  const page = await fetch(`${base}/connect/google?request=${link.id}`, { redirect: 'manual' });
  expect(page.status).toBe(302);
  const cookie = page.headers.getSetCookie()[0].split(';')[0];
  const consentPage = await (await fetch(page.headers.get('location')!)).text();
  const request = /name="request" value="([^"]+)"/.exec(consentPage)![1];
  const form = new URLSearchParams({ request, user: 'alice@example.com', decision });
  for (const scope of new URL(page.headers.get('location')!).searchParams.get('scope')!.split(' ')) {
    form.append('scope', scope);
  }
  const consent = await fetch(`${google.emulator.url}/o/oauth2/v2/auth/consent`, { method: 'POST', body: form, redirect: 'manual' });
  const callback = consent.headers.get('location')!;
  expect(callback.startsWith(`${base}/connect/google/callback?`)).toBe(true);
  return { callback, cookie, requestId: link.id };
}

const open = (url: string, cookie?: string) => fetch(url, { headers: cookie ? { cookie } : {}, redirect: 'manual' });

describe('ConnectFlow, the Google callback', () => {
  it("stores the grant with the scopes Google granted, for the link's principal, once", async () => {
    const { callback, cookie } = await toCallback();
    const done = await open(callback, cookie);
    expect(done.status).toBe(200);
    expect(await done.text()).toContain('alice@example.com');
    const [grant] = await grants.list(PRINCIPAL);
    expect(grant).toMatchObject({ principal: PRINCIPAL, googleEmail: 'alice@example.com' });
    expect(grant.scopes).toContain(WEBMASTERS_READONLY);
    expect(events).toContain('connect_completed');
    // The same answer again (a reload, a replay) stores nothing more and is told it is not waited for.
    const replay = await open(callback, cookie);
    expect(replay.status).toBe(400);
  });

  it('refuses the answer in another browser without spending it, so the right browser still finishes', async () => {
    const { callback, cookie } = await toCallback();
    expect((await open(callback)).status).toBe(403);
    expect((await open(callback, 'gsc_connect=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(403);
    expect(events).toContain('connect_wrong_browser');
    expect((await open(callback, cookie)).status).toBe(200);
  });

  it('ends the request when the person declines at Google, and stores nothing', async () => {
    for (const earlier of await grants.list(PRINCIPAL)) {
      await grants.remove(PRINCIPAL, earlier.googleSub);
    }
    const { callback, cookie, requestId } = await toCallback('deny');
    expect(new URL(callback).searchParams.get('error')).toBe('access_denied');
    const page = await open(callback, cookie);
    expect(page.status).toBe(200);
    expect(await requests.check(requestId)).toEqual({ ok: false, reason: 'denied' });
    expect(await grants.list(PRINCIPAL)).toEqual([]);
    expect(events).toContain('connect_denied');
  });

  it('answers an unknown or malformed state with a page, not an error', async () => {
    for (const state of ['', 'not-a-state', 'A'.repeat(32)]) {
      expect((await open(`${base}/connect/google/callback?state=${state}&code=x`)).status).toBe(400);
    }
  });
});
