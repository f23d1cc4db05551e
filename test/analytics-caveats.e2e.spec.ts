// Numbers that carry their own caveats (PRODUCT.md §5e), through a real
// client over the emulator: hourly rows and their refusals, compare per hour,
// Google's known data anomalies on every overlapping answer (a seeded sample
// of random windows; the pure function has the many-window property test),
// the branded split as Google's own regex filter, and compare grouped by page
// naming its page-row sums rows_sum.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { seededRandom } from './support/seeded-random.js';
import { Clock } from '../src/common/clock.js';
import { StandingClock } from './support/manual-clock.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { addDays } from '../src/analytics/pacific-period.js';
import { text, type ToolResult } from './support/clients.js';
import { useStack } from './support/stack.js';

const OWNED = SEED_PROPERTIES.owned;
const TOOL = 'query_search_analytics';
// 12:00 PST on 2026-12-05: hourly data from 2026-11-26; Google is still collecting hours from 10:00 on.
const NOW = new Date('2026-12-05T20:00:00Z');
const OLD = { start_date: '2026-11-01', end_date: '2026-11-14' };

const { google, client } = useStack({ google: { now: () => NOW }, overrides: [[Clock, new StandingClock(() => NOW)]] });
const ask = (args: Record<string, unknown>) => client.call(TOOL, { site_url: OWNED, ...args });
const bodies = () =>
  google.emulator
    .apiRequests()
    .filter((r) => r.route === 'searchanalytics.query')
    .map((r) => r.body as Record<string, any>);

function refusedBeforeSending(result: ToolResult, pattern: RegExp): void {
  expect(result.isError).toBe(true);
  expect(text(result)).toMatch(pattern);
  expect(text(result)).toContain('Nothing was sent to Google');
  expect(bodies()).toEqual([]);
}

