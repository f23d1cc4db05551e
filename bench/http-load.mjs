import { readFileSync } from 'node:fs';
import { connectHttp, ms, percentile, spawnFloorHttp, spawnOursHttp, startGoogle, verdict } from './common.mjs';

// 64 clients (2026-07-28) calling a mix of read tools, against our server and,
// side by side in the same run, against the floor: a bare SDK v2 server doing
// the same Google requests (bench/floor/floor-http.mjs). The two take turns in
// slices after a warm-up (floor, ours, floor, ours, …), so that a change in the
// machine's load hits both alike; the 64 connections of the idle one wait
// meanwhile. BENCH_LOAD_SECONDS is the time each server is loaded.

const CLIENTS = 64;
const SITE = 'https://www.example.com/';
// Our server counts URL inspections against Google's quota (600 a minute and
// 2 000 a day per property) and refuses past it, as it should; spread over this
// many properties, the load stays within it (the floor counts nothing).
const INSPECTED = Array.from({ length: 32 }, (_, i) => `https://load-${i}.example.com/`);
const CALLS = [
  () => ['list_sites', {}],
  () => ['get_site', { site_url: SITE }],
  () => ['list_sitemaps', { site_url: SITE }],
  () => ['query_search_analytics', { site_url: SITE, period: 'last7days', dimensions: ['query'], row_limit: 25 }],
  (n) => {
    const site = INSPECTED[Math.floor(n / 5) % INSPECTED.length];
    return ['inspect_url', { site_url: site, url: `${site}blog/hello-world` }];
  },
];
const ROUNDS = 3;

/** CPU time (user + system, all threads) a process has used so far, in ms. */
export const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));

/**
 * `clients` connected clients (64, 2026-07-28, the mixed reads by default) that call while a slice is open and wait otherwise.
 * `connect(url, name)` resolves with a client having callTool and close; `calls` maps a call number to [tool, arguments].
 */
export async function loadOn(url, pid, { clients = CLIENTS, connect = connectHttp, calls = CALLS } = {}) {
  let open = null;
  let wake = () => undefined;
  let stopped = false;
  const slice = { calls: 0, errors: 0, latencies: [] };
  const worker = async (i) => {
    const client = await connect(url, `load-${i}`);
    for (let n = i; !stopped; n++) {
      if (!open) {
        await new Promise((r) => (wake = chain(wake, r)));
        continue;
      }
      const [name, args] = calls[n % calls.length](n);
      const current = open;
      const started = process.hrtime.bigint();
      try {
        const r = await client.callTool({ name, arguments: args });
        if (r.isError) {
          current.errors++;
          if (process.env.BENCH_DEBUG) {
            process.stderr.write(`${name}: ${JSON.stringify(r.content).slice(0, 200)}\n`);
          }
        }
      } catch (e) {
        current.errors++;
        if (process.env.BENCH_DEBUG) {
          process.stderr.write(`${name}: ${e.message}\n`);
        }
      }
      current.latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      current.calls++;
    }
    await client.close();
  };
  const workers = Array.from({ length: clients }, (_, i) => worker(i));
  return {
    /** Load for `seconds`; resolves with what was answered in that time. */
    async run(seconds) {
      open = { ...slice, latencies: [] };
      const result = open;
      const cpuBefore = cpuMs(pid);
      wake();
      wake = () => undefined;
      await sleep(seconds);
      open = null;
      result.cpu = cpuMs(pid) - cpuBefore;
      return result;
    },
    async stop() {
      stopped = true;
      wake();
      await Promise.all(workers);
    },
  };
}

function chain(a, b) {
  return () => {
    a();
    b();
  };
}

export function merge(slices) {
  const sum = (key) => slices.reduce((s, x) => s + x[key], 0);
  return { calls: sum('calls'), errors: sum('errors'), cpu: sum('cpu'), latencies: slices.flatMap((x) => x.latencies) };
}

