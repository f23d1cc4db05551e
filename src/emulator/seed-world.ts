// The one model of each seeded site that Search Analytics, URL Inspection,
// sitemaps and the Indexing history are generated from, so that they tell one
// story (PRODUCT §5c): a page with clicks was indexed on those days; a page
// blocked by robots.txt or unknown to Google has none; a sitemap lists pages
// the site has; a crawl time is a fixed instant, not "now minus a bit".
//
// Times hang off the world's anchor: UTC midnight of the day the emulator was
// started or reset, so they stay plausible under any clock and never move
// between two calls.

import { hashString } from './emulator-random.js';
import { SEED_PROPERTIES, SEED_SITES, type InspectionKind } from './emulator-seed.js';
import { pacificDate } from './pacific-time.js';

const DAY_MS = 86_400_000;

/** The pages of a small seeded site that rank for queries, in the order its queries refer to them. */
export const TRAFFIC_PATHS = [
  '',
  'blog/',
  'blog/seo-basics',
  'blog/core-web-vitals',
  'blog/structured-data-guide',
  'products/',
  'products/widget-pro',
  'products/widget-mini',
  'products/widget-max',
  'pricing',
  'about',
  'contact',
  'docs/getting-started',
  'docs/api',
  'docs/faq',
  'jobs/senior-engineer',
  'support/returns',
  'support/shipping',
] as const;

/**
 * A page that had traffic and then left the index: the product was withdrawn,
 * the page answers 404 since the crawl that found it, and its clicks stop the
 * Pacific day of that crawl. It is no longer in any sitemap.
 */
const DROPPED: Readonly<Record<string, { kind: InspectionKind; daysAgo: number }>> = {
  'products/widget-max': { kind: 'not-found', daysAgo: 12 },
};

/** Traffic pages with a state other than plain "indexed" (still indexed: they have clicks). */
const TRAFFIC_KINDS: Readonly<Record<string, InspectionKind>> = {
  'blog/seo-basics': 'indexed-rich-issues',
};

interface ExtraPage {
  siteUrl: string;
  url: string;
  kind: InspectionKind;
  /** Days before the anchor of the last crawl; omitted for pages Google never fetched. */
  crawledDaysAgo?: number;
  /** Listed in the property's sitemaps (their selection decides which). */
  listed?: boolean;
  googleCanonical?: string;
}

/** Pages without traffic, one for each case worth seeing; none of them ranks for anything. */
const EXTRA_PAGES: readonly ExtraPage[] = [
  { siteUrl: SEED_PROPERTIES.owned, url: 'https://www.example.com/amp/launch-news', kind: 'indexed-amp', crawledDaysAgo: 3, listed: true },
  { siteUrl: SEED_PROPERTIES.owned, url: 'https://www.example.com/tag/misc', kind: 'crawled-not-indexed', crawledDaysAgo: 20 },
  { siteUrl: SEED_PROPERTIES.owned, url: 'https://www.example.com/blog/draft-post', kind: 'noindex', crawledDaysAgo: 6 },
  { siteUrl: SEED_PROPERTIES.owned, url: 'https://www.example.com/private/report', kind: 'robots-blocked' },
  { siteUrl: SEED_PROPERTIES.owned, url: 'https://www.example.com/brand-new-page', kind: 'unknown' },
  {
    siteUrl: SEED_PROPERTIES.owned,
    url: 'https://www.example.com/products?color=red',
    kind: 'canonical-mismatch',
    crawledDaysAgo: 8,
    googleCanonical: 'https://www.example.com/products/',
  },
  { siteUrl: SEED_PROPERTIES.owned, url: 'https://www.example.com/old-page', kind: 'not-found', crawledDaysAgo: 30 },
  // The job ad whose URL_DELETED notification is in the seeded Indexing history: gone since.
  { siteUrl: SEED_PROPERTIES.owned, url: 'https://www.example.com/jobs/closed-role', kind: 'not-found', crawledDaysAgo: 4 },
  { siteUrl: SEED_PROPERTIES.fullUser, url: 'https://shop.example.com/checkout/error', kind: 'server-error', crawledDaysAgo: 2 },
];

