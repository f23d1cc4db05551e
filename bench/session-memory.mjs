// Bytes per idle 2025-11-25 session (PRODUCT §10: ≤ 20 KiB each, 1 000
// sessions ≤ 20 MiB), measured as an operator would: the built server in its
// own process, started both as its bin runs (the node flags of dist/main.js's
// #! line) and as `node dist/main.js` (the README recipe, a Nest host's own
// node); real 2025-11-25 clients (the v1 SDK's Client over Streamable HTTP:
// initialize, initialized, and the GET stream it holds open) left idle; the
// whole process's RSS (/proc/<pid>/status VmRSS) after a forced GC, over the
// first N sessions after a warm-up round of N, and the next N beside.
// BENCH_SESSIONS sets N (default 1000).
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { binNodeFlags, cleanEnv, MAIN, spawnServer, verdict } from './common.mjs';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const PROBE = new URL('./memory-probe.mjs', import.meta.url).pathname;

const vmRssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);

/** RSS once the process has been idle a moment and collected its garbage (twice, a second apart: the figure settles). */
async function settledRss(child) {
  let rss = 0;
  let usage;
  for (let i = 0; i < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    usage = await new Promise((resolve) => {
      child.once('message', resolve);
      child.send('memory');
    });
    rss = vmRssKiB(child.pid);
  }
  return { rss, heap: usage.heapUsed / 1024, young: usage.youngPeak / 1048576 };
}

async function measure(mode) {
  const nodeArgs = [...(mode === 'bin' ? binNodeFlags(MAIN) : []), '--expose-gc', '--import', PROBE];
  const env = cleanEnv({ GSC_TRANSPORT: 'http', GSC_HTTP_PORT: '0', GSC_HTTP_MAX_SESSIONS: String(SESSIONS * 4) });
  const { child, url } = await spawnServer([MAIN], env, /serving HTTP on (http:\/\/[^\s/]+\/mcp)/, {
    nodeArgs,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const clients = [];
  const open = async (i) => {
    const client = new Client({ name: `s${i}`, version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    clients.push(client);
  };
  const batch = async (tag) => {
    for (let i = 0; i < SESSIONS; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, SESSIONS - i) }, (_, j) => open(`${tag}${i + j}`)));
    }
  };
  try {
    // Warm up with a first round: lazily loaded code and the heap's own growth
    // under this traffic are paid once, not by each session.
    await batch('warm');
    const before = await settledRss(child);
    await batch('s');
    const middle = await settledRss(child);
    await batch('t');
    const after = await settledRss(child);
    return {
      base: before.rss,
      first: (middle.rss - before.rss) / SESSIONS,
      next: (after.rss - middle.rss) / SESSIONS,
      heap: (middle.heap - before.heap) / SESSIONS,
      // The young generation's largest reservation during each round, in MiB: V8 grows it under a burst and RSS keeps it.
      young: [before, middle, after].map((m) => m.young.toFixed(0)).join(', '),
    };
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    child.kill();
  }
}

export async function sessionMemory() {
  const rows = [];
  for (const [mode, label] of [
    ['bin', 'the bin (its #! node flags)'],
    ['plain', '`node dist/main.js`'],
  ]) {
    const m = await measure(mode);
    rows.push(
      {
        bar: `memory per idle 2025-11-25 session (v1 SDK client, GET stream held), whole-process RSS, ${label}`,
        target: '≤ 20 KiB',
        measured: `${m.first.toFixed(1)} KiB each over the first ${SESSIONS} after warm-up (${((m.first * SESSIONS) / 1024).toFixed(1)} MiB over ${(m.base / 1024).toFixed(0)} MiB)`,
        verdict: verdict(m.first <= 20),
      },
      { bar: `  the next ${SESSIONS}`, target: '', measured: `${m.next.toFixed(1)} KiB each`, verdict: '' },
      {
        bar: '  JS heap per session; young generation at its largest',
        target: '',
        measured: `${m.heap.toFixed(1)} KiB each; ${m.young} MiB in the warm-up, first, next round`,
        verdict: '',
      },
    );
  }
  return rows;
}
