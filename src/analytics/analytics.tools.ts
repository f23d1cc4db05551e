import { Injectable } from '@nestjs/common';
import { WindowAnnotations } from '../annotations/window-annotations.js';
import { Clock } from '../common/clock.js';
import { NOTHING_SENT } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { TargetOf } from '../tools/tool-target.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import type { ToolOutput } from '../tools/tool-output.js';
import { buildComparison } from './analytics-compare.js';
import { buildReport } from './analytics-report.js';
import type { ReportRequest } from './analytics-request.js';
import { AnalyticsExports } from './analytics-export.service.js';
import { AnalyticsReports } from './analytics-reports.service.js';
import { buildExportReport } from './export-report.js';
import { KnownAnomalies } from './known-anomalies.js';
import { brandFilter, brandSplit, checkExpressions } from './brand-split.js';
import { type AnalyticsArgs, AnalyticsInput, AnalyticsOutput } from './analytics.schemas.js';
import { PERFORMANCE_VIEW } from '../tools/view-uris.js';
import { addDays, type DateRange, isCalendarDate, pacificDate, type Period, resolvePeriod } from './pacific-period.js';
import { HOURLY_DAYS, hourlyStart } from './hour-keys.js';

@ToolProvider()
@Injectable()
export class AnalyticsTools {
  constructor(
    private readonly reports: AnalyticsReports,
    private readonly exports: AnalyticsExports,
    private readonly clock: Clock,
    private readonly known: KnownAnomalies,
    private readonly notes: WindowAnnotations,
  ) {}

  @Tool({
    name: 'query_search_analytics',
    title: 'Query search performance',
    description:
      'Clicks, impressions, CTR, position. Pacific dates; lastN periods end yesterday. compare: vs an earlier window; all_rows: all rows as a file.',
    input: AnalyticsInput,
    target: ['site'],
    output: AnalyticsOutput,
    access: 'read',
    apis: ['searchconsole'],
    essential: true,
    view: PERFORMANCE_VIEW,
  })
  async querySearchAnalytics(args: AnalyticsArgs, call: ToolCall<TargetOf<typeof AnalyticsInput>>): Promise<ToolOutput> {
    // The team's annotations inside the answer's window(s) join it (PRODUCT.md §5e).
    return this.notes.attach(await this.answer(args, call), call);
  }

  private async answer(args: AnalyticsArgs, call: ToolCall<TargetOf<typeof AnalyticsInput>>): Promise<ToolOutput> {
    const now = this.clock.now();
    const request = reportRequest(args, call.target.site, now);
    await checkExpressions(request.filters, request.brand);
    const { anomalies } = this.known.catalog;
    if (args.all_rows) {
      refuseWithAllRows(args);
      return buildExportReport(request, await this.exports.create(request, call, now), anomalies);
    }
    if (args.compare !== undefined) {
      return buildComparison({ ...(await this.reports.compare(request, args.compare, call.signal)), anomalies });
    }
    const { result, context } = await this.reports.report(request, call.signal);
    return buildReport(request, result, { ...context, anomalies });
  }
}

const TODAY_NOTE = (state: string) =>
  `period today: data_state ${state} was used, since today's data is never final the same day (data_state final, the default, would answer empty); its figures are partial and still rising.`;

/** all_rows pages from the first row to Google's cap itself; the paging arguments and compare do not combine with it. */
function refuseWithAllRows(args: AnalyticsArgs): void {
  const clash = (['compare', 'row_limit', 'start_row'] as const).filter((name) => args[name] !== undefined);
  if (clash.length) {
    throw new UserFacingError(
      `all_rows fetches every row Google serves (up to 50 000, paged by the server), so ${clash.join(' and ')} ${clash.length === 1 ? 'does' : 'do'} not apply. ${NOTHING_SENT} Call again without ${clash.join(' and ')}${clash.includes('compare') ? ', or compare without all_rows' : ''}.`,
    );
  }
}

