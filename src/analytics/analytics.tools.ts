import { Injectable } from '@nestjs/common';
import * as z from 'zod';
import { Clock } from '../common/clock.js';
import { NOTHING_SENT } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { SiteUrlArg } from '../mcp/tool-args.js';
import type { TargetOf, ToolCall } from '../mcp/tool-call.js';
import { Tool, ToolProvider } from '../mcp/tool.decorator.js';
import type { ToolOutput } from '../mcp/tool-output.js';
import { buildReport, type ReportRequest } from './analytics-report.js';
import { AnalyticsService } from './analytics.service.js';
import { type DateRange, isCalendarDate, pacificDate, type Period, PERIODS, resolvePeriod } from './pacific-period.js';
const DIMENSIONS = ['date', 'hour', 'query', 'page', 'country', 'device', 'searchAppearance'] as const;
const FILTER_DIMENSIONS = ['query', 'page', 'country', 'device', 'searchAppearance'] as const;
const OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', 'includingRegex', 'excludingRegex'] as const;

const AnalyticsInput = z.object({
  site_url: SiteUrlArg,
  period: z.enum(PERIODS).optional().describe('Default last28days.'),
  start_date: z.string().optional().describe('YYYY-MM-DD'),
  end_date: z.string().optional(),
  dimensions: z.array(z.enum(DIMENSIONS)).optional(),
  type: z.enum(['web', 'image', 'video', 'news', 'discover', 'googleNews']).optional(),
  data_state: z.enum(['final', 'all', 'hourly_all']).optional().describe('Default final.'),
  aggregation_type: z.enum(['auto', 'byPage', 'byProperty']).optional(),
  filters: z
    .array(z.object({ dimension: z.enum(FILTER_DIMENSIONS), operator: z.enum(OPERATORS).optional(), expression: z.string() }))
    .optional()
    .describe('country: ISO alpha-3, e.g. usa.'),
  filter_type: z.enum(['and']).optional().describe('Only and.'),
  row_limit: z.number().int().min(1, 'row_limit is at least 1.').max(25000, 'row_limit is at most 25000; page on with start_row.').optional().describe('Default 100.'),
  start_row: z.number().int('start_row is a whole number: it counts rows from 0.').min(0, 'start_row is 0 or more.').optional(),
});

type AnalyticsArgs = z.infer<typeof AnalyticsInput>;

const Metrics = { clicks: z.number(), impressions: z.number(), ctr: z.number(), position: z.number() };

const AnalyticsOutput = z.object({
  site_url: z.string(),
  start_date: z.string(),
  end_date: z.string(),
  dimensions: z.array(z.string()),
  aggregation_type: z.string().optional(),
  rows: z.array(z.object({ keys: z.array(z.string()), ...Metrics })),
  totals: z.object(Metrics).describe('Over every row Google returned: ctr = Σclicks/Σimpressions, position impression-weighted; 0 when there are no impressions.'),
  row_count: z.number().int().describe('Rows Google returned.'),
  start_row: z.number().int(),
  next_start_row: z.number().int().optional().describe('There may be more rows (or some were not shown): pass this as start_row.'),
  rows_not_shown: z.number().int().optional().describe('Rows left out to stay under 100 kB.'),
  first_incomplete_date: z.string().optional(),
  first_incomplete_hour: z.string().optional(),
  untrusted: z.literal(true),
});

@ToolProvider()
@Injectable()
export class AnalyticsTools {
  constructor(
    private readonly analytics: AnalyticsService,
    private readonly clock: Clock,
  ) {}

  @Tool({
    name: 'query_search_analytics',
    title: 'Query search performance',
    description:
      'Search clicks, impressions, CTR, position. Pacific Time dates; lastNdays/lastNmonths end yesterday; final data lags 2–3 days; hour needs hourly_all.',
    input: AnalyticsInput,
    output: AnalyticsOutput,
    access: 'read',
    apis: ['searchconsole'],
    essential: true,
  })
  async querySearchAnalytics(args: AnalyticsArgs, call: ToolCall<TargetOf<typeof AnalyticsInput>>): Promise<ToolOutput> {
    const request = reportRequest(args, call.target.site, this.clock.now());
    return buildReport(request, await this.analytics.query(request, args.filter_type ?? 'and'));
  }
}

/** The call's arguments as the server resolved them: Pacific dates, defaults, and the rules Google would otherwise answer with a 400. */
export function reportRequest(args: AnalyticsArgs, site: string, now: Date): ReportRequest {
  const { range, period } = resolveRange(args, now);
  const dimensions = args.dimensions ?? [];
  const dataState = args.data_state ?? 'final';
  if (dimensions.includes('hour') && dataState !== 'hourly_all') {
    throw new UserFacingError(
      `The hour dimension needs data_state "hourly_all" (Google keeps hourly data for about the last 10 days); data_state is "${dataState}". ${NOTHING_SENT} Call again with data_state hourly_all, or group by date instead.`,
    );
  }
  if (new Set(dimensions).size !== dimensions.length) {
    throw new UserFacingError(`dimensions lists the same dimension twice (${dimensions.join(', ')}); Google groups by each once. ${NOTHING_SENT}`);
  }
  return {
    site,
    range,
    period,
    today: pacificDate(now),
    dimensions,
    type: args.type ?? 'web',
    dataState,
    aggregationType: args.aggregation_type,
    filters: (args.filters ?? []).map((f) => ({ dimension: f.dimension, operator: f.operator ?? 'equals', expression: f.expression })),
    rowLimit: args.row_limit ?? 100,
    startRow: args.start_row ?? 0,
  };
}

/** The Pacific date range of a call: a period, or explicit dates — never both. */
export function resolveRange(args: Pick<AnalyticsArgs, 'period' | 'start_date' | 'end_date'>, now: Date): { range: DateRange; period?: Period } {
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
    throw new UserFacingError(`start_date and end_date go together (YYYY-MM-DD, Pacific Time, both inclusive); only ${start ? 'start_date' : 'end_date'} was given. ${NOTHING_SENT}`);
  }
  for (const [name, value] of [['start_date', start], ['end_date', end]] as const) {
    if (!isCalendarDate(value)) throw new UserFacingError(`${name} "${value}" is not a calendar date; use YYYY-MM-DD. ${NOTHING_SENT}`);
  }
  if (end < start) {
    throw new UserFacingError(`end_date ${end} is before start_date ${start}; the range is inclusive, so end_date must be the same day or later. ${NOTHING_SENT}`);
  }
  return { range: { start, end } };
}
