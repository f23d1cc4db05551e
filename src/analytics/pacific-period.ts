// Search Console counts days in America/Los_Angeles, so a relative period is
// resolved against the Pacific calendar date of "now" — never the UTC date or
// the server's local one.

const ZONE = 'America/Los_Angeles';

export const PERIODS = [
  'today',
  'yesterday',
  'last7days',
  'last28days',
  'last3months',
  'last6months',
  'last12months',
  'last16months',
] as const;
export type Period = (typeof PERIODS)[number];

export interface DateRange {
  readonly start: string;
  readonly end: string;
}

// Made on first use: the first Intl formatter of a process loads ICU (~20 ms), which start-up does without.
let dateFormatter: Intl.DateTimeFormat | undefined;

/** The calendar date (YYYY-MM-DD) in Pacific Time at this instant, DST included. */
export function pacificDate(instant: Date): string {
  const parts: Record<string, string> = {};
  dateFormatter ??= new Intl.DateTimeFormat('en-CA', { timeZone: ZONE, year: 'numeric', month: '2-digit', day: '2-digit' });
  for (const part of dateFormatter.formatToParts(instant)) {
    parts[part.type] = part.value;
  }
  return `${parts.year}-${parts.month}-${parts.day}`;
}

/** A real calendar date in YYYY-MM-DD form (2026-02-30 is not). */
export function isCalendarDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) {
    return false;
  }
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))).toISOString().slice(0, 10) === value;
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Same day N months away, clamped to the month's last day (2026-03-31 − 1 month = 2026-02-28). */
export function addMonths(date: string, months: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d.toISOString().slice(0, 10);
}

export function daysInRange(range: DateRange): number {
  return Math.round((Date.parse(`${range.end}T00:00:00Z`) - Date.parse(`${range.start}T00:00:00Z`)) / 86_400_000) + 1;
}

/**
 * The Pacific dates a period covers. `today` and `yesterday` are single days;
 * `lastNdays` is the N whole days ending yesterday (today is never complete);
 * `lastNmonths` runs from the same day N months before today to yesterday.
 */
export function resolvePeriod(period: Period, now: Date): DateRange {
  const today = pacificDate(now);
  const yesterday = addDays(today, -1);
  switch (period) {
    case 'today':
      return { start: today, end: today };
    case 'yesterday':
      return { start: yesterday, end: yesterday };
    case 'last7days':
      return { start: addDays(today, -7), end: yesterday };
    case 'last28days':
      return { start: addDays(today, -28), end: yesterday };
    default: {
      const months = Number(/^last(\d+)months$/.exec(period)![1]);
      return { start: addMonths(today, -months), end: yesterday };
    }
  }
}
