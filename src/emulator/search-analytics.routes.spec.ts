import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { searchconsole_v1 } from '@googleapis/searchconsole';
import { SEED_PROPERTIES } from './emulator-seed.js';
import { startEmulatorKit, type EmulatorKit } from '../../test/support/emulator-kit.js';

// 12:30 PST on 2026-11-30: final data ends 2026-11-27, fresh data runs to 11:00 today.
const NOW = new Date('2026-11-30T20:30:00Z');
let kit: EmulatorKit;

beforeAll(async () => {
  kit = await startEmulatorKit({ now: () => NOW });
});
afterAll(() => kit.emulator.close());

type Body = searchconsole_v1.Schema$SearchAnalyticsQueryRequest & Record<string, unknown>;
const query = async (requestBody: Body, siteUrl: string = SEED_PROPERTIES.domain) =>
  (await kit.sc.searchanalytics.query({ siteUrl, requestBody })).data as searchconsole_v1.Schema$SearchAnalyticsQueryResponse & {
    metadata?: Record<string, string>;
  };
const failure = async (requestBody: Body, siteUrl: string = SEED_PROPERTIES.domain) => {
  try {
    await kit.sc.searchanalytics.query({ siteUrl, requestBody });
  } catch (err) {
    const e = err as { status: number; message: string; response: { data: { error: { errors?: Array<{ reason: string }> } } } };
    return { status: e.status, message: e.message, reason: e.response.data.error.errors?.[0]?.reason };
  }
  throw new Error('expected a failure');
};
const sum = (rows: Array<{ clicks?: number | null; impressions?: number | null }>, f: 'clicks' | 'impressions') =>
  rows.reduce((s, r) => s + (r[f] ?? 0), 0);
const range = { startDate: '2026-10-01', endDate: '2026-10-28' };

describe('request wire format', () => {
  it('posts JSON to the encoded property path', async () => {
    await query({ ...range, dimensions: ['date'] });
    const req = kit.emulator.apiRequests().at(-1)!;
    expect(req).toMatchObject({
      method: 'POST',
      rawPath: '/webmasters/v3/sites/sc-domain%3Aexample.com/searchAnalytics/query',
      route: 'searchanalytics.query',
      params: { siteUrl: 'sc-domain:example.com' },
      body: { ...range, dimensions: ['date'] },
      status: 200,
    });
  });
});

describe('validation (400 invalidParameter)', () => {
  const cases: Array<[string, Body]> = [
    ['startDate after endDate', { startDate: '2026-10-10', endDate: '2026-10-01' }],
    ['an impossible date', { startDate: '2026-02-30', endDate: '2026-03-01' }],
    ['a missing endDate', { startDate: '2026-10-01' }],
    ['rowLimit above 25000', { ...range, rowLimit: 25001 }],
    ['negative startRow', { ...range, startRow: -1 }],
    ['hour without hourly_all', { ...range, dimensions: ['hour'], dataState: 'all' }],
    ['a dimension twice', { ...range, dimensions: ['query', 'QUERY'] }],
    ['an unknown dimension', { ...range, dimensions: ['city'] }],
    ['byProperty with page grouping', { ...range, dimensions: ['page'], aggregationType: 'byProperty' }],
    [
      'byProperty with a page filter',
      { ...range, aggregationType: 'BY_PROPERTY', dimensionFilterGroups: [{ filters: [{ dimension: 'page', expression: 'x' }] }] },
    ],
    ['groupType or', { ...range, dimensionFilterGroups: [{ groupType: 'or', filters: [] }] }],
    [
      'a lookbehind regex (not RE2)',
      { ...range, dimensionFilterGroups: [{ filters: [{ dimension: 'query', operator: 'includingRegex', expression: '(?<=a)b' }] }] },
    ],
    ['searchAppearance with another dimension', { ...range, dimensions: ['searchAppearance', 'date'] }],
    ['byProperty on discover', { ...range, type: 'discover', aggregationType: 'byProperty' }],
    ['byNewsShowcasePanel on web', { ...range, aggregationType: 'byNewsShowcasePanel' }],
  ];
  it.each(cases)('refuses %s', async (_name, body) => {
    const e = await failure(body);
    expect(e.status).toBe(400);
    expect(e.reason).toBe('invalidParameter');
  });

  it('refuses unknown fields the way Google parses JSON', async () => {
    const e = await failure({ ...range, row_limit: 10 });
    expect(e.status).toBe(400);
    expect(e.message).toBe('Invalid JSON payload received. Unknown name "row_limit": Cannot find field.');
  });

  it('answers 403 for a property the caller cannot read', async () => {
    expect((await failure(range, SEED_PROPERTIES.unverified)).status).toBe(403);
    expect((await failure(range, 'https://example.com/')).status).toBe(403);
  });
});

