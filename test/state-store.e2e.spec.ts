import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { APPROVAL_SECRET_FILE, APPROVAL_SECRET_KEY, loadOrCreateApprovalSecret } from '../src/state/approval-secret.js';
import { createStateStore } from '../src/state/create-state-store.js';
import { SQLITE_FILE } from '../src/state/sqlite-state-store.js';
import type { StateConfig } from '../src/config/server-settings.js';
import { compareEntryIds, type StateStore, StateUnavailableError } from '../src/state/state-store.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';

// Real processes on one store: children spawned with this Node, importing the built code from dist/.
const CHILD = resolve(import.meta.dirname, 'support/state-child.mjs');
const PROCESSES = 16;

/** Starts n children on the store, waits until every one has it open, then lets all go at once; resolves with their answers. */
async function race<T>(n: number, options: StateConfig, task: string, ...args: string[]): Promise<T[]> {
  const children: ChildProcess[] = [];
  const answers: Promise<T>[] = [];
  const ready: Promise<void>[] = [];
  for (let i = 0; i < n; i++) {
    const child = spawn(process.execPath, [CHILD, JSON.stringify(options), task, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    ready.push(
      new Promise((res, rej) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.startsWith('ready\n')) {
            res();
          }
        });
        child.once('exit', (code) => rej(new Error(`child exited ${code} before it was ready: ${err}`)));
      }),
    );
    answers.push(
      new Promise((res, rej) => {
        // 'close', not 'exit': the exit event can come before the last stdout chunk is read.
        child.once('close', (code) => {
          const line = out.split('\n')[1];
          if (code === 0 && line) {
            res(JSON.parse(line) as T);
          } else {
            rej(new Error(`child exited ${code}: ${err}`));
          }
        });
      }),
    );
  }
  await Promise.all(ready);
  for (const child of children) {
    child.stdin!.write('go\n');
  }
  return Promise.all(answers);
}

// Every store a test opens is closed after it, pass or fail: an open Redis connection would keep Jest from exiting.
const opened: StateStore[] = [];
const track = (store: StateStore) => (opened.push(store), store);
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('state store across real processes', () => {
  let redis: RedisServer;
  let sqliteDir: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    sqliteDir = mkdtempSync(join(tmpdir(), 'gsc-state-race-'));
  });
  afterAll(async () => {
    await redis.stop();
    rmSync(sqliteDir, { recursive: true, force: true });
  });

  const stores = (): [string, StateConfig][] => [
    ['SQLite sharing one folder', { kind: 'sqlite', dir: sqliteDir }],
    ['Redis sharing one server', { kind: 'redis', url: redis.url }],
  ];

  it.each([0, 1])(`${PROCESSES} processes claiming the same keys at once: exactly one wins each key (store %#)`, async (which) => {
    const [, options] = stores()[which];
    const keys = Array.from({ length: 5 }, (_, i) => `race:claim:${which}:${i}`);
    const answers = await race<boolean[]>(PROCESSES, options, 'claim', ...keys);
    for (let k = 0; k < keys.length; k++) {
      expect(answers.filter((a) => a[k]).length).toBe(1);
    }
  });

  it.each([0, 1])(`${PROCESSES} processes incrementing one counter lose no update (store %#)`, async (which) => {
    const [, options] = stores()[which];
    const answers = await race<number[]>(PROCESSES, options, 'increment', `race:counter:${which}`, '25');
    const all = answers.flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: PROCESSES * 25 }, (_, i) => i + 1));
  });

  it.each([0, 1])(`${PROCESSES} processes appending to one stream get distinct ids, read back in order (store %#)`, async (which) => {
    const [, options] = stores()[which];
    const stream = `race:stream:${which}`;
    const answers = await race<string[]>(PROCESSES, options, 'append', stream, '20');
    const ids = answers.flat();
    expect(new Set(ids).size).toBe(PROCESSES * 20);
    const store = track(createStateStore(options));
    const entries = await store.read(stream);
    await store.close();
    expect(entries.map((e) => e.id).sort(compareEntryIds)).toEqual(entries.map((e) => e.id));
    expect(entries.map((e) => e.id).sort()).toEqual([...ids].sort());
    for (const answer of answers) {
      // each process's own appends keep their order in the stream
      const positions = answer.map((id) => entries.findIndex((e) => e.id === id));
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    }
  });

  it('12 processes starting together on a fresh folder agree on one approval secret, kept in a 0600 file', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'gsc-secret-')), 'state');
    const answers = await race<{ secret: string; created: boolean; location: string }>(12, { kind: 'sqlite', dir }, 'secret');
    expect(new Set(answers.map((a) => a.secret)).size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(answers[0].secret).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, APPROVAL_SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const later = await loadOrCreateApprovalSecret({ kind: 'sqlite', dir });
    expect(later).toEqual({ secret: answers[0].secret, created: false, location: join(dir, APPROVAL_SECRET_FILE) });
  });

  it('12 processes starting together on one Redis agree on one approval secret, kept in a key', async () => {
    const store = track(createStateStore({ kind: 'redis', url: redis.url }));
    await store.delete(APPROVAL_SECRET_KEY);
    const answers = await race<{ secret: string; created: boolean }>(12, { kind: 'redis', url: redis.url }, 'secret');
    expect(new Set(answers.map((a) => a.secret)).size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(await store.get(APPROVAL_SECRET_KEY)).toBe(answers[0].secret);
    expect((await loadOrCreateApprovalSecret({ kind: 'redis', url: redis.url })).secret).toBe(answers[0].secret);
    await store.close();
  });
});

