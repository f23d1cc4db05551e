import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { acceptDialog, askDialog, issueToken, redeemToken, textOf } from './support/guarded-wire.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';
import { useGoogleAndRedis } from './support/stack.js';

// Single use across processes (issue 10): two spawned server binaries sharing a
// store, driven on the 2026-07-28 wire; the emulator's request log is the witness.

const SECRET = 'one-secret-for-every-replica-0123456789abcdef';
const SITE = SEED_PROPERTIES.blog;
const RACERS = 12;

const { google, redis, deletes } = useGoogleAndRedis();

/** How a replica is told about the shared store: one folder, or one Redis with a folder of its own. */
const stores: [string, () => Record<string, string>][] = [
  [
    'two processes on one GSC_STATE_DIR',
    ((dir?: string) => () => ({ GSC_STATE_DIR: (dir ??= mkdtempSync(join(tmpdir(), 'gsc-shared-state-'))) }))(),
  ],
  [
    'two processes on one redis-server, each with its own state folder',
    () => ({ GSC_REDIS_URL: redis.url, GSC_STATE_DIR: mkdtempSync(join(tmpdir(), 'gsc-own-state-')) }),
  ],
];

describe.each(stores)('%s, same GSC_APPROVAL_SECRET', (_name, storeEnv) => {
  let a: HttpBinary;
  let b: HttpBinary;
  const start = () => spawnHttpBinary({ ...google.env, GSC_APPROVAL_SECRET: SECRET, ...storeEnv() });
  beforeAll(async () => {
    [a, b] = await Promise.all([start(), start()]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('name the same store and the same secret id in their start-up lines', () => {
    const line = (p: HttpBinary) => /state: (.*)$/m.exec(p.stderr())?.[1] ?? '';
    expect(line(a)).toMatch(/^(SQLite in \/|Redis at redis:\/\/127\.0\.0\.1:\d+\/0).*, approval secret [\w-]{8} from GSC_APPROVAL_SECRET$/);
    expect(line(a)).toBe(line(b));
  });

  it('a 2025-11-25 session opened on A is served by B from the shared store, and once ended on B is unknown on A', async () => {
    const client = new Client({ name: 'replica-session', version: '0' });
    const onA = new StreamableHTTPClientTransport(new URL(a.url));
    await client.connect(onA);
    const sessionId = onA.sessionId ?? '';
    const post = (url: string, body: object) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', ...body }),
      });
    const listed = await (await post(b.url, { id: 7, method: 'tools/list' })).text();
    expect(listed).toContain('"name":"list_sites"');
    expect((await fetch(b.url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } })).status).toBe(200);
    expect((await post(a.url, { id: 8, method: 'tools/list' })).status).toBe(404);
    await client.close();
  });

  it('a confirm token redeemed on A is refused on B', async () => {
    const token = await issueToken(a.url, SITE);
    expect(await redeemToken(a.url, SITE, token)).toMatchObject({ structuredContent: { executed: true, outcome: 'executed' } });
    const replay = await redeemToken(b.url, SITE, token);
    expect(replay).toMatchObject({ isError: true, structuredContent: { executed: false, outcome: 'token_rejected' } });
    expect(textOf(replay)).toMatch(/refused because it has already been used/);
    expect(deletes()).toHaveLength(1);
  });

  it('a token issued on A and never used is redeemed once on B, then refused on A', async () => {
    const token = await issueToken(a.url, SITE);
    expect(await redeemToken(b.url, SITE, token)).toMatchObject({ structuredContent: { executed: true } });
    expect(await redeemToken(a.url, SITE, token)).toMatchObject({ structuredContent: { outcome: 'token_rejected' } });
    expect(deletes()).toHaveLength(1);
  });

  it('a 2026 approval state used on A gets a fresh question on B', async () => {
    const state = await askDialog(a.url, SITE);
    expect(await acceptDialog(a.url, SITE, state)).toMatchObject({ structuredContent: { executed: true } });
    const again = await acceptDialog(b.url, SITE, state);
    expect(again.resultType).toBe('input_required');
    expect(again.inputRequests.approval.params.message).toContain(`This will remove ${SITE}`);
    expect(again.requestState).not.toBe(state);
    expect(deletes()).toHaveLength(1);
  });

  it(`${RACERS} concurrent redeems of one token, split over both replicas, send exactly one DELETE`, async () => {
    const token = await issueToken(a.url, SITE);
    const results = await Promise.all(Array.from({ length: RACERS }, (_, i) => redeemToken((i % 2 ? b : a).url, SITE, token)));
    expect(results.filter((r) => r.structuredContent?.executed === true)).toHaveLength(1);
    expect(results.filter((r) => r.structuredContent?.outcome === 'token_rejected')).toHaveLength(RACERS - 1);
    expect(deletes()).toHaveLength(1);
  });

  it(`${RACERS} concurrent accepts of one sealed dialog, split over both replicas, send exactly one DELETE`, async () => {
    const state = await askDialog(b.url, SITE);
    const results = await Promise.all(Array.from({ length: RACERS }, (_, i) => acceptDialog((i % 2 ? b : a).url, SITE, state)));
    expect(results.filter((r) => r.structuredContent?.executed === true)).toHaveLength(1);
    expect(results.filter((r) => r.resultType === 'input_required')).toHaveLength(RACERS - 1);
    expect(deletes()).toHaveLength(1);
  });

  it('a replay after a restart is refused: the used token, and the used seal (a fresh question)', async () => {
    const token = await issueToken(a.url, SITE);
    expect(await redeemToken(a.url, SITE, token)).toMatchObject({ structuredContent: { executed: true } });
    const state = await askDialog(a.url, SITE);
    google.emulator.reset(); // the property exists again, as if it had been re-added since
    expect(await acceptDialog(a.url, SITE, state)).toMatchObject({ structuredContent: { executed: true } });
    await a.stop();
    a = await start();
    const replayed = await redeemToken(a.url, SITE, token);
    expect(replayed).toMatchObject({ isError: true, structuredContent: { outcome: 'token_rejected' } });
    expect(textOf(replayed)).toMatch(/already been used/);
    expect((await acceptDialog(a.url, SITE, state)).resultType).toBe('input_required');
    expect(deletes()).toHaveLength(1);
  });
});
