// Search Console reports days and hours in America/Los_Angeles and resets
// daily quotas at Pacific midnight, so every calendar computation goes through here.

const ZONE = 'America/Los_Angeles';

const partsFormatter = new Intl.DateTimeFormat('en-US', {
  timeZone: ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export interface PacificParts {
  date: string; // YYYY-MM-DD
  hour: number;
  minute: number;
  offsetMinutes: number; // e.g. -420 for PDT
}

export function pacificParts(instant: Date): PacificParts {
  const p: Record<string, string> = {};
  for (const part of partsFormatter.formatToParts(instant)) {
    p[part.type] = part.value;
  }
  const date = `${p.year}-${p.month}-${p.day}`;
  const hour = Number(p.hour);
  const minute = Number(p.minute);
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), hour, minute, Number(p.second));
  const offsetMinutes = Math.round((asUtc - Math.floor(instant.getTime() / 1000) * 1000) / 60000);
  return { date, hour, minute, offsetMinutes };
}

export function pacificDate(instant: Date): string {
  return pacificParts(instant).date;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date in YYYY-MM-DD form (rejects 2025-02-30). */
export function isValidDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) {
    return false;
  }
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === value;
}

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function addMonths(date: string, months: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, lastDay));
  return d.toISOString().slice(0, 10);
}

export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86400000);
}

function formatOffset(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * The hour key Google emits for the `hour` dimension, e.g.
 * 2025-04-07T05:00:00-07:00. Offsets are whole hours in this zone, so trying
 * both standard and daylight offsets finds the instant.
 */
export function pacificHourKey(date: string, hour: number): string {
  const base = Date.parse(`${date}T${String(hour).padStart(2, '0')}:00:00Z`);
  for (const offsetHours of [7, 8]) {
    const instant = new Date(base + offsetHours * 3600000);
    const parts = pacificParts(instant);
    if (parts.date === date && parts.hour === hour) {
      return `${date}T${String(hour).padStart(2, '0')}:00:00${formatOffset(parts.offsetMinutes)}`;
    }
  }
  // The skipped hour of the spring-forward night: label it with standard time.
  return `${date}T${String(hour).padStart(2, '0')}:00:00-08:00`;
}
