// The windows Google counts quota in. Daily limits reset at midnight in
// America/Los_Angeles ("The quota will be reset at midnight Pacific Time",
// Google's dailyLimitExceeded text; the Indexing quota page). Google does not
// publish whether a per-minute limit is a calendar minute or a sliding one; the
// ledger counts calendar minutes (UTC), which clear within 60 seconds either way.

import { addDays, pacificDate } from '../analytics/pacific-period.js';

export interface QuotaWindow {
  /** Part of the counter's key: the epoch minute, or the Pacific date (YYYY-MM-DD). */
  readonly id: string;
  readonly endsAt: Date;
}

export function minuteWindow(now: Date): QuotaWindow {
  const minute = Math.floor(now.getTime() / 60_000);
  return { id: String(minute), endsAt: new Date((minute + 1) * 60_000) };
}

export function pacificDayWindow(now: Date): QuotaWindow {
  const today = pacificDate(now);
  return { id: today, endsAt: pacificMidnightStarting(addDays(today, 1)) };
}

// Made on first use: the first Intl formatter of a process loads ICU (~20 ms), which start-up does without.
let hourFormatter: Intl.DateTimeFormat | undefined;

/** The instant a Pacific calendar date begins: 07:00 UTC under daylight time, 08:00 UTC otherwise (DST changes at 02:00, never at midnight). */
export function pacificMidnightStarting(date: string): Date {
  const [y, m, d] = date.split('-').map(Number);
  const daylight = new Date(Date.UTC(y, m - 1, d, 7));
  hourFormatter ??= new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: 'numeric', hourCycle: 'h23' });
  return Number(hourFormatter.format(daylight)) === 0 ? daylight : new Date(Date.UTC(y, m - 1, d, 8));
}

/** "in about 7 hours", "in about 12 minutes": how long until an instant, for sentences. */
export function inAbout(until: Date, now: Date): string {
  const minutes = Math.max(1, Math.round((until.getTime() - now.getTime()) / 60_000));
  if (minutes < 90) {
    return `in about ${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  const hours = Math.round(minutes / 60);
  return `in about ${hours} hour${hours === 1 ? '' : 's'}`;
}