describe('enum spellings', () => {
  it('accepts wire camelCase, SCREAMING_SNAKE and the deprecated searchType alike', async () => {
    const a = await query({ ...range, dimensions: ['date', 'device'], type: 'web', dataState: 'final', aggregationType: 'auto' });
    const b = await query({ ...range, dimensions: ['DATE', 'DEVICE'], searchType: 'WEB', dataState: 'FINAL', aggregationType: 'AUTO' });
    expect(b).toEqual(a);
    const appearance = await query({ ...range, dimensions: ['SEARCH_APPEARANCE'] });
    expect(appearance.rows!.length).toBeGreaterThan(0);
  });
});

describe('aggregation', () => {
  it('returns one keyless row without dimensions, equal to the sum of the date rows', async () => {
    const total = await query(range);
    expect(total.rows).toHaveLength(1);
    expect(total.rows![0].keys).toBeUndefined();
    expect(total.responseAggregationType).toBe('byProperty');
    const byDate = (await query({ ...range, dimensions: ['date'] })).rows!;
    expect(byDate).toHaveLength(28);
    const t = total.rows![0];
    expect(sum(byDate, 'clicks')).toBe(t.clicks);
    expect(sum(byDate, 'impressions')).toBe(t.impressions);
    expect(t.ctr).toBeCloseTo(t.clicks! / t.impressions!, 12);
    const weighted = byDate.reduce((s, r) => s + r.position! * r.impressions!, 0) / t.impressions!;
    expect(weighted).toBeCloseTo(t.position!, 9);
  });

  it('aggregates by page when grouping by page: page rows add up to more than the property total', async () => {
    const total = (await query(range)).rows![0];
    const pages = await query({ ...range, dimensions: ['page'], rowLimit: 25000 });
    expect(pages.responseAggregationType).toBe('byPage');
    expect(sum(pages.rows!, 'impressions')).toBeGreaterThan(total.impressions!);
    const byPageTotal = await query({ ...range, aggregationType: 'byPage' });
    expect(byPageTotal.rows![0].impressions).toBe(sum(pages.rows!, 'impressions'));
  });

  it('drops anonymized queries: query rows add up to less than the property total', async () => {
    const total = (await query(range)).rows![0];
    const queries = await query({ ...range, dimensions: ['query'], rowLimit: 25000 });
    expect(queries.responseAggregationType).toBe('byProperty');
    expect(sum(queries.rows!, 'impressions')).toBeLessThan(total.impressions!);
  });

  it('emits Google key formats: lowercase alpha-3 countries, upper-case devices, pages under the property', async () => {
    const rows = (await query({ ...range, dimensions: ['country', 'device', 'page'] }, SEED_PROPERTIES.owned)).rows!;
    for (const r of rows) {
      expect(r.keys![0]).toMatch(/^[a-z]{3}$/);
      expect(['DESKTOP', 'MOBILE', 'TABLET']).toContain(r.keys![1]);
      expect(r.keys![2].startsWith('https://www.example.com/')).toBe(true);
    }
  });

  it('is deterministic', async () => {
    const body: Body = { ...range, dimensions: ['query', 'country'], rowLimit: 50 };
    expect(await query(body)).toEqual(await query(body));
  });
});

