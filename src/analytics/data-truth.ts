// The data-truth block of every analytics result (PRODUCT.md §5b): which
// Pacific days were actually asked, whether they are final, whether Google's
// row cap cut the answer, and — grouped by query — how much traffic no listed
// query accounts for (anonymised queries). The same facts go to the text and
// to structuredContent; some clients show the model only the latter.

import * as z from 'zod';
import { describeError, formatCount, formatCtr, round } from './analytics-format.js';
import { involves, PAGE_ROWS, ROW_CAP, type ReportRequest } from './analytics-request.js';
import { computeTotals, type Totals } from './analytics-metrics.js';
import { type AnalyticsService, FRESHNESS_DAYS } from './analytics.service.js';
import type { KnownAnomaly } from '../config/anomalies-file.js';
import { AnomalyFactSchema, anomalyFacts } from './known-anomalies.js';
import { windowOffsets } from './hour-keys.js';
import { addDays, type DateRange, daysInRange } from './pacific-period.js';

export const TIME_ZONE = 'America/Los_Angeles';

const Unattributed = z.object({
  clicks: z.number().optional(),
  impressions: z.number().optional(),
  click_share: z.number().optional(),
  impression_share: z.number().optional(),
  property_clicks: z.number().optional(),
  property_impressions: z.number().optional(),
  listed_rows_complete: z.boolean().optional().describe('false: the shortfall also holds queries below the rows listed.'),
  not_measured: z.string().optional().describe('Why there is no share.'),
});

export const DataTruthSchema = z.object({
  start_date: z.string(),
  end_date: z.string(),
  days: z.number().int(),
  time_zone: z.literal(TIME_ZONE),
  data_state: z.string(),
  data_state_note: z.string().optional(),
  window_note: z.string().optional().describe('Why the server chose this window (the hour dimension without dates).'),
  hour_offsets: z
    .array(z.string())
    .optional()
    .describe('The hour dimension: the UTC offsets its keys use in this window, e.g. "-08:00 PST" (America/Los_Angeles).'),
  freshness: z.enum(['final', 'fresh', 'unknown']).describe('final: every day shown is final; fresh: some are still being collected.'),
  first_incomplete_date: z
    .string()
    .optional()
    .describe('From here on Google is still collecting: missing under data_state final, partial under all.'),
  first_incomplete_hour: z.string().optional(),
  freshness_unknown: z.string().optional(),
  row_cap: z.number().int(),
  row_cap_reached: z.boolean(),
  row_sum_caveats: z.array(z.enum(['anonymised_queries_left_out', 'counted_per_page'])),
  unattributed: Unattributed.optional().describe(
    'query dimension: whole-property total (a query without dimensions) minus Σ rows = anonymised queries.',
  ),
  anomalies: z
    .array(AnomalyFactSchema)
    .optional()
    .describe("Google's announced data anomalies that overlap the window (compare: either window); absent when none does."),
});

export type DataTruth = z.infer<typeof DataTruthSchema>;

/** What is known about which days are final. */
export type Freshness =
  | {
      readonly known: true;
      readonly firstIncompleteDate?: string;
      readonly firstIncompleteHour?: string;
      /** answer: Google's own metadata; probe: a date-grouped data_state all query; age: the window ends over a week ago. */
      readonly source: 'answer' | 'probe' | 'age';
    }
  | { readonly known: false; readonly because: string };

/** The whole-property query's answer, or why there is none. */
export type PropertyFigures =
  { readonly totals: Totals; readonly aggregationType?: string } | { readonly error: unknown } | { readonly skipped: string };

export interface TruthInput {
  /** Its range is the window actually queried. */
  readonly request: ReportRequest;
  readonly freshness: Freshness;
  readonly rowCapReached: boolean;
  /** Σ of the rows listed; complete when they are every row the request matches. */
  readonly listed: { readonly totals: Totals; readonly complete: boolean; readonly count: number; readonly aggregationType?: string };
  /** Present exactly when the request is grouped by query. */
  readonly property?: PropertyFigures;
  /** The known anomalies in force (KnownAnomalies); those overlapping the window are reported. */
  readonly anomalies?: readonly KnownAnomaly[];
  /** compare: the previous window, whose overlap with an anomaly is reported too. */
  readonly previousRange?: DateRange;
}

/** Whether a call needs the freshness query: Google's own answer carries it only for data_state all grouped by date. */
export function needsFreshnessQuery(request: ReportRequest): boolean {
  if (request.dataState === 'all' && request.dimensions.includes('date')) {
    return false;
  }
  return !finalByAge(request);
}

/** Final data typically takes 2–3 days; a window that ended more than a week ago is taken as final without asking. */
export function finalByAge(request: ReportRequest): boolean {
  return request.range.end < addDays(request.today, -FRESHNESS_DAYS);
}

