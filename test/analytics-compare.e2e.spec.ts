import { describe, expect, it } from '@jest/globals';
import { Clock } from '../src/common/clock.js';
import { StandingClock } from './support/manual-clock.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { text } from './support/clients.js';
import { directRows, directSearchConsole, type DirectRow } from './support/direct-google.js';
import { useStack } from './support/stack.js';
import { roundMetrics } from '../src/analytics/analytics-metrics.js';

const OWNED = SEED_PROPERTIES.owned;
const TOOL = 'query_search_analytics';

// 19:00 UTC on 20 March 2026 is 12:00 PDT: Pacific today is 2026-03-20, so Google
// (and the emulator) is still collecting 2026-03-18 onwards, and final data ends on 03-17.
const NOW = new Date('2026-03-20T19:00:00Z');

const { google, client, legacy } = useStack({ google: { now: () => NOW }, overrides: [[Clock, new StandingClock(() => NOW)]] });

const ask = (args: Record<string, unknown>) => client.call(TOOL, { site_url: OWNED, ...args });
const bodies = () =>
  google.emulator
    .apiRequests()
    .filter((r) => r.route === 'searchanalytics.query')
    .map((r) => r.body as Record<string, any>);
const id = (keys: string[]) => keys.join('|');
const shift = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const weekday = (date: string) => new Date(`${date}T00:00:00Z`).getUTCDay();
const sum = (rows: DirectRow[], field: 'clicks' | 'impressions') => rows.reduce((s, r) => s + r[field], 0);

/** The windows' rows and whole-property totals, asked of the emulator directly through the client library. */
async function truth(body: Record<string, unknown>, current: [string, string], previous: [string, string]) {
  const sc = directSearchConsole(google);
  const ask = (range: [string, string], extra: Record<string, unknown> = {}) =>
    directRows(sc, OWNED, { ...body, startDate: range[0], endDate: range[1], rowLimit: 25000, ...extra });
  return {
    current: await ask(current),
    previous: await ask(previous),
    currentTotal: (await ask(current, { dimensions: [], rowLimit: 1 }))[0],
    previousTotal: (await ask(previous, { dimensions: [], rowLimit: 1 }))[0],
  };
}