describe('Redis going away and coming back', () => {
  let redis: RedisServer;
  const open = () => track(createStateStore({ kind: 'redis', url: redis.url }));
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  const everyOperation = (store: StateStore): [string, () => Promise<unknown>][] => [
    ['ping', () => store.ping()],
    ['claim', () => store.claim('down:claim', 60_000)],
    ['get', () => store.get('down:get')],
    ['put', () => store.put('down:put', 'v')],
    ['putIfAbsent', () => store.putIfAbsent('down:pia', 'v')],
    ['delete', () => store.delete('down:put')],
    ['increment', () => store.increment('down:n', 1, 60_000)],
    ['append', () => store.append('down:s', 'v')],
    ['appendMany', () => store.appendMany('down:s', ['v', 'w'])],
    ['read', () => store.read('down:s')],
    ['readLatest', () => store.readLatest('down:s')],
  ];

  async function untilUp(store: StateStore): Promise<void> {
    for (let i = 0; ; i++) {
      try {
        return await store.ping();
      } catch (error) {
        if (!(error instanceof StateUnavailableError) || i > 100) {
          throw error;
        }
        await sleep(100);
      }
    }
  }

  it('killed mid-run: operations in flight and after reject with StateUnavailableError; back on the same port, the same store works again', async () => {
    const store = open();
    expect(await store.claim('before:kill', 60_000)).toBe(true);

    const inFlight = Array.from({ length: 200 }, (_, i) => settle(store.put(`burst:${i}`, 'x'.repeat(10_000))));
    await redis.kill();
    for (const outcome of await Promise.all(inFlight)) {
      if ('error' in outcome) {
        expect(outcome.error).toBeInstanceOf(StateUnavailableError);
      }
    }

    for (const [name, operation] of everyOperation(store)) {
      const error = await operation().catch((e: unknown) => e);
      expect([name, error]).toEqual([name, expect.any(StateUnavailableError)]);
      expect((error as Error).message).toMatch(
        new RegExp(`^the state store \\(Redis at redis://127\\.0\\.0\\.1:${redis.port}/0\\) cannot be reached: `),
      );
    }

    await redis.restart();
    await untilUp(store);
    for (const [name, operation] of everyOperation(store)) {
      const outcome = await settle(operation());
      expect([name, 'error' in outcome ? outcome.error : 'done']).toEqual([name, 'done']);
    }
    expect(await store.claim('after:restart', 60_000)).toBe(true);
    expect(await store.claim('after:restart', 60_000)).toBe(false);
  });

  it('a store made while Redis is down fails fast, then works once Redis starts, without being made again', async () => {
    await redis.kill();
    const store = open();
    await expect(store.claim('cold', 60_000)).rejects.toBeInstanceOf(StateUnavailableError);
    await expect(store.get('cold')).rejects.toThrow(/ECONNREFUSED/);
    await redis.restart();
    await untilUp(store);
    expect(await store.claim('cold', 60_000)).toBe(true);
  });

  it('a Redis that accepts connections but never answers: operations reject after a bounded wait, then recover', async () => {
    const store = open();
    await store.ping();
    redis.pause();
    try {
      const error = await store.claim('hung', 60_000).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateUnavailableError);
      expect((error as Error).message).toMatch(/timed out/i);
    } finally {
      redis.resume();
    }
    await untilUp(store);
    // The timed-out SET NX reached Redis once it woke: a claim that failed as "unavailable" may still have been
    // recorded, so it is burned (never won twice) rather than given back. Callers treat it as not won.
    expect(await store.claim('hung', 60_000)).toBe(false);
    expect(await store.claim('after:hang', 60_000)).toBe(true);
  });
});

