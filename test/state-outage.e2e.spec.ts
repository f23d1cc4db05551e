import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, connectStdio, text } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { issueToken, redeemToken, textOf } from './support/guarded-wire.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';
import { modernToolCall } from './support/modern-wire.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';

// Fail closed (issue 10, item 4): Redis killed under a running server, then
// brought back (empty, as a crashed Redis without persistence comes back).

const SITE = SEED_PROPERTIES.blog;
const OTHER = SEED_PROPERTIES.owned;

let google: TestGoogle;
let redis: RedisServer;
let server: HttpBinary;
beforeAll(async () => {
  google = await startGoogle();
  redis = await startRedisServer();
  server = await spawnHttpBinary({ ...google.env, GSC_REDIS_URL: redis.url });
});
afterAll(async () => {
  await server?.stop();
  await redis?.stop();
  await google?.emulator.close();
});

const deletes = () => google.emulator.apiRequests().filter((r) => r.route === 'sites.delete');
const admin = async (path: string) => {
  const res = await fetch(`${server.origin}${path}`);
  return { status: res.status, body: (await res.json()) as any };
};
const STORE = () => `the state store (Redis at ${redis.url}) cannot be reached`;

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) {
      return;
    }
    await sleep(100);
  }
  throw new Error(`${what} did not happen within 10 s`);
}

