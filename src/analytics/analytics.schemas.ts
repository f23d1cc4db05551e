import * as z from 'zod';
import { AnnotationsOut } from '../annotations/annotations.schemas.js';
import { NOTHING_SENT } from '../common/sentences.js';
import { SiteUrlArg } from '../tools/tool-args.js';
import { DataTruthSchema } from './data-truth.js';
import { PERIODS } from './pacific-period.js';

// Input descriptions are short on purpose: every character is paid for in the
// model's context on every request (PRODUCT.md §10). The output schema's
// descriptions document the fields here; tools/list advertises only its
// outline (src/mcp/wire-schema.ts).

const DIMENSIONS = ['date', 'hour', 'query', 'page', 'country', 'device', 'searchAppearance'] as const;
const FILTER_DIMENSIONS = ['query', 'page', 'country', 'device', 'searchAppearance'] as const;
const OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', 'includingRegex', 'excludingRegex'] as const;

export const AnalyticsInput = z.object({
  site_url: SiteUrlArg,
  period: z.enum(PERIODS).optional(),
  // YYYY-MM-DD: said by the refusal of any other form (characters on every request).
  start_date: z.string().optional(),
  end_date: z.string().optional(),
  dimensions: z.array(z.enum(DIMENSIONS)).optional(),
  type: z.enum(['web', 'image', 'video', 'news', 'discover', 'googleNews']).optional(),
  data_state: z.enum(['final', 'all', 'hourly_all']).optional(),
  aggregation_type: z.enum(['auto', 'byPage', 'byProperty']).optional(),
  filters: z
    .array(
      z.object({
        dimension: z.enum(FILTER_DIMENSIONS, { error: `each filter needs a dimension: ${FILTER_DIMENSIONS.join(', ')}. ${NOTHING_SENT}` }),
        operator: z.enum(OPERATORS, { error: `operator is one of ${OPERATORS.join(', ')} (default equals). ${NOTHING_SENT}` }).optional(),
        expression: z.string({
          error: `each filter needs an expression (a string), e.g. {"dimension":"query","operator":"contains","expression":"shoes"}. ${NOTHING_SENT}`,
        }),
      }),
    )
    .optional()
    .describe('country: alpha-3, e.g. usa.'),
  filter_type: z.enum(['and']).optional(),
  // Bounds checked, not advertised (characters on every request): the refusal names them.
  row_limit: z
    .number()
    .int('row_limit is a whole number from 1 to 25000.')
    .refine((n) => n >= 1, 'row_limit is at least 1.')
    .refine((n) => n <= 25000, 'row_limit is at most 25000; page on with start_row, or use all_rows.')
    .optional(),
  // No minimum in the schema (characters on every request); the server refuses a negative start_row with a sentence.
  start_row: z
    .number()
    .int('start_row is a whole number: it counts rows from 0.')
    .refine((n) => n >= 0, 'start_row is 0 or more: it counts rows from 0.')
    .optional(),
  compare: z
    .union([z.enum(['previous_period', 'previous_year']), z.object({ start_date: z.string(), end_date: z.string() })], {
      error: `use "previous_period", "previous_year" or {"start_date":"YYYY-MM-DD","end_date":"YYYY-MM-DD"} (both dates, as many days as the current window). ${NOTHING_SENT}`,
    })
    .optional(),
  all_rows: z.boolean().optional(),
  // No descriptions (characters on every request): the README and a refusal's sentence say how they combine.
  brand_terms: z.array(z.string()).optional(),
  brand: z.enum(['branded', 'non_branded']).optional(),
});

export type AnalyticsArgs = z.infer<typeof AnalyticsInput>;

// CTR to 4 decimals and position to 1, as the text shows them (analytics-metrics.ts roundMetrics).
const Metrics = { clicks: z.number(), impressions: z.number(), ctr: z.number(), position: z.number() };
const Totals = z.object(Metrics);
const Delta = z
  .object({ clicks: z.number(), impressions: z.number(), ctr_points: z.number(), position: z.number() })
  .describe('current − previous; CTR in percentage points; negative position is better.');

const Row = z
  .object({
    keys: z.array(z.string()),
    clicks: z.number().optional(),
    impressions: z.number().optional(),
    ctr: z.number().optional(),
    position: z.number().optional(),
    previous: z
      .object({ keys: z.array(z.string()).optional().describe('When they differ from keys (dates of the previous window).'), ...Metrics })
      .optional(),
    delta: Delta.optional(),
    only_in: z.enum(['current', 'previous']).optional().describe('The key has no row in the other window (never shown as zero).'),
    not_listed_in: z
      .enum(['current', 'previous'])
      .optional()
      .describe("Not among the other window's rows, whose list was cut: it may be there below them."),
  })
  .describe('Metrics are absent only on compare rows only in the previous window.');

const Window = z.object({
  start_date: z.string(),
  end_date: z.string(),
  days: z.number().int(),
  rows_returned: z.number().int().describe('Rows Google returned for the window.'),
  rows_complete: z.boolean().describe('false: Google returned its maximum of 25 000, so more keys exist.'),
  last_listed_clicks: z.number().optional().describe('rows_complete false: a key not listed had at most this many clicks.'),
});

