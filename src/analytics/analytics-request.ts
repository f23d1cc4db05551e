// What a query_search_analytics call asks for, as the server resolved it, and
// Google's limits that shape how it is asked.

import type { BrandSplit } from './brand-split.js';
import type { DateRange, Period } from './pacific-period.js';

/** At most this many rows in one searchanalytics.query answer (rowLimit). */
export const PAGE_ROWS = 25_000;
/** "50,000 rows per day per search type per property": no page past it, whatever startRow says. */
export const ROW_CAP = 50_000;
/**
 * Search Analytics requests one call keeps in flight. Load is measured per
 * property over 10 minutes and a day and rises with each query's cost, not
 * with parallelism; two lanes let a light side query (freshness, property
 * totals) run beside the heavy one without bursting a property's 1 200/minute.
 */
export const ANALYTICS_CONCURRENCY = 2;

export interface AnalyticsFilter {
  readonly dimension: string;
  readonly operator: string;
  readonly expression: string;
}

/** What was asked, as the server resolved it. */
export interface ReportRequest {
  readonly site: string;
  readonly range: DateRange;
  readonly period?: Period;
  /** Today's Pacific date, to tell which days cannot be final yet. */
  readonly today: string;
  readonly dimensions: readonly string[];
  readonly type: string;
  readonly dataState: string;
  /** Set when the server chose the data state itself, saying why (period today without data_state). */
  readonly dataStateNote?: string;
  /** Set when the server chose the window itself, saying how (the hour dimension without dates). */
  readonly windowNote?: string;
  readonly aggregationType?: string;
  /** The user's filters, then the branded split's query filter when one was asked for. */
  readonly filters: readonly AnalyticsFilter[];
  readonly brand?: BrandSplit;
  readonly rowLimit: number;
  readonly startRow: number;
}

/** Whether the request groups or filters by a dimension. */
export function involves(request: Pick<ReportRequest, 'dimensions' | 'filters'>, dimension: string): boolean {
  return request.dimensions.includes(dimension) || request.filters.some((f) => f.dimension === dimension);
}
