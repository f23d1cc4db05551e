// Turns a UrlInspectionResult into words and snake_case facts. Every string in
// it came from Google (coverage states, canonicals, referring URLs, issue
// messages) and is public data, so text is neutralised and lists are capped.

import type { CondensedVerdict, InspectionFacts } from './inspection.schemas.js';
import type { UrlInspectionResult } from './inspection.service.js';
import { inert } from '../common/inert-text.js';
import { plural } from '../common/sentences.js';

/** Referring URLs and sitemaps listed at most; the count says how many there were. */
export const LIST_CAP = 10;
/** Rich-result issues listed per result type at most. */
export const ISSUE_CAP = 10;

const VERDICTS: Record<string, string> = {
  PASS: 'on Google (valid)',
  NEUTRAL: 'not on Google (excluded)',
  FAIL: 'not on Google (error)',
  PARTIAL: 'partial (a verdict Google no longer uses)',
  VERDICT_UNSPECIFIED: 'unknown',
};

const CRAWLED_AS: Record<string, string> = { MOBILE: 'Googlebot smartphone', DESKTOP: 'Googlebot desktop' };

const ROBOTS: Record<string, string> = { ALLOWED: 'allowed', DISALLOWED: 'disallowed (robots.txt blocks Googlebot)' };

const INDEXING: Record<string, string> = {
  INDEXING_ALLOWED: 'allowed',
  BLOCKED_BY_META_TAG: "blocked by a 'noindex' robots meta tag",
  BLOCKED_BY_HTTP_HEADER: "blocked by a 'noindex' X-Robots-Tag HTTP header",
  BLOCKED_BY_ROBOTS_TXT: 'blocked by robots.txt',
  AMP_INDEXING_ALLOWED: 'allowed',
  BLOCKED_DUE_TO_NOINDEX: "blocked by 'noindex'",
  BLOCKED_DUE_TO_EXPIRED_UNAVAILABLE_AFTER: "blocked: its 'unavailable_after' date has passed",
};

const FETCH: Record<string, string> = {
  SUCCESSFUL: 'successful',
  SOFT_404: 'soft 404',
  BLOCKED_ROBOTS_TXT: 'blocked by robots.txt',
  NOT_FOUND: 'not found (404)',
  ACCESS_DENIED: 'access denied (401)',
  SERVER_ERROR: 'server error (5xx)',
  REDIRECT_ERROR: 'redirect error',
  ACCESS_FORBIDDEN: 'access forbidden (403)',
  BLOCKED_4XX: 'blocked (other 4xx)',
  INTERNAL_CRAWL_ERROR: 'internal crawl error',
  INVALID_URL: 'invalid URL',
};

export const INDEXED_STATE = "This is Google's indexed state from its last crawl, not a live test of the page as it is now.";

/** The index verdict alone, for a progress note that needs no more of the result. */
export function indexVerdict(result: UrlInspectionResult): string {
  return result.indexStatusResult?.verdict ?? 'VERDICT_UNSPECIFIED';
}

