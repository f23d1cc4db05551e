// The two windows of a comparison, in Pacific calendar dates. Day i of the
// current window is compared with day i of the previous one, so both always
// have the same length; a day that cannot be compared (still being collected,
// or older than Google keeps) is left out of both windows together.
//
// All arithmetic is on calendar dates (UTC midnights standing for Pacific
// days), so a daylight-saving switch in either window moves nothing.

import { NOTHING_SENT } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { addDays, addMonths, type DateRange, daysInRange, isCalendarDate } from './pacific-period.js';

export type CompareArg = 'previous_period' | 'previous_year' | { start_date?: string; end_date?: string };
export type CompareMode = 'previous_period' | 'previous_year' | 'custom';

/** 52 weeks: the same weekdays a year earlier (a calendar year would shift them by one or two). */
export const YEAR_OFFSET_DAYS = 364;
/** Google keeps about 16 months of performance data. */
export const RETENTION_MONTHS = 16;

export interface WindowPair {
  readonly mode: CompareMode;
  readonly current: DateRange;
  readonly previous: DateRange;
  /** previous = current − offsetDays, day by day. */
  readonly offsetDays: number;
}

/**
 * Why a run of a window's days is left out: its own days are not final yet,
 * or older than Google keeps; or they are fine, but their counterparts in the
 * other window are left out for one of those reasons (day i matches day i).
 */
export type LeftOutReason = 'not_final' | 'outside_retention' | 'not_in_other_window';

export interface LeftOut {
  readonly window: 'current' | 'previous';
  readonly start_date: string;
  readonly end_date: string;
  /** compare by hour: the first hour left out (hours before it on start_date are kept). */
  readonly from_hour?: string;
  readonly reason: LeftOutReason;
}

export function daysBetween(from: string, to: string): number {
  return daysInRange({ start: from, end: to }) - 1;
}

/** The previous window as asked; refuses what would not compare like with like. */
export function pairWindows(current: DateRange, compare: CompareArg): WindowPair {
  if (compare === 'previous_period') {
    const n = daysInRange(current);
    return { mode: compare, current, previous: { start: addDays(current.start, -n), end: addDays(current.end, -n) }, offsetDays: n };
  }
  if (compare === 'previous_year') {
    return {
      mode: compare,
      current,
      previous: { start: addDays(current.start, -YEAR_OFFSET_DAYS), end: addDays(current.end, -YEAR_OFFSET_DAYS) },
      offsetDays: YEAR_OFFSET_DAYS,
    };
  }
  const { start_date: start, end_date: end } = compare;
  if (!start || !end) {
    throw new UserFacingError(
      `compare as a window needs both start_date and end_date (YYYY-MM-DD, Pacific Time, inclusive). ${NOTHING_SENT}`,
    );
  }
  for (const [name, value] of [
    ['compare.start_date', start],
    ['compare.end_date', end],
  ] as const) {
    if (!isCalendarDate(value)) {
      throw new UserFacingError(`${name} "${value}" is not a calendar date; use YYYY-MM-DD. ${NOTHING_SENT}`);
    }
  }
  if (end < start) {
    throw new UserFacingError(`compare.end_date ${end} is before compare.start_date ${start}. ${NOTHING_SENT}`);
  }
  const n = daysInRange(current);
  const m = daysInRange({ start, end });
  if (m !== n) {
    throw new UserFacingError(
      `The compare window ${start} to ${end} has ${m} days and the current window ${current.start} to ${current.end} has ${n}: sums over windows of different lengths do not compare. ${NOTHING_SENT} ` +
        `Give ${n} days, e.g. {"start_date":"${addDays(end, -(n - 1))}","end_date":"${end}"} or {"start_date":"${start}","end_date":"${addDays(start, n - 1)}"}.`,
    );
  }
  if (start <= current.end && end >= current.start) {
    throw new UserFacingError(
      `The compare window ${start} to ${end} overlaps the current window ${current.start} to ${current.end}, so the same days would count on both sides. ${NOTHING_SENT} Pick a window that shares no day with it.`,
    );
  }
  return { mode: 'custom', current, previous: { start, end }, offsetDays: daysBetween(start, current.start) };
}

/**
 * Keeps the days i where both windows' day i are comparable: on or after
 * `from` (Google's retention) and before `until` (the first incomplete day).
 * The kept days are one run, since both bounds cut a window at one end.
 */
export function trimPair(pair: WindowPair, from: string, until: string): { pair: WindowPair; leftOut: LeftOut[] } | undefined {
  const n = daysInRange(pair.current);
  const ok = (i: number) => [addDays(pair.current.start, i), addDays(pair.previous.start, i)].every((d) => d >= from && d < until);
  let first = 0;
  while (first < n && !ok(first)) {
    first++;
  }
  if (first === n) {
    return undefined;
  }
  let last = n - 1;
  while (!ok(last)) {
    last--;
  }
  const leftOut: LeftOut[] = [];
  for (const window of ['current', 'previous'] as const) {
    const start = pair[window].start;
    const reason = (i: number): LeftOutReason => {
      const day = addDays(start, i);
      return day < from ? 'outside_retention' : day >= until ? 'not_final' : 'not_in_other_window';
    };
    // Consecutive left-out days with the same reason make one run.
    for (const [lo, hi] of [
      [0, first - 1],
      [last + 1, n - 1],
    ]) {
      for (let i = lo; i <= hi;) {
        let j = i;
        while (j < hi && reason(j + 1) === reason(i)) {
          j++;
        }
        leftOut.push({ window, start_date: addDays(start, i), end_date: addDays(start, j), reason: reason(i) });
        i = j + 1;
      }
    }
  }
  const cut = (range: DateRange): DateRange => ({ start: addDays(range.start, first), end: addDays(range.start, last) });
  return { pair: { ...pair, current: cut(pair.current), previous: cut(pair.previous) }, leftOut };
}

/** The first day Google still keeps, for a given Pacific today. */
export function retentionStart(today: string): string {
  return addMonths(today, -RETENTION_MONTHS);
}

/** The window that reaches further into the present: where incomplete days can be. */
export function laterWindow(pair: WindowPair): DateRange {
  return pair.previous.end > pair.current.end ? pair.previous : pair.current;
}
