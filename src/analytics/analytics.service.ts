import type { searchconsole_v1 } from '@googleapis/searchconsole';
import { Injectable } from '@nestjs/common';
import { GoogleService } from '../google/google.service.js';
import type { ReportRequest } from './analytics-report.js';

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

/** searchanalytics.query. No MCP here. */
@Injectable()
export class AnalyticsService {
  constructor(private readonly google: GoogleService) {}

  /** A read-only POST, so it is retried like a GET. An empty answer (`{}`) is zero rows, not an error. */
  async query(request: ReportRequest, filterType = 'and'): Promise<AnalyticsResult> {
    const property = request.site;
    const data = await this.google.call({ method: 'searchanalytics.query', action: `query the search performance of ${property}`, property }, (c) =>
      c.searchconsole.searchanalytics.query({ siteUrl: property, requestBody: queryBody(request, filterType) }),
    );
    return readResponse(data);
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
export function queryBody(request: ReportRequest, filterType: string): SearchAnalyticsRequest {
  return {
    startDate: request.range.start,
    endDate: request.range.end,
    dimensions: [...request.dimensions],
    type: request.type,
    dataState: request.dataState,
    ...(request.aggregationType ? { aggregationType: request.aggregationType } : {}),
    ...(request.filters.length ? { dimensionFilterGroups: [{ groupType: filterType, filters: request.filters.map((f) => ({ ...f })) }] } : {}),
    rowLimit: request.rowLimit,
    startRow: request.startRow,
  };
}
