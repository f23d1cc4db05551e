import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RedisServer, startRedisServer } from '../../test/support/redis-server.js';
import { APPROVAL_SECRET_FILE, APPROVAL_SECRET_KEY, loadOrCreateApprovalSecret } from './approval-secret.js';
import { legacyStateKey } from './keys.js';
import { createStateStore } from './create-state-store.js';
import { StateUnavailableError } from './state-store.js';

describe('approval secret kept by the embedded store', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'gsc-secret-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is created once as a 0600 file in a 0700 folder, then read back by every later call', async () => {
    const dir = join(root, 'a', 'state');
    const first = await loadOrCreateApprovalSecret({ kind: 'sqlite', dir });
    expect(first.created).toBe(true);
    expect(first.secret).toMatch(/^[0-9a-f]{64}$/);
    expect(first.location).toBe(join(dir, APPROVAL_SECRET_FILE));
    expect(statSync(first.location).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const store = createStateStore({ kind: 'sqlite', dir });
    expect(await loadOrCreateApprovalSecret(store)).toEqual({ ...first, created: false });
    expect(await loadOrCreateApprovalSecret({ kind: 'sqlite', dir })).toEqual({ ...first, created: false });
    await store.close();
  });

  it('differs between two state folders', async () => {
    const one = await loadOrCreateApprovalSecret({ kind: 'sqlite', dir: join(root, 'one') });
    const two = await loadOrCreateApprovalSecret({ kind: 'sqlite', dir: join(root, 'two') });
    expect(one.secret).not.toBe(two.secret);
  });

  it('uses a secret a person put in the file (trimmed), and refuses one that is too short without showing it', async () => {
    const dir = mkdtempSync(join(root, 'own-'));
    writeFileSync(join(dir, APPROVAL_SECRET_FILE), '  my own secret that is certainly long enough  \n', { mode: 0o600 });
    expect((await loadOrCreateApprovalSecret({ kind: 'sqlite', dir })).secret).toBe('my own secret that is certainly long enough');
    const short = mkdtempSync(join(root, 'short-'));
    writeFileSync(join(short, APPROVAL_SECRET_FILE), 'tiny-secret-value\n', { mode: 0o600 });
    const error = await loadOrCreateApprovalSecret({ kind: 'sqlite', dir: short }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(join(short, APPROVAL_SECRET_FILE));
    expect((error as Error).message).toMatch(/shorter than 32 bytes; delete it .* or set GSC_APPROVAL_SECRET/);
    expect((error as Error).message).not.toContain('tiny-secret-value');
  });

  it('re-seeds a folder that lost its secret with the one a running process offers, and keeps an existing one over it', async () => {
    const dir = join(root, 'reseed');
    const kept = await loadOrCreateApprovalSecret({ kind: 'sqlite', dir }, { prefer: 'the-secret-already-in-use-0123456789abcdef' });
    expect(kept).toMatchObject({ secret: 'the-secret-already-in-use-0123456789abcdef', created: true });
    expect(
      await loadOrCreateApprovalSecret({ kind: 'sqlite', dir }, { prefer: 'another-secret-offered-later-0123456789abc' }),
    ).toMatchObject({ secret: kept.secret, created: false });
    await expect(loadOrCreateApprovalSecret({ kind: 'sqlite', dir }, { prefer: 'short' })).rejects.toThrow(/shorter than 32 bytes/);
  });

  it('throws StateUnavailableError when the folder cannot be created', async () => {
    const blocker = join(root, 'blocker');
    writeFileSync(blocker, 'a file');
    const error = await loadOrCreateApprovalSecret({ kind: 'sqlite', dir: join(blocker, 'state') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateUnavailableError);
    expect((error as Error).message).toContain(`the state store (SQLite in ${join(blocker, 'state')}) cannot be used`);
  });
});

describe('approval secret kept by Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  it('is created once under its key, and read back through another connection', async () => {
    const store = createStateStore({ kind: 'redis', url: redis.url });
    const first = await loadOrCreateApprovalSecret(store);
    expect(first.created).toBe(true);
    expect(first.location).toBe(`key ${APPROVAL_SECRET_KEY} in Redis at ${redis.url}`);
    expect(await store.get(APPROVAL_SECRET_KEY)).toBe(first.secret);
    expect(await loadOrCreateApprovalSecret({ kind: 'redis', url: redis.url })).toEqual({ ...first, created: false });
    await store.close();
  });

  it('re-seeds a Redis that lost its key (restarted empty) with the secret a running process offers', async () => {
    const store = createStateStore({ kind: 'redis', url: redis.url });
    const first = await loadOrCreateApprovalSecret(store);
    await store.delete(APPROVAL_SECRET_KEY);
    expect((await loadOrCreateApprovalSecret(store, { prefer: first.secret })).secret).toBe(first.secret);
    expect(await store.get(APPROVAL_SECRET_KEY)).toBe(first.secret);
    await store.close();
  });

  it('keeps the secret a build from before the key table stored under its old name, so approvals in flight stay valid', async () => {
    const store = createStateStore({ kind: 'redis', url: `${redis.url.replace(/\/\d*$/, '')}/5` });
    const old = 'b'.repeat(64);
    await store.put(legacyStateKey('approvalSecret'), old);
    expect(await loadOrCreateApprovalSecret(store)).toMatchObject({ secret: old, created: false });
    expect(await store.get(APPROVAL_SECRET_KEY)).toBe(old);
    await store.close();
  });

  it('throws StateUnavailableError when Redis cannot be reached', async () => {
    const store = createStateStore({ kind: 'redis', url: 'redis://127.0.0.1:1/0' });
    await expect(loadOrCreateApprovalSecret(store)).rejects.toBeInstanceOf(StateUnavailableError);
    await store.close();
  });
});
