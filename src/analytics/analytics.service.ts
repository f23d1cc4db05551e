import type { searchconsole_v1 } from '@googleapis/searchconsole';
import { Injectable } from '@nestjs/common';
import { GoogleService } from '../google/google.service.js';
import { PAGE_ROWS, type ReportRequest } from './analytics-request.js';
import { addDays, type DateRange } from './pacific-period.js';

export type SearchAnalyticsRequest = searchconsole_v1.Schema$SearchAnalyticsQueryRequest;

export interface AnalyticsRow {
  readonly keys: string[];
  readonly clicks: number;
  readonly impressions: number;
  readonly ctr: number;
  readonly position: number;
}

export interface AnalyticsResult {
  readonly rows: AnalyticsRow[];
  readonly aggregationType?: string;
  readonly firstIncompleteDate?: string;
  readonly firstIncompleteHour?: string;
}

/** How many of a window's last days the freshness question looks at: Google finalises within 2–3 days. */
export const FRESHNESS_DAYS = 7;

/** searchanalytics.query. No MCP here. */
@Injectable()
export class AnalyticsService {
  constructor(private readonly google: GoogleService) {}

  /** A read-only POST, so it is retried like a GET. An empty answer (`{}`) is zero rows, not an error. */
  async query(request: ReportRequest): Promise<AnalyticsResult> {
    return this.send(request.site, queryBody(request), `query the search performance of ${request.site}`);
  }

  /** Any body, for the side questions below and the pages of an export. */
  async send(property: string, body: SearchAnalyticsRequest, action: string): Promise<AnalyticsResult> {
    const data = await this.google.call({ method: 'searchanalytics.query', action, property }, (c) =>
      c.searchconsole.searchanalytics.query({ siteUrl: property, requestBody: body }),
    );
    return readResponse(data);
  }

  /** The whole-property figures of the request's window and filters: one row without keys. */
  async propertyTotals(request: ReportRequest): Promise<AnalyticsResult> {
    return this.send(request.site, totalsBody(request), `query the whole-property totals of ${request.site}`);
  }

  /** Which of the window's last days Google is still collecting (firstIncompleteDate), whatever the request's data state. */
  async freshness(request: ReportRequest): Promise<AnalyticsResult> {
    return this.send(request.site, freshnessBody(request), `check which days of ${request.site} are final`);
  }
}

/**
 * Google's documentation and wire use snake_case metadata keys while the
 * generated typings say camelCase; read both.
 */
export function readResponse(data: searchconsole_v1.Schema$SearchAnalyticsQueryResponse): AnalyticsResult {
  const metadata = (data.metadata ?? {}) as Record<string, string | null | undefined>;
  const firstIncompleteDate = metadata.first_incomplete_date ?? metadata.firstIncompleteDate ?? undefined;
  const firstIncompleteHour = metadata.first_incomplete_hour ?? metadata.firstIncompleteHour ?? undefined;
  return {
    rows: (data.rows ?? []).map((row) => ({
      keys: row.keys ?? [],
      clicks: row.clicks ?? 0,
      impressions: row.impressions ?? 0,
      ctr: row.ctr ?? 0,
      position: row.position ?? 0,
    })),
    ...(data.responseAggregationType ? { aggregationType: data.responseAggregationType } : {}),
    ...(firstIncompleteDate ? { firstIncompleteDate } : {}),
    ...(firstIncompleteHour ? { firstIncompleteHour } : {}),
  };
}

/** The searchanalytics.query body for a resolved request, in the discovery document's field names. */
export function queryBody(request: ReportRequest): SearchAnalyticsRequest {
  return {
    startDate: request.range.start,
    endDate: request.range.end,
    dimensions: [...request.dimensions],
    type: request.type,
    dataState: request.dataState,
    ...(request.aggregationType ? { aggregationType: request.aggregationType } : {}),
    ...(request.filters.length ? { dimensionFilterGroups: [{ groupType: 'and', filters: request.filters.map((f) => ({ ...f })) }] } : {}),
    rowLimit: request.rowLimit,
    startRow: request.startRow,
  };
}

/**
 * Same window, type, state and filters, no dimensions. Rows grouped by page
 * count a search once per page, so their property total is asked by page too;
 * otherwise the aggregation is the request's own.
 */
export function totalsBody(request: ReportRequest): SearchAnalyticsRequest {
  const aggregationType = request.dimensions.includes('page') ? 'byPage' : request.aggregationType;
  const { dimensions: _all, aggregationType: _asked, rowLimit: _limit, startRow: _start, ...rest } = queryBody(request);
  return { ...rest, dimensions: [], ...(aggregationType ? { aggregationType } : {}), rowLimit: 1, startRow: 0 };
}

/**
 * Google reports firstIncompleteDate only for data_state all grouped by date,
 * so freshness is asked that way over the window's last days: the cheapest
 * query there is (no page, no query, a week at most), whatever else was asked.
 */
export function freshnessBody(request: ReportRequest): SearchAnalyticsRequest {
  const range = freshnessRange(request.range);
  return {
    startDate: range.start,
    endDate: range.end,
    dimensions: ['date'],
    type: request.type,
    dataState: 'all',
    rowLimit: Math.min(PAGE_ROWS, FRESHNESS_DAYS),
  };
}

export function freshnessRange(range: DateRange): DateRange {
  const from = addDays(range.end, -(FRESHNESS_DAYS - 1));
  return { start: from > range.start ? from : range.start, end: range.end };
}