describe('Redis killed mid-run', () => {
  let earlier: string;
  let secretId: string;

  it('before: guarded calls work and /admin/ready names the store', async () => {
    secretId = /approval secret ([\w-]{8}) created in key secret:v1:approval in Redis at /.exec(server.stderr())![1];
    expect(await admin('/admin/ready')).toEqual({
      status: 200,
      body: { status: 'ok', credential: 'service_account', state: `Redis at ${redis.url}` },
    });
    earlier = await issueToken(server.url, OTHER);
  });

  it('while it is down, a guarded call executes nothing and says why, on every path', async () => {
    await redis.kill();
    const refusals = [
      (await modernToolCall(server.url, 'delete_site', { site_url: SITE }, { elicitation: false })).body.result,
      await redeemToken(server.url, OTHER, earlier),
      (await modernToolCall(server.url, 'delete_site', { site_url: SITE })).body.result,
    ];
    const legacy = await connectHttp(server.url, {
      revision: '2025-11-25',
      elicit: () => ({ action: 'accept', content: { confirm: true } }),
    });
    try {
      refusals.push(await legacy.call('delete_site', { site_url: SITE }));
      expect(legacy.dialogs).toHaveLength(0);
    } finally {
      await legacy.close();
    }
    for (const result of refusals) {
      expect(result.isError).toBe(true);
      expect(result.resultType).not.toBe('input_required');
      expect(result.structuredContent).toBeUndefined();
      expect(textOf(result)).toMatch(
        /^Nothing was changed: google-search-console-mcp did not remove https:\/\/(blog\.example\.net|www\.example\.com)\/ from Search Console, because it records every approval in its state store so that each is used only once, and /,
      );
      expect(textOf(result)).toContain(`and ${STORE()}: `);
      expect(textOf(result)).toMatch(
        /\. Read tools still work\. Call delete_site again( without confirm_token \(the token may already count as used\))? once the state store is back\.$/,
      );
    }
    expect(textOf(refusals[1])).toContain('without confirm_token');
    expect(deletes()).toHaveLength(0);
  });

  it('while it is down, reads still answer, on both revisions', async () => {
    for (const revision of ['2026-07-28', '2025-11-25'] as const) {
      const client = await connectHttp(server.url, { revision });
      try {
        const sites = await client.call('list_sites');
        expect([revision, sites.isError ?? false]).toEqual([revision, false]);
        expect(text(sites)).toContain(SITE);
      } finally {
        await client.close();
      }
    }
  });

  it('while it is down, /admin/ready is not ready and says which store, /admin/audit says it cannot read it', async () => {
    const ready = await admin('/admin/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'error', state: `Redis at ${redis.url}` });
    expect(ready.body.reason).toContain(STORE());
    const audit = await admin('/admin/audit');
    expect(audit.status).toBe(503);
    expect(audit.body.reason).toContain(STORE());
  });

  it('once it is back, without a restart: ready again, guarded calls work, the secret was kept, the outage is in the audit trail', async () => {
    await redis.restart();
    await until(async () => (await admin('/admin/ready')).status === 200, '/admin/ready answering 200');

    const token = await issueToken(server.url, SITE);
    expect(await redeemToken(server.url, SITE, token)).toMatchObject({ structuredContent: { executed: true } });
    expect(await redeemToken(server.url, SITE, token)).toMatchObject({ structuredContent: { outcome: 'token_rejected' } });
    // Issued before the outage and refused during it without being spent: still good, under the same secret,
    // which the running server put back into the emptied Redis.
    expect(await redeemToken(server.url, OTHER, earlier)).toMatchObject({ structuredContent: { executed: true } });
    expect(deletes().map((r) => r.params.siteUrl)).toEqual([SITE, OTHER]);

    const sibling = await spawnHttpBinary({ ...google.env, GSC_REDIS_URL: redis.url });
    try {
      expect(sibling.stderr()).toContain(`approval secret ${secretId} kept in key secret:v1:approval in Redis at ${redis.url}`);
    } finally {
      await sibling.stop();
    }

    const outage = await admin('/admin/audit?outcome=store_unavailable');
    expect(outage.status).toBe(200);
    expect(outage.body.entries.map((e: any) => [e.event, e.tool, e.reason])).toEqual(
      Array.from({ length: 4 }, () => ['store_unavailable', 'delete_site', 'state_store']),
    );
  });
});

describe('a state folder that cannot be used', () => {
  it('the server still starts and reads work; guarded calls refuse, naming the folder, until it can be used', async () => {
    google.emulator.reset();
    const blocker = join(mkdtempSync(join(tmpdir(), 'gsc-unusable-')), 'a-file');
    writeFileSync(blocker, 'where the state folder should be');
    const dir = join(blocker, 'state');
    const client = await connectStdio({ ...google.env, GSC_STATE_DIR: dir }, { revision: '2026-07-28' });
    try {
      expect((await client.call('list_sites')).isError ?? false).toBe(false);
      const refused = await client.call('delete_site', { site_url: SITE });
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(
        new RegExp(`^Nothing was changed: .* and the state store \\(SQLite in ${dir}\\) cannot be used: ENOTDIR`),
      );
      expect(client.stderr()).toMatch(
        new RegExp(
          `state: SQLite in ${dir}, approval secret not loaded yet \\(the state store \\(SQLite in ${dir}\\) cannot be used: ENOTDIR`,
        ),
      );
      expect(deletes()).toHaveLength(0);

      rmSync(blocker);
      mkdirSync(blocker);
      const issued = await client.call('delete_site', { site_url: SITE });
      expect(issued.structuredContent).toMatchObject({ outcome: 'token_issued' });
      const done = await client.call('delete_site', { site_url: SITE, confirm_token: issued.structuredContent!.confirm_token });
      expect(done.structuredContent).toMatchObject({ executed: true });
      expect(deletes()).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});

describe('a Redis with a password', () => {
  it('works, and the start-up line, /admin/ready and a refusal name it without the password', async () => {
    const password = 's3cr3t-redis-pass:word';
    const locked = await startRedisServer(['--requirepass', password]);
    const url = `redis://default:${encodeURIComponent(password)}@127.0.0.1:${locked.port}/0`;
    const shown = `Redis at redis://default:***@127.0.0.1:${locked.port}/0`;
    const guarded = await spawnHttpBinary({ ...google.env, GSC_REDIS_URL: url });
    try {
      expect(guarded.stderr()).toContain(`state: ${shown}, approval secret `);
      const ready = await fetch(`${guarded.origin}/admin/ready`);
      expect(await ready.json()).toMatchObject({ status: 'ok', state: shown });
      await locked.kill();
      const refused = (await modernToolCall(guarded.url, 'delete_site', { site_url: SITE }, { elicitation: false })).body.result;
      expect(textOf(refused)).toContain(`the state store (${shown}) cannot be reached`);
      const down = JSON.stringify(await (await fetch(`${guarded.origin}/admin/ready`)).json());
      for (const said of [guarded.stderr(), textOf(refused), down]) {
        expect(said).not.toContain(password);
        expect(said).not.toContain(encodeURIComponent(password));
      }
    } finally {
      await guarded.stop();
      await locked.stop();
    }
  });
});
