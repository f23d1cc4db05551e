import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RedisServer, startRedisServer } from '../../test/support/redis-server.js';
import { createStateStore } from './create-state-store.js';
import { compareEntryIds, isEntryId, type StateStore, StateUnavailableError } from './state-store.js';

// One contract, two real stores: every case runs on SQLite in a temporary folder and on a redis-server of its own.
interface Subject {
  store: StateStore;
  /** A second, independent handle on the same store (another connection / another open of the folder). */
  sibling: StateStore;
  dispose(): Promise<void>;
}

const subjects: [string, () => Promise<Subject>][] = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gsc-state-'));
      const store = createStateStore({ kind: 'sqlite', dir });
      const sibling = createStateStore({ kind: 'sqlite', dir });
      return {
        store,
        sibling,
        dispose: async () => {
          await store.close();
          await sibling.close();
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
      const sibling = createStateStore({ kind: 'redis', url: redis.url });
      return {
        store,
        sibling,
        dispose: async () => {
          await store.close();
          await sibling.close();
          await redis.stop();
        },
      };
    },
  ],
];

let unique = 0;
const fresh = (label: string) => `test:${label}:${++unique}:${Math.random().toString(36).slice(2)}`;
const MB = 'ü€𝄞'.repeat(1).padEnd(1024 * 1024, 'x0123456789');

