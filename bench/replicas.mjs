// Replicas under load and faults (issue 21; PRODUCT §8c): three server
// processes (the built binary over HTTP) on one real redis-server, a
// round-robin proxy in front (bench/replica-proxy.mjs, sticky for 2025-11-25
// sessions), v1 (2025-11-25, dialogs pushed and answered) and v2 (2026-07-28,
// two-call confirm tokens) clients calling reads and delete_sitemap. Phases:
// steady; one replica SIGKILLed while guarded calls are in flight on it, then
// restarted; Redis stopped (SIGSTOP) for a few seconds, then resumed; recovered.
// Between phases the clients stop at a barrier so the books can be compared.
// `npm run bench -- replicas` runs the full version; test/replicas-load.e2e.spec.ts
// a short one and asserts what `checks` reports.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { binNodeFlags, cleanEnv, MAIN, ms, percentile, startGoogle, verdict } from './common.mjs';
import { startProxy } from './replica-proxy.mjs';

const SECRET = 'one-approval-secret-shared-by-all-replicas-0123456789';
const SITE = 'https://www.example.com/';
const INSPECTED = 'https://blog.example.net/';
// Each client's own request timeout, and past it (with a margin) the run's: a call still unsettled then got no answer at all.
const CLIENT_TIMEOUT_MS = 20_000;
const CALL_TIMEOUT_MS = 30_000;
const T0 = Date.now();
const trace = (m) => process.env.BENCH_DEBUG && process.stderr.write(`${((Date.now() - T0) / 1000).toFixed(1)} s: ${m}\n`);

export const FULL = { seconds: { steady: 8, kill: 8, redis: 8, recovered: 6 }, v1: 6, v2: 6, pauseMs: 3000 };
export const SHORT = { seconds: { steady: 2, kill: 4, redis: 5, recovered: 2 }, v1: 2, v2: 3, pauseMs: 2000 };