describe('hourly data', () => {
  it('implies hourly_all, defaults to yesterday and today, keeps Google keys and names the time zone', async () => {
    const result = await ask({ dimensions: ['hour'] });
    expect(result.isError).toBeFalsy();
    const main = bodies().find((b) => JSON.stringify(b.dimensions) === '["hour"]')!;
    expect(main).toMatchObject({ startDate: '2026-12-04', endDate: '2026-12-05', dataState: 'hourly_all' });
    const out = result.structuredContent!;
    expect(out.rows.every((r: any) => /^2026-12-0[45]T\d\d:00:00-08:00$/.test(r.keys[0]))).toBe(true);
    expect(new Set(out.rows.map((r: any) => r.keys[0].slice(0, 10)))).toEqual(new Set(['2026-12-04', '2026-12-05']));
    expect(out.data_truth).toMatchObject({
      data_state: 'hourly_all',
      time_zone: 'America/Los_Angeles',
      first_incomplete_hour: '2026-12-05T10:00:00-08:00',
      freshness: 'fresh',
    });
    expect(out.data_truth.window_note).toMatch(/yesterday and today/);
    expect(text(result)).toMatch(/\(Pacific Time; hours in America\/Los_Angeles, keyed with Google's UTC offset -08:00 PST;/);
    expect(text(result)).toContain('hours from 2026-12-05T10:00:00-08:00 on are incomplete');
  });

  it('refuses another data state, hourly_all without hour, and windows older than Google keeps hours, before sending', async () => {
    refusedBeforeSending(
      await ask({ dimensions: ['hour'], data_state: 'all' }),
      /hour dimension needs data_state "hourly_all".*data_state is "all"/,
    );
    refusedBeforeSending(await ask({ dimensions: ['date'], data_state: 'hourly_all' }), /"hourly_all" goes with the hour dimension/);
    refusedBeforeSending(
      await ask({ dimensions: ['hour'], start_date: '2026-11-20', end_date: '2026-12-01' }),
      /hourly data for about the last 10 days: with the hour dimension the window must lie within 2026-11-26 to 2026-12-05 \(Pacific dates, today included\), and 2026-11-20 is earlier/,
    );
    refusedBeforeSending(await ask({ dimensions: ['hour'], period: 'last28days' }), /start_date 2026-11-26 or later/);
  });

  it('compares the same hours a week earlier: joined on the wall-clock hour, totals that agree with the plain answers', async () => {
    const day = { start_date: '2026-12-03', end_date: '2026-12-03' };
    const weekBefore = { start_date: '2026-11-26', end_date: '2026-11-26' };
    const result = await ask({ dimensions: ['hour'], ...day, compare: weekBefore, row_limit: 100 });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out.compare.left_out).toBeUndefined();
    for (const row of out.rows.filter((r: any) => r.previous)) {
      const hour = row.keys[0].slice(11);
      expect(row.keys[0]).toBe(`2026-12-03T${hour}`);
      expect(row.previous.keys ?? row.keys).toEqual([`2026-11-26T${hour}`]);
    }
    const plain = async (window: Record<string, string>) => (await ask({ dimensions: ['hour'], ...window })).structuredContent!;
    expect(out.totals).toEqual((await plain(day)).rows_sum);
    expect(out.compare.previous_totals).toEqual((await plain(weekBefore)).rows_sum);
    expect(text(result)).toContain('Totals (the whole property hour by hour, summed over the hours compared; not row sums)');
  });

  it('leaves the hours Google is still collecting out of both windows, hour i with hour i', async () => {
    const result = await ask({
      dimensions: ['hour', 'device'],
      start_date: '2026-12-05',
      end_date: '2026-12-05',
      compare: { start_date: '2026-11-28', end_date: '2026-11-28' },
    });
    expect(result.isError).toBeFalsy();
    const out = result.structuredContent!;
    expect(out.compare.left_out).toEqual([
      { window: 'current', start_date: '2026-12-05', end_date: '2026-12-05', from_hour: '2026-12-05T10:00:00-08:00', reason: 'not_final' },
      {
        window: 'previous',
        start_date: '2026-11-28',
        end_date: '2026-11-28',
        from_hour: '2026-11-28T10:00:00-08:00',
        reason: 'not_in_other_window',
      },
    ]);
    const hours = out.rows.flatMap((r: any) => [r.keys[0], ...(r.previous?.keys ? [r.previous.keys[0]] : [])]);
    expect(hours.length).toBeGreaterThan(0);
    expect(hours.every((k: string) => Number(k.slice(11, 13)) < 10)).toBe(true);
    // The totals are the property's own hours, asked beside the rows grouped by hour and device.
    expect(bodies().filter((b) => JSON.stringify(b.dimensions) === '["hour"]')).toHaveLength(2);
    expect(text(result)).toMatch(
      /so that hour i still matches hour i: from 2026-12-05T10:00:00-08:00 to the end of 2026-12-05 of the current window/,
    );
  });

  it('refuses a comparison reaching past the hourly data, suggesting the week before', async () => {
    refusedBeforeSending(
      await ask({ dimensions: ['hour'], period: 'today', compare: 'previous_year' }),
      /previous window 2025-12-06 starts before that \(previous_year reaches 52 weeks back\).*"start_date":"2026-11-28","end_date":"2026-11-28"/,
    );
  });
});

/** Day by day: how many days of a window fall inside the impressions logging error. */
function loggingErrorDays(start: string, end: string): number {
  let n = 0;
  for (let d = start; d <= end; d = addDays(d, 1)) {
    n += d >= '2025-05-13' && d <= '2026-04-27' ? 1 : 0;
  }
  return n;
}

describe('known anomalies on the real tool', () => {
  it('every sampled answer whose window overlaps the logging error carries it, and no other does (seeded)', async () => {
    const { seed, random } = seededRandom('ANOMALY_SEED', 'analytics-caveats anomaly sample');
    const pick = (n: number) => Math.floor(random() * n);
    let carried = 0;
    let clean = 0;
    for (let i = 0; i < 16; i++) {
      // Inside Google's 16 months (from 2025-08-05), ending before the last week: final by age, one request each.
      const start = addDays('2025-08-10', pick(440));
      const length = 1 + pick(i % 2 ? 28 : 90);
      const end = [addDays(start, length - 1), '2026-11-25'].sort()[0];
      const compare = i % 3 === 0 ? { compare: 'previous_period' } : {};
      const result = await ask({ start_date: start, end_date: end, ...compare });
      const context = `seed ${seed}, ${start}..${end}${compare.compare ? ' vs previous_period' : ''}`;
      if (result.isError) {
        expect({ context, said: text(result) }).toEqual({ context, said: expect.stringMatching(/Nothing is left to compare/) });
        continue;
      }
      const out = result.structuredContent!;
      const windows = out.compare ? [out.compare.current, out.compare.previous] : [out];
      const days = windows.map((w: any) => loggingErrorDays(w.start_date, w.end_date));
      const fact = out.data_truth.anomalies?.find((a: any) => a.id === 'impressions-logging-error-2025');
      const line = text(result).includes('- Known anomaly (impressions-logging-error-2025, 2025-05-13 to about 2026-04-27)');
      if (days.some((d: number) => d > 0)) {
        carried++;
        expect({ context, structured: fact?.overlap?.days ?? 0, previous: fact?.previous_overlap?.days ?? 0, line }).toEqual({
          context,
          structured: days[0],
          previous: days[1] ?? 0,
          line: true,
        });
      } else {
        clean++;
        expect({ context, anomalies: out.data_truth.anomalies, line }).toEqual({ context, anomalies: undefined, line: false });
      }
    }
    expect(carried + clean).toBeGreaterThan(10);
  }, 60_000);

  it('says which side of a comparison straddling the fix is affected', async () => {
    const result = await ask({ start_date: '2026-04-28', end_date: '2026-05-11', compare: 'previous_period' });
    const [fact] = result.structuredContent!.data_truth.anomalies;
    expect(fact.overlap).toBeUndefined();
    expect(fact.previous_overlap).toEqual({ start_date: '2026-04-14', end_date: '2026-04-27', days: 14, window_days: 14 });
    expect(text(result)).toMatch(
      /impressions, CTR and position are unreliable for 14 of 14 days of the previous window \(2026-04-14 to 2026-04-27\)\. The current window is not affected\. The windows are affected unequally/,
    );
    expect(text(result)).toMatch(/Clicks are fine\./);
  });
});

describe('a list of anomalies of your own (GSC_ANOMALIES_FILE)', () => {
  const folder = mkdtempSync(join(tmpdir(), 'gsc-anomalies-'));
  const file = join(folder, 'anomalies.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 7,
      updated: '2026-12-01',
      anomalies: [
        {
          id: 'image-clicks-dropped',
          start_date: '2026-11-10',
          affected: ['clicks', 'ctr'],
          not_affected: ['impressions'],
          search_types: ['image'],
          source: 'https://support.google.com/webmasters/answer/6211453',
          sentence: 'Some image click data was dropped.',
        },
      ],
    }),
  );
  const own = useStack({
    google: { now: () => NOW },
    env: { GSC_ANOMALIES_FILE: file },
    overrides: [[Clock, new StandingClock(() => NOW)]],
  });

  it('replaces the built-in list: its entries apply to their search types only, an open one to the window end', async () => {
    const image = await own.client.call(TOOL, { site_url: OWNED, ...OLD, type: 'image' });
    expect(image.structuredContent!.data_truth.anomalies).toEqual([
      expect.objectContaining({
        id: 'image-clicks-dropped',
        affected: ['clicks', 'ctr'],
        overlap: { start_date: '2026-11-10', end_date: '2026-11-14', days: 5, window_days: 14 },
        summary: 'clicks and CTR are unreliable for 5 of 14 days (2026-11-10 to 2026-11-14); impressions are fine.',
      }),
    ]);
    expect(text(image)).toContain('from 2026-11-10, no fix announced yet');
    const web = await own.client.call(TOOL, { site_url: OWNED, start_date: '2026-03-01', end_date: '2026-03-14' });
    expect(web.structuredContent!.data_truth.anomalies).toBeUndefined(); // the built-in logging error is gone
  });
});