/** The call's arguments as the server resolved them: Pacific dates, defaults, and the rules Google would otherwise answer with a 400. */
export function reportRequest(args: AnalyticsArgs, site: string, now: Date): ReportRequest {
  const dimensions = args.dimensions ?? [];
  const hourly = dimensions.includes('hour');
  const today = pacificDate(now);
  const { range, period, hourlyDefault } = hourly ? hourlyRange(args, now) : { ...resolveRange(args, now), hourlyDefault: false };
  // Today is never final: under the default data_state final, period today would always answer empty.
  const todayState = !hourly && period === 'today' && args.data_state === undefined ? 'all' : undefined;
  // The hour dimension implies hourly_all, the one data state Google groups by hour with.
  const dataState = hourly ? (args.data_state ?? 'hourly_all') : (todayState ?? args.data_state ?? 'final');
  if (hourly && dataState !== 'hourly_all') {
    throw new UserFacingError(
      `The hour dimension needs data_state "hourly_all" (Google keeps hourly data for about the last ${HOURLY_DAYS} days); data_state is "${dataState}". ${NOTHING_SENT} Call again with data_state hourly_all or without data_state (hour implies it), or group by date instead.`,
    );
  }
  if (!hourly && dataState === 'hourly_all') {
    throw new UserFacingError(
      `data_state "hourly_all" goes with the hour dimension: add "hour" to dimensions for hourly rows, or use data_state "all" for fresh daily data. ${NOTHING_SENT}`,
    );
  }
  if (hourly && range.start < hourlyStart(today)) {
    throw new UserFacingError(
      `Google keeps hourly data for about the last ${HOURLY_DAYS} days: with the hour dimension the window must lie within ${hourlyStart(today)} to ${today} (Pacific dates, today included), and ${range.start} is earlier. ${NOTHING_SENT} ` +
        `Call again with start_date ${hourlyStart(today)} or later (or period today or yesterday), or group by date for older days.`,
    );
  }
  const brand = brandSplit(args.brand_terms, args.brand);
  const type = args.type ?? 'web';
  if (brand && (type === 'discover' || type === 'googleNews')) {
    throw new UserFacingError(
      `${type} reports no queries, so a branded split has nothing to split: leave out brand_terms and brand. ${NOTHING_SENT}`,
    );
  }
  if (new Set(dimensions).size !== dimensions.length) {
    throw new UserFacingError(
      `dimensions lists the same dimension twice (${dimensions.join(', ')}); Google groups by each once. ${NOTHING_SENT}`,
    );
  }
  return {
    site,
    range,
    period,
    today,
    dimensions,
    type,
    dataState,
    ...(todayState ? { dataStateNote: TODAY_NOTE(todayState) } : {}),
    ...(hourlyDefault ? { windowNote: HOURLY_DEFAULT_NOTE } : {}),
    aggregationType: args.aggregation_type,
    filters: [
      ...(args.filters ?? []).map((f) => ({ dimension: f.dimension, operator: f.operator ?? 'equals', expression: f.expression })),
      ...(brand ? [brandFilter(brand)] : []),
    ],
    ...(brand ? { brand } : {}),
    rowLimit: args.row_limit ?? 100,
    startRow: args.start_row ?? 0,
  };
}

const HOURLY_DEFAULT_NOTE =
  "no period or dates with the hour dimension: yesterday and today, which hold Search Console's own last 24 hours";

/** The window of an hourly call: as asked, or — asked for none — yesterday and today (the default last28days reaches past Google's hourly data). */
function hourlyRange(args: AnalyticsArgs, now: Date): { range: DateRange; period?: Period; hourlyDefault: boolean } {
  if (args.period === undefined && args.start_date === undefined && args.end_date === undefined) {
    const today = pacificDate(now);
    return { range: { start: addDays(today, -1), end: today }, hourlyDefault: true };
  }
  return { ...resolveRange(args, now), hourlyDefault: false };
}

/** The Pacific date range of a call: a period, or explicit dates — never both. */
export function resolveRange(
  args: Pick<AnalyticsArgs, 'period' | 'start_date' | 'end_date'>,
  now: Date,
): { range: DateRange; period?: Period } {
  const explicit = args.start_date !== undefined || args.end_date !== undefined;
  if (explicit && args.period) {
    throw new UserFacingError(
      `Give either period ("${args.period}") or start_date and end_date, not both: they could name different days. ${NOTHING_SENT}`,
    );
  }
  if (!explicit) {
    const period = args.period ?? 'last28days';
    return { range: resolvePeriod(period, now), period };
  }
  const { start_date: start, end_date: end } = args;
  if (!start || !end) {
    throw new UserFacingError(
      `start_date and end_date go together (YYYY-MM-DD, Pacific Time, both inclusive); only ${start ? 'start_date' : 'end_date'} was given. ${NOTHING_SENT}`,
    );
  }
  for (const [name, value] of [
    ['start_date', start],
    ['end_date', end],
  ] as const) {
    if (!isCalendarDate(value)) {
      throw new UserFacingError(`${name} "${value}" is not a calendar date; use YYYY-MM-DD. ${NOTHING_SENT}`);
    }
  }
  if (end < start) {
    throw new UserFacingError(
      `end_date ${end} is before start_date ${start}; the range is inclusive, so end_date must be the same day or later. ${NOTHING_SENT}`,
    );
  }
  return { range: { start, end } };
}
