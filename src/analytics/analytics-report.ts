// Turns a Search Analytics answer into the tool result: a table a model can
// read, totals computed the way Search Console computes them, and the caveats
// that decide whether the numbers mean what they seem to.

import { fitToBudget, type ToolOutput, toolOutput } from '../mcp/tool-output.js';
import type { AnalyticsResult, AnalyticsRow } from './analytics.service.js';
import { addDays, type DateRange, daysInRange, type Period } from './pacific-period.js';
import { inert } from '../common/inert-text.js';
import { plural } from '../common/sentences.js';

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
  readonly aggregationType?: string;
  readonly filters: readonly AnalyticsFilter[];
  readonly rowLimit: number;
  readonly startRow: number;
}

export interface Totals {
  readonly clicks: number;
  readonly impressions: number;
  readonly ctr: number;
  readonly position: number;
}

/**
 * CTR is total clicks over total impressions and position is weighted by
 * impressions — the mean of per-row CTRs or positions would let a row with 3
 * impressions count as much as one with 30 000.
 */
export function computeTotals(rows: readonly AnalyticsRow[]): Totals {
  let clicks = 0;
  let impressions = 0;
  let weighted = 0;
  for (const row of rows) {
    clicks += row.clicks;
    impressions += row.impressions;
    weighted += row.position * row.impressions;
  }
  return { clicks, impressions, ctr: impressions ? clicks / impressions : 0, position: impressions ? weighted / impressions : 0 };
}

export function buildReport(request: ReportRequest, result: AnalyticsResult): ToolOutput {
  const { rows } = result;
  const totals = computeTotals(rows);
  const mayHaveMore = rows.length > 0 && rows.length >= request.rowLimit;
  const header = describeRequest(request);
  const freshness = freshnessNotes(request, result);
  const structuredBase = {
    site_url: request.site,
    start_date: request.range.start,
    end_date: request.range.end,
    dimensions: [...request.dimensions],
    ...(result.aggregationType ? { aggregation_type: result.aggregationType } : {}),
    totals: roundTotals(totals),
    row_count: rows.length,
    start_row: request.startRow,
    ...(result.firstIncompleteDate ? { first_incomplete_date: result.firstIncompleteDate } : {}),
    ...(result.firstIncompleteHour ? { first_incomplete_hour: result.firstIncompleteHour } : {}),
    untrusted: true as const,
  };

  if (rows.length === 0) {
    const why = noDataSentence(request);
    const text = [header, why, ...freshness.filter((note) => !(note.startsWith('data_state final') && why.includes('does not exist yet')))].join('\n');
    return toolOutput({ ...structuredBase, rows: [] }, text);
  }

  const columns = [...request.dimensions, 'clicks', 'impressions', 'CTR', 'position'];
  const tableHead = [`| ${columns.join(' | ')} |`, `|${columns.map(() => '---').join('|')}|`];
  const lines = rows.map(rowLine);
  const caveats = rowCaveats(request, result);

  return fitToBudget(rows, (kept, dropped) => {
    const next = dropped ? request.startRow + kept.length : mayHaveMore ? request.startRow + rows.length : undefined;
    const notes = [
      totalsLine(rows.length, totals, request.dimensions.length === 0),
      ...scopeNotes(request, rows.length, kept.length, dropped, mayHaveMore),
      ...caveats,
      ...freshness,
    ];
    const text = [header, ...tableHead, ...lines.slice(0, kept.length), ...notes].join('\n');
    return toolOutput(
      {
        ...structuredBase,
        rows: kept.map((r) => ({ keys: r.keys, clicks: r.clicks, impressions: r.impressions, ctr: r.ctr, position: r.position })),
        ...(next !== undefined ? { next_start_row: next } : {}),
        ...(dropped ? { rows_not_shown: dropped } : {}),
      },
      text,
    );
  });
}

function describeRequest(request: ReportRequest): string {
  const { range, period } = request;
  const dates = range.start === range.end ? range.start : `${range.start} to ${range.end}`;
  const meaning = period ? `; ${period} = ${periodMeaning(period, range)}` : '';
  const grouping = request.dimensions.length ? `, by ${request.dimensions.join(', ')}` : ', whole property';
  const filters = request.filters.length ? `\nFilters (all must match): ${request.filters.map(describeFilter).join('; ')}` : '';
  const aggregation = request.aggregationType ? `, aggregation ${request.aggregationType}` : '';
  return `Search performance of ${request.site}, ${dates} (Pacific Time${meaning}), ${request.type} search, data_state ${request.dataState}${aggregation}${grouping}.${filters}`;
}

function periodMeaning(period: Period, range: DateRange): string {
  if (period === 'today' || period === 'yesterday') return `that single day`;
  return `the ${daysInRange(range)} days ending yesterday`;
}

function describeFilter(filter: AnalyticsFilter): string {
  return `${filter.dimension} ${filter.operator} ${JSON.stringify(inert(filter.expression))}`;
}

