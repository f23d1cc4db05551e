// Issue 21 item 3: all_rows exports are bounded per principal, by count
// (GSC_EXPORT_MAX_PER_PRINCIPAL) and by bytes of stored rows
// (GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL): a new export removes that person's
// oldest ones, never anyone else's; an export whose first page alone is past
// the byte bound is refused with a sentence, and one whose later page would
// pass it keeps the pages before, saying so. Real HTTP app, real MCP clients,
// the emulator's real pages.

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Clock } from '../src/common/clock.js';
import { StandingClock } from './support/manual-clock.js';
import { encodeRow } from '../src/analytics/export-format.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, text, type TestClient } from './support/clients.js';
import { directRows, directSearchConsole } from './support/direct-google.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { connectAs } from './support/principals.js';
import { type InProcessServer, startInProcess } from './support/server.js';

const TOOL = 'query_search_analytics';
const OWNED = SEED_PROPERTIES.owned;
const LARGE = SEED_PROPERTIES.large;
const NOW = new Date('2026-11-30T20:30:00Z');
const WINDOW = { start_date: '2026-10-31', end_date: '2026-11-27' };
const SMALL = { site_url: OWNED, ...WINDOW, dimensions: ['date', 'query'], all_rows: true };

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle({ now: () => NOW });
});
afterAll(() => google?.emulator.close());

async function boot(env: Record<string, string>): Promise<InProcessServer> {
  return startInProcess({ ...google.env, ...env }, [[Clock, new StandingClock(() => NOW)]]);
}

const exportUris = async (c: TestClient) =>
  (await c.raw.listResources()).resources.map((r: any) => r.uri as string).filter((uri: string) => uri.startsWith('gsc://exports/'));

describe('GSC_EXPORT_MAX_PER_PRINCIPAL=2', () => {
  let server: InProcessServer;
  let alice: TestClient;
  let bob: TestClient;
  let modern: TestClient;
  beforeAll(async () => {
    server = await boot({ GSC_EXPORT_MAX_PER_PRINCIPAL: '2' });
    alice = await connectAs(server, 'alice@example.com');
    bob = await connectAs(server, 'bob@example.com');
    modern = await connectHttp(server.url, { revision: '2026-07-28' });
  });
  afterAll(async () => {
    await alice?.close();
    await bob?.close();
    await modern?.close();
    await server?.close();
  });

  it("a third export removes the person's oldest, says so, and leaves another person's exports alone", async () => {
    const bobs = (await bob.call(TOOL, SMALL)).structuredContent!.export;
    const first = (await alice.call(TOOL, SMALL)).structuredContent!.export;
    const second = (await alice.call(TOOL, SMALL)).structuredContent!.export;
    expect(first.replaced).toBeUndefined();
    expect(second.replaced).toBeUndefined();

    const third = await alice.call(TOOL, SMALL);
    expect(third.isError).toBeFalsy();
    expect(third.structuredContent!.export.replaced).toEqual([first.id]);
    expect(text(third)).toContain(
      `To stay within 2 exports and 67108864 bytes of rows per person (GSC_EXPORT_MAX_PER_PRINCIPAL, GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL), your oldest export was removed: ${first.id}.`,
    );
    for (const uri of [first.csv, first.ndjson]) {
      await expect(alice.raw.readResource({ uri })).rejects.toThrow(/not found/i);
    }
    expect((await alice.raw.readResource({ uri: second.csv })).contents[0].text).toMatch(/^date,query,/);
    expect((await exportUris(alice)).sort()).toEqual(
      [second.csv, second.ndjson, third.structuredContent!.export.csv, third.structuredContent!.export.ndjson].sort(),
    );
    // bob's one export is untouched by alice's bound.
    expect((await bob.raw.readResource({ uri: bobs.csv })).contents[0].text).toMatch(/^date,query,/);
  });

  it('exports made at once by one person end within the bound', async () => {
    const made = await Promise.all(Array.from({ length: 6 }, () => modern.call(TOOL, SMALL)));
    for (const result of made) {
      expect(result.isError).toBeFalsy();
    }
    const live = await exportUris(modern);
    expect(live.length).toBeGreaterThanOrEqual(2); // csv and ndjson of at least the last one
    expect(live.length).toBeLessThanOrEqual(4); // two exports, two formats each
    const removed = made.flatMap((r) => r.structuredContent!.export.replaced ?? []);
    expect(new Set(removed).size).toBe(6 - live.length / 2);
  });
});

describe('GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL', () => {
  const BIG = { site_url: LARGE, ...WINDOW, dimensions: ['date', 'query'], all_rows: true };
  /** The bytes the store keeps for Google's page of the big export (the rows as the server encodes them). */
  let pageBytes: number[];
  beforeAll(async () => {
    const sc = directSearchConsole(google);
    pageBytes = [];
    for (const startRow of [0, 25000]) {
      const rows = await directRows(sc, LARGE, {
        startDate: WINDOW.start_date,
        endDate: WINDOW.end_date,
        dimensions: ['date', 'query'],
        type: 'web',
        dataState: 'final',
        rowLimit: 25000,
        startRow,
      });
      pageBytes.push(rows.reduce((n, r) => n + Buffer.byteLength(encodeRow(r)), 0));
    }
    expect(pageBytes[0]).toBeGreaterThan(1_000_000);
  });

  it('refuses an export whose first page alone is past the bound, with a sentence, keeping nothing', async () => {
    const server = await boot({ GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL: '1000000' });
    const client = await connectHttp(server.url, { revision: '2026-07-28' });
    try {
      const result = await client.call(TOOL, BIG);
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(
        `all_rows keeps at most 1000000 bytes of rows per person (GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL), and Google's first page of this export alone is ${pageBytes[0]} bytes, so no export was kept. Nothing was changed. ` +
          'Narrow the request (fewer dimensions, a shorter range, a filter), or ask without all_rows (up to 25 000 rows in the answer itself).',
      );
      expect(await exportUris(client)).toEqual([]);
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('keeps the pages that fit when a later one would pass the bound, and says why it is incomplete', async () => {
    const bound = pageBytes[0] + Math.floor(pageBytes[1] / 2);
    const server = await boot({ GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL: String(bound) });
    const client = await connectHttp(server.url, { revision: '2026-07-28' });
    try {
      const result = await client.call(TOOL, BIG);
      expect(result.isError).toBeFalsy();
      const out = result.structuredContent!.export;
      expect(out).toMatchObject({ rows: 25_000, complete: false, stopped: expect.stringContaining('GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL') });
      expect(text(result)).toContain(
        `The export is incomplete: a later page would have passed the per-person bound, so it holds the first 25000 rows only. Its next page (${pageBytes[1]} bytes) would take it past the ${bound} bytes`,
      );
      // A second export of the same size removes the first: the two together would pass the bound.
      const again = await client.call(TOOL, BIG);
      expect(again.structuredContent!.export.replaced).toEqual([out.id]);
      await expect(client.raw.readResource({ uri: out.csv })).rejects.toThrow(/not found/i);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