export function freshnessFromAnswer(
  request: ReportRequest,
  answer: { firstIncompleteDate?: string; firstIncompleteHour?: string },
): Freshness {
  return { known: true, ...pick(answer), source: finalByAge(request) && !answer.firstIncompleteDate ? 'age' : 'answer' };
}

export function freshnessFromProbe(probe: { firstIncompleteDate?: string }, answer: { firstIncompleteHour?: string } = {}): Freshness {
  return {
    known: true,
    ...pick({ firstIncompleteDate: probe.firstIncompleteDate, firstIncompleteHour: answer.firstIncompleteHour }),
    source: 'probe',
  };
}

/**
 * The freshness query, beside an answer whose hours it keeps. A failure costs
 * only this fact, said so, never the answer; once cancelled it is not sent.
 */
export async function probeFreshness(
  analytics: AnalyticsService,
  request: ReportRequest,
  signal: AbortSignal,
  answer: { firstIncompleteHour?: string } = {},
): Promise<Freshness> {
  if (signal.aborted) {
    return { known: false, because: 'the call was cancelled first.' };
  }
  try {
    return freshnessFromProbe(await analytics.freshness(request), answer);
  } catch (error) {
    return { known: false, because: describeError(error) };
  }
}

/** The whole-property query, on the same terms as probeFreshness. */
export async function propertyFigures(analytics: AnalyticsService, request: ReportRequest, signal: AbortSignal): Promise<PropertyFigures> {
  if (signal.aborted) {
    return { skipped: 'the call was cancelled first.' };
  }
  try {
    const answer = await analytics.propertyTotals(request);
    return { totals: computeTotals(answer.rows), aggregationType: answer.aggregationType };
  } catch (error) {
    return { error };
  }
}

function pick(m: { firstIncompleteDate?: string; firstIncompleteHour?: string }) {
  return {
    ...(m.firstIncompleteDate ? { firstIncompleteDate: m.firstIncompleteDate } : {}),
    ...(m.firstIncompleteHour ? { firstIncompleteHour: m.firstIncompleteHour } : {}),
  };
}

/**
 * Whether the whole-property query is worth its cost: only grouped by query
 * (the one grouping whose rows silently leave traffic out), from the first
 * row, without a query filter (anonymised queries never match one) and on a
 * surface that has queries. It is a one-row query without dimensions — the
 * cheapest load Search Analytics has — run beside the main one.
 */
export function unattributedPlan(request: ReportRequest): { measure: boolean; because?: string } | undefined {
  if (!request.dimensions.includes('query')) {
    return undefined;
  }
  if (request.type === 'discover' || request.type === 'googleNews') {
    return { measure: false, because: `${request.type} reports no queries.` };
  }
  if (request.filters.some((f) => f.dimension === 'query')) {
    return {
      measure: false,
      because: 'filtered by query: anonymised queries never match a query filter, so their share cannot be measured here.',
    };
  }
  if (request.startRow > 0) {
    return {
      measure: false,
      because: `the rows start at start_row ${request.startRow}, so their sum says nothing about anonymised queries; ask from start_row 0.`,
    };
  }
  return { measure: true };
}

export function buildDataTruth(input: TruthInput): { structured: DataTruth; lines: string[] } {
  const { request, freshness } = input;
  const { range } = request;
  const days = daysInRange(range);
  const lines = [`Data truth:`, `- Window: ${range.start} to ${range.end}, Pacific Time (${days} ${days === 1 ? 'day' : 'days'}).`];
  const structured: DataTruth = {
    start_date: range.start,
    end_date: range.end,
    days,
    time_zone: TIME_ZONE,
    data_state: request.dataState,
    freshness: 'final',
    row_cap: ROW_CAP,
    row_cap_reached: input.rowCapReached,
    row_sum_caveats: [],
  };

  if (request.windowNote) {
    structured.window_note = request.windowNote;
  }
  if (request.dimensions.includes('hour')) {
    structured.hour_offsets = windowOffsets(range);
  }
  if (request.dataStateNote) {
    structured.data_state_note = request.dataStateNote;
    lines.push(`- Data state: ${request.dataStateNote}`);
  }
  if (!freshness.known) {
    structured.freshness = 'unknown';
    structured.freshness_unknown = freshness.because;
    lines.push(`- Freshness: unknown — asking Google which days are final failed: ${freshness.because}`);
  } else {
    const first = freshness.firstIncompleteDate;
    if (first) {
      structured.first_incomplete_date = first;
    }
    if (freshness.firstIncompleteHour) {
      structured.first_incomplete_hour = freshness.firstIncompleteHour;
    }
    const incomplete = first !== undefined && first <= range.end;
    if (incomplete && request.dataState === 'final') {
      lines.push(
        `- Freshness: final data only (data_state final); days from ${first} on are not final yet, so they are missing here — data_state all includes them, marked incomplete.`,
      );
    } else if (incomplete || freshness.firstIncompleteHour) {
      structured.freshness = 'fresh';
      const days = first ? `days from ${first} on are incomplete (Google is still collecting them) and will still rise` : '';
      const hours = freshness.firstIncompleteHour ? `hours from ${freshness.firstIncompleteHour} on are incomplete` : '';
      lines.push(`- Freshness: fresh — ${[days, hours].filter(Boolean).join('; ')}.`);
    } else {
      lines.push(
        `- Freshness: final — every day of the window is final${freshness.source === 'age' ? ` (it ended over ${FRESHNESS_DAYS} days ago)` : ''}.`,
      );
    }
  }

  const anomalies = anomalyFacts(input.anomalies ?? [], { range, previous: input.previousRange, type: request.type });
  if (anomalies.structured.length) {
    structured.anomalies = anomalies.structured;
    lines.push(...anomalies.lines);
  }

  lines.push(
    input.rowCapReached
      ? `- Row cap: reached — Google serves at most ${ROW_CAP} rows for one day range and search type, so matching rows past it are missing; shorten the range (e.g. a week at a time) or add filters to reach them.`
      : `- Row cap: not reached (Google serves at most ${ROW_CAP} rows for one day range and search type).`,
  );

  lines.push(...rowSumLines(input, structured));
  return { structured, lines };
}