/** Runs the scenario; resolves with the figures per phase and the checks. */
export async function replicaFaultRun(options = SHORT) {
  const google = await startGoogle({ unlimited: true });
  const redis = await startRedis();
  const stateDirs = [];
  const env = (i) => {
    const dir = mkdtempSync(join(tmpdir(), `replica-${i}-`));
    stateDirs.push(dir);
    return { ...google.env, GSC_REDIS_URL: redis.url, GSC_APPROVAL_SECRET: SECRET, GSC_STATE_DIR: dir };
  };
  const replicas = [];
  const upstreams = [{}, {}, {}];
  const launch = async (i) => {
    replicas[i] = await spawnReplica(env(i));
    upstreams[i].origin = replicas[i].origin;
  };
  await Promise.all([0, 1, 2].map(launch));
  const proxy = await startProxy(upstreams);
  const world = { google, proxy, sitemaps: 0, approved: new Set(), refusedOnly: new Set(), redeemed: [], replays: [] };
  const { Redis } = await import('ioredis');
  const books = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const phases = [];
  // The ledger counts an inspection before sending it (it has to, to refuse what the day has no budget for), so an
  // inspect_url in flight on a replica that is SIGKILLed may be counted and never reach Google: the books may then
  // differ from Google's log by at most those calls, and by nothing else.
  let inspectionsCut = 0;
  let fleet;
  try {
    trace('started');
    fleet = await startClients(world, options);
    const phase = async (name, seconds, fault) => {
      const stats = fleet.open(name);
      const started = Date.now();
      const note = fault ? await fault() : '';
      await sleep(Math.max(0, seconds * 1000 - (Date.now() - started)));
      await fleet.barrier();
      const elapsed = (Date.now() - started) / 1000;
      phases.push({ name, elapsed, note, inspectionsCut, ...stats, books: await compareBooks(books, google) });
    };
    await phase('steady', options.seconds.steady);
    await phase('replica killed and restarted', options.seconds.kill, async () => {
      // In the middle of approvals: wait (up to 3 s) for a guarded call in flight on replica 1.
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && !proxy.inflight(1).includes('delete_sitemap')) {
        await sleep(5);
      }
      const inFlight = proxy.inflight(1);
      inspectionsCut += inFlight.filter((t) => t === 'inspect_url').length;
      upstreams[1].origin = undefined;
      await replicas[1].kill('SIGKILL');
      await launch(1);
      return `SIGKILL with ${inFlight.length} tool calls in flight on it (${inFlight.filter((t) => t === 'delete_sitemap').length} delete_sitemap)`;
    });
    await phase('redis stopped', options.seconds.redis, async () => {
      await sleep(500);
      redis.pause();
      await sleep(options.pauseMs);
      redis.resume();
      return `SIGSTOP for ${options.pauseMs} ms, then SIGCONT`;
    });
    await phase('recovered', options.seconds.recovered);
    trace('phases done');
    await fleet.stop();
    trace('clients stopped');
    // Every token that executed once, replayed once more through the proxy: each must be refused.
    world.replays = await fleet.replayAll(world.redeemed);
    trace('replayed');
    await books.connect().catch(() => undefined);
    return { phases, checks: await finalChecks(world, books, google, phases) };
  } finally {
    await fleet?.stop().catch(() => undefined);
    books.disconnect();
    trace('closing');
    await proxy.close();
    trace('proxy closed');
    await Promise.all(replicas.map((r) => r.kill('SIGTERM')));
    trace('replicas stopped');
    redis.stop();
    await google.emulator.close();
    for (const dir of stateDirs) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/** The clients: v2 token-path workers and v1 dialog workers, each looping reads and deletes while a phase is open. */
async function startClients(world, options) {
  const { clientV1, clientV2 } = await clientFactories();
  let current;
  let gate = Promise.resolve();
  let release;
  let stopping = false;
  const busy = new Set();
  const record = (kind, started, outcome) => {
    current.calls++;
    current.latencies.push(Date.now() - started);
    if (outcome !== 'ok') {
      current.errors[outcome] = (current.errors[outcome] ?? 0) + 1;
    }
  };
  // One tool call: 'ok', 'refused' (an isError sentence), 'transport' (an error with a message) or 'no answer'.
  const call = async (client, name, args, refusal = 'refused') => {
    const started = Date.now();
    try {
      const result = await withTimeout(client.callTool({ name, arguments: args }, undefined, { timeout: CLIENT_TIMEOUT_MS }));
      record(name, started, result.isError ? refusal : 'ok');
      return result;
    } catch (error) {
      record(name, started, error?.message === 'no answer' ? 'no answer' : error?.message ? 'transport' : 'no answer');
      throw error;
    }
  };
  const newSitemap = () => {
    const path = `${SITE}sitemap-${++world.sitemaps}.xml`;
    world.google.emulator.state.sitemapsOf(SITE, true).push({
      sitemap: {
        path,
        lastSubmitted: new Date().toISOString(),
        isPending: false,
        isSitemapsIndex: false,
        type: 'sitemap',
        warnings: '0',
        errors: '0',
      },
    });
    return path;
  };
  const reads = (n) =>
    [
      ['list_sites', {}],
      ['list_sitemaps', { site_url: SITE }],
      ['query_search_analytics', { site_url: SITE, period: 'last7days', dimensions: ['query'], row_limit: 10 }],
      ['inspect_url', { site_url: INSPECTED, url: `${INSPECTED}post-${n % 50}` }],
    ][n % 4];
  const loop = async (id, connect, guarded) => {
    // Connected before the first phase opens, so that the steady phase measures calls, not handshakes.
    let client = await withTimeout(connect()).catch(() => undefined);
    connected++;
    for (let n = 0; !stopping; n++) {
      await gate;
      if (stopping) {
        break;
      }
      busy.add(id);
      try {
        client ??= await withTimeout(connect());
        if (n % 3 === 2) {
          await guarded(client, n);
        } else {
          await call(client, ...reads(n)).catch(() => undefined);
        }
      } catch {
        // A lost session or a dead replica: the next round opens a new client.
        await client?.close().catch(() => undefined);
        client = undefined;
        await sleep(50);
      } finally {
        busy.delete(id);
      }
    }
    await client?.close().catch(() => undefined);
  };
  // v2, no elicitation capability: the two-call confirm token; now and then a forged token.
  const tokenPath = async (client, n) => {
    const sitemap = newSitemap();
    if (n % 15 === 14) {
      world.refusedOnly.add(sitemap);
      await call(client, 'delete_sitemap', { site_url: SITE, sitemap_url: sitemap, confirm_token: `forged-${n}` }, 'forged token refused');
      return;
    }
    const first = await call(client, 'delete_sitemap', { site_url: SITE, sitemap_url: sitemap });
    const token = first.structuredContent?.confirm_token;
    if (!token) {
      return world.refusedOnly.add(sitemap);
    }
    world.approved.add(sitemap);
    const second = await call(client, 'delete_sitemap', { site_url: SITE, sitemap_url: sitemap, confirm_token: token });
    if (second.structuredContent?.executed === true) {
      world.redeemed.push({ sitemap, token });
    }
  };
  // v1 with an elicitation handler: the dialog is pushed over the session's stream; one in five is declined.
  const declines = new Set();
  const dialogPath = async (client, n) => {
    const sitemap = newSitemap();
    (n % 5 === 4 ? declines : world.approved).add(sitemap);
    if (n % 5 === 4) {
      world.refusedOnly.add(sitemap);
    }
    await call(client, 'delete_sitemap', { site_url: SITE, sitemap_url: sitemap });
  };
  const answer = (params) => {
    const sitemap = /(https:\/\/\S+\.xml)/.exec(params.message)?.[1];
    return declines.has(sitemap) ? { action: 'decline' } : { action: 'accept', content: { confirm: true } };
  };
  let connected = 0;
  const workers = [
    ...Array.from({ length: options.v2 }, (_, i) => loop(`v2-${i}`, () => clientV2(world.proxy.url), tokenPath)),
    ...Array.from({ length: options.v1 }, (_, i) => loop(`v1-${i}`, () => clientV1(world.proxy.url, answer), dialogPath)),
  ];
  const closeGate = () => (gate = new Promise((r) => (release = r)));
  closeGate();
  while (connected < workers.length) {
    await sleep(10);
  }
  return {
    open(name) {
      current = { phase: name, calls: 0, latencies: [], errors: {} };
      release();
      return current;
    },
    async barrier() {
      closeGate();
      while (busy.size) {
        await sleep(10);
      }
    },
    async stop() {
      stopping = true;
      release?.();
      await Promise.all(workers);
    },
    async replayAll(redeemed) {
      const client = await clientV2(world.proxy.url);
      const outcomes = [];
      for (const { sitemap, token } of redeemed) {
        const r = await client.callTool({
          name: 'delete_sitemap',
          arguments: { site_url: SITE, sitemap_url: sitemap, confirm_token: token },
        });
        outcomes.push(r.structuredContent?.outcome ?? 'none');
      }
      await client.close();
      return outcomes;
    },
  };
}

async function clientFactories() {
  const { Client: V2Client, StreamableHTTPClientTransport: V2Transport } = await import('@modelcontextprotocol/client');
  const { Client: V1Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport: V1Transport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  return {
    async clientV2(url) {
      const client = new V2Client({ name: 'replica-v2', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new V2Transport(new URL(url)));
      return client;
    },
    async clientV1(url, answer) {
      const client = new V1Client({ name: 'replica-v1', version: '0' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params));
      await client.connect(new V1Transport(new URL(url)));
      // A session whose replica died cannot be resumed elsewhere (its requests died with it): once the
      // transport gives up reconnecting, close the client, so its pending calls fail now with "Connection closed".
      client.onerror = (error) => {
        if (/Maximum reconnection attempts/.test(error.message)) {
          void client.close();
        }
      };
      return client;
    },
  };
}

/** The state store's books beside the emulator's log: inspections counted vs sent, deletes audited vs executed. */
async function compareBooks(books, google) {
  const log = google.emulator.apiRequests();
  const sent = log.filter((r) => r.route === 'urlInspection.index.inspect' && r.status === 200).length;
  const deletes = log.filter((r) => r.route === 'sitemaps.delete').length;
  try {
    if (books.status !== 'ready') {
      await books.connect();
    }
    let counted = 0;
    for (const key of await books.keys('gsc-mcp:quota:v1:inspection:*:day:*')) {
      counted += Number(await books.get(key));
    }
    const audit = (await books.xrange('gsc-mcp:audit', '-', '+')).map(([, fields]) => JSON.parse(fields[1]));
    const executed = audit.filter((e) => e.tool === 'delete_sitemap' && e.event === 'executed').length;
    const approvals = audit.filter((e) => e.tool === 'delete_sitemap' && (e.event === 'approved' || e.event === 'token_redeemed')).length;
    return { inspectionsSent: sent, inspectionsCounted: counted, deletes, executedAudited: executed, approvalsAudited: approvals };
  } catch (error) {
    return { inspectionsSent: sent, deletes, error: error.message };
  }
}

async function finalChecks(world, books, google, phases) {
  const deletes = google.emulator.apiRequests().filter((r) => r.route === 'sitemaps.delete');
  const perSitemap = new Map();
  for (const d of deletes) {
    const path = decodeURIComponent(d.params.feedpath);
    perSitemap.set(path, (perSitemap.get(path) ?? 0) + 1);
  }
  // Give the audit trail's pending entries (kept in memory while Redis was stopped) a moment to land.
  let last = phases.at(-1).books;
  for (let i = 0; i < 50 && last.executedAudited < last.deletes; i++) {
    await sleep(100);
    last = await compareBooks(books, google);
  }
  const unanswered = phases.reduce((n, p) => n + (p.errors['no answer'] ?? 0), 0);
  return {
    deletes: deletes.length,
    deletedTwice: [...perSitemap].filter(([, n]) => n > 1).map(([p]) => p),
    deletedWithoutApproval: [...perSitemap.keys()].filter((p) => !world.approved.has(p) || world.refusedOnly.has(p)),
    replays: world.replays.length,
    replaysExecuted: world.replays.filter((o) => o !== 'token_rejected').length,
    unanswered,
    books: last,
    inspectionsCut: phases.at(-1).inspectionsCut,
    ledgerMatchesLog:
      last.inspectionsCounted >= last.inspectionsSent && last.inspectionsCounted <= last.inspectionsSent + phases.at(-1).inspectionsCut,
    auditMatchesDeletes: last.executedAudited === last.deletes && last.approvalsAudited >= last.deletes,
  };
}

function withTimeout(promise) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no answer')), CALL_TIMEOUT_MS))),
  ]).finally(() => clearTimeout(timer));
}