export interface WorldPage {
  readonly url: string;
  readonly siteUrl: string;
  /** Path below the site's base, without the leading '/'. */
  readonly path: string;
  readonly kind: InspectionKind;
  /** Whether it ranks for queries (appears in Search Analytics) — until `dropped`, if set. */
  readonly traffic: boolean;
  /** The last crawl, RFC 3339 without fractions; undefined when Google never fetched it. */
  readonly lastCrawlTime?: string;
  /** First Pacific date without traffic, for a page that left the index. */
  readonly droppedFrom?: string;
  readonly listed: boolean;
  readonly googleCanonical?: string;
}

/** Where a small property's pages live: a domain property spreads them over www., the apex and m. */
export function siteBases(property: string): { bases: string[]; brand: string } {
  if (property.startsWith('sc-domain:')) {
    const domain = property.slice('sc-domain:'.length);
    return { bases: [`https://www.${domain}/`, `https://${domain}/`, `https://m.${domain}/`], brand: domain.split('.')[0] };
  }
  const host = new URL(property).hostname.split('.');
  return { bases: [property], brand: host.length > 2 ? host[host.length - 2] : host[0] };
}

/** The traffic pages of a small property, in TRAFFIC_PATHS order. */
export function trafficPages(property: string): string[] {
  const { bases } = siteBases(property);
  return TRAFFIC_PATHS.map((p, i) => `${bases[i % bases.length]}${p}`);
}

const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A fixed crawl instant: `daysAgo` days before the anchor, at a second of that day picked from the URL. */
function crawlAt(anchor: number, url: string, daysAgo: number): number {
  return anchor - daysAgo * DAY_MS + (hashString(`crawl|${url}`) % 86_400) * 1000;
}

export class SeedWorld {
  /** UTC midnight of the day the world was seeded. */
  readonly anchor: number;
  private readonly pages = new Map<string, WorldPage>();
  private readonly bySite = new Map<string, WorldPage[]>();

  constructor(seededAt: Date) {
    this.anchor = Math.floor(seededAt.getTime() / DAY_MS) * DAY_MS;
    for (const { siteUrl } of SEED_SITES) {
      if (siteUrl === SEED_PROPERTIES.large || siteUrl === SEED_PROPERTIES.unverified) {
        continue;
      }
      trafficPages(siteUrl).forEach((url, i) => {
        const path = TRAFFIC_PATHS[i];
        const dropped = DROPPED[path];
        const at = crawlAt(this.anchor, url, dropped ? dropped.daysAgo : 1 + (hashString(url) % 9));
        this.add({
          url,
          siteUrl,
          path,
          kind: dropped?.kind ?? TRAFFIC_KINDS[path] ?? 'indexed',
          traffic: true,
          lastCrawlTime: rfc3339(at),
          ...(dropped ? { droppedFrom: pacificDate(new Date(at)) } : {}),
          listed: !dropped,
        });
      });
    }
    for (const extra of EXTRA_PAGES) {
      const page = new URL(extra.url);
      this.add({
        url: extra.url,
        siteUrl: extra.siteUrl,
        path: `${page.pathname.slice(1)}${page.search}`,
        kind: extra.kind,
        traffic: false,
        ...(extra.crawledDaysAgo !== undefined ? { lastCrawlTime: rfc3339(crawlAt(this.anchor, extra.url, extra.crawledDaysAgo)) } : {}),
        listed: extra.listed ?? false,
        ...(extra.googleCanonical ? { googleCanonical: extra.googleCanonical } : {}),
      });
    }
  }

  private add(page: WorldPage): void {
    // The same URL can belong to two properties (www.example.com/ and sc-domain:example.com): one fact per URL.
    if (!this.pages.has(page.url)) {
      this.pages.set(page.url, page);
    }
    const list = this.bySite.get(page.siteUrl) ?? [];
    list.push(page);
    this.bySite.set(page.siteUrl, list);
  }

  page(url: string): WorldPage | undefined {
    return this.pages.get(url);
  }

  /** The first Pacific date on which a page has no traffic any more, for pages that left the index. */
  droppedFrom(url: string): string | undefined {
    return this.pages.get(url)?.droppedFrom;
  }

  /** The pages a seeded sitemap lists: listed pages of its property on its host that its selection takes. */
  sitemapPages(siteUrl: string, sitemapPath: string, select: (path: string) => boolean): WorldPage[] {
    const host = new URL(sitemapPath).host;
    return (this.bySite.get(siteUrl) ?? []).filter((p) => p.listed && new URL(p.url).host === host && select(p.path));
  }
}
