// What the Performance view reads: the answer of query_search_analytics (its
// structuredContent, PRODUCT.md §7a and §5e) and the series of the app-only
// performance_daily_series, plus the arithmetic that places a day or an hour
// on the chart's x axis ("slots": day i of a window, or hour i = day × 24 + h).
import type * as z from 'zod';
import type { AnalyticsOutput, SeriesOutput } from '../../analytics/analytics.schemas.js';

// The tools' own output schemas (types only: erased from the bundle), so the view never drifts from what the tools send.
export type Analytics = z.output<typeof AnalyticsOutput>;
export type Series = z.output<typeof SeriesOutput>;
export type Metrics = NonNullable<Analytics['totals']>;
export type Metric = keyof Metrics;
export type Day = Series['current']['days'][number];
export type Row = Analytics['rows'][number];
/** One of Google's announced data anomalies overlapping the answer (data_truth.anomalies). */
export type Anomaly = NonNullable<Analytics['data_truth']['anomalies']>[number];
export type Overlap = NonNullable<Anomaly['overlap']>;
/** A team note (annotations[]): text as a person wrote it, never markup. */
export type Annotation = NonNullable<Analytics['annotations']>[number];
export interface Window {
  start_date: string;
  end_date: string;
}

const DAY_MS = 86_400_000;
const utc = (date: string) => Date.parse(`${date}T00:00:00Z`);

/** Whole days from a to b (b − a). */
export const daysBetween = (a: string, b: string) => Math.round((utc(b) - utc(a)) / DAY_MS);
export const addDays = (date: string, n: number) => new Date(utc(date) + n * DAY_MS).toISOString().slice(0, 10);

/** How a window is laid out on the x axis: one slot per day, or per wall-clock hour. */
export class Slots {
  readonly count: number;
  constructor(
    readonly window: Window,
    readonly hourly: boolean,
  ) {
    this.count = (daysBetween(window.start_date, window.end_date) + 1) * (hourly ? 24 : 1);
  }

  /** The slot of a date (hourly: its first hour) or of an hour key (Pacific wall clock: the two 01:00 of the night clocks go back share one). */
  of(key: string): number {
    const day = daysBetween(this.window.start_date, key.slice(0, 10));
    return this.hourly ? day * 24 + (key.length > 10 ? Number(key.slice(11, 13)) : 0) : day;
  }

  /** The Pacific date of a slot. */
  dateOf(slot: number): string {
    return addDays(this.window.start_date, this.hourly ? Math.floor(slot / 24) : slot);
  }

  /** "2026-12-04" or "2026-12-04 14:00". */
  label(slot: number): string {
    return this.hourly ? `${this.dateOf(slot)} ${String(slot % 24).padStart(2, '0')}:00` : this.dateOf(slot);
  }

  /** The slots a date range covers, clipped to the window; undefined when none. */
  span(start: string, end: string): { from: number; to: number } | undefined {
    const from = Math.max(0, this.of(start));
    const to = Math.min(this.count - 1, this.of(end) + (this.hourly ? 23 : 0));
    return from <= to ? { from, to } : undefined;
  }
}

/** Σ clicks and impressions; CTR = Σclicks / Σimpressions; position weighted by impressions (as Google averages it). */
export function sumMetrics(days: readonly Metrics[]): Metrics {
  const clicks = days.reduce((n, d) => n + d.clicks, 0);
  const impressions = days.reduce((n, d) => n + d.impressions, 0);
  const weighted = days.reduce((n, d) => n + d.position * d.impressions, 0);
  return {
    clicks,
    impressions,
    ctr: impressions ? Math.round((clicks / impressions) * 10_000) / 10_000 : 0,
    position: impressions ? Math.round((weighted / impressions) * 10) / 10 : 0,
  };
}

export const METRIC_LABEL: Record<Metric, string> = { clicks: 'clicks', impressions: 'impressions', ctr: 'CTR', position: 'position' };
