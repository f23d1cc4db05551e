import type { searchconsole_v1 } from '@googleapis/searchconsole';
import { Injectable } from '@nestjs/common';
import { GoogleApiError } from '../google/google-error.js';
import { GoogleService } from '../google/google.service.js';
import { type PoolOutcome, runBounded } from '../common/bounded-pool.js';

export type UrlInspectionResult = searchconsole_v1.Schema$UrlInspectionResult;

/**
 * Inspections in flight at once for one batch. Google allows 600 per minute per
 * property; 10 in flight at ~1 s each stays far below that, and 20 URLs take
 * about two inspections' time instead of twenty.
 */
export const INSPECTION_CONCURRENCY = 10;

/** urlInspection.index.inspect. No MCP here. */
@Injectable()
export class InspectionService {
  constructor(private readonly google: GoogleService) {}

  /** A read-only POST, so it is retried like a GET. */
  async inspect(property: string, url: string, languageCode?: string): Promise<UrlInspectionResult> {
    const data = await this.google.call({ method: 'urlInspection.index.inspect', action: `inspect ${url} in ${property}`, property }, (c) =>
      c.searchconsole.urlInspection.index.inspect({
        requestBody: { inspectionUrl: url, siteUrl: property, ...(languageCode ? { languageCode } : {}) },
      }),
    );
    // GoogleService has checked that the answer carries an inspectionResult.
    return data.inspectionResult!;
  }

  /**
   * Inspects several URLs of one property with bounded concurrency. A daily
   * quota answer stops new inspections (every later one would fail the same
   * way until midnight Pacific Time); any other failure belongs to its URL.
   */
  inspectMany(property: string, urls: readonly string[], languageCode?: string, concurrency = INSPECTION_CONCURRENCY): Promise<PoolOutcome<UrlInspectionResult>[]> {
    return runBounded(urls, concurrency, (url) => this.inspect(property, url, languageCode), { stopOn: isDailyQuota });
  }
}

export function isDailyQuota(error: unknown): boolean {
  return error instanceof GoogleApiError && error.quotaWindow === 'day';
}