describe('compare: previous_period, with incomplete days left out of both windows', () => {
  it('joins rows on their keys: deltas where a key is in both windows, only_in where it is in one — never a zero', async () => {
    const result = await ask({ period: 'last7days', dimensions: ['query', 'country'], compare: 'previous_period', row_limit: 1000 });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;

    // Asked: 03-13..03-19 against 03-06..03-12. 03-18 and 03-19 are still incomplete, so they and
    // their counterparts 03-11 and 03-12 are left out: 5 days against 5 days, same weekdays.
    const sent = bodies();
    expect(sent[0]).toEqual({
      startDate: '2026-03-13',
      endDate: '2026-03-19',
      dimensions: ['date'],
      type: 'web',
      dataState: 'all',
      rowLimit: 7,
    });
    const common = { dimensions: ['query', 'country'], type: 'web', dataState: 'final', rowLimit: 25000, startRow: 0 };
    expect(sent.slice(1)).toEqual(
      expect.arrayContaining([
        { startDate: '2026-03-13', endDate: '2026-03-17', ...common },
        { startDate: '2026-03-06', endDate: '2026-03-10', ...common },
        { startDate: '2026-03-13', endDate: '2026-03-17', dimensions: [], type: 'web', dataState: 'final', rowLimit: 1, startRow: 0 },
        { startDate: '2026-03-06', endDate: '2026-03-10', dimensions: [], type: 'web', dataState: 'final', rowLimit: 1, startRow: 0 },
      ]),
    );
    expect(sent).toHaveLength(5);
    expect(out.compare).toMatchObject({
      with: 'previous_period',
      current: { start_date: '2026-03-13', end_date: '2026-03-17', days: 5, rows_complete: true },
      previous: { start_date: '2026-03-06', end_date: '2026-03-10', days: 5, rows_complete: true },
      left_out: [
        { window: 'current', start_date: '2026-03-18', end_date: '2026-03-19', reason: 'not_final' },
        // 03-11 and 03-12 are final: they are left out only to keep day i against day i.
        { window: 'previous', start_date: '2026-03-11', end_date: '2026-03-12', reason: 'not_in_other_window' },
      ],
    });
    expect(out.data_truth).toMatchObject({
      start_date: '2026-03-13',
      end_date: '2026-03-17',
      days: 5,
      first_incomplete_date: '2026-03-18',
      freshness: 'final',
    });
    expect(text(result)).toContain(
      'Left out of both windows, so that day i still matches day i: 2026-03-18 to 2026-03-19 of the current window — not final yet, Google is still collecting them (first_incomplete_date 2026-03-18); ' +
        '2026-03-11 to 2026-03-12 of the previous window — final, but their matching days in the other window are left out.',
    );

    // The known answer, from the emulator directly.
    const known = await truth(
      { dimensions: ['query', 'country'], type: 'web', dataState: 'final' },
      ['2026-03-13', '2026-03-17'],
      ['2026-03-06', '2026-03-10'],
    );
    const before = new Map(known.previous.map((r) => [id(r.keys), r]));
    const now = new Map(known.current.map((r) => [id(r.keys), r]));
    const onlyCurrent = known.current.filter((r) => !before.has(id(r.keys)));
    const onlyPrevious = known.previous.filter((r) => !now.has(id(r.keys)));
    const both = known.current.filter((r) => before.has(id(r.keys)));
    expect(onlyCurrent.length).toBeGreaterThan(0); // the seeded data has keys in one window only, both ways
    expect(onlyPrevious.length).toBeGreaterThan(0);
    expect(out.compare.keys).toEqual({
      total: out.rows.length,
      both: both.length,
      only_in_current: onlyCurrent.length,
      only_in_previous: onlyPrevious.length,
      not_listed: 0,
    });
    expect(out.rows).toHaveLength(both.length + onlyCurrent.length + onlyPrevious.length);

    for (const row of out.rows) {
      const c = now.get(id(row.keys));
      const p = before.get(id(row.keys));
      if (c && p) {
        // CTR to 4 decimals, position to 1, CTR points to 2 and position change to 1: as the text shows them.
        expect(row).toEqual({
          keys: c.keys,
          ...roundMetrics(c),
          previous: roundMetrics(p),
          delta: {
            clicks: c.clicks - p.clicks,
            impressions: c.impressions - p.impressions,
            ctr_points: Math.round((c.ctr - p.ctr) * 1e4) / 100 || 0,
            position: Math.round((c.position - p.position) * 10) / 10 || 0,
          }, // JSON has no -0
        });
      } else if (c) {
        expect(row).toEqual({ keys: c.keys, ...roundMetrics(c), only_in: 'current' });
      } else {
        // Only in the previous window: its figures there, and no current figures at all — not zeros.
        expect(row).toEqual({ keys: p!.keys, previous: roundMetrics(p!), only_in: 'previous' });
      }
    }
    // Ordered by clicks gained: biggest gain first, biggest loss last.
    const movement = (r: any) => (r.clicks ?? 0) - (r.previous?.clicks ?? 0);
    expect(out.rows.map(movement)).toEqual([...out.rows.map(movement)].sort((a, b) => b - a));

    // Totals come from the whole-property queries, which include anonymised queries the rows leave out.
    // One totals: the current window's property figures at the top, the previous window's under compare — no rows' sum beside them.
    expect(out.totals).toEqual(roundMetrics(known.currentTotal));
    expect(out.compare.previous_totals).toEqual(roundMetrics(known.previousTotal));
    expect(out.rows_sum).toBeUndefined();
    expect(out.totals.clicks).toBeGreaterThan(sum(known.current, 'clicks'));
    expect(out.compare.change.clicks).toBe(known.currentTotal.clicks - known.previousTotal.clicks);
    // Counts count what they name: rows Google returned per window, keys joined, rows in this result.
    expect(out.row_count).toBeUndefined();
    expect(out.compare.current.rows_returned).toBe(known.current.length);
    expect(out.compare.previous.rows_returned).toBe(known.previous.length);
    const said = text(result);
    expect(said).toContain(
      `Totals (whole-property queries, not row sums): clicks ${known.currentTotal.clicks} vs ${known.previousTotal.clicks}`,
    );
    expect(said).toContain(
      `Keys: ${both.length} in both windows, ${onlyCurrent.length} only in the current one, ${onlyPrevious.length} only in the previous one`,
    );
    expect(said).toMatch(/Biggest gains by clicks:\n\| query \| country \| clicks \| Δ clicks \|/);
    expect(said).toMatch(/Biggest losses by clicks:\n\| query \| country \| clicks \| Δ clicks \|/);
    expect(said).not.toMatch(/\| -?0 \| [+-]?\d+ \|.*only/); // a one-window key never reads as a zero
  });

  it('with data_state all and dates as keys: day i against day i, the incomplete days in neither window', async () => {
    const result = await ask({ period: 'last7days', dimensions: ['date'], data_state: 'all', compare: 'previous_period' });
    const out = result.structuredContent!;
    expect(out.rows.map((r: any) => r.keys[0]).sort()).toEqual(['2026-03-13', '2026-03-14', '2026-03-15', '2026-03-16', '2026-03-17']);
    for (const row of out.rows) {
      expect(row.previous.keys).toEqual([shift(row.keys[0], -7)]);
      expect(row.only_in).toBeUndefined();
    }
    expect(
      bodies()
        .filter((b) => b.rowLimit === 25000)
        .map((b) => [b.startDate, b.endDate, b.dataState]),
    ).toEqual(
      expect.arrayContaining([
        ['2026-03-13', '2026-03-17', 'all'],
        ['2026-03-06', '2026-03-10', 'all'],
      ]),
    );
    expect(out.data_truth).toMatchObject({ data_state: 'all', freshness: 'final', first_incomplete_date: '2026-03-18' });
  });
});

