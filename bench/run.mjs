#!/usr/bin/env node
// npm run bench — the bars of PRODUCT.md §10, measured on this machine and
// printed as a table. Medians; compare ratios from one run, not absolute times
// across runs: cold start and HTTP load measure the floor (bench/floor/, a bare
// SDK v2 server) side by side with ours, taking turns. Optional: BENCH_PEERS=1
// also times peer servers from npm (installed into a temporary folder, never
// committed); BENCH_LOAD_SECONDS sets the HTTP load time per server (default
// 30); BENCH_COLD_RUNS the cold starts per server (default 15); BENCH_MAIN
// measures another build's dist/main.js with these scripts; BENCH_DEBUG=1
// prints the load's failed calls.
import { coldStart } from './cold-start.mjs';
import { inspectBatch } from './inspect-batch.mjs';
import { httpLoad } from './http-load.mjs';
import { listSites } from './list-sites.mjs';
import { callOverhead } from './call-overhead.mjs';
import { installSize } from './install-size.mjs';
import { toolListCost } from './tool-list-cost.mjs';
import { sessionMemory } from './session-memory.mjs';
import { stateStore } from './state-store.mjs';
import { exportBench } from './export.mjs';
import { replicas } from './replicas.mjs';
import { resolution } from './resolution.mjs';

const only = process.argv.slice(2);
const rows = [];
const run = async (name, fn) => {
  if (only.length && !only.includes(name)) {
    return;
  }
  process.stderr.write(`bench: ${name}…\n`);
  try {
    rows.push(...(await fn()));
  } catch (error) {
    rows.push({ bar: name, target: '', measured: `failed: ${error.message}`, verdict: 'ERROR' });
  }
};

await run('cost', toolListCost);
await run('cold-start', coldStart);
await run('overhead', callOverhead);
await run('inspect', inspectBatch);
await run('size', installSize);
await run('state', stateStore);
await run('export', exportBench);
await run('load', httpLoad);
await run('list-sites', listSites);
await run('sessions', sessionMemory);
await run('replicas', replicas);
await run('resolution', resolution);

const widths = ['bar', 'target', 'measured', 'verdict'].map((k) => Math.max(k.length, ...rows.map((r) => String(r[k]).length)));
const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
process.stdout.write(
  [
    line(['bar', 'target', 'measured', 'verdict']),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map((r) => line([r.bar, r.target, r.measured, r.verdict])),
  ].join('\n') + '\n',
);
process.exit(0);
