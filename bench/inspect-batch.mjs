import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { cleanEnv, dist, median, startGoogle, verdict } from './common.mjs';

const SITE = 'https://www.example.com/';
const URLS = Array.from({ length: 20 }, (_, i) => `${SITE}bench/page-${i}`);

export async function inspectBatch() {
  const google = await startGoogle({ quotas: { inspectionPerDayPerProperty: 1e9, inspectionPerMinutePerProperty: 1e9 } });
  google.emulator.setLatency('urlInspection.index.inspect', 100);
  const { loadConfig } = await dist('config/config.js');
  const { startHttpServer } = await dist('http-server.js');
  const { StderrLogger } = await dist('common/stderr-logger.js');
  const logger = new StderrLogger();
  logger.setLogLevels(['error']);
  const { app, origin } = await startHttpServer(loadConfig(cleanEnv({ ...google.env, GSC_HTTP_PORT: '0', GSC_TRANSPORT: 'http' })), logger);
  const client = new Client({ name: 'bench', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`)));
  const time = async (fn) => {
    const t = process.hrtime.bigint();
    const result = await fn();
    if (result.isError) throw new Error(result.content?.[0]?.text ?? 'tool error');
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  try {
    await time(() => client.callTool({ name: 'inspect_url', arguments: { site_url: SITE, url: URLS[0] } }));
    const one = median(await Promise.all([0, 1, 2, 3, 4].map(() => 0)).then(async () => {
      const r = [];
      for (let i = 0; i < 5; i++) r.push(await time(() => client.callTool({ name: 'inspect_url', arguments: { site_url: SITE, url: URLS[i] } })));
      return r;
    }));
    const batch = [];
    for (let i = 0; i < 3; i++) batch.push(await time(() => client.callTool({ name: 'inspect_urls', arguments: { site_url: SITE, urls: URLS } })));
    const ratio = median(batch) / one;
    return [{ bar: 'inspect_urls ×20 at 100 ms/inspection', target: '≤ 3× one inspection', measured: `${ratio.toFixed(2)}× (${median(batch).toFixed(0)} ms vs ${one.toFixed(0)} ms)`, verdict: verdict(ratio <= 3) }];
  } finally {
    await client.close();
    await app.close();
    await google.emulator.close();
  }
}