export function inspectionFacts(site: string, url: string, result: UrlInspectionResult): InspectionFacts {
  const index = result.indexStatusResult ?? {};
  const referring = index.referringUrls ?? [];
  const googleCanonical = index.googleCanonical ?? undefined;
  const userCanonical = index.userCanonical ?? undefined;
  const rich = result.richResultsResult;
  const amp = result.ampResult;
  const mobile = result.mobileUsabilityResult;
  return {
    site_url: site,
    url,
    verdict: indexVerdict(result),
    ...opt('coverage_state', index.coverageState),
    ...opt('last_crawl_time', index.lastCrawlTime),
    ...opt('crawled_as', index.crawledAs),
    ...opt('robots_txt_state', index.robotsTxtState),
    ...opt('indexing_state', index.indexingState),
    ...opt('page_fetch_state', index.pageFetchState),
    ...opt('google_canonical', googleCanonical),
    ...opt('user_canonical', userCanonical),
    canonical_differs: !!googleCanonical && !!userCanonical && !sameUrl(googleCanonical, userCanonical),
    sitemaps: (index.sitemap ?? []).slice(0, LIST_CAP),
    referring_urls: referring.slice(0, LIST_CAP),
    referring_urls_total: referring.length,
    ...(rich
      ? {
          rich_results: {
            verdict: rich.verdict ?? 'VERDICT_UNSPECIFIED',
            types: (rich.detectedItems ?? []).map((detected) => {
              const items = detected.items ?? [];
              const issues = items.flatMap((item) =>
                (item.issues ?? []).map((issue) => ({
                  message: issue.issueMessage ?? '',
                  severity: issue.severity ?? '',
                  ...opt('item', item.name),
                })),
              );
              return {
                type: detected.richResultType ?? 'unknown',
                items: items.length,
                issues: issues.slice(0, ISSUE_CAP),
                issues_total: issues.length,
              };
            }),
          },
        }
      : {}),
    ...(amp
      ? {
          amp: {
            verdict: amp.verdict ?? 'VERDICT_UNSPECIFIED',
            ...opt('amp_url', amp.ampUrl),
            ...opt('index_status_verdict', amp.ampIndexStatusVerdict),
            ...opt('indexing_state', amp.indexingState),
            ...opt('page_fetch_state', amp.pageFetchState),
            ...opt('robots_txt_state', amp.robotsTxtState),
            ...opt('last_crawl_time', amp.lastCrawlTime),
            issues: (amp.issues ?? []).slice(0, ISSUE_CAP).map((i) => ({ message: i.issueMessage ?? '', severity: i.severity ?? '' })),
          },
        }
      : {}),
    ...(mobile
      ? {
          mobile_usability: {
            verdict: mobile.verdict ?? 'VERDICT_UNSPECIFIED',
            issues: (mobile.issues ?? [])
              .slice(0, ISSUE_CAP)
              .map((i) => ({ message: i.message ?? '', severity: i.severity ?? '', ...opt('type', i.issueType) })),
            deprecated: true as const,
          },
        }
      : {}),
    ...opt('inspection_result_link', result.inspectionResultLink),
    untrusted: true,
  };
}

export function describeInspection(facts: InspectionFacts): string {
  const lines = [`Index status of ${inert(facts.url)} in ${facts.site_url}. ${INDEXED_STATE}`];
  const meaning = VERDICTS[facts.verdict] ?? facts.verdict;
  lines.push(
    `Verdict: ${facts.verdict} — ${/on Google/.test(meaning) ? `URL is ${meaning}` : meaning}${facts.coverage_state ? `; coverage: ${quote(facts.coverage_state)}` : ''}.`,
  );
  lines.push(
    facts.last_crawl_time
      ? `Last crawl: ${facts.last_crawl_time}${facts.crawled_as ? ` as ${CRAWLED_AS[facts.crawled_as] ?? facts.crawled_as}` : ''}.`
      : facts.robots_txt_state === 'DISALLOWED'
        ? 'Last crawl: none — robots.txt blocks Googlebot from fetching it.'
        : 'Last crawl: none recorded — Google has not crawled this URL (if it is new, link to it or list it in a sitemap).',
  );
  lines.push(
    `Page fetch: ${word(FETCH, facts.page_fetch_state)}; robots.txt: ${word(ROBOTS, facts.robots_txt_state)}; indexing: ${word(INDEXING, facts.indexing_state)}.`,
  );
  lines.push(canonicalLine(facts));
  lines.push(listLine('Sitemaps listing it', facts.sitemaps, facts.sitemaps.length));
  lines.push(listLine('Referring URLs', facts.referring_urls, facts.referring_urls_total));
  if (facts.rich_results) {
    lines.push(richLine(facts.rich_results));
  }
  if (facts.amp) {
    const a = facts.amp;
    const issues = a.issues.length ? ` Issues: ${a.issues.map((i) => `${i.severity} ${quote(i.message)}`).join('; ')}.` : '';
    lines.push(
      `AMP: ${a.verdict}${a.amp_url ? ` for ${inert(a.amp_url)}` : ''}; indexing ${word(INDEXING, a.indexing_state)}; fetch ${word(FETCH, a.page_fetch_state)}.${issues}`,
    );
  }
  if (facts.mobile_usability) {
    const m = facts.mobile_usability;
    const issues = m.issues.length
      ? ` Issues: ${m.issues.map((i) => `${i.severity} ${quote(i.message || i.type || '')}`).join('; ')}.`
      : '';
    lines.push(
      `Mobile usability: ${m.verdict} — deprecated: Google retired its mobile usability reports in December 2023, so treat this as stale.${issues}`,
    );
  }
  if (facts.inspection_result_link) {
    lines.push(`Full report in Search Console: ${inert(facts.inspection_result_link)}`);
  }
  return lines.join('\n');
}

