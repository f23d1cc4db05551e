// `npm run build && node bench/emulator-export-timing.mjs`: how long the
// emulator takes to answer a 50 000-row Search Analytics export of its large
// property (paged 25 000 at a time through the real client library), cold and
// again, and the heap it holds afterwards. A measurement to print, never a test.

import { searchconsole } from '@googleapis/searchconsole';
import { dist, startGoogle } from './common.mjs';

const { SEED_PROPERTIES } = await dist('emulator/emulator-seed.js');
const { emulatorJwtClient } = await dist('emulator/emulator-clients.js');
const { SCOPES } = await dist('emulator/emulator-routing.js');

const NOW = new Date('2026-11-30T20:30:00Z');
const WINDOW = { startDate: '2026-10-31', endDate: '2026-11-27' };

async function main() {
  const { emulator, key } = await startGoogle({ now: () => NOW });
  const sc = searchconsole({
    version: 'v1',
    auth: emulatorJwtClient(emulator.url, key, Object.values(SCOPES)),
    rootUrl: `${emulator.url}/`,
  });
  await sc.sites.list(); // token and connection set up outside the timings
  const heap = () => `${(process.memoryUsage().heapUsed / 1e6).toFixed(0)} MB heap`;
  const heapBefore = heap();
  for (const dimensions of [
    ['date', 'query'],
    ['query', 'page'],
    ['date', 'query', 'page', 'country', 'device'],
  ]) {
    const body = { ...WINDOW, dimensions, rowLimit: 25000 };
    for (const run of ['cold', 'again']) {
      const started = performance.now();
      let rows = 0;
      for (let startRow = 0; ; startRow += 25000) {
        const page =
          (await sc.searchanalytics.query({ siteUrl: SEED_PROPERTIES.large, requestBody: { ...body, startRow } })).data.rows ?? [];
        rows += page.length;
        if (!page.length) {
          break;
        }
      }
      const ms = (performance.now() - started).toFixed(0);
      const available = emulator.analyticsRowsAvailable(SEED_PROPERTIES.large, body);
      process.stdout.write(`${dimensions.join('+').padEnd(32)} ${run.padEnd(5)} ${rows} of ${available} rows in ${ms} ms, ${heap()}\n`);
    }
  }
  process.stdout.write(`heap before: ${heapBefore}\n`);
  await emulator.close();
}

main().catch((err) => {
  console.error(`timing: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