describe('Redis with a password', () => {
  const password = 'pa:ss/wörd@s3cr3t';
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer(['--requirepass', password]);
  });
  afterAll(() => redis.stop());

  const urlWith = (secret: string) => `redis://default:${encodeURIComponent(secret)}@127.0.0.1:${redis.port}/0`;

  it('works with the right password and never shows it', async () => {
    const store = track(createStateStore({ kind: 'redis', url: urlWith(password) }));
    expect(store.description).toBe(`Redis at redis://default:***@127.0.0.1:${redis.port}/0`);
    expect(await store.claim('auth', 1000)).toBe(true);
    await store.close();
  });

  it('says the store cannot be reached with a wrong password, without echoing either password', async () => {
    const wrong = 'not-the-password-123';
    const store = track(createStateStore({ kind: 'redis', url: urlWith(wrong) }));
    const error = await store.claim('auth', 1000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateUnavailableError);
    const message = (error as Error).message;
    expect(message).toMatch(/WRONGPASS|NOAUTH|invalid/i);
    for (const secret of [wrong, encodeURIComponent(wrong), password, encodeURIComponent(password)]) {
      expect(message).not.toContain(secret);
      expect(store.description).not.toContain(secret);
    }
    await store.close();
  });
});

describe('SQLite folder that cannot be used', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'gsc-state-bad-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('a folder below a regular file (unwritable even for root): every operation throws StateUnavailableError; once fixed, the same store works', async () => {
    const blocker = join(root, 'blocker');
    writeFileSync(blocker, 'a file, not a folder');
    const dir = join(blocker, 'state');
    const store = track(createStateStore({ kind: 'sqlite', dir }));
    expect(store.description).toBe(`SQLite in ${dir}`);
    for (const operation of [
      () => store.ping(),
      () => store.claim('k', 1000),
      () => store.get('k'),
      () => store.append('s', 'v'),
      () => store.read('s'),
    ]) {
      const error = await operation().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateUnavailableError);
      expect((error as Error).message).toMatch(
        new RegExp(`^the state store \\(SQLite in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\) cannot be used: .*ENOTDIR`),
      );
    }
    await expect(loadOrCreateApprovalSecret({ kind: 'sqlite', dir })).rejects.toBeInstanceOf(StateUnavailableError);

    rmSync(blocker);
    mkdirSync(blocker);
    expect(await store.claim('k', 60_000)).toBe(true);
    expect(await store.claim('k', 60_000)).toBe(false);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, SQLITE_FILE)).mode & 0o777).toBe(0o600);
    await store.close();
  });

  it('a database file that is not a database: StateUnavailableError; once removed, the same store works', async () => {
    const dir = join(root, 'garbled');
    mkdirSync(dir, { mode: 0o700 });
    writeFileSync(
      join(dir, SQLITE_FILE),
      'this is not an SQLite database, just text that is long enough to be read as a header'.repeat(20),
    );
    const store = track(createStateStore({ kind: 'sqlite', dir }));
    await expect(store.ping()).rejects.toThrow(/cannot be used: .*not a database/);
    rmSync(join(dir, SQLITE_FILE));
    await store.put('k', 'v');
    expect(await store.get('k')).toBe('v');
    await store.close();
  });
});
