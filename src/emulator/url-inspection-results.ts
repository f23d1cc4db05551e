// UrlInspectionResult bodies, SCREAMING_SNAKE enums as on the wire. Pages of
// the seed world (seed-world.ts) inspect as the world says, with its crawl
// times; any other URL gets an outcome picked from its hash, so the same URL
// always inspects the same way, and a crawl time fixed from the world's anchor.

import type { InspectionKind } from './emulator-seed.js';
import { hashString } from './emulator-random.js';

const DISTRIBUTION: Array<[InspectionKind, number]> = [
  ['indexed', 55],
  ['crawled-not-indexed', 14],
  ['unknown', 10],
  ['canonical-mismatch', 8],
  ['noindex', 5],
  ['robots-blocked', 4],
  ['not-found', 4],
];

export function kindForUrl(url: string): InspectionKind {
  let r = hashString(`inspect|${url}`) % 100;
  for (const [kind, weight] of DISTRIBUTION) {
    if (r < weight) {
      return kind;
    }
    r -= weight;
  }
  return 'indexed';
}

export interface InspectionInput {
  url: string;
  siteUrl: string;
  kind: InspectionKind;
  /** The last crawl (RFC 3339, a fact of the world: never derived from the time of the request). */
  lastCrawlTime: string;
  /** Sitemaps that list the URL. */
  sitemaps: string[];
  /** Google's canonical for a duplicate, when the world names it. */
  googleCanonical?: string;
}

/** A crawl time for a URL the world does not model: fixed days before the anchor, at a second picked from the URL. */
export function fallbackCrawlTime(url: string, anchor: number): string {
  const h = hashString(url);
  return rfc3339(anchor - (1 + (h % 9)) * 86400000 + (h % 86400) * 1000);
}

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function buildInspectionResult(input: InspectionInput): { inspectionResult: Record<string, unknown> } {
  const { url, siteUrl, kind, lastCrawlTime } = input;
  const h = hashString(url);
  const page = new URL(url);
  const crawled = { lastCrawlTime, pageFetchState: 'SUCCESSFUL', crawledAs: h % 5 === 0 ? 'DESKTOP' : 'MOBILE' };
  const referringUrls = page.pathname === '/' ? [] : [`${page.origin}/`, `${page.origin}/blog/`];
  const linked = {
    ...(input.sitemaps.length ? { sitemap: input.sitemaps } : {}),
    ...(referringUrls.length ? { referringUrls } : {}),
  };
  const indexed = {
    verdict: 'PASS',
    coverageState: input.sitemaps.length ? 'Submitted and indexed' : 'Indexed, not submitted in sitemap',
    robotsTxtState: 'ALLOWED',
    indexingState: 'INDEXING_ALLOWED',
    ...crawled,
    googleCanonical: url,
    userCanonical: url,
    ...linked,
  };

  let indexStatusResult: Record<string, unknown>;
  const extra: Record<string, unknown> = {};
  switch (kind) {
    case 'indexed':
      indexStatusResult = indexed;
      break;
    case 'indexed-rich-issues':
      indexStatusResult = indexed;
      extra.richResultsResult = {
        verdict: 'FAIL',
        detectedItems: [
          { richResultType: 'Breadcrumbs', items: [{ name: 'Unnamed item' }] },
          {
            richResultType: 'FAQ',
            items: [{ name: 'Unnamed item', issues: [{ issueMessage: 'Missing field "acceptedAnswer"', severity: 'ERROR' }] }],
          },
          {
            richResultType: 'Review snippets',
            items: [{ name: 'Widget Pro', issues: [{ issueMessage: 'Missing field "author"', severity: 'WARNING' }] }],
          },
        ],
      };
      break;
    case 'indexed-amp':
      indexStatusResult = indexed;
      extra.ampResult = {
        verdict: 'PASS',
        ampUrl: url,
        ampIndexStatusVerdict: 'PASS',
        indexingState: 'AMP_INDEXING_ALLOWED',
        pageFetchState: 'SUCCESSFUL',
        robotsTxtState: 'ALLOWED',
        lastCrawlTime,
        issues: [{ issueMessage: 'Referenced AMP URL is not an AMP', severity: 'WARNING' }],
      };
      break;
    case 'crawled-not-indexed':
      indexStatusResult = {
        verdict: 'NEUTRAL',
        coverageState: 'Crawled - currently not indexed',
        robotsTxtState: 'ALLOWED',
        indexingState: 'INDEXING_ALLOWED',
        ...crawled,
        userCanonical: url,
        ...linked,
      };
      break;
    case 'noindex':
      indexStatusResult = {
        verdict: 'NEUTRAL',
        coverageState: "Excluded by 'noindex' tag",
        robotsTxtState: 'ALLOWED',
        indexingState: 'BLOCKED_BY_META_TAG',
        ...crawled,
        ...linked,
      };
      break;
    case 'robots-blocked':
      indexStatusResult = {
        verdict: 'NEUTRAL',
        coverageState: 'Blocked by robots.txt',
        robotsTxtState: 'DISALLOWED',
        indexingState: 'INDEXING_STATE_UNSPECIFIED',
        pageFetchState: 'BLOCKED_ROBOTS_TXT',
        ...linked,
      };
      break;
    case 'unknown':
      indexStatusResult = {
        verdict: 'NEUTRAL',
        coverageState: 'URL is unknown to Google',
        robotsTxtState: 'ROBOTS_TXT_STATE_UNSPECIFIED',
        indexingState: 'INDEXING_STATE_UNSPECIFIED',
        pageFetchState: 'PAGE_FETCH_STATE_UNSPECIFIED',
      };
      break;
    case 'canonical-mismatch':
      indexStatusResult = {
        verdict: 'NEUTRAL',
        coverageState: 'Duplicate, Google chose different canonical than user',
        robotsTxtState: 'ALLOWED',
        indexingState: 'INDEXING_ALLOWED',
        ...crawled,
        googleCanonical: input.googleCanonical ?? `${page.origin}${page.pathname === '/' ? '/' : page.pathname}`,
        userCanonical: url,
        ...linked,
      };
      break;
    case 'not-found':
      indexStatusResult = {
        verdict: 'FAIL',
        coverageState: 'Not found (404)',
        robotsTxtState: 'ALLOWED',
        indexingState: 'INDEXING_ALLOWED',
        ...crawled,
        pageFetchState: 'NOT_FOUND',
        ...linked,
      };
      break;
    case 'server-error':
      indexStatusResult = {
        verdict: 'FAIL',
        coverageState: 'Server error (5xx)',
        robotsTxtState: 'ALLOWED',
        indexingState: 'INDEXING_ALLOWED',
        ...crawled,
        pageFetchState: 'SERVER_ERROR',
        ...linked,
      };
      break;
  }
  const id = Buffer.from(String(h)).toString('base64url');
  return {
    inspectionResult: {
      inspectionResultLink: `https://search.google.com/search-console/inspect?resource_id=${encodeURIComponent(siteUrl)}&id=${id}&utm_medium=link&utm_source=api`,
      indexStatusResult,
      ...extra,
    },
  };
}
