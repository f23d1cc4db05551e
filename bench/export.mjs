// all_rows (PRODUCT.md §5b, issue 14): time and peak memory of a 50 000-row
// export — 2 Search Analytics pages of 25 000 from the emulator's large
// property, written to the SQLite state store — and of reading its CSV back
// with resources/read. The server is a child process of its own, so its peak
// RSS (VmHWM, reset before each step) is the export's alone; the emulator
// runs here. Target: RSS growth ≤ 100 MB over the idle server.
import { readFileSync, writeFileSync } from 'node:fs';
import { connectHttp, median, ms, spawnOursHttp, startGoogle, verdict } from './common.mjs';

const RUNS = 3;
const LARGE = 'https://www.example.net/';

const status = (pid, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
/** Resets the peak RSS the kernel keeps for a process (Linux ≥ 4.0), so the next VmHWM is one step's. */
function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function pacificDate(offsetDays) {
  const d = new Date(Date.now() + offsetDays * 86_400_000);
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles', year: 'numeric', month: '2-digit', day: '2-digit' }).format(d);
}

export async function exportBench() {
  const google = await startGoogle({ unlimited: true });
  const { child, url } = await spawnOursHttp(google.env);
  const client = await connectHttp(url, 'bench-export');
  // 27 final days ending four days back: the large property has ~2 850 rows a day by date and query.
  const window = { start_date: pacificDate(-30), end_date: pacificDate(-4) };
  const exportArgs = { site_url: LARGE, ...window, dimensions: ['date', 'query'], all_rows: true };
  try {
    // Warm-up without the big step: the Google token, the SQLite file, the export code path (a 1-row export).
    const small = await client.callTool({ name: 'query_search_analytics', arguments: { ...exportArgs, dimensions: [] } });
    if (small.isError) {
      throw new Error(small.content[0].text);
    }
    await client.readResource({ uri: small.structuredContent.export.csv });
    const exportTimes = [];
    const readTimes = [];
    const exportPeaks = [];
    const readPeaks = [];
    const baselines = [];
    let rows = 0;
    let peakReset = true;
    for (let run = 0; run < RUNS; run++) {
      await new Promise((r) => setTimeout(r, 200));
      const baseline = status(child.pid, 'VmRSS');
      baselines.push(baseline);
      peakReset &&= resetPeak(child.pid);
      let t = performance.now();
      const result = await client.callTool({ name: 'query_search_analytics', arguments: exportArgs });
      exportTimes.push(performance.now() - t);
      if (result.isError) {
        throw new Error(result.content[0].text);
      }
      rows = result.structuredContent.export.rows;
      exportPeaks.push(status(child.pid, 'VmHWM') - baseline);
      const beforeRead = status(child.pid, 'VmRSS');
      peakReset &&= resetPeak(child.pid);
      t = performance.now();
      const { contents } = await client.readResource({ uri: result.structuredContent.export.csv });
      readTimes.push(performance.now() - t);
      readPeaks.push([status(child.pid, 'VmHWM') - beforeRead, beforeRead]);
      if (contents[0].text.split('\r\n').length !== rows + 2) {
        throw new Error('the CSV does not hold the exported rows');
      }
    }
    // The first run grows a warm idle server (the bar); later runs start from the heap it left.
    const growth = exportPeaks[0];
    const peakNote = peakReset ? '' : ' (peak since start: clear_refs refused)';
    const mb = (n) => `${n.toFixed(0)} MB`;
    return [
      {
        bar: `export: all_rows, ${rows} rows (2 pages of 25 000), median of ${RUNS}`,
        target: '—',
        measured: `${ms(median(exportTimes))} (first ${ms(exportTimes[0])})`,
        verdict: 'info',
      },
      {
        bar: 'export: peak RSS growth, first export',
        target: '≤ 100 MB',
        measured: `${mb(growth)} over ${mb(baselines[0])} idle${peakNote}`,
        verdict: verdict(growth <= 100),
      },
      {
        bar: 'export: peak RSS growth, later exports',
        target: '—',
        measured: `${exportPeaks.slice(1).map(mb).join(', ')} over ${baselines.slice(1).map(mb).join(', ')}`,
        verdict: 'info',
      },
      {
        bar: `export: resources/read of the CSV, median of ${RUNS}`,
        target: '—',
        measured: `${ms(median(readTimes))}, peak RSS ${readPeaks.map(([g, b]) => `+${mb(g)} over ${mb(b)}`).join(', ')}`,
        verdict: 'info',
      },
    ];
  } finally {
    await client.close();
    child.kill();
    await google.emulator.close();
  }
}
