// POST /webmasters/v3/sites/{siteUrl}/searchAnalytics/query, with Search
// Analytics' quotas: queries per minute per site and per user, and load per
// property in 10-minute chunks and per day. Google answers every one of them
// with the same "quota exceeded" body, so the emulator does too.

import { GoogleApiError } from './emulator-errors.js';
import { objectBody, SCOPES, type RouteContext, type RouteDef } from './emulator-routing.js';
import { legacyRateLimitBody } from './emulator-usage-limits.js';
import { daysBetween } from './pacific-time.js';
import { runAnalyticsQuery } from './search-analytics-query.js';
import { parseAnalyticsQuery, type AnalyticsQuery } from './search-analytics-request.js';
import { requireReadable } from './search-console.routes.js';

const SERVICE = 'searchconsole.googleapis.com';

/**
 * The emulator's own load units: days in range, × 2 when grouped or filtered
 * by page or by query, × 5 by both ("page AND query string are the most expensive").
 */
function analyticsLoad(q: AnalyticsQuery): number {
  const involves = (d: 'page' | 'query') => q.dimensions.includes(d) || q.filters.some((f) => f.dimension === d);
  const weight = involves('page') && involves('query') ? 5 : involves('page') || involves('query') ? 2 : 1;
  return (daysBetween(q.startDate, q.endDate) + 1) * weight;
}

function takeAnalyticsQuota(ctx: RouteContext, siteUrl: string, q: AnalyticsQuery): void {
  const load = analyticsLoad(q);
  const exhausted = ctx.quotas.take(
    [
      { key: `analytics|${siteUrl}`, limit: ctx.limits.analyticsPerMinutePerSite, window: 'minute' },
      { key: `analytics-user|${ctx.principal}`, limit: ctx.limits.analyticsPerMinutePerUser, window: 'minute' },
      { key: `analytics-load-short|${siteUrl}`, limit: ctx.limits.analyticsLoadShortTerm, window: 'tenMinutes', cost: load },
      { key: `analytics-load-long|${siteUrl}`, limit: ctx.limits.analyticsLoadLongTerm, window: 'day', cost: load },
    ],
    ctx.now,
  );
  if (exhausted) {
    throw new GoogleApiError(429, legacyRateLimitBody());
  }
}

export const searchAnalyticsRoutes: RouteDef[] = [
  {
    name: 'searchanalytics.query',
    method: 'POST',
    path: '/webmasters/v3/sites/{siteUrl}/searchAnalytics/query',
    style: 'classic',
    service: SERVICE,
    rpcMethod: 'google.searchconsole.v1.SearchAnalyticsService.Query',
    scopes: [SCOPES.webmasters, SCOPES.webmastersReadonly],
    handle(ctx) {
      const siteUrl = ctx.params.siteUrl;
      requireReadable(ctx, siteUrl);
      const query = parseAnalyticsQuery(objectBody(ctx.body, 'classic'));
      takeAnalyticsQuota(ctx, siteUrl, query);
      return { status: 200, body: runAnalyticsQuery(query, siteUrl, ctx.analytics, ctx.now) };
    },
  },
];
