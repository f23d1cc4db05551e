// Replicas under load and faults behind a real load balancer (issues 21, 33;
// PRODUCT §8c, §8e, §10): three server processes (the built binary over HTTP)
// on one real redis-server, Debian's nginx in front (bench/nginx.mjs, with
// deploy/nginx/google-search-console-mcp.conf: round robin for 2026-07-28,
// sticky by Mcp-Session-Id for 2025-11-25). v1 clients (2025-11-25, dialogs
// pushed and answered) and v2 clients (2026-07-28, two-call confirm tokens)
// call reads and delete_sitemap the whole time. Four phases of equal length:
// steady; then at the start of each of the next three, one replica SIGKILLed
// while an approval is in flight on it and restarted on its port; in the third,
// Redis stopped (SIGSTOP) for a few seconds, then resumed (SIGCONT). Between
// phases the clients stop at a barrier so that the books can be compared.
// `npm run bench -- replicas` runs the full version (64 clients, 4 × 15 s);
// test/replicas-load.e2e.spec.ts a 20-second one and asserts what `checks` reports.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { binNodeFlags, cleanEnv, MAIN, ms, percentile, startGoogle, verdict } from './common.mjs';
import { stateKey, stateName } from '../dist/state/keys.js';
import { freePort, startNginx } from './nginx.mjs';

const SECRET = 'one-approval-secret-shared-by-all-replicas-0123456789';
const SITE = 'https://www.example.com/';
const INSPECTED = 'https://blog.example.net/';
const T0 = Date.now();
const trace = (m) => process.env.BENCH_DEBUG && process.stderr.write(`${((Date.now() - T0) / 1000).toFixed(1)} s: ${m}\n`);

// timeoutMs: each client's own request timeout. A call cut by a SIGKILL after its answer's SSE stream opened is
// reported by the SDK clients only then (nothing else ends it); past it, with a margin, a call got no answer at all.
// paceMs: each client's pause between calls. The full run drives the replicas as hard as its clients can; the short one
// (in npm test, beside other suites on 2 cores) paces its clients so that it keeps every fault in the run without
// taking the whole machine for 20 s: a guarded call is still in flight on every replica it kills.
export const FULL = { phaseSeconds: 15, v1: 32, v2: 32, pauseMs: 3000, timeoutMs: 20_000, paceMs: 0 };
export const SHORT = { phaseSeconds: 5, v1: 4, v2: 4, pauseMs: 1500, timeoutMs: 10_000, paceMs: 150 };

