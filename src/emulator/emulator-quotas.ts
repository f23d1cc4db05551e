// Quota counters in minute and Pacific-day buckets. A counter whose bucket has
// passed starts again at zero, so memory stays bounded by the number of keys.

import { pacificDate } from './pacific-time.js';

export type QuotaWindow = 'minute' | 'day';

export interface QuotaCheck {
  /** Counter identity, e.g. 'inspection-day|https://www.example.com/'. */
  key: string;
  limit: number;
  window: QuotaWindow;
}

export class QuotaTracker {
  private readonly counters = new Map<string, { bucket: string; count: number }>();

  private bucket(window: QuotaWindow, now: Date): string {
    return window === 'minute' ? String(Math.floor(now.getTime() / 60000)) : pacificDate(now);
  }

  /**
   * Counts one request against every check, or none when any is exhausted
   * (a refused request costs nothing). Returns the exhausted check.
   */
  take(checks: QuotaCheck[], now: Date): QuotaCheck | undefined {
    const current = checks.map((c) => {
      const bucket = this.bucket(c.window, now);
      const entry = this.counters.get(c.key);
      return { check: c, bucket, count: entry && entry.bucket === bucket ? entry.count : 0 };
    });
    const exhausted = current.find((c) => c.count >= c.check.limit);
    if (exhausted) return exhausted.check;
    for (const c of current) this.counters.set(c.check.key, { bucket: c.bucket, count: c.count + 1 });
    return undefined;
  }

  clear(): void {
    this.counters.clear();
  }
}
