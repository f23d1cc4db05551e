import { round } from './analytics-format.js';

export interface Totals {
  readonly clicks: number;
  readonly impressions: number;
  readonly ctr: number;
  readonly position: number;
}

interface Measured {
  readonly clicks: number;
  readonly impressions: number;
  readonly position: number;
}

/**
 * Sums rows the way Search Console does: CTR is total clicks over total
 * impressions and position is weighted by impressions — the mean of per-row
 * CTRs or positions would let a row with 3 impressions count as much as one
 * with 30 000. Also usable as a running sum over pages of an export.
 */
export class TotalsSum {
  private clicks = 0;
  private impressions = 0;
  private weighted = 0;

  add(rows: Iterable<Measured>): this {
    for (const row of rows) {
      this.clicks += row.clicks;
      this.impressions += row.impressions;
      this.weighted += row.position * row.impressions;
    }
    return this;
  }

  get totals(): Totals {
    const { clicks, impressions } = this;
    return { clicks, impressions, ctr: impressions ? clicks / impressions : 0, position: impressions ? this.weighted / impressions : 0 };
  }
}

export function computeTotals(rows: Iterable<Measured>): Totals {
  return new TotalsSum().add(rows).totals;
}

/**
 * Metrics as structuredContent carries them: CTR to 4 decimals (the text's
 * 1.23%) and position to 1 (the text's 4.8). Google's 17-digit floats cost
 * tokens and say nothing more; the text and the structured half read alike.
 */
export function roundMetrics<T extends Totals>(m: T): Totals {
  return { clicks: m.clicks, impressions: m.impressions, ctr: round(m.ctr, 4), position: round(m.position, 1) };
}

/** Current minus previous. CTR in percentage points; position: negative is better (closer to the top). */
export interface Delta {
  readonly clicks: number;
  readonly impressions: number;
  readonly ctr_points: number;
  readonly position: number;
}

export function delta(current: Totals, previous: Totals): Delta {
  return {
    clicks: current.clicks - previous.clicks,
    impressions: current.impressions - previous.impressions,
    ctr_points: round((current.ctr - previous.ctr) * 100, 2),
    position: round(current.position - previous.position, 1),
  };
}

/** Relative change in percent, one decimal; undefined when there was nothing before. */
export function percentChange(current: number, previous: number): number | undefined {
  return previous ? round(((current - previous) / previous) * 100, 1) : undefined;
}
