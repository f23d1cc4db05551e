import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cleanEnv, MAIN, startGoogle, verdict } from './common.mjs';

const CLIENTS = 64;
const SITE = 'https://www.example.com/';
const CALLS = [
  ['list_sites', {}],
  ['get_site', { site_url: SITE }],
  ['list_sitemaps', { site_url: SITE }],
  ['query_search_analytics', { site_url: SITE, period: 'last7days', dimensions: ['query'], row_limit: 25 }],
  ['inspect_url', { site_url: SITE, url: `${SITE}blog/hello-world` }],
];

const rssKb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);

export async function httpLoad() {
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 30);
  // The heap settles within ~10 s at this load (measured: 332 MB at 5 s, 396 at 10 s, 402 at 60 s).
  const warmup = Math.min(10, Math.max(2, Math.round(seconds / 3)));
  const big = 1e12;
  const google = await startGoogle({
    quotas: { otherPerMinutePerUser: big, analyticsPerMinutePerSite: big, inspectionPerMinutePerProperty: big, inspectionPerDayPerProperty: big },
  });
  const child = spawn(process.execPath, [MAIN], { env: cleanEnv({ ...google.env, GSC_TRANSPORT: 'http', GSC_HTTP_PORT: '0' }), stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const origin = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = /serving HTTP on (http:\/\/[^\s/]+)\/mcp/.exec(log);
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error(`server exited: ${log}`)));
  });
  let calls = 0;
  let errors = 0;
  let stop = false;
  const worker = async (i) => {
    const client = new Client({ name: `load-${i}`, version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
    for (let n = i; !stop; n++) {
      const [name, args] = CALLS[n % CALLS.length];
      try {
        const r = await client.callTool({ name, arguments: args });
        if (r.isError) errors++;
      } catch {
        errors++;
      }
      calls++;
    }
    await client.close();
  };
  const workers = Array.from({ length: CLIENTS }, (_, i) => worker(i));
  await new Promise((r) => setTimeout(r, warmup * 1000));
  const rssAfterWarmup = rssKb(child.pid);
  const callsAtWarmup = calls;
  await new Promise((r) => setTimeout(r, (seconds - warmup) * 1000));
  const rssEnd = rssKb(child.pid);
  stop = true;
  await Promise.all(workers);
  child.kill();
  await google.emulator.close();
  const growth = ((rssEnd - rssAfterWarmup) / rssAfterWarmup) * 100;
  const rate = (calls - callsAtWarmup) / (seconds - warmup);
  return [
    { bar: `HTTP load: ${CLIENTS} clients, ${seconds} s, mixed reads`, target: 'zero errors', measured: `${errors} errors in ${calls} calls (${rate.toFixed(0)} calls/s)`, verdict: verdict(errors === 0) },
    { bar: 'HTTP load: RSS growth after warm-up', target: '≤ 10 %', measured: `${growth.toFixed(1)} % (${(rssAfterWarmup / 1024).toFixed(0)} → ${(rssEnd / 1024).toFixed(0)} MB)`, verdict: verdict(growth <= 10) },
  ];
}