const Compare = z.object({
  with: z.enum(['previous_period', 'previous_year', 'custom']),
  current: Window,
  previous: Window,
  left_out: z
    .array(
      z.object({
        window: z.enum(['current', 'previous']),
        start_date: z.string(),
        end_date: z.string(),
        from_hour: z.string().optional().describe('compare by hour: the first hour left out; earlier hours of start_date are kept.'),
        reason: z.enum(['not_final', 'outside_retention', 'not_in_other_window']),
      }),
    )
    .optional()
    .describe(
      'Days dropped from both windows so that day i still matches day i; not_in_other_window: final days whose counterparts are left out.',
    ),
  previous_totals: Totals.optional().describe(
    "The previous window's whole-property query (same filters); the current window's is the result's totals. By hour: the property's hours compared, summed.",
  ),
  previous_rows_sum: Totals.optional().describe(
    "Grouped by page: the previous window's sum of every page row (Google's by-page figures); the current window's is the result's rows_sum.",
  ),
  change: Delta.extend({ clicks_percent: z.number().optional(), impressions_percent: z.number().optional() }).describe(
    'totals − previous_totals (grouped by page: rows_sum − previous_rows_sum); the percentages are absent when there was nothing before.',
  ),
  keys: z.object({
    total: z.number().int(),
    both: z.number().int(),
    only_in_current: z.number().int(),
    only_in_previous: z.number().int(),
    not_listed: z.number().int(),
  }),
  row_limit: z.number().int().describe('At most this many joined rows are in rows: the biggest movers.'),
});

const Export = z.object({
  id: z.string(),
  csv: z.string().describe('gsc://exports/<id>.csv, for resources/read.'),
  ndjson: z.string(),
  rows: z.number().int(),
  requests: z.number().int(),
  complete: z
    .boolean()
    .describe('false: Google refused a later page, or it would have passed the per-person bound (see stopped); the first pages are kept.'),
  columns: z.array(z.string()),
  expires_at: z.string(),
  principal: z.string().describe('The only principal that can read it.'),
  stopped: z.string().optional(),
  replaced: z
    .array(z.string())
    .optional()
    .describe("Ids of this principal's oldest exports, removed (oldest first) to stay within the per-person bound."),
});

export const AnalyticsOutput = z.object({
  site_url: z.string(),
  start_date: z.string(),
  end_date: z.string(),
  period: z.string().optional(),
  dimensions: z.array(z.string()),
  type: z.string(),
  filters: z.array(z.object({ dimension: z.string(), operator: z.string(), expression: z.string() })).optional(),
  aggregation_type: z.string().optional(),
  brand: z
    .object({
      split: z.enum(['branded', 'non_branded']),
      terms: z.array(z.string()),
      operator: z.enum(['includingRegex', 'excludingRegex']),
      expression: z.string(),
      classifier: z.literal('caller_terms'),
    })
    .optional()
    .describe(
      "brand_terms: the split is the caller's terms as Google's query regex filter (also listed in filters), not Search Console's own brand classifier, which the API does not expose.",
    ),
  rows: z.array(Row).describe('compare: the biggest movers, by clicks gained; all_rows: the first rows of the export.'),
  totals: Totals.optional().describe(
    "The property's totals (same filters): from the one row without dimensions, or from a whole-property query (grouped by query; compare, by hour summed over the hours compared). Absent when not queried, and for compare grouped by page, whose by-page figures are rows_sum.",
  ),
  rows_sum: Totals.optional().describe(
    'Σ of the rows Google returned (all_rows: exported; compare grouped by page: every page row of the window, from a query by page): ctr = Σclicks/Σimpressions, position impression-weighted; 0 when there are no impressions.',
  ),
  rows_returned: z
    .number()
    .int()
    .optional()
    .describe('Rows Google returned for this request; rows holds them unless rows_not_shown says some were cut.'),
  start_row: z.number().int(),
  next_start_row: z.number().int().optional().describe('There may be more rows (or some were not shown): pass this as start_row.'),
  rows_not_shown: z.number().int().optional().describe('Rows left out to stay under 100 kB.'),
  compare: Compare.optional(),
  export: Export.optional(),
  data_truth: DataTruthSchema,
  annotations: AnnotationsOut.optional(),
  untrusted: z.literal(true),
});

const SeriesDay = z.object({
  date: z.string().describe('YYYY-MM-DD; hourly: the hour key as Google gives it, e.g. 2026-12-01T14:00:00-08:00.'),
  clicks: z.number(),
  impressions: z.number(),
  ctr: z.number(),
  position: z.number(),
  incomplete: z
    .literal(true)
    .optional()
    .describe('On or after first_incomplete_date (hourly: first_incomplete_hour): Google is still collecting it.'),
});
const SeriesWindow = z.object({
  start_date: z.string(),
  end_date: z.string(),
  days: z.array(SeriesDay).describe('Days with data only, oldest first.'),
});

/** performance_daily_series (app-only, for the Performance view): also the view's type of its answer. */
export const SeriesOutput = z.object({
  site_url: z.string(),
  type: z.string(),
  current: SeriesWindow,
  previous: SeriesWindow.optional(),
  first_incomplete_date: z.string().optional(),
  first_incomplete_hour: z.string().optional(),
  hourly: z.literal(true).optional(),
  untrusted: z.literal(true),
});