export async function httpLoad() {
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
  // The heap settles within ~10 s of continuous load (measured: 293 MB at 5 s, 385 at 10 s, 400 at 60 s).
  const warmup = Math.min(10, Math.max(2, Math.round(seconds / 3)));
  const slice = (seconds - warmup) / ROUNDS;
  const google = await startGoogle({ unlimited: true });
  for (const site of INSPECTED) {
    google.emulator.state.sites.set(site, 'siteOwner');
  }
  const ours = await spawnOursHttp(google.env);
  const floor = await spawnFloorHttp(google.env);
  const oursLoad = await loadOn(ours.url, ours.child.pid);
  const floorLoad = await loadOn(floor.url, floor.child.pid);
  const warm = [await floorLoad.run(warmup), await oursLoad.run(warmup)];
  const measured = { floor: [], ours: [] };
  let rssAfterWarmup = 0;
  for (let round = 0; round < ROUNDS; round++) {
    measured.floor.push(await floorLoad.run(slice));
    measured.ours.push(await oursLoad.run(slice));
    // Ours idles while the floor runs, so its heap settles later than under continuous load: growth is counted from its first slice on.
    if (round === 0) {
      rssAfterWarmup = rssKb(ours.child.pid);
    }
  }
  const rssEnd = rssKb(ours.child.pid);
  await Promise.all([oursLoad.stop(), floorLoad.stop()]);
  ours.child.kill();
  floor.child.kill();
  await google.emulator.close();

  const o = merge(measured.ours);
  const f = merge(measured.floor);
  const time = slice * ROUNDS;
  const [oRate, fRate] = [o.calls / time, f.calls / time];
  const [oP50, fP50, oP99, fP99] = [
    percentile(o.latencies, 50),
    percentile(f.latencies, 50),
    percentile(o.latencies, 99),
    percentile(f.latencies, 99),
  ];
  const errors = warm[1].errors + o.errors;
  const calls = warm[1].calls + o.calls;
  const growth = ((rssEnd - rssAfterWarmup) / rssAfterWarmup) * 100;
  const floorNote = f.errors ? ` (the floor had ${f.errors} errors: compare with care)` : '';
  return [
    {
      bar: `HTTP load: ${CLIENTS} clients, ${warmup} + ${time} s, mixed reads`,
      target: 'zero errors',
      measured: `${errors} errors in ${calls} calls (${oRate.toFixed(0)} calls/s)`,
      verdict: verdict(errors === 0),
    },
    {
      bar: `HTTP load: RSS growth over the last ${ROUNDS - 1} slices`,
      target: '≤ 10 %',
      measured: `${growth.toFixed(1)} % (${(rssAfterWarmup / 1024).toFixed(0)} → ${(rssEnd / 1024).toFixed(0)} MB)`,
      verdict: verdict(growth <= 10),
    },
    {
      bar: '  bare SDK v2 HTTP server, same Google calls (floor)',
      target: '',
      measured: `${fRate.toFixed(0)} calls/s, p50 ${ms(fP50)}, p99 ${ms(fP99)}, ${(f.cpu / f.calls).toFixed(2)} ms server CPU a call${floorNote}`,
      verdict: '',
    },
    {
      bar: '  ours, same slices',
      target: '',
      measured: `${oRate.toFixed(0)} calls/s, p50 ${ms(oP50)}, p99 ${ms(oP99)}, ${(o.cpu / o.calls).toFixed(2)} ms server CPU a call`,
      verdict: '',
    },
    {
      bar: 'HTTP load vs floor: calls/s',
      target: '≥ 0.9×',
      measured: `${(oRate / fRate).toFixed(2)}×`,
      verdict: verdict(oRate / fRate >= 0.9),
    },
    { bar: 'HTTP load vs floor: p99', target: '≤ 1.3×', measured: `${(oP99 / fP99).toFixed(2)}×`, verdict: verdict(oP99 / fP99 <= 1.3) },
    {
      bar: 'HTTP load vs floor: server CPU a call',
      target: '',
      measured: `${(o.cpu / o.calls / (f.cpu / f.calls)).toFixed(2)}×`,
      verdict: '',
    },
  ];
}
