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

export function roundTotals(totals: Totals): Totals {
  return { clicks: totals.clicks, impressions: totals.impressions, ctr: round(totals.ctr, 6), position: round(totals.position, 2) };
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
    ctr_points: round((current.ctr - previous.ctr) * 100, 4),
    position: round(current.position - previous.position, 2),
  };
}

/** Relative change in percent, one decimal; undefined when there was nothing before. */
export function percentChange(current: number, previous: number): number | undefined {
  return previous ? round(((current - previous) / previous) * 100, 1) : undefined;
}
