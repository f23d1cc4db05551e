// How analytics numbers and requests read in a text block. One spelling per
// kind of number, so that the structured half can be checked against the text
// (see analytics-facts.spec.ts) and a model learns one form.

import { inert } from '../common/inert-text.js';
import type { AnalyticsFilter, ReportRequest } from './analytics-request.js';
import type { AnalyticsRow } from './analytics.service.js';
import { brandLine } from './brand-split.js';
import { zoneWords } from './hour-keys.js';
import { type DateRange, daysInRange, type Period } from './pacific-period.js';

export function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

/** A share 0–1 as a percentage with two decimals: 0.0123 → "1.23%". */
export function formatCtr(ctr: number): string {
  return `${(ctr * 100).toFixed(2)}%`;
}

export function formatPosition(position: number): string {
  return position.toFixed(1);
}

/** +12, -3, +0.40; ASCII signs so that the text parses. */
export function signed(n: number, digits = 0): string {
  const text = n.toFixed(digits);
  return n > 0 || (n === 0 && !text.startsWith('-')) ? `+${text}` : text;
}

/** A table cell from public text (queries, URLs): no control or bidi characters, no column breaks. */
export function cell(value: string): string {
  return inert(value, 200).replace(/\|/g, '\\|');
}

export function tableHead(columns: readonly string[]): string[] {
  return [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`];
}

export function rowLine(row: AnalyticsRow): string {
  const cells = [
    ...row.keys.map(cell),
    formatCount(row.clicks),
    formatCount(row.impressions),
    formatCtr(row.ctr),
    formatPosition(row.position),
  ];
  return `| ${cells.join(' | ')} |`;
}

export function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** A failed side query's reason: Google failures are already sentences. */
export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function dates(range: DateRange): string {
  return range.start === range.end ? range.start : `${range.start} to ${range.end}`;
}

/** "Search performance of X, <dates> (Pacific Time…), web search, data_state final, by query." plus the filters line. */
export function describeRequest(request: ReportRequest, what = dates(request.range), when?: string): string {
  const { range, period } = request;
  const meaning = when ?? (period ? `; ${period} = ${periodMeaning(period, range)}` : request.windowNote ? `; ${request.windowNote}` : '');
  const grouping = request.dimensions.length ? `, by ${request.dimensions.join(', ')}` : ', whole property';
  const filters =
    (request.filters.length ? `\nFilters (all must match): ${request.filters.map(describeFilter).join('; ')}` : '') +
    (request.brand ? `\n${brandLine(request.brand)}` : '');
  const aggregation = request.aggregationType ? `, aggregation ${request.aggregationType}` : '';
  return `Search performance of ${request.site}, ${what} (${zoneOf(request)}${meaning}), ${request.type} search, data_state ${request.dataState}${aggregation}${grouping}.${filters}`;
}

/** "Pacific Time", or for hours the zone and the offsets their keys carry. */
export function zoneOf(request: Pick<ReportRequest, 'dimensions' | 'range'>): string {
  return request.dimensions.includes('hour') ? `Pacific Time; ${zoneWords(request.range)}` : 'Pacific Time';
}

function periodMeaning(period: Period, range: DateRange): string {
  if (period === 'today' || period === 'yesterday') {
    return `that single day`;
  }
  return `the ${daysInRange(range)} days ending yesterday`;
}

function describeFilter(filter: AnalyticsFilter): string {
  return `${filter.dimension} ${filter.operator} ${JSON.stringify(inert(filter.expression))}`;
}
