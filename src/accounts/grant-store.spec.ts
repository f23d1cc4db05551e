import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectedConfig, FIXTURE_REFRESH_TOKEN, storedGrant } from '../../test/support/grant-fixtures.js';
import { type RedisServer, startRedisServer } from '../../test/support/redis-server.js';
import type { Config } from '../config/config.js';
import { createStateStore } from '../state/create-state-store.js';
import type { StateStore } from '../state/state-store.js';
import { GrantStore, indexKey, recordKey, type StoredGrant } from './grant-store.js';

const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
const REFRESH = FIXTURE_REFRESH_TOKEN;

function configFor(state: { dir?: string; redis?: string }, keys?: string): Config {
  return connectedConfig({ ...state, ...(keys ? { keys } : {}) });
}

const grant = (principal: string, googleSub: string, extra: Partial<StoredGrant> = {}): StoredGrant =>
  storedGrant({ principal, googleSub, ...extra });

interface Subject {
  store: StateStore;
  /** A GrantStore over the same state with these keys (a sibling process, a rotated deployment). */
  grants(keys: string): GrantStore;
  dispose(): Promise<void>;
}

const subjects: [string, () => Promise<Subject>][] = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gsc-grants-'));
      const store = createStateStore({ kind: 'sqlite', dir });
      const opened: StateStore[] = [store];
      return {
        store,
        grants: (keys) => {
          const own = createStateStore({ kind: 'sqlite', dir });
          opened.push(own);
          return new GrantStore(own, configFor({ dir }, keys));
        },
        dispose: async () => {
          await Promise.all(opened.map((s) => s.close()));
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  ],
  [
    'Redis',
    async () => {
      const redis: RedisServer = await startRedisServer();
      const store = createStateStore({ kind: 'redis', url: redis.url });
      const opened: StateStore[] = [store];
      return {
        store,
        grants: (keys) => {
          const own = createStateStore({ kind: 'redis', url: redis.url });
          opened.push(own);
          return new GrantStore(own, configFor({ redis: redis.url }, keys));
        },
        dispose: async () => {
          await Promise.all(opened.map((s) => s.close()));
          await redis.stop();
        },
      };
    },
  ],
];

