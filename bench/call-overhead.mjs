import { spawn } from 'node:child_process';
import { searchconsole } from '@googleapis/searchconsole';
import { JWT } from 'google-auth-library';
import { cleanEnv, connectHttp, MAIN, ms, percentile, spawnFloorHttp, spawnOursHttp, startGoogle, verdict } from './common.mjs';

const N = 400;
const SITE = 'https://www.example.com/';

async function timed(n, fn) {
  const out = [];
  for (let i = 0; i < 30; i++) {
    await fn();
  } // warm-up
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

/** A minimal JSON-RPC peer over the server's stdin/stdout: no client-library overhead in the measurement. */
async function stdioCaller(env) {
  const child = spawn(process.execPath, [MAIN], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  let buffer = '';
  const waiting = new Map();
  child.stdout.on('data', (d) => {
    buffer += d;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      waiting.get(msg.id)?.(msg);
    }
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return { call: (name, args) => request('tools/call', { name, arguments: args }), close: () => child.kill() };
}

export async function callOverhead() {
  const google = await startGoogle({ unlimited: true });
  try {
    // The baseline: the same client library the server uses, called directly.
    const jwt = new JWT({
      email: google.key.client_email,
      key: google.key.private_key,
      scopes: ['https://www.googleapis.com/auth/webmasters'],
    });
    jwt.transporter.interceptors.request.add({
      resolved: async (o) => {
        const u = new URL(String(o.url));
        if (u.origin === 'https://oauth2.googleapis.com') {
          o.url = new URL(google.emulator.tokenUrl);
        }
        return o;
      },
    });
    const sc = searchconsole({ version: 'v1', auth: jwt, rootUrl: `${google.emulator.url}/`, retry: false });
    const direct = await timed(N, () => sc.sites.get({ siteUrl: SITE }));

    const stdio = await stdioCaller(cleanEnv(google.env));
    const viaStdio = await timed(N, () => stdio.call('get_site', { site_url: SITE }));
    stdio.close();

    // Over HTTP: our server and the floor (a bare SDK v2 server making the same
    // sites.get), each in its own process, called in turns of 50.
    const [ours, floor] = [await spawnOursHttp(google.env), await spawnFloorHttp(google.env)];
    const [oursClient, floorClient] = await Promise.all([ours, floor].map((s) => connectHttp(s.url)));
    const viaHttp = [];
    const viaFloor = [];
    for (let done = 0; done < N; done += 50) {
      viaHttp.push(...(await timed(50, () => oursClient.callTool({ name: 'get_site', arguments: { site_url: SITE } }))));
      viaFloor.push(...(await timed(50, () => floorClient.callTool({ name: 'get_site', arguments: { site_url: SITE } }))));
    }
    await Promise.all([oursClient.close(), floorClient.close()]);
    ours.child.kill();
    floor.child.kill();

    const over = (samples, p) => percentile(samples, p) - percentile(direct, p);
    return [
      {
        bar: 'per-call overhead, stdio, p50',
        target: '≤ 2 ms',
        measured: `${ms(over(viaStdio, 50))} (MCP ${ms(percentile(viaStdio, 50))} vs direct ${ms(percentile(direct, 50))})`,
        verdict: verdict(over(viaStdio, 50) <= 2),
      },
      {
        bar: 'per-call overhead, stdio, p99',
        target: '≤ 5 ms',
        measured: ms(over(viaStdio, 99)),
        verdict: verdict(over(viaStdio, 99) <= 5),
      },
      {
        bar: 'per-call overhead, HTTP 2026-07-28 (incl. client), p50',
        target: '≤ 2 ms',
        measured: `${ms(over(viaHttp, 50))} (MCP ${ms(percentile(viaHttp, 50))})`,
        verdict: verdict(over(viaHttp, 50) <= 2),
      },
      {
        bar: 'per-call overhead, HTTP 2026-07-28 (incl. client), p99',
        target: '≤ 5 ms',
        measured: ms(over(viaHttp, 99)),
        verdict: verdict(over(viaHttp, 99) <= 5),
      },
      {
        bar: '  the same for the floor (bare SDK v2 HTTP server), p50 / p99',
        target: '',
        measured: `${ms(over(viaFloor, 50))} / ${ms(over(viaFloor, 99))}`,
        verdict: '',
      },
    ];
  } finally {
    await google.emulator.close();
  }
}
