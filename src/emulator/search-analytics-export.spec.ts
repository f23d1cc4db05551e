import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { searchconsole_v1 } from '@googleapis/searchconsole';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { startEmulatorKit, type EmulatorKit } from '../../test/support/emulator-kit.js';
import { addDays } from './pacific-time.js';

// 12:30 PST on 2026-11-30: final data ends 2026-11-27; 11-28 on is still being collected.
const NOW = new Date('2026-11-30T20:30:00Z');
const LARGE = SEED_PROPERTIES.large;
// The last 28 final days.
const WINDOW = { startDate: '2026-10-31', endDate: '2026-11-27' };
let kit: EmulatorKit;

beforeAll(async () => {
  kit = await startEmulatorKit({ now: () => NOW });
});
afterAll(() => kit.emulator.close());

type Body = searchconsole_v1.Schema$SearchAnalyticsQueryRequest;
type Row = searchconsole_v1.Schema$ApiDataRow;
const query = async (requestBody: Body, siteUrl: string = LARGE) => (await kit.sc.searchanalytics.query({ siteUrl, requestBody })).data;
const sum = (rows: Row[] | undefined, f: 'clicks' | 'impressions') => (rows ?? []).reduce((s, r) => s + (r[f] ?? 0), 0);

async function exportAll(body: Body, siteUrl: string = LARGE): Promise<{ rows: Row[]; pages: number[] }> {
  const rows: Row[] = [];
  const pages: number[] = [];
  for (let startRow = 0; ; startRow += 25000) {
    const page = (await query({ ...body, rowLimit: 25000, startRow }, siteUrl)).rows ?? [];
    pages.push(page.length);
    rows.push(...page);
    if (!page.length) {
      return { rows, pages };
    }
  }
}

describe('the large property', () => {
  it('is seeded with more than 60 000 rows for a 28-day export by date and query', () => {
    expect(kit.emulator.analyticsRowsAvailable(LARGE, { ...WINDOW, dimensions: ['date', 'query'] })).toBeGreaterThan(60000);
    expect(kit.emulator.analyticsRowsAvailable(LARGE, { ...WINDOW, dimensions: ['query', 'page'] })).toBeGreaterThan(60000);
    expect(kit.emulator.state.sites.get(LARGE)).toBe('siteOwner');
  });

  it('is generated the same way by every emulator', async () => {
    const other = await startEmulatorKit({ now: () => NOW });
    try {
      const body: Body = { ...WINDOW, dimensions: ['date', 'query'], rowLimit: 500, startRow: 20000 };
      const theirs = (await other.sc.searchanalytics.query({ siteUrl: LARGE, requestBody: body })).data;
      expect(theirs).toEqual(await query(body));
    } finally {
      await other.emulator.close();
    }
  });
});

describe('the 50 000-row cap', () => {
  it('stops a paged export at 50 000 rows although more match: two full pages, then none', async () => {
    const body: Body = { ...WINDOW, dimensions: ['date', 'query'] };
    const { rows, pages } = await exportAll(body);
    expect(pages).toEqual([25000, 25000, 0]);
    expect(rows).toHaveLength(50000);
    expect(new Set(rows.map((r) => r.keys!.join('|'))).size).toBe(50000);
    expect(rows.findIndex((r, i) => i > 0 && r.clicks! > rows[i - 1].clicks!)).toBe(-1); // by clicks, across the page boundary
    expect(kit.emulator.analyticsRowsAvailable(LARGE, body)).toBeGreaterThan(50000);
  });

  it('answers a page that crosses the cap short, and startRow past the cap with no rows even where rows remain', async () => {
    const body: Body = { ...WINDOW, dimensions: ['query', 'page'] };
    expect((await query({ ...body, startRow: 49990, rowLimit: 25000 })).rows).toHaveLength(10);
    expect(await query({ ...body, startRow: 50000, rowLimit: 10 })).toEqual({ responseAggregationType: 'byPage' });
    expect(await query({ ...body, startRow: 60000, rowLimit: 10 })).toEqual({ responseAggregationType: 'byPage' });
    expect(kit.emulator.analyticsRowsAvailable(LARGE, body)).toBeGreaterThan(60010);
  });

  it('serves at most 25 000 rows a request', async () => {
    expect((await query({ ...WINDOW, dimensions: ['date', 'query'], rowLimit: 25000 })).rows).toHaveLength(25000);
    await expect(kit.sc.searchanalytics.query({ siteUrl: LARGE, requestBody: { ...WINDOW, rowLimit: 25001 } })).rejects.toMatchObject({
      status: 400,
    });
  });

  it('applies per day range and search type: a shorter range or another type has its own 50 000', async () => {
    const week: Body = { startDate: '2026-11-21', endDate: '2026-11-27', dimensions: ['date', 'query'] };
    const weekRows = kit.emulator.analyticsRowsAvailable(LARGE, week);
    expect(weekRows).toBeLessThan(50000);
    expect((await exportAll(week)).rows).toHaveLength(weekRows);
    const image: Body = { ...WINDOW, dimensions: ['date', 'query'], type: 'image' };
    expect((await exportAll(image)).rows).toHaveLength(Math.min(50000, kit.emulator.analyticsRowsAvailable(LARGE, image)));
  });
});

