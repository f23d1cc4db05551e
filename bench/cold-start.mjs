import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, MAIN, median, ms, ROOT, stdioToolsListTime, verdict } from './common.mjs';

const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);
// The floor of PRODUCT §10: a bare SDK v2 server with 21 trivial tools, run as plain `node` (bench/floor/).
const FLOOR = join(ROOT, 'bench/floor/floor-stdio.mjs');
// Peers that run over stdio from their npm package (briefs/landscape.md), given a dummy credential.
const PEERS = [
  { name: 'mcp-server-gsc@0.3.0', pkg: 'mcp-server-gsc@0.3.0', bin: 'mcp-server-gsc' },
  { name: '@mikusnuz/gsc-mcp@1.3.3', pkg: '@mikusnuz/gsc-mcp@1.3.3', bin: 'gsc-mcp' },
  { name: 'search-console-mcp@2.1.3', pkg: 'search-console-mcp@2.1.3', bin: 'search-console-mcp' },
];

/**
 * Spawn → tools/list for each server, taking turns (a, b, c, a, b, c, …) so that
 * a change in the machine's load hits all alike; medians, after one warm-up run
 * each (file cache, compile cache).
 */
async function interleaved(servers) {
  const times = servers.map(() => []);
  for (const s of servers) {
    await stdioToolsListTime(process.execPath, s.args, s.env);
  }
  for (let i = 0; i < RUNS; i++) {
    for (const [j, s] of servers.entries()) {
      times[j].push(await stdioToolsListTime(process.execPath, s.args, s.env));
    }
  }
  return times.map((t) => ({ median: median(t), spread: `${ms(Math.min(...t))}–${ms(Math.max(...t))}` }));
}

export async function coldStart() {
  const servers = [
    { name: 'ours', args: [MAIN], env: cleanEnv() },
    { name: 'floor', args: [FLOOR], env: cleanEnv() },
  ];
  const peers = process.env.BENCH_PEERS === '1' ? installPeers() : [];
  const results = await interleaved([...servers, ...peers.filter((p) => p.args)]);
  const [ours, floor] = results;
  const ratio = ours.median / floor.median;
  const rows = [
    {
      bar: 'cold start: spawn → tools/list (stdio), vs the floor',
      target: '≤ 1.25×',
      measured: `${ratio.toFixed(2)}× (${ms(ours.median)} vs ${ms(floor.median)}, medians of ${RUNS}, taking turns)`,
      verdict: verdict(ratio <= 1.25),
    },
    { bar: '  ours', target: '', measured: `${ms(ours.median)} (range ${ours.spread})`, verdict: '' },
    {
      bar: '  floor: bare SDK v2 server, 21 trivial tools',
      target: '',
      measured: `${ms(floor.median)} (range ${floor.spread})`,
      verdict: '',
    },
  ];
  if (!peers.length) {
    return rows;
  }
  let fastest = Infinity;
  let k = 2;
  for (const peer of peers) {
    if (!peer.args) {
      rows.push({ bar: `  peer ${peer.name}`, target: '', measured: `not measured (${peer.error})`, verdict: '' });
      continue;
    }
    const t = results[k++].median;
    fastest = Math.min(fastest, t);
    rows.push({ bar: `  peer ${peer.name}`, target: '', measured: ms(t), verdict: '' });
  }
  if (Number.isFinite(fastest)) {
    rows.push({
      bar: 'cold start vs fastest peer',
      target: '≤ 0.5×',
      measured: `${(ours.median / fastest).toFixed(2)}×`,
      verdict: verdict(ours.median / fastest <= 0.5),
    });
  }
  return rows;
}

function installPeers() {
  const dir = join(tmpdir(), 'gsc-bench-peers');
  mkdirSync(dir, { recursive: true });
  const keyFile = join(dir, 'dummy-key.json');
  writeFileSync(keyFile, JSON.stringify({ type: 'service_account', client_email: 'x@y.iam.gserviceaccount.com', private_key: 'dummy' }));
  return PEERS.map((peer) => {
    try {
      // One folder per peer: npm install --no-save prunes whatever else a shared folder holds.
      const prefix = join(dir, peer.pkg.replace(/[^a-z0-9.@-]+/gi, '_'));
      const bin = join(prefix, 'node_modules/.bin', peer.bin);
      if (!existsSync(bin)) {
        execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--ignore-scripts', '--omit=dev', peer.pkg], { stdio: 'ignore' });
      }
      return { name: peer.name, args: [bin], env: cleanEnv({ GOOGLE_APPLICATION_CREDENTIALS: keyFile, GSC_CREDENTIALS_PATH: keyFile }) };
    } catch (error) {
      return { name: peer.name, error: error.message.split('\n')[0] };
    }
  });
}