describe('sorting and paging', () => {
  const inGoogleOrder = (rows: Array<{ keys?: string[] | null; clicks?: number | null; impressions?: number | null }>) => {
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1], rows[i]];
      expect(a.clicks!).toBeGreaterThanOrEqual(b.clicks!);
      if (a.clicks === b.clicks) {
        expect(a.impressions!).toBeGreaterThanOrEqual(b.impressions!);
        if (a.impressions === b.impressions) {
          expect(a.keys!.join('\u0000') < b.keys!.join('\u0000')).toBe(true);
        }
      }
    }
  };

  it('sorts by clicks descending (ties: impressions descending, then keys), also when date is one of several dimensions', async () => {
    const rows = (await query({ ...range, dimensions: ['query'] })).rows!;
    inGoogleOrder(rows);
    const dated = (await query({ ...range, dimensions: ['query', 'date'], rowLimit: 25000 })).rows!;
    inGoogleOrder(dated);
    expect(dated.some((r, i) => i > 0 && r.keys![1] < dated[i - 1].keys![1])).toBe(true); // not in date order
    expect(dated.some((r, i) => i > 0 && r.clicks === dated[i - 1].clicks && r.impressions === dated[i - 1].impressions)).toBe(true); // ties exist
  });

  it("returns a query grouped by date alone in date order, as Google's own how-to output shows", async () => {
    const rows = (await query({ ...range, dimensions: ['date'] })).rows!;
    expect(rows.map((r) => r.keys![0])).toEqual([...rows.map((r) => r.keys![0])].sort());
    expect(rows.some((r, i) => i > 0 && r.clicks! > rows[i - 1].clicks!)).toBe(true);
  });

  it("with analytics.order 'clicks' sorts a date-only query by clicks too", async () => {
    const strict = await startEmulatorKit({ now: () => NOW, analytics: { order: 'clicks' } });
    try {
      const { data } = await strict.sc.searchanalytics.query({
        siteUrl: SEED_PROPERTIES.domain,
        requestBody: { ...range, dimensions: ['date'] },
      });
      inGoogleOrder(data.rows!);
      const chronological = (await query({ ...range, dimensions: ['date'] })).rows!;
      expect([...data.rows!].sort((a, b) => (a.keys![0] < b.keys![0] ? -1 : 1))).toEqual(chronological);
    } finally {
      await strict.emulator.close();
    }
  });

  it('pages with startRow/rowLimit, defaults rowLimit to 1000, and omits rows past the end', async () => {
    const body: Body = { startDate: '2026-08-01', endDate: '2026-10-31', dimensions: ['date', 'query', 'country', 'device'] };
    const all = (await query({ ...body, rowLimit: 25000 })).rows!;
    expect(all.length).toBeGreaterThan(1000);
    expect((await query(body)).rows).toHaveLength(1000);
    const page2 = (await query({ ...body, rowLimit: 7, startRow: 7 })).rows!;
    expect(page2).toEqual(all.slice(7, 14));
    expect(await query({ ...body, startRow: all.length })).toEqual({ responseAggregationType: 'byProperty' });
  });
});

describe('filters', () => {
  it('matches equals case-sensitively for queries and contains case-insensitively', async () => {
    const exact = (
      await query({
        ...range,
        dimensions: ['query'],
        dimensionFilterGroups: [{ filters: [{ dimension: 'query', operator: 'equals', expression: 'Widget Pro' }] }],
      })
    ).rows!;
    expect(exact.map((r) => r.keys![0])).toEqual(['Widget Pro']);
    const loose = (
      await query({
        ...range,
        dimensions: ['query'],
        dimensionFilterGroups: [{ filters: [{ dimension: 'query', operator: 'CONTAINS', expression: 'WIDGET PRO' }] }],
      })
    ).rows!;
    expect(loose.map((r) => r.keys![0]).sort()).toEqual(['Widget Pro', 'widget pro', 'widget pro review']);
  });

  it('applies includingRegex and excludingRegex as RE2 does: partial, case-sensitive unless (?i), complementary', async () => {
    const body = (operator: string, expression: string) => ({
      ...range,
      dimensions: ['query'],
      rowLimit: 25000,
      dimensionFilterGroups: [{ filters: [{ dimension: 'query', operator, expression }] }],
    });
    const all = (await query({ ...range, dimensions: ['query'], rowLimit: 25000 })).rows!.map((r) => r.keys![0]);
    const branded = (await query(body('includingRegex', '(?i)widget pro|example'))).rows!.map((r) => r.keys![0]);
    const other = (await query(body('excludingRegex', '(?i)widget pro|example'))).rows!.map((r) => r.keys![0]);
    expect(branded).toEqual(expect.arrayContaining(['Widget Pro', 'widget pro', 'widget pro review']));
    expect(branded.every((q) => /widget pro|example/i.test(q))).toBe(true);
    expect(other.some((q) => /widget pro|example/i.test(q))).toBe(false);
    expect([...branded, ...other].sort()).toEqual([...all].sort());
    const exact = (await query(body('includingRegex', 'Widget Pro'))).rows!.map((r) => r.keys![0]);
    expect(exact).toEqual(['Widget Pro']);
    expect((await failure(body('includingRegex', '(a)\\1'))).status).toBe(400);
    expect((await failure(body('excludingRegex', 'a{1001}'))).status).toBe(400);
  });

  it('ANDs filters across groups, including RE2 regexes on pages and case-insensitive countries', async () => {
    const rows = (
      await query({
        ...range,
        dimensions: ['page', 'country'],
        dimensionFilterGroups: [
          { filters: [{ dimension: 'page', operator: 'includingRegex', expression: '/products/' }] },
          { groupType: 'AND', filters: [{ dimension: 'country', expression: 'USA' }] },
        ],
      })
    ).rows!;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.keys![0]).toContain('/products/');
      expect(r.keys![1]).toBe('usa');
    }
  });
});

