import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ManualClock } from '../../test/support/manual-clock.js';
import type { Config } from '../config/config.js';
import { stateKey } from '../state/keys.js';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { CONNECT_REQUEST_TTL_MS, type ConnectPageHost, ConnectRequests, MAX_LIVE_LINKS, MAX_WAITING_CALLS } from './connect-requests.js';

const store = new SqliteStateStore(mkdtempSync(join(tmpdir(), 'gsc-connect-requests-')));
afterAll(() => store.close());

const clock = new ManualClock('2026-12-03T09:00:00Z');
const config = { http: { host: '127.0.0.1', port: 3000, publicUrl: undefined } } as unknown as Config;
const READ = 'https://www.googleapis.com/auth/webmasters.readonly';

describe('ConnectRequests', () => {
  it('makes an opaque link naming no one, asking for the scopes plus openid and email, once each', async () => {
    const requests = new ConnectRequests(config, store, clock);
    const link = await requests.create('Kate@Corp.Example', [READ, 'email']);
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/connect\/google\?request=[A-Za-z0-9_-]{32}$/);
    expect(link.url).not.toMatch(/kate/i);
    expect(link.expiresAt.getTime()).toBe(clock.now().getTime() + CONNECT_REQUEST_TTL_MS);
    const request = await requests.find(new URL(link.url).searchParams.get('request')!);
    expect(request).toMatchObject({ principal: 'kate@corp.example', scopes: ['openid', 'email', READ] });
  });

  it('is single use: one markUsed wins, after which the request is "used"; past ten minutes it is "expired"', async () => {
    const settled: string[] = [];
    const host: ConnectPageHost = { base: () => Promise.resolve('https://gsc.example/api'), settled: (id) => settled.push(id) };
    const requests = new ConnectRequests(config, store, clock);
    requests.servePagesWith(host);
    const one = await requests.create('local', [READ]);
    expect(one.url.startsWith('https://gsc.example/api/connect/google?request=')).toBe(true);
    const id = new URL(one.url).searchParams.get('request')!;
    const request = (await requests.find(id))!;
    expect((await Promise.all([requests.markUsed(request), requests.markUsed(request)])).sort()).toEqual([false, true]);
    expect(await requests.check(id)).toEqual({ ok: false, reason: 'used' });
    expect(settled).toEqual([id]);
    const two = new URL((await requests.create('local', [READ])).url).searchParams.get('request')!;
    clock.advance(CONNECT_REQUEST_TTL_MS);
    expect(await requests.check(two)).toEqual({ ok: false, reason: 'expired' });
    expect(await requests.check('x'.repeat(32))).toEqual({ ok: false, reason: 'unknown' });
    expect(await requests.check('../../etc')).toEqual({ ok: false, reason: 'unknown' });
  });

  it(`keeps only a principal's ${MAX_LIVE_LINKS} newest links working: a new one replaces the oldest, and others' links are untouched`, async () => {
    const requests = new ConnectRequests(config, store, clock);
    const idOf = async (principal: string) => (await requests.create(principal, [READ])).id;
    const other = await idOf('sam@corp.example');
    const ids: string[] = [];
    for (let i = 0; i < MAX_LIVE_LINKS + 2; i++) {
      ids.push(await idOf('flo@corp.example'));
    }
    const checks = await Promise.all(ids.map((id) => requests.check(id)));
    expect(checks.map((c) => (c.ok ? 'ok' : c.reason))).toEqual([
      'superseded',
      'superseded',
      ...Array.from({ length: MAX_LIVE_LINKS }, () => 'ok'),
    ]);
    expect((await requests.check(other)).ok).toBe(true);
    // A replaced link stays refused even if its mark were lost: whether it works is read from the principal's newest links.
    await store.put(
      stateKey('connectRequest', ids[0]),
      JSON.stringify({ ...(await requests.peek(ids[0])), supersededAt: undefined }),
      60_000,
    );
    expect(await requests.check(ids[0])).toEqual({ ok: false, reason: 'superseded' });
  });

  it('a no (declined at Google, a cancelled sign-in) spends the request with that outcome; the first final answer wins', async () => {
    const requests = new ConnectRequests(config, store, clock);
    const denied = (await requests.find((await requests.create('gil@corp.example', [READ], { tool: 'list_sites', via: 'dialog' })).id))!;
    expect(denied).toMatchObject({ tool: 'list_sites', via: 'dialog' });
    expect(await requests.markEnded(denied, 'denied')).toBe(true);
    expect(await requests.check(denied.id)).toEqual({ ok: false, reason: 'denied' });
    expect((await requests.peek(denied.id))?.ended).toEqual({ outcome: 'denied', at: clock.now().toISOString() });
    // Allowed in another browser after the no: the link is spent, nothing more is stored through it.
    expect(await requests.markUsed(denied)).toBe(false);
    const used = (await requests.find((await requests.create('gil@corp.example', [READ])).id))!;
    expect(await requests.markUsed(used)).toBe(true);
    expect(await requests.markEnded(used, 'cancelled')).toBe(false);
    expect(await requests.check(used.id)).toEqual({ ok: false, reason: 'used' });
  });

  it(`holds at most ${MAX_WAITING_CALLS} waiting places per principal in the store, and a place given back is free again`, async () => {
    const requests = new ConnectRequests(config, store, clock);
    const held = await Promise.all(Array.from({ length: MAX_WAITING_CALLS }, () => requests.holdWaitingPlace('hal@corp.example')));
    expect(held.every((release) => release !== undefined)).toBe(true);
    // Another process sharing the store sees the same places.
    const elsewhere = new ConnectRequests(config, store, clock);
    expect(await elsewhere.holdWaitingPlace('Hal@Corp.Example')).toBeUndefined();
    expect(await elsewhere.holdWaitingPlace('ida@corp.example')).toBeDefined();
    await held[2]!();
    expect(await elsewhere.holdWaitingPlace('hal@corp.example')).toBeDefined();
    expect(await elsewhere.holdWaitingPlace('hal@corp.example')).toBeUndefined();
  });
});
