// Turns a Search Analytics answer into the tool result: a table a model can
// read, totals computed the way Search Console computes them, the caveats
// that decide whether the numbers mean what they seem to, and the data-truth
// block.

import { fitToBudget, type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { plural } from '../common/sentences.js';
import { describeRequest, formatCount, formatCtr, formatPosition, rowLine, tableHead } from './analytics-format.js';
import { ROW_CAP, type ReportRequest } from './analytics-request.js';
import { computeTotals, roundMetrics, type Totals } from './analytics-metrics.js';
import type { AnalyticsResult } from './analytics.service.js';
import { buildDataTruth, capReached, type Freshness, listComplete, type PropertyFigures } from './data-truth.js';
import { addDays } from './pacific-period.js';
import type { KnownAnomaly } from '../config/anomalies-file.js';

/** What the side queries found out: which days are final, and the whole-property figures (grouped by query). */
export interface ReportContext {
  readonly freshness: Freshness;
  readonly property?: PropertyFigures;
  /** The known anomalies in force (KnownAnomalies). */
  readonly anomalies?: readonly KnownAnomaly[];
}

/** The request's own facts, shared by every analytics result shape. */
export function requestFacts(request: ReportRequest) {
  return {
    site_url: request.site,
    start_date: request.range.start,
    end_date: request.range.end,
    ...(request.period ? { period: request.period } : {}),
    dimensions: [...request.dimensions],
    type: request.type,
    ...(request.filters.length ? { filters: request.filters.map((f) => ({ ...f })) } : {}),
    ...(request.brand ? { brand: { ...request.brand, terms: [...request.brand.terms], classifier: 'caller_terms' as const } } : {}),
  };
}

/**
 * One `totals` per answer (PRODUCT.md §5c): the property's, when it is known —
 * no dimensions (the one row is the property), or the whole-property query
 * ran — and the rows' own sum only as `rows_sum`.
 */
export function totalsFacts(
  dimensions: readonly string[],
  rowsSum: Totals,
  property?: PropertyFigures,
): { totals?: Totals; rows_sum?: Totals } {
  if (dimensions.length === 0) {
    return { totals: roundMetrics(rowsSum) };
  }
  const known = property && 'totals' in property ? property.totals : undefined;
  return { ...(known ? { totals: roundMetrics(known) } : {}), rows_sum: roundMetrics(rowsSum) };
}

export function buildReport(request: ReportRequest, result: AnalyticsResult, context: ReportContext): ToolOutput {
  const { rows } = result;
  const totals = computeTotals(rows);
  const cap = capReached(request.startRow, rows.length);
  const mayHaveMore = rows.length > 0 && rows.length >= request.rowLimit && !cap;
  const header = describeRequest(request);
  const truth = buildDataTruth({
    request,
    freshness: context.freshness,
    rowCapReached: cap,
    listed: { totals, complete: listComplete(request, rows.length), count: rows.length, aggregationType: result.aggregationType },
    property: context.property,
    anomalies: context.anomalies,
  });
  const structuredBase = {
    ...requestFacts(request),
    ...(result.aggregationType ? { aggregation_type: result.aggregationType } : {}),
    ...totalsFacts(request.dimensions, totals, context.property),
    rows_returned: rows.length,
    start_row: request.startRow,
    data_truth: truth.structured,
    untrusted: true as const,
  };

  if (rows.length === 0) {
    return toolOutput({ ...structuredBase, rows: [] }, [header, noDataSentence(request), ...truth.lines].join('\n'));
  }

  const columns = [...request.dimensions, 'clicks', 'impressions', 'CTR', 'position'];
  const lines = rows.map(rowLine);

  return fitToBudget(rows, (kept, dropped) => {
    const next = dropped ? request.startRow + kept.length : mayHaveMore ? request.startRow + rows.length : undefined;
    const notes = [
      totalsLine(rows.length, totals, request.dimensions.length === 0),
      ...propertyLine(request.dimensions, context.property),
      ...scopeNotes(request, rows.length, kept.length, dropped, mayHaveMore, cap),
    ];
    const text = [header, ...tableHead(columns), ...lines.slice(0, kept.length), ...notes, ...truth.lines].join('\n');
    return toolOutput(
      {
        ...structuredBase,
        rows: kept.map((r) => ({ keys: r.keys, ...roundMetrics(r) })),
        ...(next !== undefined ? { next_start_row: next } : {}),
        ...(dropped ? { rows_not_shown: dropped } : {}),
      },
      text,
    );
  });
}

export function totalsLine(count: number, totals: Totals, wholeProperty: boolean, what = 'returned'): string {
  const subject = wholeProperty ? 'Total' : `Sum of the ${plural(count, 'row')} ${what} (rows_sum)`;
  return (
    `${subject}: ${formatCount(totals.clicks)} clicks, ${formatCount(totals.impressions)} impressions, ` +
    `CTR ${formatCtr(totals.ctr)} (total clicks ÷ total impressions), position ${formatPosition(totals.position)} (impression-weighted average).`
  );
}

/** The whole-property query's figures, when it ran beside rows grouped by query: the `totals` of the result. */
function propertyLine(dimensions: readonly string[], property?: PropertyFigures): string[] {
  if (!dimensions.length || !property || !('totals' in property)) {
    return [];
  }
  const t = property.totals;
  return [
    `Property totals (a whole-property query, same filters): ${formatCount(t.clicks)} clicks, ${formatCount(t.impressions)} impressions, CTR ${formatCtr(t.ctr)}, position ${formatPosition(t.position)}.`,
  ];
}

function scopeNotes(
  request: ReportRequest,
  returned: number,
  shown: number,
  dropped: number,
  mayHaveMore: boolean,
  cap: boolean,
): string[] {
  const notes: string[] = [];
  const first = request.startRow + 1;
  if (dropped) {
    notes.push(
      `${dropped} of the ${returned} rows Google returned are not shown, to keep this result under 100 kB; the sum above still covers all ${returned}. ` +
        `To see them call again with start_row ${request.startRow + shown}, or narrow the request: fewer dimensions, a lower row_limit, or filters — or all_rows for a file of every row.`,
    );
  }
  if (mayHaveMore) {
    notes.push(
      `Google returned exactly row_limit (${request.rowLimit}) rows, so there may be more: call again with start_row ${request.startRow + returned}. ` +
        `The sum covers only rows ${first}–${request.startRow + returned}, not the whole property.`,
    );
  } else if (cap) {
    notes.push(
      `These are rows ${first}–${request.startRow + returned}, the last Google serves (its cap is ${ROW_CAP} rows); the sum covers only them.`,
    );
  } else if (request.startRow > 0) {
    notes.push(
      `These are rows ${first}–${request.startRow + returned} (start_row ${request.startRow}); the sum covers only them, not the whole property.`,
    );
  }
  return notes;
}

export function noDataSentence(request: ReportRequest): string {
  const { range } = request;
  const dates = range.start === range.end ? `on ${range.start}` : `from ${range.start} to ${range.end}`;
  const why =
    request.dataState === 'final' && range.start >= request.today
      ? "Today's data is only in data_state all: no day is final the same day. Ask again with data_state all (partial, still rising figures)."
      : request.dataState === 'final' && range.start >= addDays(request.today, -3)
        ? 'Final data for the last ~2–3 days does not exist yet; ask with data_state all for fresh data.'
        : `Google has no clicks or impressions matching this request: check the filters and the search type${request.startRow ? ', and whether start_row is past the last row' : ''}; a new property has data only from when it was added.`;
  return `No data for ${request.site} ${dates} (${request.type} search, data_state ${request.dataState}). This is an answer, not an error. ${why}`;
}