describe('compare: previous_year', () => {
  it('compares the same weekdays 52 weeks earlier, across a daylight-saving switch in both years', async () => {
    // 2026-03-08 and 2025-03-09 are the spring-forward Sundays; both windows contain theirs.
    const result = await legacy.call(TOOL, {
      site_url: OWNED,
      start_date: '2026-03-02',
      end_date: '2026-03-15',
      dimensions: ['date'],
      compare: 'previous_year',
    });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out.compare).toMatchObject({
      with: 'previous_year',
      current: { start_date: '2026-03-02', end_date: '2026-03-15', days: 14 },
      previous: { start_date: '2025-03-03', end_date: '2025-03-16', days: 14 },
    });
    expect(out.compare.left_out).toBeUndefined();
    expect(out.rows).toHaveLength(14);
    for (const row of out.rows) {
      const [current] = row.keys;
      const [previous] = row.previous.keys;
      expect(previous).toBe(shift(current, -364));
      expect(weekday(previous)).toBe(weekday(current));
    }
    const byDate = Object.fromEntries(out.rows.map((r: any) => [r.keys[0], r.previous.keys[0]]));
    expect(byDate['2026-03-08']).toBe('2025-03-09'); // Sunday to Sunday, each its year's switch day
    const known = await truth(
      { dimensions: ['date'], type: 'web', dataState: 'final' },
      ['2026-03-02', '2026-03-15'],
      ['2025-03-03', '2025-03-16'],
    );
    for (const row of out.rows) {
      const p = known.previous.find((r) => r.keys[0] === row.previous.keys[0])!;
      const c = known.current.find((r) => r.keys[0] === row.keys[0])!;
      expect(row.delta.clicks).toBe(c.clicks - p.clicks);
    }
    expect(text(result)).toContain(
      '2026-03-02 to 2026-03-15 compared with 2025-03-03 to 2025-03-16 (previous_year: the same weekdays 52 weeks earlier; 14 days each, Pacific Time)',
    );
  });

  it('leaves out of both windows the days Google no longer keeps (~16 months)', async () => {
    const result = await ask({ period: 'last16months', compare: 'previous_year' });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    // last16months = 2024-11-20..2026-03-19; 52 weeks earlier is 2023-11-22..2025-03-20, which starts before
    // 2024-11-20, the oldest day Google keeps. Day i survives only where both windows' day i is kept and final.
    expect(out.compare.current).toMatchObject({ start_date: '2025-11-19', end_date: '2026-03-17' });
    expect(out.compare.previous).toMatchObject({ start_date: '2024-11-20', end_date: '2025-03-18' });
    expect(out.compare.left_out).toEqual([
      // Each run with its own reason: only the previous window's start is past retention, only the current window's end unfinished.
      { window: 'current', start_date: '2024-11-20', end_date: '2025-11-18', reason: 'not_in_other_window' },
      { window: 'current', start_date: '2026-03-18', end_date: '2026-03-19', reason: 'not_final' },
      { window: 'previous', start_date: '2023-11-22', end_date: '2024-11-19', reason: 'outside_retention' },
      { window: 'previous', start_date: '2025-03-19', end_date: '2025-03-20', reason: 'not_in_other_window' },
    ]);
    expect(text(result)).toContain('2023-11-22 to 2024-11-19 of the previous window — older than the ~16 months Google keeps');
    expect(text(result)).not.toMatch(/2025-03-19 to 2025-03-20 of the previous window — not final/);
  });
});

