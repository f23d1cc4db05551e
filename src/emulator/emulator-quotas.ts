// Quota counters in second, minute, 10-minute and Pacific-day buckets. A
// counter whose bucket has passed starts again at zero, so memory stays
// bounded by the number of keys.

import { pacificDate } from './pacific-time.js';

export type QuotaWindow = 'second' | 'minute' | 'tenMinutes' | 'day';

export interface QuotaCheck {
  /** Counter identity, e.g. 'inspection-day|https://www.example.com/'. */
  key: string;
  limit: number;
  window: QuotaWindow;
  /** Units this request costs (default 1). */
  cost?: number;
}

const BUCKET_MS: Record<Exclude<QuotaWindow, 'day'>, number> = { second: 1000, minute: 60000, tenMinutes: 600000 };

export class QuotaTracker {
  private readonly counters = new Map<string, { bucket: string; count: number }>();

  private bucket(window: QuotaWindow, now: Date): string {
    return window === 'day' ? pacificDate(now) : String(Math.floor(now.getTime() / BUCKET_MS[window]));
  }

  /**
   * Counts one request against every check, or none when any would be
   * exceeded (a refused request costs nothing). Returns the exhausted check.
   */
  take(checks: QuotaCheck[], now: Date): QuotaCheck | undefined {
    const current = checks.map((c) => {
      const bucket = this.bucket(c.window, now);
      const entry = this.counters.get(c.key);
      return { check: c, bucket, count: entry && entry.bucket === bucket ? entry.count : 0 };
    });
    const exhausted = current.find((c) => c.count + (c.check.cost ?? 1) > c.check.limit);
    if (exhausted) {
      return exhausted.check;
    }
    for (const c of current) {
      this.counters.set(c.check.key, { bucket: c.bucket, count: c.count + (c.check.cost ?? 1) });
    }
    return undefined;
  }

  clear(): void {
    this.counters.clear();
  }
}
