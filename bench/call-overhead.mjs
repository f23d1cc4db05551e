import { searchconsole } from '@googleapis/searchconsole';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { JWT } from 'google-auth-library';
import { cleanEnv, dist, ms, percentile, startGoogle, verdict } from './common.mjs';

const N = 400;
const SITE = 'https://www.example.com/';

async function timed(n, fn) {
  const out = [];
  for (let i = 0; i < 20; i++) await fn(); // warm-up
  for (let i = 0; i < n; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out;
}

export async function callOverhead() {
  const google = await startGoogle({ quotas: { otherPerMinutePerUser: 1e9 } });
  try {
    // The baseline: the same client library the server uses, called directly.
    const jwt = new JWT({ email: google.key.client_email, key: google.key.private_key, scopes: ['https://www.googleapis.com/auth/webmasters'] });
    jwt.transporter.interceptors.request.add({
      resolved: async (o) => {
        const u = new URL(String(o.url));
        if (u.origin === 'https://oauth2.googleapis.com') o.url = new URL(google.emulator.tokenUrl);
        return o;
      },
    });
    const sc = searchconsole({ version: 'v1', auth: jwt, rootUrl: `${google.emulator.url}/`, retry: false });
    const direct = await timed(N, () => sc.sites.get({ siteUrl: SITE }));

    const { loadConfig } = await dist('config/config.js');
    const { startHttpServer } = await dist('http-server.js');
    const { StderrLogger } = await dist('common/stderr-logger.js');
    const logger = new StderrLogger();
    logger.setLogLevels(['error']);
    const { app, origin } = await startHttpServer(loadConfig(cleanEnv({ ...google.env, GSC_HTTP_PORT: '0', GSC_TRANSPORT: 'http' })), logger);
    const client = new Client({ name: 'bench', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
    const viaMcp = await timed(N, () => client.callTool({ name: 'get_site', arguments: { site_url: SITE } }));
    await client.close();
    await app.close();

    const p50 = percentile(viaMcp, 50) - percentile(direct, 50);
    const p99 = percentile(viaMcp, 99) - percentile(direct, 99);
    return [
      { bar: 'per-call overhead vs direct client call, p50', target: '≤ 2 ms', measured: `${ms(p50)} (MCP ${ms(percentile(viaMcp, 50))}, direct ${ms(percentile(direct, 50))}; 2026-07-28 over HTTP)`, verdict: verdict(p50 <= 2) },
      { bar: 'per-call overhead vs direct client call, p99', target: '≤ 5 ms', measured: `${ms(p99)}`, verdict: verdict(p99 <= 5) },
    ];
  } finally {
    await google.emulator.close();
  }
}