describe('freshness, hours and retention', () => {
  it('final data stops three days back; all includes fresh days and says where they start, in the discovery spelling', async () => {
    const body: Body = { startDate: '2026-11-20', endDate: '2026-11-30', dimensions: ['date'] };
    const final = await query(body);
    expect(final.rows!.at(-1)!.keys).toEqual(['2026-11-27']);
    expect(final.metadata).toBeUndefined();
    const all = await query({ ...body, dataState: 'all' });
    expect(all.rows!.at(-1)!.keys).toEqual(['2026-11-30']);
    expect(all.metadata).toEqual({ firstIncompleteDate: '2026-11-28' });
    expect(await query({ ...body, dataState: 'all', dimensions: ['query'] })).not.toHaveProperty('metadata');
  });

  it('serves hourly keys in Pacific time for the last ten days only, up to the current hour', async () => {
    const res = await query({
      startDate: '2026-11-01',
      endDate: '2026-11-30',
      dimensions: ['HOUR'],
      dataState: 'HOURLY_ALL',
      rowLimit: 25000,
    });
    const keys = res.rows!.map((r) => r.keys![0]);
    expect(keys[0] >= '2026-11-21T').toBe(true);
    expect(keys.every((k) => /^2026-11-\d\dT\d\d:00:00-08:00$/.test(k))).toBe(true);
    expect(keys.at(-1)! < '2026-11-30T12:00:00-08:00').toBe(true);
    expect(res.metadata).toEqual({ firstIncompleteHour: '2026-11-30T10:00:00-08:00' });
    const day = (await query({ startDate: '2026-11-25', endDate: '2026-11-25', dataState: 'all' })).rows![0];
    const hours = res.rows!.filter((r) => r.keys![0].startsWith('2026-11-25T'));
    expect(sum(hours, 'impressions')).toBe(day.impressions);
  });

  it('serves hours that add up to its daily rows, day by day, metric by metric, also filtered and by another dimension', async () => {
    const window = { startDate: '2026-11-21', endDate: '2026-11-30' };
    const hours = await query({ ...window, dimensions: ['hour'], dataState: 'hourly_all', rowLimit: 25000 });
    const days = await query({ ...window, dimensions: ['date'], dataState: 'all', rowLimit: 25000 });
    expect(days.rows!.length).toBe(10);
    for (const day of days.rows!) {
      const ofDay = hours.rows!.filter((r) => r.keys![0].startsWith(`${day.keys![0]}T`));
      expect(ofDay.length).toBeGreaterThan(0);
      expect([sum(ofDay, 'clicks'), sum(ofDay, 'impressions')]).toEqual([day.clicks, day.impressions]);
    }
    const widget = [{ filters: [{ dimension: 'query', operator: 'contains', expression: 'widget' }] }];
    const byDevice = await query({
      ...window,
      dimensions: ['hour', 'device'],
      dataState: 'hourly_all',
      dimensionFilterGroups: widget,
      rowLimit: 25000,
    });
    const deviceDays = await query({
      ...window,
      dimensions: ['date', 'device'],
      dataState: 'all',
      dimensionFilterGroups: widget,
      rowLimit: 25000,
    });
    for (const day of deviceDays.rows!) {
      const [date, device] = day.keys!;
      const ofDay = byDevice.rows!.filter((r) => r.keys![0].startsWith(`${date}T`) && r.keys![1] === device);
      expect([date, device, sum(ofDay, 'clicks'), sum(ofDay, 'impressions')]).toEqual([date, device, day.clicks, day.impressions]);
    }
  });

  it('answers an hourly window older than its ten days with no rows for those days (not an error)', async () => {
    const old = await query({ startDate: '2026-11-01', endDate: '2026-11-20', dimensions: ['hour'], dataState: 'HOURLY_ALL' });
    expect(old).toEqual({ responseAggregationType: 'byProperty' });
  });

  it('uses the daylight-saving offset in summer', async () => {
    const summer = await startEmulatorKit({ now: () => new Date('2026-07-15T19:00:00Z') });
    try {
      const res = await summer.sc.searchanalytics.query({
        siteUrl: SEED_PROPERTIES.domain,
        requestBody: { startDate: '2026-07-14', endDate: '2026-07-14', dimensions: ['hour'], dataState: 'hourly_all' },
      });
      expect(res.data.rows![0].keys![0]).toMatch(/^2026-07-14T\d\d:00:00-07:00$/);
    } finally {
      await summer.emulator.close();
    }
  });

  it('has nothing older than 16 months: rows are omitted, not empty', async () => {
    expect(await query({ startDate: '2025-01-01', endDate: '2025-06-30' })).toEqual({ responseAggregationType: 'byProperty' });
  });

  it('Discover aggregates by page and has no queries', async () => {
    const res = await query({ ...range, type: 'discover', dimensions: ['query'] });
    expect(res).toEqual({ responseAggregationType: 'byPage' });
  });
});

