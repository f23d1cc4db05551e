import { describe, expect, it } from '@jest/globals';
import { UserFacingError } from '../common/user-facing-error.js';
import { outputBytes } from '../tools/tool-output.js';
import { buildReport, type ReportContext } from './analytics-report.js';
import { computeTotals, roundMetrics } from './analytics-metrics.js';
import type { ReportRequest } from './analytics-request.js';
import { readResponse } from './analytics.service.js';
import { resolveRange } from './analytics.tools.js';

const request = (over: Partial<ReportRequest> = {}): ReportRequest => ({
  site: 'https://www.example.com/',
  range: { start: '2026-02-01', end: '2026-02-28' },
  today: '2026-03-07',
  dimensions: ['query'],
  type: 'web',
  dataState: 'final',
  filters: [],
  rowLimit: 100,
  startRow: 0,
  ...over,
});

const FINAL: ReportContext = { freshness: { known: true, source: 'age' } };

const row = (key: string, clicks: number, impressions: number, position: number) => ({
  keys: [key],
  clicks,
  impressions,
  ctr: impressions ? clicks / impressions : 0,
  position,
});

describe('computeTotals', () => {
  it('takes CTR as Σclicks/Σimpressions and weights position by impressions, not the mean of rows', () => {
    const rows = [row('big', 100, 10_000, 2), row('small', 3, 3, 40)];
    const totals = computeTotals(rows);
    expect(totals.clicks).toBe(103);
    expect(totals.impressions).toBe(10_003);
    expect(totals.ctr).toBeCloseTo(103 / 10_003, 10); // ≈ 1.03 %, while the mean of row CTRs would be 50.5 %
    expect(totals.position).toBeCloseTo((2 * 10_000 + 40 * 3) / 10_003, 10); // ≈ 2.01, while the mean would be 21
  });

  it('is zero, not NaN, without impressions', () => {
    expect(computeTotals([])).toEqual({ clicks: 0, impressions: 0, ctr: 0, position: 0 });
  });
});

describe('readResponse', () => {
  it('reads freshness metadata in Google snake_case and in the typings camelCase', () => {
    expect(readResponse({ metadata: { first_incomplete_date: '2026-03-05' } as never }).firstIncompleteDate).toBe('2026-03-05');
    expect(
      readResponse({ metadata: { firstIncompleteDate: '2026-03-04', firstIncompleteHour: '2026-03-06T10:00:00-08:00' } }),
    ).toMatchObject({ firstIncompleteDate: '2026-03-04', firstIncompleteHour: '2026-03-06T10:00:00-08:00' });
    expect(readResponse({ metadata: { first_incomplete_hour: '2026-03-06T10:00:00-08:00' } as never }).firstIncompleteHour).toBe(
      '2026-03-06T10:00:00-08:00',
    );
  });

  it('treats {} as no rows, and a row without keys as keys []', () => {
    expect(readResponse({}).rows).toEqual([]);
    expect(readResponse({ rows: [{ clicks: 1, impressions: 2, ctr: 0.5, position: 3 }] }).rows[0].keys).toEqual([]);
  });
});

