import { median, serverWithClient, startGoogle, verdict } from './common.mjs';

const SITE = 'https://www.example.com/';
const URLS = Array.from({ length: 20 }, (_, i) => `${SITE}bench/page-${i}`);

export async function inspectBatch() {
  const google = await startGoogle({ quotas: { inspectionPerDayPerProperty: 1e9, inspectionPerMinutePerProperty: 1e9 } });
  google.emulator.setLatency('urlInspection.index.inspect', 100);
  const { client, close } = await serverWithClient(google.env);
  const time = async (fn) => {
    const t = process.hrtime.bigint();
    const result = await fn();
    if (result.isError) {
      throw new Error(result.content?.[0]?.text ?? 'tool error');
    }
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  try {
    await time(() => client.callTool({ name: 'inspect_url', arguments: { site_url: SITE, url: URLS[0] } }));
    const singles = [];
    for (let i = 0; i < 5; i++) {
      singles.push(await time(() => client.callTool({ name: 'inspect_url', arguments: { site_url: SITE, url: URLS[i] } })));
    }
    const one = median(singles);
    const batch = [];
    for (let i = 0; i < 3; i++) {
      batch.push(await time(() => client.callTool({ name: 'inspect_urls', arguments: { site_url: SITE, urls: URLS } })));
    }
    const ratio = median(batch) / one;
    return [
      {
        bar: 'inspect_urls ×20 at 100 ms/inspection',
        target: '≤ 3× one inspection',
        measured: `${ratio.toFixed(2)}× (${median(batch).toFixed(0)} ms vs ${one.toFixed(0)} ms)`,
        verdict: verdict(ratio <= 3),
      },
    ];
  } finally {
    await close();
    await google.emulator.close();
  }
}
