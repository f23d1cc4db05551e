// HTTP `list_sites` against the floor (PRODUCT §10: ≥ 0.9× its calls/s, p99 ≤
// 1.3× its p99), in each protocol revision: real clients from outside (the v2
// SDK's pinned to 2026-07-28, the v1 SDK's for 2025-11-25) calling list_sites
// with the same concurrency against our built server and against
// bench/floor/floor-http.mjs, a bare @modelcontextprotocol/server HTTP server
// whose list_sites makes the one Google request it needs (sites.list, the real
// googleapis client, against the emulator in this process). The two take turns
// in slices after a warm-up, as in the load bench. Also counted from the
// emulator's request log: Google requests per call once warm, per route.
// BENCH_LIST_SITES_SECONDS is each server's loaded time per revision (default
// 12), BENCH_LIST_SITES_CLIENTS the concurrency (default 32).
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectHttp, ms, percentile, spawnFloorHttp, spawnOursHttp, startGoogle, verdict } from './common.mjs';
import { loadOn, merge } from './http-load.mjs';

const SECONDS = Number(process.env.BENCH_LIST_SITES_SECONDS ?? 12);
const CLIENTS = Number(process.env.BENCH_LIST_SITES_CLIENTS ?? 32);
const ROUNDS = 3;
const COUNTED = 20;

async function connectV1(url, name) {
  const client = new V1Client({ name, version: '0' });
  await client.connect(new V1Transport(new URL(url)));
  return client;
}

const REVISIONS = [
  ['2026-07-28', connectHttp],
  ['2025-11-25', connectV1],
];

/** Google requests per warm list_sites call, by route ("token", "sites.list" …), from the emulator's log. */
async function googleRequestsPerCall(emulator, url, connect) {
  const client = await connect(url, 'count');
  try {
    await client.callTool({ name: 'list_sites', arguments: {} });
    emulator.clearLog();
    for (let i = 0; i < COUNTED; i++) {
      await client.callTool({ name: 'list_sites', arguments: {} });
    }
    const byRoute = new Map();
    for (const r of emulator.requests) {
      byRoute.set(r.route, (byRoute.get(r.route) ?? 0) + 1);
    }
    const total = emulator.requests.length / COUNTED;
    const routes = [...byRoute].map(([route, n]) => `${route} ${(n / COUNTED).toFixed(2)}`).join(', ');
    return { total, text: `${total.toFixed(2)} (${routes || 'none'})` };
  } finally {
    await client.close();
  }
}

const summary = (m, seconds) => {
  const rate = m.calls / seconds;
  return { rate, p50: percentile(m.latencies, 50), p99: percentile(m.latencies, 99), cpu: m.cpu / m.calls, errors: m.errors };
};
const describe = (s) => `${s.rate.toFixed(0)} calls/s, p50 ${ms(s.p50)}, p99 ${ms(s.p99)}, ${s.cpu.toFixed(2)} ms server CPU a call`;

export async function listSites() {
  const google = await startGoogle({ unlimited: true });
  const ours = await spawnOursHttp(google.env);
  const floor = await spawnFloorHttp(google.env);
  const rows = [];
  try {
    for (const [revision, connect] of REVISIONS) {
      const requests = {
        floor: await googleRequestsPerCall(google.emulator, floor.url, connect),
        ours: await googleRequestsPerCall(google.emulator, ours.url, connect),
      };
      const calls = [() => ['list_sites', {}]];
      const oursLoad = await loadOn(ours.url, ours.child.pid, { clients: CLIENTS, connect, calls });
      const floorLoad = await loadOn(floor.url, floor.child.pid, { clients: CLIENTS, connect, calls });
      const warmup = Math.max(2, Math.round(SECONDS / 4));
      await floorLoad.run(warmup);
      await oursLoad.run(warmup);
      const slice = SECONDS / ROUNDS;
      const measured = { floor: [], ours: [] };
      for (let round = 0; round < ROUNDS; round++) {
        measured.floor.push(await floorLoad.run(slice));
        measured.ours.push(await oursLoad.run(slice));
      }
      await Promise.all([oursLoad.stop(), floorLoad.stop()]);
      const o = summary(merge(measured.ours), SECONDS);
      const f = summary(merge(measured.floor), SECONDS);
      const errors = o.errors || f.errors ? ` — errors: ours ${o.errors}, floor ${f.errors}` : '';
      rows.push(
        { bar: `list_sites over HTTP, ${revision}, ${CLIENTS} clients, floor`, target: '', measured: describe(f), verdict: '' },
        { bar: `  ours, same slices`, target: '', measured: `${describe(o)}${errors}`, verdict: '' },
        {
          bar: `  ${revision} vs floor: calls/s`,
          target: '≥ 0.9×',
          measured: `${(o.rate / f.rate).toFixed(2)}×`,
          verdict: verdict(o.rate / f.rate >= 0.9 && o.errors === 0),
        },
        {
          bar: `  ${revision} vs floor: p99`,
          target: '≤ 1.3×',
          measured: `${(o.p99 / f.p99).toFixed(2)}×`,
          verdict: verdict(o.p99 / f.p99 <= 1.3),
        },
        { bar: `  ${revision} vs floor: server CPU a call`, target: '', measured: `${(o.cpu / f.cpu).toFixed(2)}×`, verdict: '' },
        {
          bar: `  ${revision} Google requests a warm call`,
          target: "the floor's",
          measured: `ours ${requests.ours.text}, floor ${requests.floor.text}`,
          verdict: verdict(requests.ours.total <= requests.floor.total),
        },
      );
    }
  } finally {
    ours.child.kill();
    floor.child.kill();
    await google.emulator.close();
  }
  return rows;
}