describe('quota', () => {
  const QUOTA = {
    error: {
      code: 429,
      message: 'Rate Limit Exceeded',
      errors: [{ message: 'Rate Limit Exceeded', domain: 'usageLimits', reason: 'rateLimitExceeded' }],
      status: 'RESOURCE_EXHAUSTED',
    },
  };
  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (err: { status: number; response: { data: unknown } }) => ({ status: err.status, data: err.response.data }),
    );

  it('allows analyticsPerMinutePerSite queries per property per minute', async () => {
    let clock = new Date('2026-11-30T20:30:00Z');
    const small = await startEmulatorKit({ now: () => clock, quotas: { analyticsPerMinutePerSite: 2 } });
    try {
      const run = (siteUrl: string) => small.sc.searchanalytics.query({ siteUrl, requestBody: range });
      await run(SEED_PROPERTIES.owned);
      await run(SEED_PROPERTIES.owned);
      await run(SEED_PROPERTIES.blog); // other property, own bucket
      expect(await refusal(run(SEED_PROPERTIES.owned))).toEqual({ status: 429, data: QUOTA });
      clock = new Date(clock.getTime() + 60000);
      await expect(run(SEED_PROPERTIES.owned)).resolves.toMatchObject({ status: 200 });
    } finally {
      await small.emulator.close();
    }
  });

  it('answers the per-user, short-term load and long-term load limits with the very same body', async () => {
    let clock = new Date('2026-11-30T20:30:00Z');
    // 28 days grouped by query cost 56 load units; grouped by query and page, 140.
    const small = await startEmulatorKit({
      now: () => clock,
      quotas: { analyticsPerMinutePerUser: 3, analyticsLoadShortTerm: 200, analyticsLoadLongTerm: 300 },
    });
    try {
      const run = (dimensions: string[], siteUrl: string = SEED_PROPERTIES.owned) =>
        small.sc.searchanalytics.query({ siteUrl, requestBody: { ...range, dimensions } });
      await run(['query', 'page']); // 140 short-term
      const shortTerm = await refusal(run(['query', 'page'])); // 280 > 200
      await run(['query']); // 196
      await run(['date'], SEED_PROPERTIES.blog);
      const perUser = await refusal(run(['date'], SEED_PROPERTIES.blog)); // 4th this minute by one user
      clock = new Date(clock.getTime() + 11 * 60000); // a new 10-minute chunk, the same Pacific day
      await run(['query']); // long-term 252
      const longTerm = await refusal(run(['query'])); // 308 > 300
      for (const e of [shortTerm, perUser, longTerm]) {
        expect(e).toEqual({ status: 429, data: QUOTA });
      }
      expect(small.emulator.apiRequests().map((r) => r.status)).toEqual([200, 429, 200, 200, 429, 200, 429]);
    } finally {
      await small.emulator.close();
    }
  });
});
