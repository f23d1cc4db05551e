// searchanalytics.query over the synthetic SERP groups: what is collected yet,
// filtering, aggregation, Google's order, the 50 000-row cap and paging, and
// the response as on the wire (rows omitted when empty, camelCase metadata
// only in the documented cases).

import { addDays, addMonths, pacificHourKey, pacificParts } from './pacific-time.js';
import type { AnonymizedShare, SearchAnalyticsData, SearchType, SerpGroup } from './search-analytics-data.js';
import { parseAnalyticsQuery, type AnalyticsQuery, type DataState, type Dimension, type Filter } from './search-analytics-request.js';

/** "50,000 rows per day per search type per property": no page past it, whatever startRow says. */
export const ROW_CAP = 50_000;

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
  /** The discovery document's spelling, which every generated client reads. */
  metadata?: { firstIncompleteDate?: string; firstIncompleteHour?: string };
}

interface Bucket {
  keys: string[];
  clicks: number;
  impressions: number;
  positionSum: number;
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
      return value !== null && filter.regex!(v);
    case 'excludingRegex':
      return !filter.regex!(v);
  }
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

/** The calendar the data lives on at `now`: final data lags three days; fresh data runs to the current hour. */
export interface DataCalendar {
  today: string;
  currentHour: number;
  /** Days from here on are still being collected (marked by firstIncompleteDate). */
  firstIncompleteDate: string;
  lastFinalDate: string;
}

export function dataCalendar(now: Date): DataCalendar {
  const { date: today, hour: currentHour } = pacificParts(now);
  return { today, currentHour, firstIncompleteDate: addDays(today, -2), lastFinalDate: addDays(today, -3) };
}

/** Share of a day's SERP groups already counted: 1 once final; recent days hold only part of theirs. */
function completeness(date: string, cal: DataCalendar): number {
  if (date < cal.firstIncompleteDate) {
    return 1;
  }
  if (date === cal.firstIncompleteDate) {
    return 0.9;
  }
  if (date < cal.today) {
    return 0.7;
  }
  return 0.5;
}

interface Scan {
  property: string;
  type: SearchType;
  startDate: string;
  endDate: string;
  dataState: DataState;
  hourly: boolean;
}

/** Calls `visit` for every group Google has collected in the window, as the data state shows it. */
function scanGroups(data: SearchAnalyticsData, scan: Scan, cal: DataCalendar, visit: (g: SerpGroup) => void): void {
  let from = [scan.startDate, addMonths(cal.today, -16)].sort()[1];
  if (scan.hourly) {
    from = [from, addDays(cal.today, -9)].sort()[1];
  }
  const to = [scan.endDate, scan.dataState === 'final' ? cal.lastFinalDate : cal.today].sort()[0];
  for (let date = from; date <= to; date = addDays(date, 1)) {
    const share = completeness(date, cal);
    for (const g of data.day(scan.property, scan.type, date)) {
      if (g.arrival >= share) {
        continue;
      }
      if (date === cal.today && g.hour >= cal.currentHour) {
        continue;
      }
      visit(g);
    }
  }
}

function aggregationOf(q: AnalyticsQuery): { byPage: boolean; responseAggregationType: string } {
  const pageInvolved = q.dimensions.includes('page') || q.filters.some((f) => f.dimension === 'page');
  const newsSurface = q.type === 'discover' || q.type === 'googleNews';
  const byPage = q.aggregation === 'byPage' || (q.aggregation === 'auto' && (pageInvolved || newsSurface));
  return {
    byPage,
    responseAggregationType: q.aggregation === 'byNewsShowcasePanel' ? 'byNewsShowcasePanel' : byPage ? 'byPage' : 'byProperty',
  };
}

function compareKeys(a: string[], b: string[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) {
      return a[i] < b[i] ? -1 : 1;
    }
  }
  return 0;
}

/**
 * Every row the query matches, in Google's order, before the cap: clicks
 * descending, ties by impressions descending, then keys ascending (Google
 * calls its tie order arbitrary). A query grouped by date or hour alone comes
 * in time order, as Google's own how-to output shows — unless the emulator
 * was started with analytics.order 'clicks'.
 */
function sortedBuckets(q: AnalyticsQuery, property: string, data: SearchAnalyticsData, cal: DataCalendar): Bucket[] {
  const { byPage } = aggregationOf(q);
  const queryInvolved = q.dimensions.includes('query') || q.filters.some((f) => f.dimension === 'query');
  const groupFilters = q.filters.filter((f) => f.dimension !== 'page');
  const pageFilters = q.filters.filter((f) => f.dimension === 'page');
  const buckets = new Map<string, Bucket>();
  const add = (keys: string[], clicks: number, impressions: number, position: number) => {
    const id = keys.join('\u0000');
    let b = buckets.get(id);
    if (!b) {
      buckets.set(id, (b = { keys, clicks: 0, impressions: 0, positionSum: 0 }));
    }
    b.clicks += clicks;
    b.impressions += impressions;
    b.positionSum += position * impressions;
  };
  const scan: Scan = {
    property,
    type: q.type,
    startDate: q.startDate,
    endDate: q.endDate,
    dataState: q.dataState,
    hourly: q.dimensions.includes('hour'),
  };
  scanGroups(data, scan, cal, (g) => {
    if (queryInvolved && g.query === null) {
      return;
    } // anonymized queries vanish once queries are involved
    if (!groupFilters.every((f) => matches(f, groupValue(g, f.dimension)))) {
      return;
    }
    if (byPage) {
      for (const hit of g.pages) {
        if (!pageFilters.every((f) => matches(f, hit.page))) {
          continue;
        }
        add(
          q.dimensions.map((d) => keyOf(d, g, hit.page)),
          hit.clicks,
          hit.impressions,
          hit.position,
        );
      }
    } else {
      // Each SERP impression counts once for the property, at its best position.
      let clicks = 0;
      for (const h of g.pages) {
        clicks += h.clicks;
      }
      add(
        q.dimensions.map((d) => keyOf(d, g, g.pages[0].page)),
        clicks,
        g.impressions,
        g.pages[0].position,
      );
    }
  });
  const timeOnly = data.order === 'google' && q.dimensions.length === 1 && (q.dimensions[0] === 'date' || q.dimensions[0] === 'hour');
  return [...buckets.values()].sort((a, b) => {
    if (timeOnly) {
      return compareKeys(a.keys, b.keys);
    }
    if (a.clicks !== b.clicks) {
      return b.clicks - a.clicks;
    }
    if (a.impressions !== b.impressions) {
      return b.impressions - a.impressions;
    }
    return compareKeys(a.keys, b.keys);
  });
}

