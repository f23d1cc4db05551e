import { afterAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { Credentials } from 'google-auth-library';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectedConfig, storedGrant } from '../../test/support/grant-fixtures.js';
import { NotConnectedError } from '../google/connected-accounts.js';
import { stateKey } from '../state/keys.js';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { accessTokenKey, GrantStore, type StoredGrant } from './grant-store.js';
import { SharedRefresher } from './shared-refresh.js';

// The refresh of one grant as several processes share it: each "process" here has its own SQLite
// handle, grant store and refresher over one state folder, as sibling stdio servers do.

const KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
const dirs: string[] = [];
const stores: SqliteStateStore[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});
jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);

interface Process {
  readonly store: SqliteStateStore;
  readonly grants: GrantStore;
  readonly refresher: SharedRefresher;
  readonly ended: StoredGrant[];
}

function processes(count: number, timeoutMs = 1000): Process[] {
  const dir = mkdtempSync(join(tmpdir(), 'gsc-refresh-'));
  dirs.push(dir);
  return Array.from({ length: count }, () => {
    const config = connectedConfig({ dir, keys: KEYS, env: { GSC_GOOGLE_TIMEOUT_MS: String(timeoutMs) } });
    const store = new SqliteStateStore(dir);
    stores.push(store);
    const grants = new GrantStore(store, config);
    const ended: StoredGrant[] = [];
    return { store, grants, refresher: new SharedRefresher(config, grants, store, (g) => ended.push(g)), ended };
  });
}

const fresh = (token: string, extra: Credentials = {}): Credentials => ({
  access_token: token,
  expiry_date: Date.now() + 3_600_000,
  token_type: 'Bearer',
  ...extra,
});
const invalidGrant = () => Object.assign(new Error('invalid_grant'), { response: { status: 400, data: { error: 'invalid_grant' } } });