function rowSumLines(input: TruthInput, structured: DataTruth): string[] {
  const { request, listed } = input;
  const lines: string[] = [];
  if (involves(request, 'query')) {
    structured.row_sum_caveats.push('anonymised_queries_left_out');
    lines.push(
      '- Grouped or filtered by query: Google leaves out anonymised queries (ones too rare to show, for privacy), so these rows add up to less than the property total.',
    );
  }
  const byPage = listed.aggregationType
    ? /^bypage$/i.test(listed.aggregationType)
    : request.aggregationType === 'byPage' || involves(request, 'page');
  if (byPage) {
    structured.row_sum_caveats.push('counted_per_page');
    lines.push(
      '- Aggregated by page: when several pages of the property show in one search result, each counts an impression, so page rows add up to more impressions than the by-property total, and CTR and position differ from it.',
    );
  }
  const plan = unattributedPlan(request);
  if (!plan) {
    return lines;
  }
  const figures = input.property;
  let notMeasured = plan.because;
  if (plan.measure && figures && 'totals' in figures) {
    const same = (figures.aggregationType ?? '').toLowerCase() === (listed.aggregationType ?? figures.aggregationType ?? '').toLowerCase();
    if (same) {
      const property = figures.totals;
      const clicks = property.clicks - listed.totals.clicks;
      const impressions = property.impressions - listed.totals.impressions;
      const clickShare = property.clicks ? clicks / property.clicks : 0;
      const impressionShare = property.impressions ? impressions / property.impressions : 0;
      structured.unattributed = {
        clicks,
        impressions,
        click_share: round(clickShare, 4),
        impression_share: round(impressionShare, 4),
        property_clicks: property.clicks,
        property_impressions: property.impressions,
        listed_rows_complete: listed.complete,
      };
      const who = listed.complete
        ? 'anonymised queries, which Google leaves out of query rows'
        : `anonymised queries plus queries below the ${listed.count} rows listed (all_rows, or a higher row_limit, tells them apart)`;
      lines.push(
        `- Not in any listed query: ${formatCtr(clickShare)} of clicks (${formatCount(clicks)} of ${formatCount(property.clicks)}) and ${formatCtr(impressionShare)} of impressions (${formatCount(impressions)} of ${formatCount(property.impressions)}), measured against a whole-property query — ${who}.`,
      );
      return lines;
    }
    notMeasured = `the rows are aggregated ${listed.aggregationType} and the whole-property query ${figures.aggregationType}, so they do not compare.`;
  } else if (plan.measure && figures && 'error' in figures) {
    notMeasured = `the whole-property query failed: ${describeError(figures.error)}`;
  } else if (plan.measure && figures && 'skipped' in figures) {
    notMeasured = figures.skipped;
  }
  structured.unattributed = { not_measured: notMeasured ?? 'not asked.' };
  lines.push(`- Anonymised queries: not measured — ${notMeasured ?? 'not asked.'}`);
  return lines;
}

/** Whether a plain query's answer stopped at Google's row cap. */
export function capReached(startRow: number, returned: number): boolean {
  return startRow + returned >= ROW_CAP || (startRow >= ROW_CAP && returned === 0);
}

/** Whether a list of rows holds every row the request matches: fewer than asked for, from the first row, under the cap. */
export function listComplete(request: ReportRequest, returned: number): boolean {
  return request.startRow === 0 && returned < Math.min(request.rowLimit, PAGE_ROWS) && !capReached(0, returned);
}
