// A comparison of two windows: rows joined on their keys (dates shifted by the
// windows' offset), deltas only where a key is in both, and a key found in one
// window only marked as such — never shown as a drop to, or a rise from, zero.
// Totals come from whole-property queries of each window, not from row sums:
// `totals` is the current window's, `compare.previous_totals` the other's.

import { plural } from '../common/sentences.js';
import { fitToBudget, type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { cell, dates, formatCount, formatCtr, formatPosition, signed, tableHead, zoneOf } from './analytics-format.js';
import { PAGE_ROWS, type ReportRequest } from './analytics-request.js';
import { computeTotals, delta, type Delta, percentChange, roundMetrics, type Totals } from './analytics-metrics.js';
import type { AnalyticsResult, AnalyticsRow } from './analytics.service.js';
import { buildDataTruth, type Freshness, type PropertyFigures } from './data-truth.js';
import { requestFacts } from './analytics-report.js';
import { type LeftOut, type WindowPair } from './compare-windows.js';
import { addDays, daysInRange } from './pacific-period.js';
import { shiftHourKey } from './hour-keys.js';
import { brandLine } from './brand-split.js';
import type { KnownAnomaly } from '../config/anomalies-file.js';

/** Rows a window is fetched with: one request, Google's maximum, so that absence means absence as often as possible. */
export const COMPARE_FETCH_ROWS = PAGE_ROWS;
/** Movers the text shows on each side. */
const TEXT_MOVERS = 10;

interface Metrics {
  readonly clicks: number;
  readonly impressions: number;
  readonly ctr: number;
  readonly position: number;
}

export interface JoinedRow {
  /** In the current window's terms (a previous date is shifted onto the current window's day). */
  readonly keys: string[];
  readonly current?: Metrics;
  readonly previous?: Metrics & { readonly keys: string[] };
  readonly onlyIn?: 'current' | 'previous';
  /** In one window's rows only, but the other window's list was cut: the key may be there below its last row. */
  readonly notListedIn?: 'current' | 'previous';
  /** Clicks gained (a key in one window only moves by its clicks there); orders the movers. */
  readonly movement: number;
}

export interface WindowAnswer {
  readonly rows: AnalyticsResult;
  /** The whole-property query of the window (the rows themselves when there are no dimensions). */
  readonly totals: Totals;
}

export interface CompareInput {
  /** The current window's request (its range already trimmed). */
  readonly request: ReportRequest;
  readonly pair: WindowPair;
  readonly leftOut: readonly LeftOut[];
  readonly freshness: Freshness;
  readonly current: WindowAnswer;
  readonly previous: WindowAnswer;
  /** The known anomalies in force (KnownAnomalies). */
  readonly anomalies?: readonly KnownAnomaly[];
}

const metricsOf = (r: AnalyticsRow): Metrics => ({ clicks: r.clicks, impressions: r.impressions, ctr: r.ctr, position: r.position });

export function joinRows(
  dimensions: readonly string[],
  current: readonly AnalyticsRow[],
  previous: readonly AnalyticsRow[],
  offsetDays: number,
  complete: { current: boolean; previous: boolean },
): JoinedRow[] {
  // A date moves by the windows' offset; an hour to the same wall-clock hour that many days on (hour-keys.ts).
  const shiftAt = dimensions.map((d) =>
    d === 'date' ? (k: string) => addDays(k, offsetDays) : d === 'hour' ? (k: string) => shiftHourKey(k, offsetDays) : undefined,
  );
  const shift = (keys: string[]) => keys.map((k, i) => shiftAt[i]?.(k) ?? k);
  const id = (keys: string[]) => keys.join('\u0000');
  const before = new Map<string, AnalyticsRow>();
  for (const row of previous) {
    const key = id(shift(row.keys));
    const same = before.get(key);
    // Only hours can meet here: both 01:00 of a night the clocks go back land on one 01:00 of an ordinary night, and count as it.
    before.set(key, same ? merged(same, row) : row);
  }
  const joined: JoinedRow[] = [];
  for (const row of current) {
    const key = id(row.keys);
    const prev = before.get(key);
    if (prev) {
      before.delete(key);
      joined.push({
        keys: row.keys,
        current: metricsOf(row),
        previous: { keys: prev.keys, ...metricsOf(prev) },
        movement: row.clicks - prev.clicks,
      });
    } else {
      joined.push({
        keys: row.keys,
        current: metricsOf(row),
        ...(complete.previous ? { onlyIn: 'current' as const } : { notListedIn: 'previous' as const }),
        movement: row.clicks,
      });
    }
  }
  for (const prev of before.values()) {
    joined.push({
      keys: shift(prev.keys),
      previous: { keys: prev.keys, ...metricsOf(prev) },
      ...(complete.current ? { onlyIn: 'previous' as const } : { notListedIn: 'current' as const }),
      movement: -prev.clicks,
    });
  }
  return joined;
}

function merged(a: AnalyticsRow, b: AnalyticsRow): AnalyticsRow {
  const { clicks, impressions, ctr, position } = computeTotals([a, b]);
  return { keys: a.keys, clicks, impressions, ctr, position };
}

/** Biggest gains and losses alternately, then the rest by current clicks: what matters most comes first when a budget cuts. */
export function byImportance(rows: readonly JoinedRow[]): JoinedRow[] {
  const gains = rows.filter((r) => r.movement > 0).sort((a, b) => b.movement - a.movement || tie(a, b));
  const losses = rows.filter((r) => r.movement < 0).sort((a, b) => a.movement - b.movement || tie(a, b));
  const still = rows.filter((r) => r.movement === 0).sort(tie);
  const out: JoinedRow[] = [];
  for (let i = 0; i < Math.max(gains.length, losses.length); i++) {
    if (i < gains.length) {
      out.push(gains[i]);
    }
    if (i < losses.length) {
      out.push(losses[i]);
    }
  }
  return [...out, ...still];
}

function tie(a: JoinedRow, b: JoinedRow): number {
  return (
    (b.current?.clicks ?? b.previous?.clicks ?? 0) - (a.current?.clicks ?? a.previous?.clicks ?? 0) ||
    (a.keys.join('\u0000') < b.keys.join('\u0000') ? -1 : 1)
  );
}

export function buildComparison(input: CompareInput): ToolOutput {
  const { request, pair, current, previous } = input;
  const dims = request.dimensions;
  const complete = { current: current.rows.rows.length < COMPARE_FETCH_ROWS, previous: previous.rows.rows.length < COMPARE_FETCH_ROWS };
  const joined = joinRows(dims, current.rows.rows, previous.rows.rows, pair.offsetDays, complete);
  const ranked = byImportance(joined).slice(0, request.rowLimit);
  const listedTotals = computeTotals(current.rows.rows);
  // The whole-property figures are already in hand: a comparison's totals queries are the ones the data truth needs.
  const property: PropertyFigures | undefined = dims.includes('query')
    ? { totals: current.totals, aggregationType: current.rows.aggregationType }
    : undefined;
  const truth = buildDataTruth({
    request,
    freshness: input.freshness,
    rowCapReached: false,
    listed: {
      totals: listedTotals,
      complete: complete.current,
      count: current.rows.rows.length,
      aggregationType: current.rows.aggregationType,
    },
    property,
    anomalies: input.anomalies,
    previousRange: pair.previous,
  });
  const counts = {
    total: joined.length,
    both: joined.filter((r) => r.current && r.previous).length,
    only_in_current: joined.filter((r) => r.onlyIn === 'current').length,
    only_in_previous: joined.filter((r) => r.onlyIn === 'previous').length,
    not_listed: joined.filter((r) => r.notListedIn).length,
  };
  const totalsDelta = delta(current.totals, previous.totals);
  const byPage = dims.includes('page');
  const compareFacts = {
    with: pair.mode,
    current: {
      ...windowFacts(pair.current, current.rows.rows.length, complete.current),
      ...lastListed(current.rows.rows, complete.current),
    },
    previous: {
      ...windowFacts(pair.previous, previous.rows.rows.length, complete.previous),
      ...lastListed(previous.rows.rows, complete.previous),
    },
    ...(input.leftOut.length ? { left_out: input.leftOut.map((l) => ({ ...l })) } : {}),
    ...(byPage ? { previous_rows_sum: roundMetrics(previous.totals) } : { previous_totals: roundMetrics(previous.totals) }),
    change: {
      ...totalsDelta,
      ...pct('clicks_percent', percentChange(current.totals.clicks, previous.totals.clicks)),
      ...pct('impressions_percent', percentChange(current.totals.impressions, previous.totals.impressions)),
    },
    keys: counts,
    row_limit: request.rowLimit,
  };
  const header = compareHeader(input);
  const lead = [header, ...leftOutLines(input), totalsComparison(current.totals, previous.totals, totalsDelta, totalsKind(dims))];
  const structuredBase = {
    ...requestFacts(request),
    ...(current.rows.aggregationType ? { aggregation_type: current.rows.aggregationType } : {}),
    // The property's, from the whole-property query (or the one row, without dimensions); the rows are only the biggest movers.
    // Grouped by page that query counts every page of a search (by page): a sum of page rows, so named rows_sum (PRODUCT.md §5c).
    ...(byPage ? { rows_sum: roundMetrics(current.totals) } : { totals: roundMetrics(current.totals) }),
    start_row: 0,
    compare: compareFacts,
    data_truth: truth.structured,
    untrusted: true as const,
  };
  if (joined.length === 0 || dims.length === 0) {
    const none = dims.length ? 'Google has no rows for either window.' : '';
    return toolOutput({ ...structuredBase, rows: ranked.map(rowFacts) }, [...lead, ...(none ? [none] : []), ...truth.lines].join('\n'));
  }
  return fitToBudget(ranked, (kept, dropped) => {
    const shown = [...kept].sort((a, b) => b.movement - a.movement || tie(a, b));
    const text = [
      ...lead,
      ...moverTables(dims, shown),
      keysLine(counts, joined.length, shown.length, dropped, request.rowLimit),
      ...truncationLines(complete, previous, current),
      ...truth.lines,
    ];
    return toolOutput({ ...structuredBase, rows: shown.map(rowFacts), ...(dropped ? { rows_not_shown: dropped } : {}) }, text.join('\n'));
  });
}

function pct(name: string, value: number | undefined) {
  return value === undefined ? {} : { [name]: value };
}

function windowFacts(range: { start: string; end: string }, rows: number, complete: boolean) {
  return { start_date: range.start, end_date: range.end, days: daysInRange(range), rows_returned: rows, rows_complete: complete };
}

function lastListed(rows: readonly AnalyticsRow[], complete: boolean) {
  return complete || rows.length === 0 ? {} : { last_listed_clicks: rows[rows.length - 1].clicks };
}

export function rowFacts(row: JoinedRow) {
  const dated = row.previous && row.previous.keys.join('\u0000') !== row.keys.join('\u0000');
  return {
    keys: row.keys,
    ...(row.current ? roundMetrics(row.current) : {}),
    ...(row.previous ? { previous: { ...(dated ? { keys: row.previous.keys } : {}), ...roundMetrics(row.previous) } } : {}),
    ...(row.current && row.previous ? { delta: delta(row.current, row.previous) } : {}),
    ...(row.onlyIn ? { only_in: row.onlyIn } : {}),
    ...(row.notListedIn ? { not_listed_in: row.notListedIn } : {}),
  };
}

const MODE_TEXT = {
  previous_period: 'previous_period: the same number of days right before',
  previous_year: 'previous_year: the same weekdays 52 weeks earlier',
  custom: 'the window given',
};

function compareHeader({ request, pair }: CompareInput): string {
  const grouping = request.dimensions.length ? `, by ${request.dimensions.join(', ')}` : ', whole property';
  const aggregation = request.aggregationType ? `, aggregation ${request.aggregationType}` : '';
  const filters = request.filters.length
    ? `\nFilters (all must match, in both windows): ${request.filters.map((f) => `${f.dimension} ${f.operator} ${JSON.stringify(cell(f.expression))}`).join('; ')}` +
      (request.brand ? `\n${brandLine(request.brand)}` : '')
    : '';
  return (
    `Search performance of ${request.site}, ${dates(pair.current)} compared with ${dates(pair.previous)} (${MODE_TEXT[pair.mode]}; ${plural(daysInRange(pair.current), 'day')} each, ${zoneOf(request)}), ` +
    `${request.type} search, data_state ${request.dataState}${aggregation}${grouping}.${filters}`
  );
}

function leftOutLines({ leftOut, freshness }: CompareInput): string[] {
  if (!leftOut.length) {
    return [];
  }
  const hourly = leftOut.some((l) => l.from_hour);
  const first =
    freshness.known && (hourly ? freshness.firstIncompleteHour : freshness.firstIncompleteDate)
      ? ` (${hourly ? 'first_incomplete_hour' : 'first_incomplete_date'} ${hourly ? freshness.firstIncompleteHour : freshness.firstIncompleteDate})`
      : '';
  const unit = hourly ? 'hour' : 'day';
  const why = {
    not_final: `not final yet, Google is still collecting them${first}`,
    outside_retention: 'older than the ~16 months Google keeps',
    not_in_other_window: `final, but their matching ${unit}s in the other window are left out`,
  };
  const parts = leftOut.map(
    (l) =>
      `${l.from_hour ? `from ${l.from_hour} to the end of ${l.end_date}` : dates({ start: l.start_date, end: l.end_date })} of the ${l.window} window — ${why[l.reason]}`,
  );
  return [`Left out of both windows, so that ${unit} i still matches ${unit} i: ${parts.join('; ')}.`];
}

type TotalsKind = 'property' | 'page_rows' | 'property_hours';

function totalsKind(dims: readonly string[]): TotalsKind {
  return dims.includes('page') ? 'page_rows' : dims.includes('hour') ? 'property_hours' : 'property';
}

const TOTALS_LABEL: Record<TotalsKind, string> = {
  property: 'Totals (whole-property queries, not row sums)',
  property_hours: 'Totals (the whole property hour by hour, summed over the hours compared; not row sums)',
  page_rows:
    'Sums of every page row (rows_sum: Google counts each page of a search by page, so these exceed the whole-property totals; not just the rows listed)',
};

function totalsComparison(current: Totals, previous: Totals, d: Delta, kind: TotalsKind): string {
  const change = (now: number, before: number, diff: number) => {
    const p = percentChange(now, before);
    return `${signed(diff)}${p === undefined ? ', none before' : `, ${signed(p, 1)}%`}`;
  };
  const better = d.position < 0 ? ', better' : d.position > 0 ? ', worse' : '';
  return (
    `${TOTALS_LABEL[kind]}: clicks ${formatCount(current.clicks)} vs ${formatCount(previous.clicks)} (${change(current.clicks, previous.clicks, d.clicks)}); ` +
    `impressions ${formatCount(current.impressions)} vs ${formatCount(previous.impressions)} (${change(current.impressions, previous.impressions, d.impressions)}); ` +
    `CTR ${formatCtr(current.ctr)} vs ${formatCtr(previous.ctr)} (${signed(d.ctr_points, 2)} points); ` +
    `position ${formatPosition(current.position)} vs ${formatPosition(previous.position)} (${signed(d.position, 1)}${better}).`
  );
}

function moverTables(dims: readonly string[], shown: readonly JoinedRow[]): string[] {
  const columns = [...dims, 'clicks', 'Δ clicks', 'impressions', 'Δ impressions', 'CTR', 'Δ CTR (points)', 'position', 'Δ position'];
  const gains = shown.filter((r) => r.movement > 0).slice(0, TEXT_MOVERS);
  const losses = shown
    .filter((r) => r.movement < 0)
    .reverse()
    .slice(0, TEXT_MOVERS);
  const lines: string[] = [];
  if (gains.length) {
    lines.push(`Biggest gains by clicks:`, ...tableHead(columns), ...gains.map((r) => moverLine(r)));
  }
  if (losses.length) {
    lines.push(`Biggest losses by clicks:`, ...tableHead(columns), ...losses.map((r) => moverLine(r)));
  }
  if (!gains.length && !losses.length) {
    lines.push('No key gained or lost clicks.');
  }
  return lines;
}

function moverLine(row: JoinedRow): string {
  const keys = row.keys.map(cell);
  const c = row.current;
  const p = row.previous;
  let cells: string[];
  if (c && p) {
    const d = delta(c, p);
    cells = [
      formatCount(c.clicks),
      signed(d.clicks),
      formatCount(c.impressions),
      signed(d.impressions),
      formatCtr(c.ctr),
      signed(d.ctr_points, 2),
      formatPosition(c.position),
      signed(d.position, 1),
    ];
  } else if (c) {
    const why = row.onlyIn ? 'only in current' : 'not in the previous rows';
    cells = [formatCount(c.clicks), why, formatCount(c.impressions), '—', formatCtr(c.ctr), '—', formatPosition(c.position), '—'];
  } else {
    const why = row.onlyIn ? 'only in previous' : 'not in the current rows';
    cells = [
      '—',
      `${why}, had ${formatCount(p!.clicks)}`,
      '—',
      `had ${formatCount(p!.impressions)}`,
      '—',
      `had ${formatCtr(p!.ctr)}`,
      '—',
      `had ${formatPosition(p!.position)}`,
    ];
  }
  return `| ${[...keys, ...cells].join(' | ')} |`;
}

function keysLine(
  counts: { total: number; both: number; only_in_current: number; only_in_previous: number; not_listed: number },
  joined: number,
  shown: number,
  dropped: number,
  limit: number,
): string {
  const rest = dropped
    ? ` ${dropped} more of the selected rows are left out of this result to keep it under 100 kB.`
    : joined > shown
      ? ` This result holds the biggest movers of the ${counts.total} keys, up to row_limit ${limit}.`
      : '';
  return (
    `Keys: ${counts.both} in both windows, ${counts.only_in_current} only in the current one, ${counts.only_in_previous} only in the previous one` +
    `${counts.not_listed ? `, ${counts.not_listed} outside the other window's rows` : ''} — a key in one window only is marked so, never counted as zero.${rest}`
  );
}

function truncationLines(complete: { current: boolean; previous: boolean }, previous: WindowAnswer, current: WindowAnswer): string[] {
  const lines: string[] = [];
  for (const [name, answer] of [
    ['previous', previous],
    ['current', current],
  ] as const) {
    if (complete[name]) {
      continue;
    }
    const rows = answer.rows.rows;
    lines.push(
      `The ${name} window has more than the ${rows.length} rows Google returns at most per request; a key missing from it may be there with up to ${plural(rows[rows.length - 1]?.clicks ?? 0, 'click')} (its last listed row). Filters or a shorter window give complete lists.`,
    );
  }
  return lines;
}