function totalsLine(count: number, totals: Totals, wholeProperty: boolean): string {
  const subject = wholeProperty ? 'Total' : `Totals of the ${plural(count, 'row')} returned`;
  return (
    `${subject}: ${formatCount(totals.clicks)} clicks, ${formatCount(totals.impressions)} impressions, ` +
    `CTR ${formatCtr(totals.ctr)} (total clicks ÷ total impressions), position ${formatPosition(totals.position)} (impression-weighted average).`
  );
}

function scopeNotes(request: ReportRequest, returned: number, shown: number, dropped: number, mayHaveMore: boolean): string[] {
  const notes: string[] = [];
  const first = request.startRow + 1;
  if (dropped) {
    notes.push(
      `${dropped} of the ${returned} rows Google returned are not shown, to keep this result under 100 kB; the totals above still cover all ${returned}. ` +
        `To see them call again with start_row ${request.startRow + shown}, or narrow the request: fewer dimensions, a lower row_limit, or filters.`,
    );
  }
  if (mayHaveMore) {
    notes.push(
      `Google returned exactly row_limit (${request.rowLimit}) rows, so there may be more: call again with start_row ${request.startRow + returned}. ` +
        `The totals cover only rows ${first}–${request.startRow + returned}, not the whole property.`,
    );
  } else if (request.startRow > 0) {
    notes.push(`These are rows ${first}–${request.startRow + returned} (start_row ${request.startRow}); the totals cover only them, not the whole property.`);
  }
  return notes;
}

/** Why rows grouped or filtered by query or page do not add up to the property's chart total. */
function rowCaveats(request: ReportRequest, result: AnalyticsResult): string[] {
  const notes: string[] = [];
  const involves = (dimension: string) => request.dimensions.includes(dimension) || request.filters.some((f) => f.dimension === dimension);
  if (involves('query')) {
    notes.push(
      'Grouped or filtered by query: Google leaves out anonymised queries (ones too rare to show, for privacy), so these rows add up to less than the property total.',
    );
  }
  const byPage = result.aggregationType ? /^bypage$/i.test(result.aggregationType) : request.aggregationType === 'byPage' || involves('page');
  if (byPage) {
    notes.push(
      'Aggregated by page: when several pages of the property show in one search result, each counts an impression, so page rows add up to more impressions than the by-property total, and CTR and position differ from it.',
    );
  }
  return notes;
}

function freshnessNotes(request: ReportRequest, result: AnalyticsResult): string[] {
  const notes: string[] = [];
  if (result.firstIncompleteDate) {
    notes.push(`Data from ${result.firstIncompleteDate} on is incomplete (Google is still collecting it), so those days will still rise.`);
  }
  if (result.firstIncompleteHour) {
    notes.push(`Hours from ${result.firstIncompleteHour} on are incomplete (Google is still collecting them).`);
  }
  const recent = request.range.end >= addDays(request.today, -3);
  if (recent && request.dataState === 'final') {
    notes.push('data_state final holds only finalised data: the last ~2–3 days are not final yet and are missing here; data_state all includes them, marked incomplete.');
  } else if (recent && !result.firstIncompleteDate && !result.firstIncompleteHour) {
    notes.push('The last ~2–3 days may be incomplete (group by date to see from which day).');
  }
  return notes;
}

function noDataSentence(request: ReportRequest): string {
  const { range } = request;
  const dates = range.start === range.end ? `on ${range.start}` : `from ${range.start} to ${range.end}`;
  const why =
    request.dataState === 'final' && range.start >= addDays(request.today, -3)
      ? 'Final data for the last ~2–3 days does not exist yet; ask with data_state all for fresh data.'
      : `Google has no clicks or impressions matching this request: check the filters and the search type${request.startRow ? ', and whether start_row is past the last row' : ''}; a new property has data only from when it was added.`;
  return `No data for ${request.site} ${dates} (${request.type} search, data_state ${request.dataState}). This is an answer, not an error. ${why}`;
}

function rowLine(row: AnalyticsRow): string {
  const cells = [...row.keys.map(cell), formatCount(row.clicks), formatCount(row.impressions), formatCtr(row.ctr), formatPosition(row.position)];
  return `| ${cells.join(' | ')} |`;
}

/** A table cell from public text (queries, URLs): no control or bidi characters, no column breaks. */
function cell(value: string): string {
  return inert(value, 200).replace(/\|/g, '\\|');
}


function formatCount(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

function formatCtr(ctr: number): string {
  return `${(ctr * 100).toFixed(2)}%`;
}

function formatPosition(position: number): string {
  return position.toFixed(1);
}

function roundTotals(totals: Totals): Totals {
  return { clicks: totals.clicks, impressions: totals.impressions, ctr: round(totals.ctr, 6), position: round(totals.position, 2) };
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