interface Ranked {
  /** Rows matched before the cap. */
  available: number;
  /** The first ROW_CAP of them, in order: nothing past the cap is ever served. */
  top: Bucket[];
}

/** Paging a 50 000-row export re-asks the same question: the ranked rows of the last few questions are kept. */
const RESULT_CACHE_SIZE = 3;
const resultCaches = new WeakMap<SearchAnalyticsData, Map<string, Ranked>>();

function cachedBuckets(q: AnalyticsQuery, property: string, data: SearchAnalyticsData, cal: DataCalendar): Ranked {
  let cache = resultCaches.get(data);
  if (!cache) {
    resultCaches.set(data, (cache = new Map<string, Ranked>()));
  }
  const key = JSON.stringify([
    property,
    q.type,
    q.startDate,
    q.endDate,
    q.dimensions,
    q.filters.map((f) => [f.dimension, f.operator, f.expression]),
    q.aggregation,
    q.dataState,
    cal.today,
    cal.currentHour,
  ]);
  let ranked = cache.get(key);
  if (ranked) {
    cache.delete(key);
  } else {
    const all = sortedBuckets(q, property, data, cal);
    ranked = { available: all.length, top: all.length > ROW_CAP ? all.slice(0, ROW_CAP) : all };
    if (cache.size >= RESULT_CACHE_SIZE) {
      cache.delete(cache.keys().next().value!);
    }
  }
  cache.set(key, ranked);
  return ranked;
}

export function runAnalyticsQuery(q: AnalyticsQuery, property: string, data: SearchAnalyticsData, now: Date): AnalyticsResponse {
  const cal = dataCalendar(now);
  const { responseAggregationType } = aggregationOf(q);
  const { top } = cachedBuckets(q, property, data, cal);
  const end = Math.min(q.startRow + q.rowLimit, ROW_CAP);
  const rows: AnalyticsRow[] = top.slice(Math.min(q.startRow, end), end).map((b) => ({
    ...(q.dimensions.length ? { keys: b.keys } : {}),
    clicks: b.clicks,
    impressions: b.impressions,
    ctr: b.impressions ? b.clicks / b.impressions : 0,
    position: b.impressions ? b.positionSum / b.impressions : 0,
  }));

  const response: AnalyticsResponse = { ...(rows.length ? { rows } : {}), responseAggregationType };
  if (q.dataState === 'all' && q.dimensions.includes('date') && q.endDate >= cal.firstIncompleteDate && q.startDate <= cal.today) {
    response.metadata = { firstIncompleteDate: [cal.firstIncompleteDate, q.startDate].sort()[1] };
  }
  if (q.dataState === 'hourly_all' && q.dimensions.includes('hour')) {
    const incomplete = pacificParts(new Date(now.getTime() - 2 * 3600000));
    if (q.endDate >= incomplete.date && q.startDate <= cal.today) {
      const first = q.startDate > incomplete.date ? pacificHourKey(q.startDate, 0) : pacificHourKey(incomplete.date, incomplete.hour);
      response.metadata = { firstIncompleteHour: first };
    }
  }
  return response;
}

/** Rows a request body matches before the cap and paging (throws like the API on an invalid body). */
export function rowsAvailable(data: SearchAnalyticsData, property: string, body: Record<string, unknown>, now: Date): number {
  return cachedBuckets(parseAnalyticsQuery(body), property, data, dataCalendar(now)).available;
}

export interface AnalyticsSummaryQuery {
  startDate: string;
  endDate: string;
  type?: SearchType;
  dataState?: DataState;
}

/** The anonymised-query traffic of a window, computed over exactly the groups a query would see. */
export function anonymizedShare(data: SearchAnalyticsData, property: string, query: AnalyticsSummaryQuery, now: Date): AnonymizedShare {
  const scan: Scan = {
    property,
    type: query.type ?? 'web',
    startDate: query.startDate,
    endDate: query.endDate,
    dataState: query.dataState ?? 'final',
    hourly: false,
  };
  const sums = { clicks: 0, impressions: 0, totalClicks: 0, totalImpressions: 0 };
  scanGroups(data, scan, dataCalendar(now), (g) => {
    let clicks = 0;
    for (const h of g.pages) {
      clicks += h.clicks;
    }
    sums.totalClicks += clicks;
    sums.totalImpressions += g.impressions;
    if (g.query === null) {
      sums.clicks += clicks;
      sums.impressions += g.impressions;
    }
  });
  return {
    seededShare: data.catalog(property).anonymizedShare,
    ...sums,
    clickShare: sums.totalClicks ? sums.clicks / sums.totalClicks : 0,
    impressionShare: sums.totalImpressions ? sums.impressions / sums.totalImpressions : 0,
  };
}
