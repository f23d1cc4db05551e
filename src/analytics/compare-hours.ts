// compare with the hour dimension (PRODUCT.md §5e): both windows within the
// ~10 days Google keeps hourly data, rows joined on the wall-clock hour
// shifted by the windows' offset (14:00 on day i matches 14:00 on day i of
// the other window, whatever the UTC offset), and the hours Google is still
// collecting left out of both windows, so that hour i still matches hour i.
// Totals are whole-property figures per hour (a query grouped by hour alone),
// summed over the hours compared — a date-range totals query could not leave
// out half a day.

import { runBounded } from '../common/bounded-pool.js';
import { NOTHING_CHANGED, NOTHING_SENT } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { COMPARE_FETCH_ROWS, type CompareInput } from './analytics-compare.js';
import { dates } from './analytics-format.js';
import { computeTotals } from './analytics-metrics.js';
import { ANALYTICS_CONCURRENCY, type ReportRequest } from './analytics-request.js';
import type { AnalyticsResult, AnalyticsRow, AnalyticsService } from './analytics.service.js';
import { type CompareArg, type LeftOut, pairWindows } from './compare-windows.js';
import { probeFreshness } from './data-truth.js';
import { HOURLY_DAYS, hourIndex, hourlyStart, pacificHourKey } from './hour-keys.js';
import { addDays, type DateRange, daysInRange } from './pacific-period.js';

export async function compareHours(
  analytics: AnalyticsService,
  request: ReportRequest,
  compare: CompareArg,
  signal: AbortSignal,
): Promise<CompareInput> {
  const pair = pairWindows(request.range, compare);
  const from = hourlyStart(request.today);
  for (const window of ['previous', 'current'] as const) {
    if (pair[window].start < from) {
      const n = daysInRange(pair.current);
      const weekBefore = { start: addDays(pair.current.start, -7), end: addDays(pair.current.end, -7) };
      const hint =
        weekBefore.start >= from && n <= 7
          ? ` For the same hours a week earlier, give compare {"start_date":"${weekBefore.start}","end_date":"${weekBefore.end}"}.`
          : ` Both windows must start on ${from} or later.`;
      throw new UserFacingError(
        `Google keeps hourly data for about the last ${HOURLY_DAYS} days (${from} to ${request.today}, Pacific dates), and the ${window} window ${dates(pair[window])} starts before that${compare === 'previous_year' ? ' (previous_year reaches 52 weeks back)' : ''}. ${NOTHING_SENT}${hint}`,
      );
    }
  }
  const current = { ...request, range: pair.current, rowLimit: COMPARE_FETCH_ROWS, startRow: 0 };
  const previous = { ...current, range: pair.previous };
  // Grouped by hour alone, the rows are the whole property's hours; otherwise the property's hours are asked for beside them.
  const rowsAreTotals = request.dimensions.length === 1;
  const byHour = (r: ReportRequest): ReportRequest => ({
    ...r,
    dimensions: ['hour'],
    aggregationType: request.dimensions.includes('page') ? 'byPage' : request.aggregationType,
  });
  const jobs = [() => analytics.query(current), () => analytics.query(previous)];
  if (!rowsAreTotals) {
    jobs.push(
      () => analytics.query(byHour(current)),
      () => analytics.query(byHour(previous)),
    );
  }
  // Which days are final is asked beside the rows (one date-grouped query over the last week), as for a plain answer:
  // hourly data is partial by nature, so it changes no window, but the data truth says it.
  const span = { start: [pair.current.start, pair.previous.start].sort()[0], end: [pair.current.end, pair.previous.end].sort()[1] };
  const [answers, days] = await Promise.all([allOrNothing(jobs, signal), probeFreshness(analytics, { ...request, range: span }, signal)]);
  const [cur, prev] = answers;
  const [curTotals, prevTotals] = rowsAreTotals ? [cur, prev] : answers.slice(2);

  const cut = earliestIncompleteHour(answers);
  const hours = daysInRange(pair.current) * 24;
  const cutAt = cut === undefined ? hours : Math.min(...[pair.current, pair.previous].map((w) => clamp(hourIndex(w, cut) ?? hours, hours)));
  if (cutAt === 0) {
    throw new UserFacingError(
      `Nothing is left to compare: Google is still collecting every hour of ${dates(pair.current)} or of ${dates(pair.previous)} (first_incomplete_hour ${cut}). ` +
        `The rows were asked for; ${NOTHING_CHANGED} Choose windows that end before ${cut}.`,
    );
  }
  const hourAt = request.dimensions.indexOf('hour');
  const kept = (answer: AnalyticsResult, window: DateRange, at: number): AnalyticsResult => ({
    ...answer,
    rows: answer.rows.filter((row: AnalyticsRow) => (hourIndex(window, row.keys[at]) ?? 0) < cutAt),
  });
  return {
    request: { ...request, range: pair.current },
    pair,
    leftOut: cutAt < hours ? leftOutHours(pair, cutAt, cut!) : [],
    freshness: days.known ? { ...days, ...(cut ? { firstIncompleteHour: cut } : {}) } : days,
    current: { rows: kept(cur, pair.current, hourAt), totals: computeTotals(kept(curTotals, pair.current, 0).rows) },
    previous: { rows: kept(prev, pair.previous, hourAt), totals: computeTotals(kept(prevTotals, pair.previous, 0).rows) },
  };
}

function clamp(index: number, hours: number): number {
  return Math.max(0, Math.min(index, hours));
}

/** The earliest firstIncompleteHour of the answers, compared as instants (keys carry their offset). */
function earliestIncompleteHour(answers: readonly AnalyticsResult[]): string | undefined {
  const hours = answers.map((a) => a.firstIncompleteHour).filter((h): h is string => !!h && !Number.isNaN(Date.parse(h)));
  return hours.sort((a, b) => Date.parse(a) - Date.parse(b))[0];
}

/** The hours from `cutAt` on, in each window: not final where the cut falls, left out of the other to keep hour i with hour i. */
function leftOutHours(pair: { current: DateRange; previous: DateRange }, cutAt: number, cut: string): LeftOut[] {
  return (['current', 'previous'] as const).map((window) => {
    const range = pair[window];
    const day = addDays(range.start, Math.floor(cutAt / 24));
    return {
      window,
      start_date: day,
      end_date: range.end,
      from_hour: pacificHourKey(day, cutAt % 24),
      reason: hourIndex(range, cut) === cutAt ? ('not_final' as const) : ('not_in_other_window' as const),
    };
  });
}

/** Runs a comparison's queries two at a time; any failure fails the comparison (half of one is not an answer). */
export async function allOrNothing(jobs: Array<() => Promise<AnalyticsResult>>, signal: AbortSignal): Promise<AnalyticsResult[]> {
  const outcomes = await runBounded(jobs, ANALYTICS_CONCURRENCY, (job) => (signal.aborted ? Promise.reject(cancelled()) : job()), {
    stopOn: () => true,
  });
  const failed = outcomes.find((o) => o.state === 'failed');
  if (failed && failed.state === 'failed') {
    throw failed.error;
  }
  return outcomes.map((o) => (o.state === 'done' ? o.value : undefined)) as AnalyticsResult[];
}

function cancelled(): UserFacingError {
  return new UserFacingError(`The comparison was cancelled; no further requests were sent. ${NOTHING_CHANGED}`);
}