describe('compare: a window of your own', () => {
  it('compares equal windows as given', async () => {
    const result = await ask({
      start_date: '2026-02-01',
      end_date: '2026-02-07',
      compare: { start_date: '2026-01-04', end_date: '2026-01-10' },
    });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent!.compare).toMatchObject({
      with: 'custom',
      previous: { start_date: '2026-01-04', end_date: '2026-01-10' },
    });
    // Whole property: the rows query is the totals query, so only two were sent (the window is older than a week: no freshness query).
    expect(bodies()).toHaveLength(2);
  });

  const refused: Array<[string, unknown, RegExp]> = [
    [
      'windows of different lengths',
      { start_date: '2026-01-01', end_date: '2026-01-31' },
      /has 31 days and the current window 2026-02-01 to 2026-02-28 has 28.*\{"start_date":"2026-01-04","end_date":"2026-01-31"\}/,
    ],
    ['overlapping windows', { start_date: '2026-02-15', end_date: '2026-03-14' }, /overlaps the current window/],
    // The schema requires both dates; the refusal names the field and every valid form, never "Invalid input".
    [
      'half a window',
      { start_date: '2026-01-01' },
      /compare: use "previous_period", "previous_year" or \{"start_date":"YYYY-MM-DD","end_date":"YYYY-MM-DD"\} \(both dates/,
    ],
    ['an unknown mode', 'last_month', /compare: use "previous_period", "previous_year" or/],
    ['an impossible date', { start_date: '2026-01-01', end_date: '2026-01-32' }, /"2026-01-32" is not a calendar date/],
  ];
  it.each(refused)('refuses %s before sending anything', async (_what, compare, message) => {
    const result = await ask({ start_date: '2026-02-01', end_date: '2026-02-28', compare });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
    expect(text(result)).toContain('Nothing was sent to Google.');
    expect(bodies()).toHaveLength(0);
  });

  it('says when nothing is left to compare, and refuses start_row', async () => {
    const today = await ask({ period: 'today', data_state: 'all', compare: 'previous_period' });
    expect(today.isError).toBe(true);
    // The freshness query spans both windows' days (03-19 and 03-20), and Google is collecting both.
    expect(text(today)).toMatch(
      /Nothing is left to compare: every day of 2026-03-20 or of 2026-03-19 is either still being collected by Google \(from 2026-03-19\)/,
    );
    expect(bodies()).toHaveLength(1); // the freshness query only
    expect(text(await ask({ compare: 'previous_period', start_row: 10 }))).toMatch(/start_row does not apply to compare/);
  });
});
