// The cost of the state store (PRODUCT.md §8c): how long one redeem (a claim of
// a fresh single-use key, as each approval or confirm token costs) takes on the
// embedded SQLite store and on Redis, plus writing one 50 000-row export with
// appendMany. Redis is a redis-server of this bench's own on a free port.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { dist, ms, percentile, serverWithClient, startGoogle, startInProcess } from './common.mjs';

const CLAIMS = 2000;
const WARM_UP = 100;
const EXPORT_ROWS = 50_000;
const GUARDED_REDEEMS = 200;
const LEGACY_READS = 400;

async function claimLatencies(store) {
  const run = `bench:${process.pid}:${Date.now()}`;
  for (let i = 0; i < WARM_UP; i++) {
    await store.claim(`${run}:warm:${i}`, 60_000);
  }
  const times = [];
  for (let i = 0; i < CLAIMS; i++) {
    const t = process.hrtime.bigint();
    const won = await store.claim(`${run}:${i}`, 60_000);
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (!won) {
      throw new Error('a fresh key was not claimable');
    }
  }
  return times;
}

async function exportTime(store) {
  const rows = Array.from({ length: EXPORT_ROWS }, (_, i) =>
    JSON.stringify({ keys: [`https://www.example.com/p/${i}`], clicks: i % 97, impressions: i, ctr: 0.01, position: 4.2 }),
  );
  const t = process.hrtime.bigint();
  await store.appendMany(`bench:export:${process.pid}`, rows, { ttlMs: 60_000 });
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function measure(label, store) {
  const times = await claimLatencies(store);
  const exported = await exportTime(store);
  return [
    {
      bar: `state: redeem (claim) on ${label}`,
      target: '',
      measured: `p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))} (${CLAIMS} claims)`,
      verdict: '',
    },
    { bar: `state: ${EXPORT_ROWS} export rows on ${label}`, target: '', measured: `${ms(exported)} (one appendMany)`, verdict: '' },
  ];
}

/**
 * The store in context: the second call of the two-call token through the real
 * HTTP server (2026-07-28 client, emulator behind it), which pings the store,
 * claims the token, appends two audit entries and sends the DELETE.
 */
async function guardedRedeem(label, env) {
  const google = await startGoogle({ unlimited: true });
  const server = await serverWithClient({ ...google.env, ...env });
  const site = 'https://blog.example.net/';
  try {
    const times = [];
    for (let i = 0; i < GUARDED_REDEEMS + 20; i++) {
      google.emulator.reset();
      const first = await server.client.callTool({ name: 'delete_site', arguments: { site_url: site } });
      const token = first.structuredContent?.confirm_token;
      if (!token) {
        throw new Error('no confirm_token was issued');
      }
      const t = process.hrtime.bigint();
      const second = await server.client.callTool({ name: 'delete_site', arguments: { site_url: site, confirm_token: token } });
      if (i >= 20) {
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      if (second.structuredContent?.executed !== true) {
        throw new Error(`the redeem did not execute: ${JSON.stringify(second.content)}`);
      }
    }
    return {
      bar: `state: guarded redeem through the server on ${label}`,
      target: '',
      measured: `p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))} (${GUARDED_REDEEMS} calls)`,
      verdict: '',
    };
  } finally {
    await server.close();
    await google.emulator.close();
  }
}

/**
 * What resumable 2025-11-25 streams cost a session: each SSE message is
 * appended to the store before it is written. One v1 client (a 2025 session)
 * calling a read tool, through the real HTTP server.
 */
async function legacySessionRead(label, env) {
  const google = await startGoogle({ unlimited: true });
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { app, origin } = await startInProcess({ ...google.env, ...env });
  const client = new Client({ name: 'bench', version: '0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
  try {
    const times = [];
    for (let i = 0; i < LEGACY_READS + 30; i++) {
      const t = process.hrtime.bigint();
      const result = await client.callTool({ name: 'get_site', arguments: { site_url: 'https://www.example.com/' } });
      if (i >= 30) {
        times.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      if (result.isError) {
        throw new Error(`get_site failed: ${JSON.stringify(result.content)}`);
      }
    }
    return {
      bar: `state: 2025 session read (events stored) on ${label}`,
      target: '',
      measured: `p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))} (${LEGACY_READS} calls)`,
      verdict: '',
    };
  } finally {
    await client.close();
    await app.close();
    await google.emulator.close();
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function answersPing(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (ok) => (socket.destroy(), resolve(ok));
    socket.setTimeout(1000, () => finish(false));
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => finish(String(d).startsWith('+PONG')));
  });
}

async function startRedis(dir) {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error('redis-server is not installed (apt-get install -y redis-server)');
  }
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 400; i++) {
    if (await answersPing(port)) {
      return { url: `redis://127.0.0.1:${port}/0`, stop: () => child.kill('SIGKILL') };
    }
    if (child.exitCode !== null) {
      break;
    }
    await sleep(25);
  }
  child.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

export async function stateStore() {
  const { createStateStore } = await dist('state/create-state-store.js');
  const dir = mkdtempSync(join(tmpdir(), 'gsc-bench-state-'));
  const rows = [];
  try {
    const sqlite = createStateStore({ kind: 'sqlite', dir: join(dir, 'sqlite') });
    rows.push(...(await measure('SQLite (WAL, synchronous=FULL)', sqlite)));
    await sqlite.close();
    rows.push(await guardedRedeem('SQLite', { GSC_STATE_DIR: join(dir, 'server-sqlite') }));
    rows.push(await legacySessionRead('SQLite', { GSC_STATE_DIR: join(dir, 'server-sqlite') }));
    let redis;
    try {
      redis = await startRedis(dir);
      const store = createStateStore({ kind: 'redis', url: redis.url });
      rows.push(...(await measure('Redis (loopback)', store)));
      await store.close();
      rows.push(await guardedRedeem('Redis', { GSC_REDIS_URL: redis.url }));
      rows.push(await legacySessionRead('Redis', { GSC_REDIS_URL: redis.url }));
    } catch (error) {
      rows.push({ bar: 'state: redeem (claim) on Redis', target: '', measured: `not measured (${error.message})`, verdict: '' });
    } finally {
      redis?.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
