// Bytes per idle 2025-11-25 session (PRODUCT §10: ≤ 20 KiB each, 1 000
// sessions ≤ 20 MiB): the built server in its own process, run as its bin runs
// (with the node flags of dist/main.js's #! line), a warm-up round of N
// sessions opened over real HTTP (initialize + initialized, then left idle),
// then the whole process's RSS and heap over the first N sessions after it
// (what an operator sees), compared after a forced GC; the next N beside.
import { spawnOursHttp, verdict } from './common.mjs';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);

const PROBE = new URL('./memory-probe.mjs', import.meta.url).pathname;

function memory(child) {
  return new Promise((resolve) => {
    child.once('message', resolve);
    child.send('memory');
  });
}

export async function sessionMemory() {
  const { child, url } = await spawnOursHttp(
    { GSC_HTTP_MAX_SESSIONS: String(SESSIONS * 4) },
    { nodeArgs: ['--expose-gc', '--import', PROBE], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] },
  );
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const open = async (i) => {
    const init = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: `s${i}`, version: '0' } },
      }),
    });
    const id = init.headers.get('mcp-session-id');
    await init.text();
    await (
      await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
        body: '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      })
    ).text();
  };
  try {
    const batch = async (tag) => {
      for (let i = 0; i < SESSIONS; i += 50) {
        await Promise.all(Array.from({ length: Math.min(50, SESSIONS - i) }, (_, j) => open(`${tag}${i + j}`)));
      }
    };
    // Warm up with a first round: lazily loaded code and the heap's own growth
    // under this traffic are paid once, not by each session.
    await batch('warm');
    const before = await memory(child);
    await batch('s');
    const middle = await memory(child);
    await batch('t');
    const after = await memory(child);
    const kib = (bytes) => `${(bytes / SESSIONS / 1024).toFixed(1)} KiB`;
    const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;
    const rss = middle.rss - before.rss;
    const heap = middle.heapUsed - before.heapUsed;
    return [
      {
        bar: `memory per idle 2025-11-25 session: whole-process RSS, the first ${SESSIONS} after warm-up`,
        target: '≤ 20 KiB',
        measured: `${kib(rss)} each (${mib(rss)})`,
        verdict: verdict(rss <= 20 * 1024 * SESSIONS),
      },
      {
        bar: '  the same, heap',
        target: '≤ 20 KiB',
        measured: `${kib(heap)} each (${mib(heap)})`,
        verdict: verdict(heap <= 20 * 1024 * SESSIONS),
      },
      {
        bar: `  the next ${SESSIONS}`,
        target: '',
        measured: `RSS ${kib(after.rss - middle.rss)}, heap ${kib(after.heapUsed - middle.heapUsed)} each`,
        verdict: '',
      },
    ];
  } finally {
    child.kill();
  }
}
