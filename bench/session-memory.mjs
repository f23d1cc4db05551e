// Bytes per idle 2025-11-25 session (PRODUCT §10: ≤ 20 KiB each, 1 000
// sessions ≤ 20 MiB): the built server in its own process, rounds of N
// sessions opened over real HTTP (initialize + initialized, then left idle)
// after a first round of N, heap and RSS compared after a forced GC. Both are
// counted over the third round: the second also pays, once, for heap pages V8
// first touches as its heap grows past the warm-up's (~37 MiB of RSS here),
// which later sessions do not add again; that round is printed beside.
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
  const { child, url } = await spawnOursHttp({ GSC_HTTP_MAX_SESSIONS: String(SESSIONS * 4) }, { nodeArgs: ['--expose-gc', '--import', PROBE], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const open = async (i) => {
    const init = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: `s${i}`, version: '0' } } }),
    });
    const id = init.headers.get('mcp-session-id');
    await init.text();
    await (await fetch(url, { method: 'POST', headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text();
  };
  try {
    const batch = async (tag) => {
      for (let i = 0; i < SESSIONS; i += 50) await Promise.all(Array.from({ length: Math.min(50, SESSIONS - i) }, (_, j) => open(`${tag}${i + j}`)));
    };
    // Warm up with a first round: lazily loaded code and the heap's own growth
    // under this traffic are paid once, not by each session.
    await batch('warm');
    const before = await memory(child);
    await batch('s');
    const middle = await memory(child);
    await batch('t');
    const after = await memory(child);
    const heap = (after.heapUsed - middle.heapUsed) / SESSIONS;
    const rss = after.rss - middle.rss;
    const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;
    return [
      { bar: `memory per idle 2025-11-25 session (heap, ${SESSIONS} sessions)`, target: '≤ 20 KiB', measured: `${(heap / 1024).toFixed(1)} KiB`, verdict: verdict(heap <= 20 * 1024) },
      { bar: `  the same, RSS of ${SESSIONS} sessions`, target: '≤ 20 MiB', measured: `${mib(rss)} (${(rss / SESSIONS / 1024).toFixed(1)} KiB each)`, verdict: verdict(rss <= 20 * 1048576) },
      { bar: `  the first ${SESSIONS} after the warm-up`, target: '', measured: `RSS ${mib(middle.rss - before.rss)}, heap ${mib(middle.heapUsed - before.heapUsed)}`, verdict: '' },
    ];
  } finally {
    child.kill();
  }
}