describe('anonymised queries', () => {
  it('make the no-dimension total exceed the sum of query rows by exactly the share the emulator reports', async () => {
    for (const [siteUrl, window] of [
      [SEED_PROPERTIES.owned, WINDOW],
      [LARGE, { startDate: '2026-11-25', endDate: '2026-11-27' }],
    ] as const) {
      const total = (await query({ ...window }, siteUrl)).rows![0];
      const byQuery = await exportAll({ ...window, dimensions: ['query'] }, siteUrl);
      expect(byQuery.rows.length).toBeLessThan(50000); // the whole list, so the shortfall is anonymisation alone
      const share = kit.emulator.anonymizedShare(siteUrl, window);
      expect(share.totalClicks).toBe(total.clicks);
      expect(share.totalImpressions).toBe(total.impressions);
      expect(total.clicks! - sum(byQuery.rows, 'clicks')).toBe(share.clicks);
      expect(total.impressions! - sum(byQuery.rows, 'impressions')).toBe(share.impressions);
      expect(share.clicks).toBeGreaterThan(0);
      // Each day's anonymised impressions are the seeded share of that day's, up to one impression of rounding.
      expect(share.impressionShare).toBeCloseTo(share.seededShare, 3);
    }
  });

  it('takes its share from the options, per property', async () => {
    const custom = await startEmulatorKit({ now: () => NOW, analytics: { anonymizedShare: { [SEED_PROPERTIES.owned]: 0.3 } } });
    try {
      const share = custom.emulator.anonymizedShare(SEED_PROPERTIES.owned, WINDOW);
      expect(share.seededShare).toBe(0.3);
      expect(share.impressionShare).toBeCloseTo(0.3, 3);
      expect(custom.emulator.anonymizedShare(SEED_PROPERTIES.blog, WINDOW).seededShare).not.toBe(0.3);
    } finally {
      await custom.emulator.close();
    }
  });

  it('answers the share over HTTP too', async () => {
    const res = await fetch(`${kit.emulator.url}/__emulator/analytics/anonymized-share`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ property: SEED_PROPERTIES.owned, ...WINDOW }),
    });
    expect(await res.json()).toEqual(kit.emulator.anonymizedShare(SEED_PROPERTIES.owned, WINDOW));
    const available = await fetch(`${kit.emulator.url}/__emulator/analytics/rows-available`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ property: LARGE, request: { ...WINDOW, dimensions: ['date', 'query'] } }),
    });
    expect(await available.json()).toEqual({
      available: kit.emulator.analyticsRowsAvailable(LARGE, { ...WINDOW, dimensions: ['date', 'query'] }),
      cap: 50000,
    });
  });
});

describe('incomplete last days', () => {
  const recent = { startDate: '2026-11-24', endDate: '2026-11-30', dimensions: ['date'] };
  const byDate = (rows: Row[] | undefined) => new Map((rows ?? []).map((r) => [r.keys![0], r]));

  it('with dataState all: the last days come marked by firstIncompleteDate, with partial data; final leaves them out', async () => {
    const all = await query({ ...recent, dataState: 'all' });
    expect(all.metadata).toEqual({ firstIncompleteDate: '2026-11-28' });
    expect(all.rows!.map((r) => r.keys![0])).toEqual([
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
      '2026-11-30',
    ]);
    const final = await query({ ...recent, dataState: 'final' });
    expect(final.metadata).toBeUndefined();
    expect(final.rows!.map((r) => r.keys![0])).toEqual(['2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27']);
    // Final days are the same in both states.
    expect(all.rows!.slice(0, 4)).toEqual(final.rows);
  });

  it('fills the incomplete days in as time passes, to what final data then shows', async () => {
    let clock = NOW;
    const later = await startEmulatorKit({ now: () => clock });
    try {
      const ask = async (dataState: string) =>
        byDate((await later.sc.searchanalytics.query({ siteUrl: LARGE, requestBody: { ...recent, dataState } })).data.rows);
      const fresh = await ask('all');
      clock = new Date(NOW.getTime() + 4 * 86400000); // 2026-12-04: 11-28 … 11-30 are final now
      const settled = await ask('final');
      for (const day of ['2026-11-28', '2026-11-29', '2026-11-30']) {
        expect(fresh.get(day)!.impressions!).toBeLessThan(settled.get(day)!.impressions!);
        expect(fresh.get(day)!.clicks!).toBeLessThanOrEqual(settled.get(day)!.clicks!);
      }
      // Today (11-30, 12:30) holds least, the oldest incomplete day most.
      const ratio = (day: string) => fresh.get(day)!.impressions! / settled.get(day)!.impressions!;
      expect(ratio('2026-11-30')).toBeLessThan(ratio('2026-11-29'));
      expect(ratio('2026-11-29')).toBeLessThan(ratio('2026-11-28'));
      expect(settled.get('2026-11-27')).toEqual(fresh.get('2026-11-27'));
    } finally {
      await later.emulator.close();
    }
  });

  it('marks the first incomplete day inside the range when the range starts after it', async () => {
    const res = await query({ startDate: '2026-11-29', endDate: '2026-11-30', dimensions: ['date'], dataState: 'all' });
    expect(res.metadata).toEqual({ firstIncompleteDate: '2026-11-29' });
    expect(addDays('2026-11-29', 1)).toBe(res.rows!.at(-1)!.keys![0]);
  });
});
