import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { stateName } from '../src/state/keys.js';
import { connectStdio, text } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { acceptDialog, askDialog, issueToken, redeemToken, textOf } from './support/guarded-wire.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';

// One approval secret per store, not per process (issue 10, item 3): no
// GSC_APPROVAL_SECRET anywhere here.

const SITE = SEED_PROPERTIES.blog;

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google?.emulator.close());
beforeEach(() => google.emulator.reset());

const deletes = () => google.emulator.apiRequests().filter((r) => r.route === 'sites.delete');
const secretLine = (p: HttpBinary | { stderr(): string }) => /approval secret ([\w-]{8}) (created in|kept in) (.+)$/m.exec(p.stderr());
const freshDir = () => mkdtempSync(join(tmpdir(), 'gsc-secret-state-'));

describe('two processes started one after the other on one GSC_STATE_DIR', () => {
  it('share the secret the first one created: a token issued by the first is redeemed once by the second', async () => {
    const dir = freshDir();
    const first = await spawnHttpBinary({ ...google.env, GSC_STATE_DIR: dir });
    let token: string;
    let state: string;
    try {
      token = await issueToken(first.url, SITE);
      state = await askDialog(first.url, SEED_PROPERTIES.owned);
    } finally {
      await first.stop();
    }
    const second = await spawnHttpBinary({ ...google.env, GSC_STATE_DIR: dir });
    try {
      const [, id, how, where] = secretLine(first)!;
      expect([how, where]).toEqual(['created in', join(dir, 'approval-secret')]);
      expect(secretLine(second)!.slice(1)).toEqual([id, 'kept in', join(dir, 'approval-secret')]);
      expect(statSync(where).mode & 0o777).toBe(0o600);
      expect(first.stderr() + second.stderr()).not.toContain(readFileSync(where, 'utf8').trim());

      expect(await redeemToken(second.url, SITE, token)).toMatchObject({ structuredContent: { executed: true, outcome: 'executed' } });
      expect(await redeemToken(second.url, SITE, token)).toMatchObject({ isError: true, structuredContent: { outcome: 'token_rejected' } });
      expect(await acceptDialog(second.url, SEED_PROPERTIES.owned, state)).toMatchObject({ structuredContent: { executed: true } });
      expect(deletes().map((r) => r.params.siteUrl)).toEqual([SITE, SEED_PROPERTIES.owned]);
    } finally {
      await second.stop();
    }
  });

  it('on different folders they have different secrets, and a token from one is refused by the other saying exactly that', async () => {
    const [one, other] = await Promise.all([
      spawnHttpBinary({ ...google.env, GSC_STATE_DIR: freshDir() }),
      spawnHttpBinary({ ...google.env, GSC_STATE_DIR: freshDir() }),
    ]);
    try {
      expect(secretLine(one)![1]).not.toBe(secretLine(other)![1]);
      const token = await issueToken(one.url, SITE);
      const refused = await redeemToken(other.url, SITE, token);
      expect(refused).toMatchObject({ isError: true, structuredContent: { executed: false, outcome: 'token_rejected' } });
      expect(textOf(refused)).toMatch(
        /^The confirm_token was refused because it was issued under a different approval secret than the one this server uses now .* Nothing was changed\. Call delete_site again without confirm_token/,
      );
      expect(textOf(refused)).not.toMatch(/different tool, target or arguments/);
      const state = await askDialog(one.url, SITE);
      expect((await acceptDialog(other.url, SITE, state)).resultType).toBe('input_required');
      expect(deletes()).toHaveLength(0);
      // The token is still good where it was issued.
      expect(await redeemToken(one.url, SITE, token)).toMatchObject({ structuredContent: { executed: true } });
    } finally {
      await Promise.all([one.stop(), other.stop()]);
    }
  });
});

describe('a stateless gateway: one fresh stdio server process per call (supergateway without --stateful)', () => {
  for (const revision of ['2026-07-28', '2025-11-25'] as const) {
    it(`the two-call token works across processes and stays single use (${revision})`, async () => {
      const env = { ...google.env, GSC_STATE_DIR: freshDir() };
      const once = async (args: Record<string, unknown>) => {
        const client = await connectStdio(env, { revision });
        try {
          return await client.call('delete_site', args);
        } finally {
          await client.close();
        }
      };
      const first = await once({ site_url: SITE });
      expect(first.structuredContent).toMatchObject({ executed: false, outcome: 'token_issued' });
      const token = first.structuredContent!.confirm_token as string;
      expect(deletes()).toHaveLength(0);

      const second = await once({ site_url: SITE, confirm_token: token });
      expect(second.structuredContent).toMatchObject({ executed: true, outcome: 'executed' });
      expect(deletes()).toHaveLength(1);

      const third = await once({ site_url: SITE, confirm_token: token });
      expect(third.structuredContent).toEqual({ executed: false, outcome: 'token_rejected' });
      expect(text(third)).toMatch(/already been used/);
      expect(deletes()).toHaveLength(1);
    });
  }
});

describe('two processes started one after the other on one Redis, each with its own folder', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis?.stop());

  it('share the secret kept in Redis', async () => {
    const env = () => ({ ...google.env, GSC_REDIS_URL: redis.url, GSC_STATE_DIR: freshDir() });
    const first = await spawnHttpBinary(env());
    const token = await issueToken(first.url, SITE);
    await first.stop();
    const second = await spawnHttpBinary(env());
    try {
      const where = `key ${stateName('approvalSecret')} in Redis at ${redis.url}`;
      expect(secretLine(first)!.slice(2)).toEqual(['created in', where]);
      expect(secretLine(second)!.slice(1)).toEqual([secretLine(first)![1], 'kept in', where]);
      expect(await redeemToken(second.url, SITE, token)).toMatchObject({ structuredContent: { executed: true } });
      expect(await redeemToken(second.url, SITE, token)).toMatchObject({ structuredContent: { outcome: 'token_rejected' } });
      expect(deletes()).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});