describe('SharedRefresher', () => {
  it('refreshes once for three processes asking at once; the token is shared sealed, and a later process asks Google nothing', async () => {
    const [a, b, c] = processes(3);
    const grant = storedGrant({ principal: 'carol@corp.example', googleSub: '31' });
    await a.grants.save(grant);
    let calls = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const refresh = async (): Promise<Credentials> => {
      calls += 1;
      await held;
      return fresh('ya29.shared');
    };
    const answers = Promise.all([a, b, c].map((p) => p.refresher.for(grant)(grant.refreshToken, refresh)));
    // Let every process reach the lock before the winner's answer arrives.
    await new Promise((resolve) => setTimeout(resolve, 150));
    release();
    expect((await answers).map((t) => t.access_token)).toEqual(['ya29.shared', 'ya29.shared', 'ya29.shared']);
    expect(calls).toBe(1);
    const sealed = await a.store.get(accessTokenKey(grant.principal, grant.googleSub));
    expect(sealed).toBeDefined();
    expect(sealed).not.toContain('ya29.shared');
    const [later] = processes(1);
    // Another folder: nothing shared, so it must refresh itself.
    await later.grants.save(grant);
    await expect(later.refresher.for(grant)(grant.refreshToken, () => Promise.resolve(fresh('ya29.own')))).resolves.toMatchObject({
      access_token: 'ya29.own',
    });
    const again = await b.refresher.for(grant)(grant.refreshToken, () => Promise.reject(new Error('Google must not be asked')));
    expect(again.access_token).toBe('ya29.shared');
  });

  it('takes over from a process that died holding the lock, once the lock has expired', async () => {
    const [a] = processes(1);
    const grant = storedGrant({ principal: 'quinn@corp.example', googleSub: '32' });
    await a.grants.save(grant);
    expect(await a.store.claim(stateKey('grantRefresh', encodeURIComponent(grant.principal), grant.googleSub), 300)).toBe(true);
    const token = await a.refresher.for(grant)(grant.refreshToken, () => Promise.resolve(fresh('ya29.after-the-ghost')));
    expect(token.access_token).toBe('ya29.after-the-ghost');
  });

  it('a waiter does not break a lock left with its whole life (the deadline plus 5 s), and refreshes once itself after it', async () => {
    // Fake time: the wait of a whole lock life is stepped through, not waited for (the SQLite store reads Date.now() too).
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      const [a] = processes(1, 1000);
      const grant = storedGrant({ principal: 'ghost@corp.example', googleSub: '36' });
      await a.grants.save(grant);
      const life = 1000 + 5000;
      expect(await a.store.claim(stateKey('grantRefresh', encodeURIComponent(grant.principal), grant.googleSub), life)).toBe(true);
      let calls = 0;
      let settled = false;
      const token = a.refresher.for(grant)(grant.refreshToken, () => {
        calls += 1;
        return Promise.resolve(fresh('ya29.after-the-whole-life'));
      });
      void token.finally(() => (settled = true)).catch(() => undefined);
      await jest.advanceTimersByTimeAsync(life - 200);
      // The lock still lives: nobody asked Google, and the waiter has not given up.
      expect(calls).toBe(0);
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(400);
      expect((await token).access_token).toBe('ya29.after-the-whole-life');
      expect(calls).toBe(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps a refresh token Google rotated in the grant it refreshed', async () => {
    const [a, b] = processes(2);
    const grant = storedGrant({ principal: 'rotate@corp.example', googleSub: '33' });
    await a.grants.save(grant);
    await a.refresher.for(grant)(grant.refreshToken, () => Promise.resolve(fresh('ya29.rotated', { refresh_token: '1//0rotated' })));
    expect((await b.grants.list(grant.principal))[0].refreshToken).toBe('1//0rotated');
  });

  it('ends the grant on invalid_grant: marked revoked, the client forgotten, the call told to connect again', async () => {
    const [a] = processes(1);
    const grant = storedGrant({ principal: 'ended@corp.example', googleSub: '34' });
    await a.grants.save(grant);
    const refused = a.refresher.for(grant)(grant.refreshToken, () => Promise.reject(invalidGrant()));
    await expect(refused).rejects.toBeInstanceOf(NotConnectedError);
    await expect(refused).rejects.toMatchObject({ reason: 'revoked' });
    expect(a.ended.map((g) => g.googleSub)).toEqual(['34']);
    expect((await a.grants.read(grant.principal)).revoked.map((g) => g.googleSub)).toEqual(['34']);
  });

  it('keeps the grant when invalid_grant answers a refresh token the person has replaced meanwhile, and goes on with the new one', async () => {
    const [a, b] = processes(2);
    const grant = storedGrant({ principal: 'again@corp.example', googleSub: '35' });
    await a.grants.save(grant);
    const sent: string[] = [];
    const token = await a.refresher.for(grant)(grant.refreshToken, async (refreshToken) => {
      sent.push(refreshToken);
      if (refreshToken === grant.refreshToken) {
        // The person connected the account again while this refresh was on its way.
        await b.grants.save({ ...grant, refreshToken: '1//0reconnected' });
        throw invalidGrant();
      }
      return fresh('ya29.new-grant');
    });
    expect(sent).toEqual([grant.refreshToken, '1//0reconnected']);
    expect(token.access_token).toBe('ya29.new-grant');
    expect(a.ended).toEqual([]);
    expect((await a.grants.list(grant.principal)).map((g) => g.refreshToken)).toEqual(['1//0reconnected']);
  });

  it('fails a refresh the token endpoint could not answer (5xx, timeout) and keeps the grant', async () => {
    const [a] = processes(1);
    const grant = storedGrant({ principal: 'flaky@corp.example', googleSub: '36' });
    await a.grants.save(grant);
    const down = Object.assign(new Error('Service Unavailable'), { response: { status: 503, data: 'down' } });
    await expect(a.refresher.for(grant)(grant.refreshToken, () => Promise.reject(down))).rejects.toBe(down);
    expect((await a.grants.list(grant.principal)).map((g) => g.googleSub)).toEqual(['36']);
    expect(a.ended).toEqual([]);
  });
});