async function spawnReplica(env) {
  const child = spawn(process.execPath, [...binNodeFlags(MAIN), MAIN], {
    env: cleanEnv({ ...env, GSC_TRANSPORT: 'http', GSC_HTTP_PORT: '0' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  killOnExit(child);
  let log = '';
  const origin = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = /serving HTTP on (http:\/\/[^\s/]+)\/mcp/.exec(log);
      if (m) {
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => reject(new Error(`replica exited (${code}): ${log}`)));
  });
  const exited = new Promise((r) => child.once('exit', r));
  return {
    origin,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
      }
      await exited;
    },
  };
}

/** A child of this run never outlives it, even when the run itself fails. */
function killOnExit(child) {
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
}

async function freePort() {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}

/** A redis-server of this run's own, persisting nothing; pause()/resume() stop and continue the process. */
async function startRedis() {
  if (spawnSync('redis-server', ['--version']).status !== 0) {
    throw new Error('redis-server is not installed (apt-get install -y redis-server)');
  }
  const dir = mkdtempSync(join(tmpdir(), 'replica-redis-'));
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: 'ignore',
  });
  killOnExit(child);
  const { Redis } = await import('ioredis');
  const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50 });
  await probe.connect();
  await probe.ping();
  probe.disconnect();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: () => {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `npm run bench -- replicas`: the full run, one row per phase and the checks. */
export async function replicas() {
  const { phases, checks } = await replicaFaultRun(FULL);
  const rows = phases.map((p) => {
    const errors =
      Object.entries(p.errors)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ') || 'none';
    return {
      bar: `replicas: ${p.name}`,
      target: '',
      measured: `${(p.calls / p.elapsed).toFixed(0)} calls/s, p50 ${ms(percentile(p.latencies, 50) ?? 0)}, p99 ${ms(percentile(p.latencies, 99) ?? 0)}, errors: ${errors}${p.note ? `; ${p.note}` : ''}`,
      verdict: '',
    };
  });
  const b = checks.books;
  rows.push(
    {
      bar: 'replicas: no sitemap deleted twice, none without an approval',
      target: '0 and 0',
      measured: `${checks.deletedTwice.length} and ${checks.deletedWithoutApproval.length} (of ${checks.deletes} deletes)`,
      verdict: verdict(!checks.deletedTwice.length && !checks.deletedWithoutApproval.length),
    },
    {
      bar: 'replicas: executed tokens replayed, then executed again',
      target: '0',
      measured: `${checks.replaysExecuted} of ${checks.replays}`,
      verdict: verdict(checks.replaysExecuted === 0),
    },
    {
      bar: 'replicas: calls left without an answer',
      target: '0',
      measured: String(checks.unanswered),
      verdict: verdict(checks.unanswered === 0),
    },
    {
      bar: 'replicas: quota ledger vs emulator log (inspections)',
      target: 'equal, but for inspect_url calls cut by the SIGKILL',
      measured: `${b.inspectionsCounted} counted, ${b.inspectionsSent} sent, ${checks.inspectionsCut} cut`,
      verdict: verdict(checks.ledgerMatchesLog),
    },
    {
      bar: 'replicas: audit trail vs deletes executed',
      target: 'equal',
      measured: `${b.executedAudited} executed, ${b.approvalsAudited} approvals audited, ${b.deletes} deletes`,
      verdict: verdict(checks.auditMatchesDeletes),
    },
  );
  return rows;
}
