// searchanalytics.query: filtering, aggregation, freshness and paging over the
// synthetic SERP groups, with Google's response shape (rows omitted when empty,
// snake_case metadata only in the documented cases).

import { quotaExceeded } from './emulator-errors.js';
import { objectBody, SCOPES, type RouteContext, type RouteDef } from './emulator-routing.js';
import { addDays, addMonths, pacificHourKey, pacificParts } from './pacific-time.js';
import type { SearchAnalyticsData, SerpGroup } from './search-analytics-data.js';
import { parseAnalyticsQuery, type AnalyticsQuery, type Dimension, type Filter } from './search-analytics-request.js';
import { requireReadable } from './search-console.routes.js';

const SERVICE = 'searchconsole.googleapis.com';

export interface AnalyticsRow {
  keys?: string[];
  clicks: number;
  impressions: number;
  ctr: number;
  position: number;
}

export interface AnalyticsResponse {
  rows?: AnalyticsRow[];
  responseAggregationType: string;
  metadata?: { first_incomplete_date?: string; first_incomplete_hour?: string };
}

function groupValue(g: SerpGroup, dimension: Filter['dimension']): string | null {
  switch (dimension) {
    case 'query':
      return g.query;
    case 'country':
      return g.country;
    case 'device':
      return g.device;
    case 'searchAppearance':
      return g.appearance;
    default:
      return null;
  }
}

/** equals/notEquals are case-sensitive for page and query only; contains is always case-insensitive; regexes are RE2 (case-sensitive). */
function matches(filter: Filter, value: string | null): boolean {
  const v = value ?? '';
  const caseSensitive = filter.dimension === 'page' || filter.dimension === 'query';
  const eq = () => (caseSensitive ? v === filter.expression : v.toLowerCase() === filter.expression.toLowerCase());
  const has = () => v.toLowerCase().includes(filter.expression.toLowerCase());
  switch (filter.operator) {
    case 'equals':
      return value !== null && eq();
    case 'notEquals':
      return !eq();
    case 'contains':
      return value !== null && has();
    case 'notContains':
      return !has();
    case 'includingRegex':
      return value !== null && filter.regex!.test(v);
    case 'excludingRegex':
      return !filter.regex!.test(v);
  }
}

interface Bucket {
  keys: string[];
  clicks: number;
  impressions: number;
  positionSum: number;
}

function keyOf(dimension: Dimension, g: SerpGroup, page: string): string {
  switch (dimension) {
    case 'date':
      return g.date;
    case 'hour':
      return pacificHourKey(g.date, g.hour);
    case 'query':
      return g.query ?? '';
    case 'page':
      return page;
    case 'country':
      return g.country;
    case 'device':
      return g.device;
    case 'searchAppearance':
      return g.appearance ?? '';
  }
}