describe('the branded split', () => {
  const split = { ...OLD, dimensions: ['query'], row_limit: 25000, brand_terms: ['example', 'widget pro'] };

  it('sends the terms as Google regex filters on query, and the two sides partition the query rows', async () => {
    const branded = await ask({ ...split, brand: 'branded' });
    expect(branded.isError).toBeFalsy();
    expect(bodies()[0].dimensionFilterGroups).toEqual([
      { groupType: 'and', filters: [{ dimension: 'query', operator: 'includingRegex', expression: '(?i)example|widget pro' }] },
    ]);
    const nonBranded = await ask({ ...split, brand: 'non_branded' });
    expect(bodies().at(-1)!.dimensionFilterGroups[0].filters[0]).toEqual({
      dimension: 'query',
      operator: 'excludingRegex',
      expression: '(?i)example|widget pro',
    });
    const all = await ask({ ...OLD, dimensions: ['query'], row_limit: 25000 });
    const keys = (r: ToolResult) => r.structuredContent!.rows.map((row: any) => row.keys[0]);
    expect(keys(branded).length).toBeGreaterThan(0);
    expect(keys(branded).every((q: string) => /example|widget pro/i.test(q))).toBe(true);
    expect(keys(nonBranded).some((q: string) => /example|widget pro/i.test(q))).toBe(false);
    expect([...keys(branded), ...keys(nonBranded)].sort()).toEqual(keys(all).sort());
    expect(branded.structuredContent!.brand).toEqual({
      split: 'branded',
      terms: ['example', 'widget pro'],
      operator: 'includingRegex',
      expression: '(?i)example|widget pro',
      classifier: 'caller_terms',
    });
    expect(text(branded)).toContain("It uses your terms, not Search Console's own branded-query classifier, which the API does not expose");
  });

  it('refuses what RE2 would refuse, and half a split, before sending anything', async () => {
    refusedBeforeSending(
      await ask({ ...split, brand_terms: ['example', 'acme(?!corp)'], brand: 'branded' }),
      /brand_terms\[1\] "acme\(\?!corp\)" is not a regular expression Google accepts: invalid or unsupported Perl syntax.*RE2 syntax, which has no look-around/,
    );
    refusedBeforeSending(
      await ask({ ...OLD, filters: [{ dimension: 'page', operator: 'includingRegex', expression: '(blog)/\\1' }] }),
      /the includingRegex filter on page "\(blog\)\/\\\\1" is not a regular expression Google accepts: invalid escape sequence/,
    );
    refusedBeforeSending(await ask({ ...split, brand_terms: undefined, brand: 'branded' }), /brand_terms and brand go together/);
    refusedBeforeSending(await ask({ ...split, brand: 'branded', type: 'discover' }), /discover reports no queries/);
  });
});

describe('compare grouped by page', () => {
  it('names its page-row sums rows_sum, never whole-property totals, and they agree with the plain answer', async () => {
    const result = await ask({ ...OLD, dimensions: ['page'], compare: 'previous_period' });
    const out = result.structuredContent!;
    expect(out.totals).toBeUndefined();
    expect(out.compare.previous_totals).toBeUndefined();
    expect(out.compare.previous_rows_sum).toBeDefined();
    expect(text(result)).toMatch(/^Sums of every page row \(rows_sum: Google counts each page of a search by page/m);
    expect(text(result)).not.toMatch(/Totals \(whole-property/);
    const plain = (await ask({ ...OLD, dimensions: ['page'], row_limit: 25000 })).structuredContent!;
    expect(out.rows_sum).toEqual(plain.rows_sum);
    const byQuery = await ask({ ...OLD, dimensions: ['query'], compare: 'previous_period' });
    expect(byQuery.structuredContent!.totals).toBeDefined();
    expect(text(byQuery)).toContain('Totals (whole-property queries, not row sums)');
  });
});