describe.each(subjects)('GrantStore on %s', (_name, make) => {
  let subject: Subject;
  const warnings: string[] = [];
  beforeAll(async () => {
    subject = await make();
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await subject.dispose();
  });

  it('round-trips grants, one per Google account, the same account saved again replacing its record', async () => {
    const grants = subject.grants(`k1:${key(1)}`);
    await grants.save(grant('alice@corp.example', '111'));
    await grants.save(grant('alice@corp.example', '222', { connectedAt: '2026-12-02T10:00:00.000Z' }));
    await grants.save(grant('alice@corp.example', '111', { scopes: ['openid'], refreshToken: `${REFRESH}-2` }));
    const listed = await subject.grants(`k1:${key(1)}`).list('alice@corp.example');
    expect(listed.map((g) => [g.googleSub, g.scopes, g.refreshToken])).toEqual([
      ['222', grant('x', '2').scopes, REFRESH],
      ['111', ['openid'], `${REFRESH}-2`],
    ]);
    expect(await grants.list('bob@corp.example')).toEqual([]);
    // Nothing readable at rest: the record holds neither the token nor the e-mail.
    const raw = (await subject.store.get(recordKey('alice@corp.example', '111')))!;
    expect(raw).not.toContain('refresh-token');
    expect(raw).not.toContain('111@example.com');
    expect(JSON.parse(raw)).toMatchObject({ v: 1, kid: 'k1' });
    await grants.remove('alice@corp.example', '111');
    expect((await grants.list('alice@corp.example')).map((g) => g.googleSub)).toEqual(['222']);
  });

  it('uses a fresh IV per record: the same grant sealed twice differs', async () => {
    const grants = subject.grants(`k1:${key(1)}`);
    await grants.save(grant('iv@corp.example', '1'));
    const first = await subject.store.get(recordKey('iv@corp.example', '1'));
    await grants.save(grant('iv@corp.example', '1'));
    const second = await subject.store.get(recordKey('iv@corp.example', '1'));
    expect(JSON.parse(first!).iv).not.toBe(JSON.parse(second!).iv);
  });

  it('refuses a record with one byte changed, and says so once on stderr without the token', async () => {
    const grants = subject.grants(`k1:${key(1)}`);
    await grants.save(grant('tamper@corp.example', '333'));
    const slot = recordKey('tamper@corp.example', '333');
    const sealed = JSON.parse((await subject.store.get(slot))!) as { data: string };
    const bytes = Buffer.from(sealed.data, 'base64');
    bytes[bytes.length - 1] ^= 0x01;
    await subject.store.put(slot, JSON.stringify({ ...sealed, data: bytes.toString('base64') }));
    warnings.length = 0;
    const read = await grants.read('tamper@corp.example');
    await grants.read('tamper@corp.example');
    expect(read.usable).toEqual([]);
    expect(read.unreadable).toEqual([{ googleSub: '333', reason: expect.stringMatching(/does not open/) }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/principal "tamper@corp.example" \(account 333\) is not used: it does not open/);
    expect(warnings.join()).not.toContain('refresh');
  });

  it("refuses a record moved to another principal's slot or to another account's slot", async () => {
    const grants = subject.grants(`k1:${key(1)}`);
    await grants.save(grant('mallory@corp.example', '444'));
    await grants.save(grant('victim@corp.example', '555'));
    const mallorys = (await subject.store.get(recordKey('mallory@corp.example', '444')))!;
    // Another principal's slot, same account id, index entry added as a real save would.
    await subject.store.put(recordKey('victim@corp.example', '444'), mallorys);
    await subject.store.append(indexKey('victim@corp.example'), '444');
    // The same principal's record of another account replaced by this one.
    await grants.save(grant('mallory@corp.example', '666'));
    await subject.store.put(recordKey('mallory@corp.example', '666'), mallorys);
    const victim = await grants.read('victim@corp.example');
    expect(victim.usable.map((g) => g.googleSub)).toEqual(['555']);
    expect(victim.unreadable.map((u) => u.googleSub)).toEqual(['444']);
    const mallory = await grants.read('mallory@corp.example');
    expect(mallory.usable.map((g) => g.googleSub)).toEqual(['444']);
    expect(mallory.unreadable).toEqual([
      { googleSub: '666', reason: expect.stringMatching(/moved from another principal or Google account/) },
    ]);
  });

  it('refuses a record sealed with a key that is not configured, naming the key id only', async () => {
    await subject.grants(`gone:${key(9)}`).save(grant('old@corp.example', '777'));
    const read = await subject.grants(`k1:${key(1)}`).read('old@corp.example');
    expect(read.unreadable).toEqual([{ googleSub: '777', reason: 'it was sealed with key "gone", which is not among the grant keys' }]);
    // A key id swapped in the record does not help: the id is in the associated data.
    const slot = recordKey('old@corp.example', '777');
    await subject.store.put(slot, JSON.stringify({ ...JSON.parse((await subject.store.get(slot))!), kid: 'k1' }));
    expect((await subject.grants(`k1:${key(1)},gone:${key(8)}`).read('old@corp.example')).unreadable[0].reason).toMatch(/does not open/);
  });

  it('rotates: a record sealed with an older key opens and is re-sealed with the first key on use', async () => {
    await subject.grants(`old:${key(2)}`).save(grant('rotate@corp.example', '888'));
    const slot = recordKey('rotate@corp.example', '888');
    expect(JSON.parse((await subject.store.get(slot))!).kid).toBe('old');
    const rotated = subject.grants(`new:${key(3)},old:${key(2)}`);
    expect((await rotated.list('rotate@corp.example')).map((g) => g.refreshToken)).toEqual([REFRESH]);
    expect(JSON.parse((await subject.store.get(slot))!).kid).toBe('new');
    // The old key can now go.
    expect((await subject.grants(`new:${key(3)}`).list('rotate@corp.example')).map((g) => g.googleSub)).toEqual(['888']);
  });

  it('lists the principals that saved grants, and records last use to the minute', async () => {
    const grants = subject.grants(`k1:${key(1)}`);
    const before = await grants.principals();
    await grants.save(grant('uma@corp.example', '10'));
    await grants.save(grant('uma@corp.example', '11'));
    await grants.save(grant('vic@corp.example', '12'));
    expect((await subject.grants(`k1:${key(1)}`).principals()).slice(before.length)).toEqual(['uma@corp.example', 'vic@corp.example']);
    const t0 = Date.parse('2026-12-03T09:00:00Z');
    await grants.touch('uma@corp.example', '10', t0);
    await grants.touch('uma@corp.example', '10', t0 + 30_000);
    expect(await grants.lastUsed('uma@corp.example', '10')).toBe('2026-12-03T09:00:00.000Z');
    await grants.touch('uma@corp.example', '10', t0 + 61_000);
    expect(await grants.lastUsed('uma@corp.example', '10')).toBe('2026-12-03T09:01:01.000Z');
    expect(await grants.lastUsed('uma@corp.example', '11')).toBeUndefined();
    await grants.remove('uma@corp.example', '10');
    expect(await grants.lastUsed('uma@corp.example', '10')).toBeUndefined();
  });

  it('marks a grant revoked: its refresh token is dropped, the account kept apart from usable ones; a new save replaces it', async () => {
    const grants = subject.grants(`k1:${key(1)}`);
    await grants.save(grant('revoked@corp.example', '999'));
    expect(await grants.revokeIfHolds('revoked@corp.example', '999', REFRESH, new Date('2026-12-03T00:00:00Z'))).toEqual({
      kind: 'swapped',
    });
    const read = await grants.read('revoked@corp.example');
    expect(read.usable).toEqual([]);
    expect(read.revoked).toEqual([
      expect.objectContaining({ googleSub: '999', googleEmail: '999@example.com', revokedAt: '2026-12-03T00:00:00.000Z' }),
    ]);
    expect(JSON.stringify(read.revoked)).not.toContain('refresh');
    await grants.save(grant('revoked@corp.example', '999'));
    expect((await grants.list('revoked@corp.example')).map((g) => g.googleSub)).toEqual(['999']);
  });

  // Issue 29 break 5: a late invalid_grant, or a refresh's rotation, about a refresh token the person has since replaced.
  it('revokes a grant only while it holds the refresh token Google refused: a reconnected grant is left alone', async () => {
    const grants = subject.grants(`k1:${key(1)}`);
    await grants.save(grant('late@corp.example', '1'));
    // The person connects the account again (another process) while a refresh with the old token is on its way.
    await subject.grants(`k1:${key(1)}`).save(grant('late@corp.example', '1', { refreshToken: `${REFRESH}-new`, scopes: ['openid', 'w'] }));
    expect(await grants.revokeIfHolds('late@corp.example', '1', REFRESH)).toEqual({ kind: 'replaced', refreshToken: `${REFRESH}-new` });
    expect((await grants.list('late@corp.example')).map((g) => [g.refreshToken, g.scopes])).toEqual([[`${REFRESH}-new`, ['openid', 'w']]]);
    expect(await grants.revokeIfHolds('late@corp.example', '1', `${REFRESH}-new`)).toEqual({ kind: 'swapped' });
    expect((await grants.read('late@corp.example')).revoked).toHaveLength(1);
    expect(await grants.revokeIfHolds('late@corp.example', '1', `${REFRESH}-new`)).toEqual({ kind: 'gone' });
    expect(await grants.revokeIfHolds('nobody@corp.example', '1', REFRESH)).toEqual({ kind: 'gone' });
  });

  it('rotates a refresh token only over the one it refreshed, keeping the grant as stored', async () => {
    const grants = subject.grants(`k1:${key(1)}`);
    await grants.save(grant('rot@corp.example', '1'));
    expect(await grants.rotateRefreshToken('rot@corp.example', '1', REFRESH, `${REFRESH}-rotated`)).toEqual({ kind: 'swapped' });
    expect((await grants.list('rot@corp.example')).map((g) => [g.refreshToken, g.scopes])).toEqual([
      [`${REFRESH}-rotated`, grant('x', '1').scopes],
    ]);
    expect(await grants.holds('rot@corp.example', '1', `${REFRESH}-rotated`)).toBe(true);
    // A reconnect with other scopes, then a late rotation of the old token: the reconnect stands.
    await grants.save(grant('rot@corp.example', '1', { refreshToken: `${REFRESH}-reconnected`, scopes: ['openid'] }));
    expect(await grants.rotateRefreshToken('rot@corp.example', '1', `${REFRESH}-rotated`, `${REFRESH}-late`)).toEqual({
      kind: 'replaced',
      refreshToken: `${REFRESH}-reconnected`,
    });
    expect((await grants.list('rot@corp.example')).map((g) => [g.refreshToken, g.scopes])).toEqual([
      [`${REFRESH}-reconnected`, ['openid']],
    ]);
  });

  it('never revokes a grant saved in the same moment by another process (compare-and-set, many rounds)', async () => {
    const a = subject.grants(`k1:${key(1)}`);
    const b = subject.grants(`k1:${key(1)}`);
    const principals = Array.from({ length: 12 }, (_, i) => `cas-${i}@corp.example`);
    await Promise.all(principals.map((p) => a.save(grant(p, 's'))));
    // Each: a revoke of the old token racing a reconnect with a new one; whichever lands first, the reconnect is what stays.
    await Promise.all(
      principals.flatMap((p) => [a.revokeIfHolds(p, 's', REFRESH), b.save(grant(p, 's', { refreshToken: `${REFRESH}-${p}` }))]),
    );
    for (const p of principals) {
      expect((await a.list(p)).map((g) => g.refreshToken)).toEqual([`${REFRESH}-${p}`]);
    }
  });

  it('re-seals a record under the first key only over the record it read: a save meanwhile is never undone', async () => {
    const old = subject.grants(`k1:${key(1)}`);
    await old.save(grant('reseal@corp.example', '1'));
    const rotated = subject.grants(`k2:${key(2)},k1:${key(1)}`);
    const readers = Array.from({ length: 6 }, () => rotated.list('reseal@corp.example'));
    const saved = rotated.save(grant('reseal@corp.example', '1', { refreshToken: `${REFRESH}-after` }));
    await Promise.all([...readers, saved]);
    expect((await rotated.list('reseal@corp.example')).map((g) => g.refreshToken)).toEqual([`${REFRESH}-after`]);
    expect(JSON.parse((await subject.store.get(recordKey('reseal@corp.example', '1')))!)).toMatchObject({ kid: 'k2' });
  });

  it('keeps an index of principals with grants for ops: a save lists, a revoke keeps, removing the last grant unlists', async () => {
    const grants = subject.grants(`k1:${key(1)}`);
    const other = subject.grants(`k1:${key(1)}`);
    await grants.save(grant('idx-ann@corp.example', 'a1'));
    await grants.save(grant('idx-ann@corp.example', 'a2'));
    await other.save(grant('idx-ben@corp.example', 'b1'));
    const listed = (p: string[]) => p.filter((x) => x.startsWith('idx-'));
    expect(listed(await other.principals())).toEqual(['idx-ann@corp.example', 'idx-ben@corp.example']);
    await grants.revokeIfHolds('idx-ben@corp.example', 'b1', REFRESH);
    expect(listed(await grants.principals())).toEqual(['idx-ann@corp.example', 'idx-ben@corp.example']);
    await grants.remove('idx-ann@corp.example', 'a1');
    expect(listed(await grants.principals())).toEqual(['idx-ann@corp.example', 'idx-ben@corp.example']);
    await other.remove('idx-ann@corp.example', 'a2');
    await grants.remove('idx-ben@corp.example', 'b1');
    expect(listed(await grants.principals())).toEqual([]);
    await other.save(grant('idx-ben@corp.example', 'b2'));
    expect(listed(await grants.principals())).toEqual(['idx-ben@corp.example']);
  });

  it("keeps the index right when a save races the removal of the principal's last other grant (two processes)", async () => {
    const a = subject.grants(`k1:${key(1)}`);
    const b = subject.grants(`k1:${key(1)}`);
    const principals = Array.from({ length: 8 }, (_, i) => `race-${i}@corp.example`);
    await Promise.all(principals.map((p) => a.save(grant(p, 'old'))));
    await Promise.all(principals.flatMap((p) => [a.remove(p, 'old'), b.save(grant(p, 'new'))]));
    const listed = new Set(await a.principals());
    for (const p of principals) {
      expect([p, listed.has(p)]).toEqual([p, (await a.list(p)).length > 0]);
    }
  });
});

describe('the generated grant key (SQLite on loopback, no GSC_GRANT_ENCRYPTION_KEYS)', () => {
  it('is created once, 0600, in the state folder, and shared by every GrantStore of that folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsc-grant-key-'));
    const stores = [createStateStore({ kind: 'sqlite', dir }), createStateStore({ kind: 'sqlite', dir })];
    try {
      const [a, b] = stores.map((s) => new GrantStore(s, configFor({ dir })));
      const [ka, kb] = await Promise.all([a.keys(), b.keys()]);
      expect([ka.source, kb.source].sort()).toEqual([
        `grant key created in ${join(dir, 'grant-key')}`,
        `grant key kept in ${join(dir, 'grant-key')}`,
      ]);
      expect(ka.keys).toEqual(kb.keys);
      expect(statSync(join(dir, 'grant-key')).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(dir, 'grant-key'), 'utf8')).toMatch(/^f[0-9a-f]{8}:[A-Za-z0-9+/]{43}=\n$/);
      await a.save(grant('local', '1'));
      expect((await b.list('local')).map((g) => g.refreshToken)).toEqual([REFRESH]);
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