export function runAnalyticsQuery(q: AnalyticsQuery, property: string, data: SearchAnalyticsData, now: Date): AnalyticsResponse {
  const { date: today, hour: currentHour } = pacificParts(now);
  const pageInvolved = q.dimensions.includes('page') || q.filters.some((f) => f.dimension === 'page');
  const queryInvolved = q.dimensions.includes('query') || q.filters.some((f) => f.dimension === 'query');
  const newsSurface = q.type === 'discover' || q.type === 'googleNews';
  const byPage = q.aggregation === 'byPage' || (q.aggregation === 'auto' && (pageInvolved || newsSurface));
  const responseAggregationType = q.aggregation === 'byNewsShowcasePanel' ? 'byNewsShowcasePanel' : byPage ? 'byPage' : 'byProperty';
  const groupFilters = q.filters.filter((f) => f.dimension !== 'page');
  const pageFilters = q.filters.filter((f) => f.dimension === 'page');
  const byHour = q.dimensions.includes('hour');

  // Final data lags three days; fresh (all) data runs up to the current hour; hourly data covers ten days.
  const firstIncompleteDate = addDays(today, -2);
  let from = [q.startDate, addMonths(today, -16)].sort()[1];
  if (byHour) from = [from, addDays(today, -9)].sort()[1];
  const to = [q.endDate, q.dataState === 'final' ? addDays(today, -3) : today].sort()[0];

  const buckets = new Map<string, Bucket>();
  const add = (keys: string[], clicks: number, impressions: number, position: number) => {
    const id = JSON.stringify(keys);
    let b = buckets.get(id);
    if (!b) buckets.set(id, (b = { keys, clicks: 0, impressions: 0, positionSum: 0 }));
    b.clicks += clicks;
    b.impressions += impressions;
    b.positionSum += position * impressions;
  };

  for (let date = from; date <= to; date = addDays(date, 1)) {
    for (const g of data.day(property, q.type, date)) {
      if (date === today && g.hour >= currentHour) continue;
      if (queryInvolved && g.query === null) continue; // anonymized queries vanish once queries are involved
      if (!groupFilters.every((f) => matches(f, groupValue(g, f.dimension)))) continue;
      if (byPage) {
        for (const hit of g.pages) {
          if (!pageFilters.every((f) => matches(f, hit.page))) continue;
          add(q.dimensions.map((d) => keyOf(d, g, hit.page)), hit.clicks, hit.impressions, hit.position);
        }
      } else {
        // Each SERP impression counts once for the property, at its best position.
        const clicks = g.pages.reduce((s, h) => s + h.clicks, 0);
        add(q.dimensions.map((d) => keyOf(d, g, g.pages[0].page)), clicks, g.impressions, g.pages[0].position);
      }
    }
  }

  const timeIndex = q.dimensions.findIndex((d) => d === 'hour') >= 0 ? q.dimensions.indexOf('hour') : q.dimensions.indexOf('date');
  const sorted = [...buckets.values()].sort((a, b) => {
    if (timeIndex >= 0 && a.keys[timeIndex] !== b.keys[timeIndex]) return a.keys[timeIndex] < b.keys[timeIndex] ? -1 : 1;
    if (a.clicks !== b.clicks) return b.clicks - a.clicks;
    if (a.impressions !== b.impressions) return b.impressions - a.impressions;
    const ka = a.keys.join('\u0000');
    const kb = b.keys.join('\u0000');
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const rows: AnalyticsRow[] = sorted.slice(q.startRow, q.startRow + q.rowLimit).map((b) => ({
    ...(q.dimensions.length ? { keys: b.keys } : {}),
    clicks: b.clicks,
    impressions: b.impressions,
    ctr: b.impressions ? b.clicks / b.impressions : 0,
    position: b.impressions ? b.positionSum / b.impressions : 0,
  }));

  const response: AnalyticsResponse = { ...(rows.length ? { rows } : {}), responseAggregationType };
  if (q.dataState === 'all' && q.dimensions.includes('date') && q.endDate >= firstIncompleteDate && q.startDate <= today) {
    response.metadata = { first_incomplete_date: [firstIncompleteDate, q.startDate].sort()[1] };
  }
  if (q.dataState === 'hourly_all' && byHour) {
    const incomplete = pacificParts(new Date(now.getTime() - 2 * 3600000));
    if (q.endDate >= incomplete.date && q.startDate <= today) {
      const first = q.startDate > incomplete.date ? pacificHourKey(q.startDate, 0) : pacificHourKey(incomplete.date, incomplete.hour);
      response.metadata = { first_incomplete_hour: first };
    }
  }
  return response;
}

function takeAnalyticsQuota(ctx: RouteContext, siteUrl: string): void {
  const limit = ctx.limits.analyticsPerMinutePerSite;
  if (ctx.quotas.take([{ key: `analytics|${siteUrl}`, limit, window: 'minute' }], ctx.now)) {
    throw quotaExceeded('classic', {
      service: SERVICE,
      metric: 'searchconsole.googleapis.com/search_analytics_site_requests',
      limitName: 'Search Analytics queries per minute per site',
      limitValue: limit,
      consumer: `projects/${ctx.project}`,
    });
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
      takeAnalyticsQuota(ctx, siteUrl);
      return { status: 200, body: runAnalyticsQuery(query, siteUrl, ctx.analytics, ctx.now) };
    },
  },
];