/** Runs the scenario; resolves with the figures per phase and the checks. */
export async function replicaFaultRun(options = SHORT) {
  const google = await startGoogle({ unlimited: true });
  const redis = await startRedis();
  const stateDirs = [];
  const ports = await Promise.all([0, 1, 2].map(() => freePort()));
  const env = (i) => {
    const dir = mkdtempSync(join(tmpdir(), `replica-${i}-`));
    stateDirs.push(dir);
    return { ...google.env, GSC_REDIS_URL: redis.url, GSC_APPROVAL_SECRET: SECRET, GSC_STATE_DIR: dir, GSC_HTTP_PORT: String(ports[i]) };
  };
  const replicas = [];
  const launch = async (i) => void (replicas[i] = await spawnReplica(env(i)));
  let nginx;
  let fleet;
  const { Redis } = await import('ioredis');
  const books = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  const audit = new AuditReader(books);
  // The audit trail keeps its newest 10 000 entries (AUDIT_MAX_ENTRIES); a fast run writes more than that, so it is
  // read as it grows (a failed read, Redis stopped, is tried again) and entries trimmed before they were read are counted.
  const auditPoll = setInterval(() => void audit.poll().catch(() => undefined), 500);
  try {
    await Promise.all([0, 1, 2].map(launch));
    nginx = await startNginx(ports.map((p) => `127.0.0.1:${p}`));
    const world = { google, url: nginx.url, sitemaps: 0, approved: new Set(), refusedOnly: new Set(), redeemed: [], replays: [] };
    const phases = [];
    trace('started');
    fleet = await startClients(world, options);
    const phase = async (name, fault) => {
      const stats = fleet.open(name);
      const started = Date.now();
      const note = fault ? await fault(started) : '';
      await sleep(Math.max(0, options.phaseSeconds * 1000 - (Date.now() - started)));
      await fleet.barrier();
      const elapsed = (Date.now() - started) / 1000;
      phases.push({ name, elapsed, note, cut: fleet.cut(), ...stats, books: await compareBooks(books, audit, google) });
      trace(`${name} done`);
    };
    // A replica is killed while a 2025-11-25 approval is in flight on it: the rotation's turn if it has one within a
    // second, else any. The replica holding a session is the one nginx named in its id (a replica that does not hold a
    // session can serve it from the store, so asking the replicas proves nothing); that nginx really sent every request
    // of a session there is checked afterwards from nginx's own access log (stickiness below).
    const kill = (turn) => async () => {
      const started = Date.now();
      let victim;
      let approvals = 0;
      while (victim === undefined && Date.now() - started < 3000) {
        const holders = fleet
          .approvalsInFlight()
          .map((session) => Number(/^r(\d+)\./.exec(session)?.[1] ?? 0) - 1)
          .filter((h) => h >= 0);
        victim = holders.includes(turn) ? turn : Date.now() - started > 1000 ? holders.find((h) => h !== undefined) : undefined;
        approvals = holders.filter((h) => h === victim).length;
        if (victim === undefined) {
          await sleep(5);
        }
      }
      victim ??= turn;
      const downAt = Date.now();
      trace(`killing replica ${victim + 1}`);
      await replicas[victim].kill('SIGKILL');
      await launch(victim);
      return `replica ${victim + 1} SIGKILLed with ${approvals} approval${approvals === 1 ? '' : 's'} in flight on it, back in ${((Date.now() - downAt) / 1000).toFixed(1)} s`;
    };
    await phase('steady');
    await phase('replica killed', kill(0));
    await phase('replica killed, Redis paused', async (started) => {
      const note = await kill(1)();
      // The Redis stop in the middle of the phase, once the replica is back.
      await sleep(Math.max(0, started + options.phaseSeconds * 400 - Date.now()));
      trace('pausing Redis');
      redis.pause();
      await sleep(options.pauseMs);
      redis.resume();
      return `${note}; Redis SIGSTOP for ${options.pauseMs} ms, then SIGCONT`;
    });
    await phase('replica killed again', kill(2));
    await fleet.stop();
    trace('clients stopped');
    // Every token that executed once, replayed once more through nginx: each must be refused.
    world.replays = await fleet.replayAll(world.redeemed);
    trace('replayed');
    await books.connect().catch(() => undefined);
    return {
      phases,
      checks: { ...(await finalChecks(world, books, audit, google, phases)), sticky: stickiness(nginx.accessLog(), ports) },
    };
  } finally {
    clearInterval(auditPoll);
    await fleet?.stop().catch(() => undefined);
    books.disconnect();
    await nginx?.stop();
    await Promise.all(replicas.map((r) => r?.kill('SIGTERM')));
    redis.stop();
    await google.emulator.close();
    for (const dir of stateDirs) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/**
 * From nginx's access log: every request naming a 2025-11-25 session (`r<N>.<id>`, the replica nginx named when it
 * answered initialize) went to replica N's address, and to no other.
 */
function stickiness(log, ports) {
  const sticky = { checked: 0, elsewhere: [] };
  for (const line of log.split('\n')) {
    const [session, ...tried] = line.split(' ');
    const named = /^r(\d+)\./.exec(session ?? '');
    const upstream = tried.join(' ');
    if (!named || upstream === '-' || upstream === '') {
      continue;
    }
    sticky.checked++;
    if (upstream !== `127.0.0.1:${ports[Number(named[1]) - 1]}`) {
      sticky.elsewhere.push(`${session} went to ${upstream}`);
    }
  }
  return sticky;
}

/** The clients: v2 token-path workers and v1 dialog workers, each looping reads and deletes while a phase is open. */
async function startClients(world, options) {
  const { clientV1, clientV2 } = await clientFactories();
  let current;
  let gate = Promise.resolve();
  let release;
  let stopping = false;
  // Calls that got no answer, by tool: such an inspect_url may be counted by the ledger and never sent, and such a
  // delete_sitemap may have reached Google with its replica killed before it wrote "executed" to the audit trail.
  const cut = { inspect_url: 0, delete_sitemap: 0, uncounted: 0 };
  const busy = new Set();
  const approvals = new Map(); // v1 delete_sitemap calls in flight → their session id as the client knows it
  const record = (name, started, outcome, message, kind) => {
    current.calls++;
    current.latencies.push(Date.now() - started);
    if (outcome === 'ok') {
      return;
    }
    current.errors[outcome] = (current.errors[outcome] ?? 0) + 1;
    if (message) {
      const said = `${kind} ${name}: ${message.replace(/\s+/g, ' ').slice(0, 160)}`;
      current.messages[said] = (current.messages[said] ?? 0) + 1;
    }
    // An answer, whatever it said, means the replica finished the call; no answer, that it may have died midway.
    if (name in cut && (outcome === 'transport' || outcome === 'no answer')) {
      cut[name]++;
    }
  };
  // One tool call: 'ok', 'refused' (an isError sentence), 'transport' (an error with a message) or 'no answer'.
  const call = async (client, name, args, refusal = 'refused') => {
    const started = Date.now();
    try {
      const result = await withTimeout(
        client.callTool({ name, arguments: args }, undefined, { timeout: options.timeoutMs }),
        options.timeoutMs,
      );
      record(name, started, result.isError ? refusal : 'ok');
      // With the store unreachable an inspection goes out uncounted (a read never fails for the ledger), and the answer
      // should say so, as inspect_urls' and request_indexing's do (quotaRemainingLine). inspect_url's does not yet: such
      // a call then fails the ledger check, as it should until the person is told.
      if (name === 'inspect_url' && JSON.stringify(result.content).includes('this call was not counted')) {
        cut.uncounted++;
      }
      return result;
    } catch (error) {
      const answered = error?.message && error.message !== NO_ANSWER;
      record(name, started, answered ? 'transport' : 'no answer', error?.message ?? NO_ANSWER, client.kind);
      trace(
        `${client.kind} ${name} failed after ${Date.now() - started} ms (session ${client.transport?.sessionId ?? '-'}): ${error?.message}`,
      );
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
    let client = await withTimeout(connect(), options.timeoutMs).catch(() => undefined);
    connected++;
    for (let n = 0; !stopping; n++) {
      await gate;
      if (stopping) {
        break;
      }
      busy.add(id);
      try {
        client ??= await withTimeout(connect(), options.timeoutMs);
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
      if (options.paceMs) {
        await sleep(options.paceMs);
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
    const key = {};
    approvals.set(key, client.transport.sessionId);
    try {
      await call(client, 'delete_sitemap', { site_url: SITE, sitemap_url: sitemap });
    } finally {
      approvals.delete(key);
    }
  };
  const answer = (params) => {
    const sitemap = /(https:\/\/\S+\.xml)/.exec(params.message)?.[1];
    return declines.has(sitemap) ? { action: 'decline' } : { action: 'accept', content: { confirm: true } };
  };
  let connected = 0;
  const workers = [
    ...Array.from({ length: options.v2 }, (_, i) => loop(`v2-${i}`, () => clientV2(world.url), tokenPath)),
    ...Array.from({ length: options.v1 }, (_, i) => loop(`v1-${i}`, () => clientV1(world.url, answer), dialogPath)),
  ];
  const closeGate = () => (gate = new Promise((r) => (release = r)));
  closeGate();
  while (connected < workers.length) {
    await sleep(10);
  }
  return {
    open(name) {
      current = { phase: name, calls: 0, latencies: [], errors: {}, messages: {} };
      release();
      return current;
    },
    /** Session ids (as the clients hold them) with a delete_sitemap in flight. */
    approvalsInFlight: () => [...new Set(approvals.values())].filter(Boolean),
    /** Calls so far that got no answer, by tool (inspect_url, delete_sitemap). */
    cut: () => ({ ...cut }),
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
      const client = await clientV2(world.url);
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
      client.kind = 'v2';
      return client;
    },
    async clientV1(url, answer) {
      const client = new V1Client({ name: 'replica-v1', version: '0' }, { capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler(ElicitRequestSchema, async (request) => answer(request.params));
      await client.connect(new V1Transport(new URL(url)));
      client.kind = 'v1';
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

/**
 * The audit trail's delete_sitemap entries, read from Redis in order as they are written: what was read is counted
 * once, and `unread` is how many entries the stream's own total (XINFO's entries-added) says were trimmed first.
 */
class AuditReader {
  constructor(redis) {
    this.redis = redis;
    this.key = `gsc-mcp:${stateName('audit')}`;
    this.last = '0-0';
    this.read = 0;
    this.executed = 0;
    this.approvals = 0;
    this.unread = 0;
    this.lines = new Set();
    this.duplicates = 0;
    this.reading = undefined;
  }

  /** Reads what was appended since the last read; one read at a time. */
  poll() {
    this.reading ??= this.readNew().finally(() => (this.reading = undefined));
    return this.reading;
  }

  async readNew() {
    if (this.redis.status !== 'ready') {
      await this.redis.connect();
    }
    for (;;) {
      const entries = await this.redis.xrange(this.key, `(${this.last}`, '+', 'COUNT', 2000);
      for (const [id, fields] of entries) {
        // A line carries its time to the millisecond: the same line twice is one entry written twice.
        this.duplicates += this.lines.has(fields[1]) ? 1 : 0;
        this.lines.add(fields[1]);
        const e = JSON.parse(fields[1]);
        this.executed += e.tool === 'delete_sitemap' && e.event === 'executed' ? 1 : 0;
        this.approvals += e.tool === 'delete_sitemap' && (e.event === 'approved' || e.event === 'token_redeemed') ? 1 : 0;
        this.last = id;
      }
      this.read += entries.length;
      if (entries.length < 2000) {
        break;
      }
    }
    const info = await this.redis.xinfo('STREAM', this.key).catch(() => undefined);
    const added = info ? Number(info[info.indexOf('entries-added') + 1]) : this.read;
    this.unread = Math.max(0, added - this.read);
  }
}

/** The state store's books beside the emulator's log: inspections counted vs sent, deletes audited vs executed. */
async function compareBooks(books, audit, google) {
  const log = google.emulator.apiRequests();
  const sent = log.filter((r) => r.route === 'urlInspection.index.inspect' && r.status === 200).length;
  const deletes = log.filter((r) => r.route === 'sitemaps.delete').length;
  try {
    if (books.status !== 'ready') {
      await books.connect();
    }
    let counted = 0;
    for (const key of await books.keys(`gsc-mcp:${stateKey('quota', 'inspection', '*', 'day', '*')}`)) {
      counted += Number(await books.get(key));
    }
    await audit.poll();
    return {
      inspectionsSent: sent,
      inspectionsCounted: counted,
      deletes,
      executedAudited: audit.executed,
      approvalsAudited: audit.approvals,
      auditUnread: audit.unread,
      auditDuplicates: audit.duplicates,
    };
  } catch (error) {
    return { inspectionsSent: sent, deletes, error: error.message };
  }
}

async function finalChecks(world, books, audit, google, phases) {
  const deletes = google.emulator.apiRequests().filter((r) => r.route === 'sitemaps.delete');
  const perSitemap = new Map();
  for (const d of deletes) {
    const path = decodeURIComponent(d.params.feedpath);
    perSitemap.set(path, (perSitemap.get(path) ?? 0) + 1);
  }
  // Give the audit trail's pending entries (kept in memory while Redis was stopped) a moment to land: until every
  // delete is audited, or the count has not moved for half a second.
  let last = phases.at(-1).books;
  for (let still = 0, i = 0; i < 50 && still < 5 && last.executedAudited < last.deletes; i++) {
    await sleep(100);
    const next = await compareBooks(books, audit, google);
    still = next.executedAudited === last.executedAudited ? still + 1 : 0;
    last = next;
  }
  const unanswered = phases.reduce((n, p) => n + (p.errors[NO_ANSWER] ?? 0), 0);
  const unclear = phases.flatMap((p) => Object.keys(p.messages).filter((m) => !RETRYABLE.test(m.slice(m.indexOf(': ') + 2))));
  const { cut } = phases.at(-1);
  return {
    deletes: deletes.length,
    deletedTwice: [...perSitemap].filter(([, n]) => n > 1).map(([p]) => p),
    deletedWithoutApproval: [...perSitemap.keys()].filter((p) => !world.approved.has(p) || world.refusedOnly.has(p)),
    replays: world.replays.length,
    replaysExecuted: world.replays.filter((o) => o !== 'token_rejected').length,
    unanswered,
    unclear,
    books: last,
    cut,
    ledgerMatchesLog: booksAgree(last, cut).ledger,
    auditMatchesDeletes: booksAgree(last, cut).audit,
  };
}

/**
 * The books against Google's log, allowing for nothing but calls cut by a SIGKILL and inspections the server said it
 * could not count: the ledger counted every inspection Google answered but those whose answer said "this call was not
 * counted" (the store was unreachable; a read still goes out, src/quota/quota-ledger.service.ts), and more only by
 * inspect_url calls that got no answer; the audit trail holds an
 * approval for every delete Google received, and an "executed" entry for each but those whose call got no answer; none
 * of its entries was trimmed before the bench read it, and none is there twice.
 */
export function booksAgree(books, cut) {
  const extraCounted = books.inspectionsCounted - books.inspectionsSent;
  const missingExecuted = books.deletes - books.executedAudited;
  return {
    ledger: extraCounted >= -(cut.uncounted ?? 0) && extraCounted <= cut.inspect_url,
    audit:
      (books.auditUnread ?? 0) === 0 &&
      (books.auditDuplicates ?? 0) === 0 &&
      books.approvalsAudited >= books.deletes &&
      missingExecuted >= 0 &&
      missingExecuted <= cut.delete_sitemap,
  };
}

const NO_ANSWER = 'no answer';

/**
 * The errors a client may get when a replica dies under it, each of which says what to do: nginx's JSON-RPC
 * answers (deploy/nginx/google-search-console-mcp.conf: "stopped before it answered", "Session not found … start a
 * new session"), and the SDK v1 client's own once its session's stream is gone ("Connection closed" for the calls
 * pending then, "Not connected" for one sent on the closed client): a new session is the answer to each.
 * Anything else is an unclear error, and a failed check.
 */
const RETRYABLE = /stopped before it answered|Session not found|^MCP error -32000: Connection closed$|^Not connected$/;

/** The run's own deadline, 10 s past the client's: a call still unsettled then got no answer, not even a timeout. */
function withTimeout(promise, clientTimeoutMs) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(NO_ANSWER)), clientTimeoutMs + 10_000))),
  ]).finally(() => clearTimeout(timer));
}

async function spawnReplica(env) {
  const child = spawn(process.execPath, [...binNodeFlags(MAIN), MAIN], {
    env: cleanEnv({ ...env, GSC_TRANSPORT: 'http' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  killOnExit(child);
  let log = '';
  await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      if (/serving HTTP on http:\/\/\S+\/mcp/.test(log)) {
        resolve();
      }
    });
    child.on('exit', (code) => reject(new Error(`replica exited (${code}): ${log}`)));
  });
  const exited = new Promise((r) => child.once('exit', r));
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    alive,
    kill: async (signal) => {
      if (alive()) {
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
      bar: `replicas behind nginx: ${p.name}`,
      target: '',
      measured: `${(p.calls / p.elapsed).toFixed(0)} calls/s, p50 ${ms(percentile(p.latencies, 50) ?? 0)}, p99 ${ms(percentile(p.latencies, 99) ?? 0)}, errors: ${errors}${p.note ? `; ${p.note}` : ''}`,
      verdict: '',
    };
  });
  for (const p of phases) {
    for (const [message, n] of Object.entries(p.messages)) {
      process.stderr.write(`${p.name}: ${n} × ${message}\n`);
    }
  }
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
      bar: 'replicas: errors that do not say what to do (retry, new session)',
      target: '0',
      measured: checks.unclear.length ? checks.unclear.join(' | ') : '0',
      verdict: verdict(checks.unclear.length === 0),
    },
    {
      bar: 'replicas: 2025-11-25 sessions found on another replica than nginx routed them to',
      target: '0',
      measured: `${checks.sticky.elsewhere.length} of ${checks.sticky.checked} checked`,
      verdict: verdict(checks.sticky.checked > 0 && checks.sticky.elsewhere.length === 0),
    },
    {
      bar: 'replicas: quota ledger vs emulator log (inspections)',
      target: 'equal, but for calls cut by a SIGKILL and those answered "not counted" while Redis was stopped',
      measured: `${b.inspectionsCounted} counted, ${b.inspectionsSent} sent, ${checks.cut.inspect_url} calls cut, ${checks.cut.uncounted} answered "not counted"`,
      verdict: verdict(checks.ledgerMatchesLog),
    },
    {
      bar: 'replicas: audit trail vs deletes Google received',
      target: 'an approval for each; "executed" for each but calls cut by a SIGKILL; none lost, none twice',
      measured: `${b.deletes} deletes, ${b.approvalsAudited} approvals and ${b.executedAudited} executions audited, ${checks.cut.delete_sitemap} calls cut, ${b.auditUnread} audit entries trimmed before they were read, ${b.auditDuplicates} written twice`,
      verdict: verdict(checks.auditMatchesDeletes),
    },
  );
  return rows;
}