describe('buildReport', () => {
  it('keeps public text inert in the table: no column breaks, control or bidi characters', () => {
    const out = buildReport(request(), { rows: [row('a|b\n| injected | row |\u202e', 1, 10, 1)] }, FINAL);
    const tableRow = out.text.split('\n').find((l) => l.startsWith('| a'))!;
    expect(tableRow).toBe('| a\\|b\\u000a\\| injected \\| row \\|\\u202e | 1 | 10 | 10.00% | 1.0 |');
    expect(out.structured.rows).toEqual([row('a|b\n| injected | row |\u202e', 1, 10, 1)]);
  });

  it('drops whole rows at the end to fit 100 kB, with totals still over every row Google returned', () => {
    const rows = Array.from({ length: 3000 }, (_, i) => row(`query number ${i} ${'x'.repeat(40)}`, i % 7, 50 + (i % 13), 1 + (i % 20)));
    const out = buildReport(request({ rowLimit: 25000 }), { rows }, FINAL);
    expect(outputBytes(out)).toBeLessThanOrEqual(100_000);
    const s = out.structured as any;
    const shown = s.rows.length;
    expect(shown).toBeGreaterThan(100);
    expect(shown).toBeLessThan(3000);
    expect(s.rows_not_shown).toBe(3000 - shown);
    expect(s.rows).toEqual(rows.slice(0, shown).map((r) => ({ keys: r.keys, ...roundMetrics(r) })));
    expect(s.rows_returned).toBe(3000);
    // Grouped by query without the whole-property query: only the rows' own sum, under a name that says so.
    expect(s.totals).toBeUndefined();
    expect(s.rows_sum.clicks).toBe(computeTotals(rows).clicks);
    expect(s.rows_sum.impressions).toBe(computeTotals(rows).impressions);
    expect(s.next_start_row).toBe(shown);
    expect(out.text).toContain(`${3000 - shown} of the 3000 rows Google returned are not shown`);
    expect(out.text).toContain(`call again with start_row ${shown}`);
  });

  it('gives no paging hint when Google returned fewer rows than row_limit', () => {
    const out = buildReport(request({ rowLimit: 10 }), { rows: [row('a', 1, 10, 1)] }, FINAL);
    expect((out.structured as any).next_start_row).toBeUndefined();
    expect(out.text).not.toMatch(/start_row/);
  });

  it('says the period meaning, and what the freshness query found', () => {
    const range = { start: '2026-02-28', end: '2026-03-06' };
    const fresh = buildReport(
      request({ period: 'last7days', range, dataState: 'all' }),
      { rows: [row('a', 1, 10, 1)] },
      { freshness: { known: true, source: 'probe', firstIncompleteDate: '2026-03-05' } },
    );
    expect(fresh.text).toContain('last7days = the 7 days ending yesterday');
    expect(fresh.text).toContain('- Freshness: fresh — days from 2026-03-05 on are incomplete');
    expect((fresh.structured as any).data_truth).toMatchObject({
      freshness: 'fresh',
      first_incomplete_date: '2026-03-05',
      start_date: '2026-02-28',
      end_date: '2026-03-06',
      days: 7,
    });
    const missing = buildReport(
      request({ range }),
      { rows: [row('a', 1, 10, 1)] },
      { freshness: { known: true, source: 'probe', firstIncompleteDate: '2026-03-05' } },
    );
    expect(missing.text).toContain('days from 2026-03-05 on are not final yet, so they are missing here');
    expect((missing.structured as any).data_truth.freshness).toBe('final');
    const old = buildReport(request({ range: { start: '2025-01-01', end: '2025-01-31' } }), { rows: [row('a', 1, 10, 1)] }, FINAL);
    expect(old.text).toContain('every day of the window is final (it ended over 7 days ago)');
    expect(old.text).not.toMatch(/not final yet|incomplete/);
    const unknown = buildReport(
      request({ range }),
      { rows: [row('a', 1, 10, 1)] },
      { freshness: { known: false, because: 'Google said no.' } },
    );
    expect(unknown.text).toContain('- Freshness: unknown — asking Google which days are final failed: Google said no.');
    expect((unknown.structured as any).data_truth).toMatchObject({ freshness: 'unknown', freshness_unknown: 'Google said no.' });
  });

  it('measures what no listed query accounts for against the whole-property figures, and says when it cannot', () => {
    const rows = [row('a', 30, 600, 2), row('b', 10, 300, 5)];
    const property = { totals: { clicks: 50, impressions: 1000, ctr: 0.05, position: 3 }, aggregationType: 'byProperty' };
    const out = buildReport(request(), { rows, aggregationType: 'byProperty' }, { ...FINAL, property });
    expect((out.structured as any).data_truth.unattributed).toEqual({
      clicks: 10,
      impressions: 100,
      click_share: 0.2,
      impression_share: 0.1,
      property_clicks: 50,
      property_impressions: 1000,
      listed_rows_complete: true,
    });
    expect(out.text).toContain('- Not in any listed query: 20.00% of clicks (10 of 50) and 10.00% of impressions (100 of 1000)');
    const filtered = buildReport(request({ filters: [{ dimension: 'query', operator: 'contains', expression: 'a' }] }), { rows }, FINAL);
    expect((filtered.structured as any).data_truth.unattributed.not_measured).toMatch(/filtered by query/);
    const failed = buildReport(
      request(),
      { rows, aggregationType: 'byProperty' },
      { ...FINAL, property: { error: new Error('Google was busy.') } },
    );
    expect(failed.text).toContain('- Anonymised queries: not measured — the whole-property query failed: Google was busy.');
    const notQuery = buildReport(request({ dimensions: ['device'] }), { rows }, FINAL);
    expect((notQuery.structured as any).data_truth.unattributed).toBeUndefined();
  });
});

describe('resolveRange', () => {
  const at = new Date('2026-03-08T07:30:00Z');
  it('defaults to last28days', () => {
    expect(resolveRange({}, at)).toEqual({ range: { start: '2026-02-07', end: '2026-03-06' }, period: 'last28days' });
  });
  it('refuses mixing forms, half ranges, impossible dates and reversed ranges', () => {
    expect(() => resolveRange({ period: 'today', end_date: '2026-01-01' }, at)).toThrow(UserFacingError);
    expect(() => resolveRange({ end_date: '2026-01-01' }, at)).toThrow(/go together/);
    expect(() => resolveRange({ start_date: '2026-13-01', end_date: '2026-12-01' }, at)).toThrow(/not a calendar date/);
    expect(() => resolveRange({ start_date: '2026-01-02', end_date: '2026-01-01' }, at)).toThrow(/before start_date/);
    expect(resolveRange({ start_date: '2026-01-01', end_date: '2026-01-01' }, at)).toEqual({
      range: { start: '2026-01-01', end: '2026-01-01' },
    });
  });
});