describe.each(subjects)('StateStore contract on %s', (_name, make) => {
  let subject: Subject;
  let store: StateStore;
  let sibling: StateStore;
  beforeAll(async () => {
    subject = await make();
    ({ store, sibling } = subject);
  });
  afterAll(() => subject.dispose());

  it('answers ping and describes itself without secrets', async () => {
    await expect(store.ping()).resolves.toBeUndefined();
    expect(store.description).toMatch(/^(SQLite in \/|Redis at redis:\/\/127\.0\.0\.1:\d+\/0$)/);
  });

  describe('claim', () => {
    it('is true once, then false for everyone sharing the store until it expires', async () => {
      const key = fresh('claim');
      expect(await store.claim(key, 60_000)).toBe(true);
      expect(await store.claim(key, 60_000)).toBe(false);
      expect(await sibling.claim(key, 60_000)).toBe(false);
      expect(await store.claim(fresh('claim-other'), 60_000)).toBe(true);
    });

    it('is true for exactly one of many simultaneous claims from two handles', async () => {
      const key = fresh('claim-race');
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? store : sibling).claim(key, 60_000)));
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('can be claimed again once its ttl has passed', async () => {
      const key = fresh('claim-ttl');
      expect(await store.claim(key, 150)).toBe(true);
      expect(await sibling.claim(key, 150)).toBe(false);
      await sleep(300);
      expect(await sibling.claim(key, 60_000)).toBe(true);
      expect(await store.claim(key, 60_000)).toBe(false);
    });

    it('refuses a ttl that is not a positive number', async () => {
      await expect(store.claim(fresh('bad-ttl'), 0)).rejects.toThrow(RangeError);
      await expect(store.claim(fresh('bad-ttl'), Number.NaN)).rejects.toThrow(RangeError);
      await expect(store.claim('', 1000)).rejects.toThrow(RangeError);
    });
  });

  describe('records', () => {
    it('puts, gets and deletes, across handles', async () => {
      const key = fresh('record');
      expect(await store.get(key)).toBeUndefined();
      await store.put(key, 'one');
      expect(await sibling.get(key)).toBe('one');
      await sibling.put(key, 'two');
      expect(await store.get(key)).toBe('two');
      await store.delete(key);
      expect(await sibling.get(key)).toBeUndefined();
      await expect(store.delete(key)).resolves.toBeUndefined();
    });

    it('forgets a record when its ttl passes; a put without ttl drops an earlier expiry', async () => {
      const expiring = fresh('ttl');
      const kept = fresh('ttl-dropped');
      await store.put(expiring, 'soon gone', 150);
      await store.put(kept, 'first', 150);
      await store.put(kept, 'second');
      expect(await sibling.get(expiring)).toBe('soon gone');
      await sleep(300);
      expect(await sibling.get(expiring)).toBeUndefined();
      expect(await sibling.get(kept)).toBe('second');
    });

    it('putIfAbsent keeps the first value and returns what is stored', async () => {
      const key = fresh('pia');
      expect(await store.putIfAbsent(key, 'first')).toBe('first');
      expect(await sibling.putIfAbsent(key, 'second')).toBe('first');
      expect(await store.get(key)).toBe('first');
      const expiring = fresh('pia-ttl');
      expect(await store.putIfAbsent(expiring, 'old', 150)).toBe('old');
      await sleep(300);
      expect(await sibling.putIfAbsent(expiring, 'new')).toBe('new');
      expect(await store.get(expiring)).toBe('new');
    });

    it('putIfAbsent agrees on one value when many race', async () => {
      const key = fresh('pia-race');
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? store : sibling).putIfAbsent(key, `v${i}`)));
      expect(new Set(results).size).toBe(1);
      expect(await store.get(key)).toBe(results[0]);
    });

    it('replaceIf replaces only the value it expects, and nothing absent or expired', async () => {
      const key = fresh('cas');
      expect(await store.replaceIf(key, 'a', 'b')).toBe(false);
      expect(await store.get(key)).toBeUndefined();
      await store.put(key, 'a');
      expect(await sibling.replaceIf(key, 'not a', 'b')).toBe(false);
      expect(await store.get(key)).toBe('a');
      expect(await sibling.replaceIf(key, 'a', 'b')).toBe(true);
      expect(await store.get(key)).toBe('b');
      expect(await store.replaceIf(key, 'a', 'c')).toBe(false); // the value it expected is gone
      expect(await store.get(key)).toBe('b');
      expect(await store.replaceIf(key, 'b', 'short', 150)).toBe(true);
      await sleep(300);
      expect(await store.get(key)).toBeUndefined();
      expect(await sibling.replaceIf(key, 'short', 'revived')).toBe(false);
      expect(await store.get(key)).toBeUndefined();
    });

    it('replaceIf lets exactly one of many racing writers replace a value', async () => {
      const key = fresh('cas-race');
      await store.put(key, 'start');
      const won = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? store : sibling).replaceIf(key, 'start', `v${i}`)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await store.get(key)).toBe(`v${won.indexOf(true)}`);
    });

    it.each([
      ['unicode', 'Grüße, 東京, عربى, emoji 👩‍💻🇩🇪, combining é, 𝄞 and "quotes"\n\ttabs'],
      ['the empty string', ''],
      ['control characters', 'a\u0000b\u0001c\u007fd\r\n'],
      ['JSON', JSON.stringify({ a: [1, 2, { b: null }], c: 'd\u2028e' })],
      ['1 MB', MB],
    ])('keeps %s exactly', async (_label, value) => {
      const key = fresh('value');
      await store.put(key, value);
      expect(await sibling.get(key)).toBe(value);
      const stream = fresh('value-stream');
      const id = await store.append(stream, value);
      expect(await sibling.read(stream)).toEqual([{ id, value }]);
    });
  });

  describe('increment', () => {
    it('adds whole numbers and returns the new value', async () => {
      const key = fresh('counter');
      expect(await store.increment(key, 1, 60_000)).toBe(1);
      expect(await sibling.increment(key, 5, 60_000)).toBe(6);
      expect(await store.increment(key, -2, 60_000)).toBe(4);
      expect(await store.get(key)).toBe('4');
    });

    it('loses no update when many increment at once', async () => {
      const key = fresh('counter-race');
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? store : sibling).increment(key, 1, 60_000)));
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    });

    it('starts again after its window, and the window does not slide with later increments', async () => {
      const key = fresh('window');
      expect(await store.increment(key, 1, 1000)).toBe(1);
      await sleep(300);
      expect(await store.increment(key, 1, 1000)).toBe(2); // inside the window, which started at the first increment
      await sleep(850); // 1150 ms after the first increment, 850 after the second
      expect(await sibling.increment(key, 1, 1000)).toBe(1);
    });

    it('refuses to count on a record that is not a number, without calling the store unreachable', async () => {
      const key = fresh('not-a-number');
      await store.put(key, 'hello');
      const error = await store.increment(key, 1, 1000).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(StateUnavailableError);
      expect(await store.get(key)).toBe('hello');
      await expect(store.increment(fresh('frac'), 1.5, 1000)).rejects.toThrow(RangeError);
    });
  });

  describe('streams', () => {
    it('appends with increasing ids and reads oldest first, after an id, up to a limit', async () => {
      const stream = fresh('stream');
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        ids.push(await (i % 2 ? store : sibling).append(stream, `e${i}`));
      }
      for (const id of ids) {
        expect(isEntryId(id)).toBe(true);
      }
      for (let i = 1; i < ids.length; i++) {
        expect(compareEntryIds(ids[i], ids[i - 1])).toBeGreaterThan(0);
      }
      expect(await store.read(stream)).toEqual(ids.map((id, i) => ({ id, value: `e${i}` })));
      expect((await sibling.read(stream, { after: ids[1] })).map((e) => e.value)).toEqual(['e2', 'e3', 'e4', 'e5']);
      expect((await store.read(stream, { after: ids[1], limit: 2 })).map((e) => e.value)).toEqual(['e2', 'e3']);
      expect(await store.read(stream, { after: ids[5] })).toEqual([]);
      expect(await store.read(stream, { limit: 0 })).toEqual([]);
    });

    it('reads newest first, before an id, up to a limit', async () => {
      const stream = fresh('latest');
      const ids = await store.appendMany(stream, ['a', 'b', 'c', 'd', 'e']);
      expect((await sibling.readLatest(stream)).map((e) => e.value)).toEqual(['e', 'd', 'c', 'b', 'a']);
      expect((await sibling.readLatest(stream, { limit: 2 })).map((e) => e.value)).toEqual(['e', 'd']);
      const page = await store.readLatest(stream, { before: ids[3], limit: 2 });
      expect(page).toEqual([
        { id: ids[2], value: 'c' },
        { id: ids[1], value: 'b' },
      ]);
      expect((await store.readLatest(stream, { before: page[1].id })).map((e) => e.value)).toEqual(['a']);
      expect(await store.readLatest(stream, { before: ids[0] })).toEqual([]);
      expect(await store.readLatest(stream, { before: '0-0' })).toEqual([]);
    });

    it('appendMany writes many entries in order with distinct increasing ids', async () => {
      const stream = fresh('many');
      const values = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ row: i, page: `/p/${i}` }));
      const ids = await store.appendMany(stream, values);
      expect(ids).toHaveLength(values.length);
      expect(new Set(ids).size).toBe(values.length);
      for (let i = 1; i < ids.length; i++) {
        expect(compareEntryIds(ids[i], ids[i - 1])).toBeGreaterThan(0);
      }
      const back = await sibling.read(stream);
      expect(back.map((e) => e.value)).toEqual(values);
      expect(back.map((e) => e.id)).toEqual(ids);
      expect(await store.appendMany(stream, [])).toEqual([]);
    });

    it('appendMany of more rows than one command carries stays in order, trimmed once at the end', async () => {
      const stream = fresh('export');
      const values = Array.from({ length: 25_000 }, (_, i) => `row ${i}`);
      const ids = await store.appendMany(stream, values, { maxLength: 24_000, ttlMs: 60_000 });
      expect(ids).toHaveLength(25_000);
      for (let i = 1; i < ids.length; i++) {
        expect(compareEntryIds(ids[i], ids[i - 1])).toBeGreaterThan(0);
      }
      const back = await sibling.read(stream);
      expect(back).toHaveLength(24_000);
      expect(back[0]).toEqual({ id: ids[1000], value: 'row 1000' });
      expect(back.at(-1)).toEqual({ id: ids[24_999], value: 'row 24999' });
    });

    it('unsynced appends issued together, to one stream and to several, each get their own ids in order, trimmed and readable', async () => {
      const [a, b] = [fresh('unsynced-a'), fresh('unsynced-b')];
      const options = { synced: false, maxLength: 4, ttlMs: 60_000 } as const;
      // Not awaited one by one: SSE events of concurrent calls arrive like this, and the SQLite store commits them in one transaction.
      const pending = Array.from({ length: 6 }, (_, i) => store.append(i % 2 ? b : a, `e${i}`, options));
      pending.push(store.appendMany(a, ['m0', 'm1'], options).then((ids) => ids.join(' ')));
      const ids = await Promise.all(pending);
      const backA = await sibling.read(a);
      expect(backA.map((e) => e.value)).toEqual(['e2', 'e4', 'm0', 'm1']);
      expect(backA.map((e) => e.id)).toEqual([ids[2], ids[4], ...ids[6].split(' ')]);
      const backB = await sibling.read(b);
      expect(backB.map((e) => e.value)).toEqual(['e1', 'e3', 'e5']);
      expect(backB.map((e) => e.id)).toEqual([ids[1], ids[3], ids[5]]);
      // A bad argument is refused on its own, without failing the appends issued with it.
      const [good, bad] = await Promise.allSettled([store.append(a, 'ok', options), store.append(a, 'bad', { ...options, maxLength: 0 })]);
      expect(good.status).toBe('fulfilled');
      expect(bad.status).toBe('rejected');
      expect((await sibling.read(a)).at(-1)?.value).toBe('ok');
    });

    it('keeps only the newest maxLength entries', async () => {
      const stream = fresh('capped');
      for (let i = 0; i < 7; i++) {
        await store.append(stream, `e${i}`, { maxLength: 3 });
      }
      expect((await sibling.read(stream)).map((e) => e.value)).toEqual(['e4', 'e5', 'e6']);
      await store.appendMany(stream, ['f0', 'f1', 'f2', 'f3', 'f4'], { maxLength: 2 });
      expect((await sibling.read(stream)).map((e) => e.value)).toEqual(['f3', 'f4']);
      await store.append(stream, 'g0'); // no maxLength this time: nothing is dropped
      await store.append(stream, 'g1', { maxLength: 10 });
      expect((await sibling.read(stream)).map((e) => e.value)).toEqual(['f3', 'f4', 'g0', 'g1']);
      await store.append(stream, 'g2', { maxLength: 1 });
      expect((await sibling.read(stream)).map((e) => e.value)).toEqual(['g2']);
    });

    it('expires as a whole ttl after its latest append; an append without ttl keeps the expiry', async () => {
      const stream = fresh('expiring');
      await store.append(stream, 'a', { ttlMs: 400 });
      await sleep(250);
      await store.append(stream, 'b', { ttlMs: 400 }); // renews: expires 400 ms from now
      await sleep(250);
      expect((await sibling.read(stream)).map((e) => e.value)).toEqual(['a', 'b']);
      await store.append(stream, 'c'); // leaves the expiry set by 'b'
      await sleep(300);
      expect(await sibling.read(stream)).toEqual([]);
      expect(await sibling.readLatest(stream)).toEqual([]);
      const id = await store.append(stream, 'new life');
      expect((await sibling.read(stream)).map((e) => e.value)).toEqual(['new life']);
      expect(isEntryId(id)).toBe(true);
    });

    it('is removed by delete, and an unknown stream reads as empty', async () => {
      const stream = fresh('deleted');
      await store.appendMany(stream, ['a', 'b']);
      await sibling.delete(stream);
      expect(await store.read(stream)).toEqual([]);
      expect(await store.read(fresh('never-written'))).toEqual([]);
    });

    it('removes one entry by id, for every handle; the rest, later ids and the bound are unaffected', async () => {
      const stream = fresh('remove');
      const ids = await store.appendMany(stream, ['a', 'b', 'c']);
      expect(await sibling.removeEntry(stream, ids[1])).toBe(true);
      expect(await store.removeEntry(stream, ids[1])).toBe(false); // already gone: one remover wins
      expect(await store.removeEntry(stream, '1-0')).toBe(false); // never there
      expect(await store.removeEntry(fresh('never-written'), ids[0])).toBe(false);
      expect(await store.read(stream)).toEqual([
        { id: ids[0], value: 'a' },
        { id: ids[2], value: 'c' },
      ]);
      const next = await store.append(stream, 'd', { maxLength: 3 });
      expect(compareEntryIds(next, ids[2])).toBeGreaterThan(0);
      // Three entries left after the removal and the append: the bound counts what is there, so nothing was trimmed.
      expect((await sibling.read(stream)).map((e) => e.value)).toEqual(['a', 'c', 'd']);
      await store.append(stream, 'e', { maxLength: 3 });
      expect((await sibling.read(stream)).map((e) => e.value)).toEqual(['c', 'd', 'e']);
    });

    it('refuses ids that are not stream entry ids', async () => {
      const stream = fresh('bad-id');
      await store.append(stream, 'a');
      for (const bad of ['', 'abc', '12', '1-2-3', '-1-0', '(1-0', '+', '1e3-0']) {
        await expect(store.read(stream, { after: bad })).rejects.toThrow(RangeError);
        await expect(store.readLatest(stream, { before: bad })).rejects.toThrow(RangeError);
        await expect(store.removeEntry(stream, bad)).rejects.toThrow(RangeError);
      }
    });
  });

  it('throws StateUnavailableError from every operation once closed', async () => {
    const other = await make();
    await other.store.put('k', 'v');
    await other.store.close();
    const operations: (() => Promise<unknown>)[] = [
      () => other.store.ping(),
      () => other.store.claim('k2', 1000),
      () => other.store.get('k'),
      () => other.store.put('k', 'w'),
      () => other.store.putIfAbsent('k', 'w'),
      () => other.store.replaceIf('k', 'v', 'w'),
      () => other.store.delete('k'),
      () => other.store.increment('n', 1, 1000),
      () => other.store.append('s', 'x'),
      () => other.store.read('s'),
      () => other.store.readLatest('s'),
      () => other.store.removeEntry('s', '1-0'),
    ];
    for (const operation of operations) {
      const error = await operation().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateUnavailableError);
      expect((error as Error).message).toContain(other.store.description);
    }
    await expect(other.store.close()).resolves.toBeUndefined();
    expect(await other.sibling.get('k')).toBe('v');
    await other.dispose();
  });
});
