// Google's hour keys (dimension HOUR): ISO datetimes in America/Los_Angeles
// with the offset in force, e.g. 2026-12-01T14:00:00-08:00 (PST) or
// 2026-07-14T09:00:00-07:00 (PDT). Keys are kept exactly as Google sent them;
// these helpers only read them, and make the key of the same wall-clock hour
// on another day (compare per hour).

import { addDays, type DateRange, daysInRange } from './pacific-period.js';

/** How many Pacific days of hourly data Google keeps, today included ("up to 10 days", Search Central blog, 2025-04-09). */
export const HOURLY_DAYS = 10;

export interface HourKey {
  readonly date: string;
  /** Wall-clock hour 0–23. */
  readonly hour: number;
  /** "-08:00" or "-07:00". */
  readonly offset: string;
}

const KEY = /^(\d{4}-\d{2}-\d{2})T(\d{2}):00:00([+-]\d{2}:\d{2})$/;

export function parseHourKey(key: string): HourKey | undefined {
  const m = KEY.exec(key);
  return m ? { date: m[1], hour: Number(m[2]), offset: m[3] } : undefined;
}

/** The first day Google still has hourly data for, given today's Pacific date. */
export function hourlyStart(today: string): string {
  return addDays(today, -(HOURLY_DAYS - 1));
}

// Made on first use: the first Intl formatter of a process loads ICU, which start-up does without.
let offsetFormatter: Intl.DateTimeFormat | undefined;

/** The UTC offset of America/Los_Angeles at an instant, as "-08:00" / "-07:00". */
function offsetAt(instant: number): string {
  offsetFormatter ??= new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', timeZoneName: 'longOffset' });
  const name = offsetFormatter.formatToParts(new Date(instant)).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT-08:00';
  return name === 'GMT' ? '+00:00' : name.slice(3);
}

/**
 * The key Google gives a wall-clock hour: the offset in force at that hour
 * (standard or daylight time). The first 01:00 of the night clocks go back is
 * PDT, the second PST (`second`); the 02:00 that does not exist the night they
 * go forward gets standard time, as the emulator labels it too.
 */
export function pacificHourKey(date: string, hour: number, second = false): string {
  const wall = Date.parse(`${date}T${String(hour).padStart(2, '0')}:00:00Z`);
  const fits = ['-07:00', '-08:00'].filter((offset) => {
    const instant = wall - Number(offset.slice(0, 3)) * 3_600_000;
    return offsetAt(instant) === offset;
  });
  const offset = fits.length === 2 ? (second ? '-08:00' : '-07:00') : (fits[0] ?? '-08:00');
  return `${date}T${String(hour).padStart(2, '0')}:00:00${offset}`;
}

/** Whether this key is the repeated (second, PST) 01:00 of the night clocks go back. */
export function isSecondHour(key: HourKey): boolean {
  return key.hour === 1 && key.offset === '-08:00' && pacificHourKey(key.date, 1).endsWith('-07:00');
}

/** The same wall-clock hour `days` later (earlier when negative), with the offset in force there. */
export function shiftHourKey(key: string, days: number): string {
  const parsed = parseHourKey(key);
  if (!parsed) {
    return key;
  }
  return pacificHourKey(addDays(parsed.date, days), parsed.hour, isSecondHour(parsed));
}

/** Which hour of a window a key is: day index × 24 + wall-clock hour (the two 01:00 of a night clocks go back share one). */
export function hourIndex(window: DateRange, key: string): number | undefined {
  const parsed = parseHourKey(key);
  return parsed ? (daysInRange({ start: window.start, end: parsed.date }) - 1) * 24 + parsed.hour : undefined;
}

/** The offsets an hourly window's keys use, in order: "-08:00 PST", "-07:00 PDT". */
export function windowOffsets(range: DateRange): string[] {
  const offsets = new Set<string>();
  for (let d = range.start; d <= range.end; d = addDays(d, 1)) {
    offsets.add(pacificHourKey(d, 0).slice(-6));
    offsets.add(pacificHourKey(d, 23).slice(-6));
  }
  return [...offsets].map((o) => `${o} ${o === '-07:00' ? 'PDT' : 'PST'}`);
}

/** The time-zone words for an hourly window: which offsets its keys carry. */
export function zoneWords(range: DateRange): string {
  const said = windowOffsets(range);
  return `hours in America/Los_Angeles, keyed with Google's UTC offset ${said.join(' then ')}${said.length > 1 ? ' (the clocks change in this window)' : ''}`;
}