export function condense(facts: InspectionFacts): CondensedVerdict {
  const canonical = facts.google_canonical;
  const differs = canonical !== undefined && (!sameUrl(canonical, facts.url) || facts.canonical_differs);
  return {
    url: facts.url,
    verdict: facts.verdict,
    ...opt('coverage_state', facts.coverage_state),
    ...opt('last_crawl_time', facts.last_crawl_time),
    ...(differs ? { google_canonical: canonical } : {}),
  };
}

export function condensedLine(entry: CondensedVerdict): string {
  if (entry.error) {
    return `- ${inert(entry.url)} — failed: ${entry.error}`;
  }
  const parts = [`${entry.verdict}, ${VERDICTS[entry.verdict ?? ''] ?? 'unknown'}`];
  if (entry.coverage_state) {
    parts.push(quote(entry.coverage_state));
  }
  parts.push(entry.last_crawl_time ? `last crawl ${entry.last_crawl_time}` : 'no crawl recorded');
  if (entry.google_canonical) {
    parts.push(`Google-selected canonical: ${inert(entry.google_canonical)}`);
  }
  return `- ${inert(entry.url)} — ${parts.join('; ')}`;
}

function canonicalLine(facts: InspectionFacts): string {
  const g = facts.google_canonical;
  const u = facts.user_canonical;
  if (!g && !u) {
    return 'Canonical: none reported (Google has not selected one; the URL is not indexed).';
  }
  const parts = [`Google-selected ${g ? inert(g) : 'none (not indexed)'}`, `user-declared ${u ? inert(u) : 'none'}`];
  let note = '';
  if (facts.canonical_differs) {
    note = ' They differ: Google indexes its choice instead of the page you declared.';
  } else if (g && !sameUrl(g, facts.url)) {
    note = ' Google chose another URL as canonical, so it indexes that one instead of this URL.';
  }
  return `Canonical: ${parts.join('; ')}.${note}`;
}

function richLine(rich: NonNullable<InspectionFacts['rich_results']>): string {
  const types = rich.types.map((t) => {
    const issues = t.issues.length
      ? ` — ${t.issues.map((i) => `${i.severity} ${quote(i.message)}${i.item ? ` (${quote(i.item)})` : ''}`).join('; ')}${t.issues_total > t.issues.length ? `; ${t.issues_total - t.issues.length} more issues` : ''}`
      : ', no issues';
    return `${quote(t.type)}: ${plural(t.items, 'item')}${issues}`;
  });
  return `Rich results: ${rich.verdict}${types.length ? `. ${types.join('. ')}` : ''}.`;
}

function listLine(label: string, shown: readonly string[], total: number): string {
  if (!total) {
    return `${label}: none.`;
  }
  const more = total > shown.length ? ` (and ${total - shown.length} more)` : '';
  return `${label}: ${shown.map((s) => inert(s)).join(', ')}${more}.`;
}

function word(map: Record<string, string>, value: string | undefined): string {
  if (!value || /_UNSPECIFIED$/.test(value)) {
    return 'unknown';
  }
  return map[value] ?? value;
}

function opt<K extends string>(key: K, value: string | null | undefined): { [P in K]?: string } {
  return (value ? { [key]: value } : {}) as { [P in K]?: string };
}

export function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
}

function quote(text: string): string {
  return `"${inert(text.trim())}"`;
}
