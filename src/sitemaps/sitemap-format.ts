// Sitemaps as Search Console reports them, turned into snake_case facts with
// real numbers (Google sends int64 counts as JSON strings) and into text lines.

import type { searchconsole_v1 } from '@googleapis/searchconsole';
import * as z from 'zod';
import { UserFacingError } from '../common/user-facing-error.js';
import { pageInProperty, parsePageUrl, PropertyError } from '../property/property.js';
import { inert } from '../common/inert-text.js';
import { NOTHING_SENT, plural } from '../common/sentences.js';

/** One sitemap in a tool result: the schema clients see, and (z.infer) the type the code builds. */
export const SitemapSchema = z.object({
  path: z.string(),
  type: z.string().describe('sitemap, rssFeed, atomFeed, urlList, patternSitemap or notSitemap.'),
  is_pending: z.boolean().describe('Not processed since last (re)submitted.'),
  is_sitemaps_index: z.boolean(),
  last_submitted: z.string().optional(),
  last_downloaded: z.string().optional(),
  warnings: z.number(),
  errors: z.number(),
  // Google's contents[].indexed is "Deprecated; do not use" (value N/A) in its reference
  // (https://developers.google.com/webmaster-tools/v1/sitemaps): whether it is sent as "0" or left out,
  // it is no figure, so it is never passed on as one. How many of a sitemap's URLs are indexed is
  // what inspect_url / inspect_urls say per URL.
  contents: z.array(z.object({ type: z.string(), submitted: z.number().describe('URLs of this content type listed in it.') })),
});

/** list_sitemaps: also the Index health view's type of its answer. */
export const SitemapListOutput = z.object({
  site_url: z.string(),
  sitemap_index: z.string().optional(),
  sitemaps: z.array(SitemapSchema),
  omitted: z.number().int().optional().describe('Entries left out to stay within the size limit.'),
  untrusted: z.literal(true),
});

export type SitemapOut = z.infer<typeof SitemapSchema>;

/** An int64 count as Google sends it ("12", 12, absent) → a number; absent means 0. */
export function toCount(value: string | number | null | undefined): number {
  if (value === null || value === undefined || value === '') {
    return 0;
  }
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : 0;
}

export function toSitemapOut(s: searchconsole_v1.Schema$WmxSitemap): SitemapOut {
  return {
    path: s.path ?? '',
    type: s.type ?? 'sitemap',
    is_pending: s.isPending ?? false,
    is_sitemaps_index: s.isSitemapsIndex ?? false,
    ...(s.lastSubmitted ? { last_submitted: s.lastSubmitted } : {}),
    ...(s.lastDownloaded ? { last_downloaded: s.lastDownloaded } : {}),
    warnings: toCount(s.warnings),
    errors: toCount(s.errors),
    contents: (s.contents ?? []).map((c) => ({ type: c.type ?? 'web', submitted: toCount(c.submitted) })),
  };
}

/**
 * Validates a sitemap URL argument: an absolute http(s) URL without user info.
 * Returns the canonical form sent to Google (the trimmed input: Search Console
 * keys a submission by the exact string submitted) and the parsed URL.
 */
export function parseSitemapUrl(value: string, argument = 'sitemap_url'): { url: string; parsed: URL } {
  const url = value.trim();
  try {
    return { url, parsed: parsePageUrl(url) };
  } catch (error) {
    if (error instanceof PropertyError) {
      throw new UserFacingError(
        `${argument} must be the sitemap's full http(s) URL, e.g. https://www.example.com/sitemap.xml: ${error.message}. ${NOTHING_SENT}`,
      );
    }
    throw error;
  }
}

/** Whether a sitemap lies outside the property (allowed by Google only with cross-site verification). */
export function outsideProperty(parsed: URL, site: string): boolean {
  return !pageInProperty(parsed, site);
}

function day(iso: string | undefined): string | undefined {
  return iso ? iso.slice(0, 10) : undefined;
}

/** One line about a sitemap: what it is, its state, its counts. */
export function sitemapLine(s: SitemapOut): string {
  const kind = s.is_sitemaps_index ? 'sitemap index' : s.type;
  const facts: string[] = [];
  if (s.is_pending) {
    facts.push('pending (not processed yet)');
  }
  if (s.last_submitted) {
    facts.push(`submitted ${day(s.last_submitted)}`);
  }
  facts.push(s.last_downloaded ? `last downloaded ${day(s.last_downloaded)}` : 'never downloaded');
  facts.push(`${plural(s.errors, 'error')}, ${plural(s.warnings, 'warning')}`);
  const contents = s.contents.map((c) => `${c.type} ${c.submitted} submitted`);
  if (contents.length) {
    facts.push(contents.join(', '));
  }
  return `- ${inert(s.path)} (${kind}): ${facts.join('; ')}`;
}

export const PENDING_MEANING =
  'is_pending: true means Google has not processed the sitemap since it was (re)submitted, so its counts may be stale or empty.';

export const ERRORS_WHERE =
  'The API gives only the error and warning counts; the individual errors are listed in the Search Console web interface, Indexing → Sitemaps, by opening that sitemap.';

/** A batch of sitemap URLs, validated and deduplicated; any invalid entry refuses the whole batch before anything is sent. */
export function planSubmissions(raw: readonly string[]): { unique: { url: string; parsed: URL }[]; duplicates: number } {
  const invalid: string[] = [];
  const unique = new Map<string, { url: string; parsed: URL }>();
  for (const entry of raw) {
    try {
      const sitemap = parseSitemapUrl(entry);
      if (!unique.has(sitemap.url)) {
        unique.set(sitemap.url, sitemap);
      }
    } catch (error) {
      if (!(error instanceof UserFacingError)) {
        throw error;
      }
      invalid.push(`"${inert(entry)}"`);
    }
  }
  if (invalid.length) {
    throw new UserFacingError(
      `Every entry of sitemap_urls must be a full http(s) URL such as https://www.example.com/sitemap.xml; these are not: ${invalid.join(', ')}. ${NOTHING_SENT} Fix or remove them and call again.`,
    );
  }
  return { unique: [...unique.values()], duplicates: raw.length - unique.size };
}
