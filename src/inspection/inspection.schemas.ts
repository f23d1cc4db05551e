import * as z from 'zod';
import { QuotaRemainingOut } from '../quota/quota-report.js';

// Result shapes of inspect_url and inspect_urls: the schemas clients see, and
// (z.infer) the types the report builds.

const IssueOut = z.object({ message: z.string(), severity: z.string() });

export const InspectionOutput = z.object({
  site_url: z.string(),
  url: z.string(),
  verdict: z.string().describe('PASS (indexed), NEUTRAL (excluded), FAIL (error) or VERDICT_UNSPECIFIED.'),
  coverage_state: z.string().optional(),
  last_crawl_time: z.string().optional(),
  crawled_as: z.string().optional(),
  robots_txt_state: z.string().optional(),
  indexing_state: z.string().optional(),
  page_fetch_state: z.string().optional(),
  google_canonical: z.string().optional(),
  user_canonical: z.string().optional(),
  canonical_differs: z.boolean(),
  sitemaps: z.array(z.string()),
  referring_urls: z.array(z.string()).describe('At most 10; referring_urls_total has the count.'),
  referring_urls_total: z.number().int(),
  rich_results: z
    .object({
      verdict: z.string(),
      types: z.array(
        z.object({
          type: z.string(),
          items: z.number().int(),
          issues: z.array(IssueOut.extend({ item: z.string().optional() })),
          issues_total: z.number().int(),
        }),
      ),
    })
    .optional(),
  amp: z
    .object({
      verdict: z.string(),
      amp_url: z.string().optional(),
      index_status_verdict: z.string().optional(),
      indexing_state: z.string().optional(),
      page_fetch_state: z.string().optional(),
      robots_txt_state: z.string().optional(),
      last_crawl_time: z.string().optional(),
      issues: z.array(IssueOut),
    })
    .optional(),
  mobile_usability: z
    .object({ verdict: z.string(), issues: z.array(IssueOut.extend({ type: z.string().optional() })), deprecated: z.literal(true) })
    .optional()
    .describe('Deprecated by Google; stale.'),
  inspection_result_link: z.string().optional(),
  untrusted: z.literal(true),
});

export const CondensedOut = z.object({
  url: z.string(),
  verdict: z.string().optional(),
  coverage_state: z.string().optional(),
  last_crawl_time: z.string().optional(),
  google_canonical: z.string().optional().describe('Only when Google chose a canonical other than this URL.'),
  error: z.string().optional(),
});

export const BatchOutput = z.object({
  site_url: z.string(),
  results: z.array(CondensedOut),
  not_inspected: z.array(z.string()).describe('Never inspected by Google in this call; stop_reason says why.'),
  stop_reason: z
    .enum(['quota', 'daily_budget', 'cancelled'])
    .optional()
    .describe(
      "quota: Google refused after one wait; daily_budget: this server's own count reached 2 000 today; cancelled: the client cancelled.",
    ),
  quota: z
    .object({
      likely_limit: z.enum(['minute', 'day']).describe("Google's answer does not say; judged from this server's own counts."),
      basis: z.enum(['own_day_count', 'own_minute_count', 'refused_earlier', 'rates']),
      minute_resets_at: z.string().optional(),
      day_resets_at: z.string(),
      waited_seconds: z.number(),
    })
    .optional(),
  quota_remaining: QuotaRemainingOut.optional(),
  results_not_shown: z.number().int().optional(),
  untrusted: z.literal(true),
});

export type InspectionFacts = z.infer<typeof InspectionOutput>;
/** The condensed verdict of one URL in a batch. */
export type CondensedVerdict = z.infer<typeof CondensedOut>;
