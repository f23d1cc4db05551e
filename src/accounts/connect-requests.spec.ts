import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import type { Clock } from '../common/clock.js';
import type { Config } from '../config/config.js';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { CONNECT_REQUEST_TTL_MS, type ConnectPageHost, ConnectRequests } from './connect-requests.js';

const store = new SqliteStateStore(mkdtempSync(join(tmpdir(), 'gsc-connect-requests-')));
afterAll(() => store.close());

let now = Date.parse('2026-12-03T09:00:00Z');
const clock: Clock = { now: () => new Date(now) };
const config = { http: { host: '127.0.0.1', port: 3000, publicUrl: undefined } } as unknown as Config;
const READ = 'https://www.googleapis.com/auth/webmasters.readonly';

describe('ConnectRequests', () => {
  it('makes an opaque link naming no one, asking for the scopes plus openid and email, once each', async () => {
    const requests = new ConnectRequests(config, store, clock);
    const link = await requests.create('Kate@Corp.Example', [READ, 'email']);
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/connect\/google\?request=[A-Za-z0-9_-]{32}$/);
    expect(link.url).not.toMatch(/kate/i);
    expect(link.expiresAt.getTime()).toBe(now + CONNECT_REQUEST_TTL_MS);
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
    now += CONNECT_REQUEST_TTL_MS;
    expect(await requests.check(two)).toEqual({ ok: false, reason: 'expired' });
    expect(await requests.check('x'.repeat(32))).toEqual({ ok: false, reason: 'unknown' });
    expect(await requests.check('../../etc')).toEqual({ ok: false, reason: 'unknown' });
  });
});
