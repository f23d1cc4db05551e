// The deterministic world the emulator starts from (and reset() returns to).
// Times are stored as "days ago" so the seed stays plausible under any clock.

import type { PermissionLevel, VerificationSiteType, WmxSitemapContent } from './emulator-types.js';

export const SEED_OWNER_EMAIL = 'owner@example.com';

/** Seeded properties by role, so tests read as intent rather than strings. */
export const SEED_PROPERTIES = {
  /** URL-prefix, owner: the richest property (sitemap index, errors, inspection fixtures, jobs for Indexing). */
  owned: 'https://www.example.com/',
  /** Domain property, owner: covers every example.com subdomain and both schemes. */
  domain: 'sc-domain:example.com',
  /** Sub-path URL-prefix property, owner: covers /shop/… but not /shopping; has no sitemaps. */
  subPath: 'https://www.example.com/shop/',
  /** Full user: may read and submit sitemaps. Indexing still works on its pages because sc-domain:example.com is owned. */
  fullUser: 'https://shop.example.com/',
  /** Restricted user: reads work, every write is 403. */
  restricted: 'sc-domain:example.org',
  /** A second owned site on another domain. */
  blog: 'https://blog.example.net/',
  /** Listed but unverified: only sites.get/list/add/delete work. */
  unverified: 'http://legacy.example.net/',
  /**
   * Owner, a large shop: about 3 200 named-query SERP groups a day over 50 400
   * queries and 1 300 pages, so a 28-day export grouped by date and query has
   * more than 60 000 rows (past Google's 50 000-row cap). Generated, not stored.
   */
  large: 'https://www.example.net/',
} as const;

export interface SeedSite {
  siteUrl: string;
  permissionLevel: PermissionLevel;
}

export const SEED_SITES: readonly SeedSite[] = [
  { siteUrl: SEED_PROPERTIES.owned, permissionLevel: 'siteOwner' },
  { siteUrl: SEED_PROPERTIES.domain, permissionLevel: 'siteOwner' },
  { siteUrl: SEED_PROPERTIES.subPath, permissionLevel: 'siteOwner' },
  { siteUrl: SEED_PROPERTIES.fullUser, permissionLevel: 'siteFullUser' },
  { siteUrl: SEED_PROPERTIES.restricted, permissionLevel: 'siteRestrictedUser' },
  { siteUrl: SEED_PROPERTIES.blog, permissionLevel: 'siteOwner' },
  { siteUrl: SEED_PROPERTIES.unverified, permissionLevel: 'siteUnverifiedUser' },
  { siteUrl: SEED_PROPERTIES.large, permissionLevel: 'siteOwner' },
];

export interface SeedSitemap {
  siteUrl: string;
  path: string;
  type: string;
  isSitemapsIndex?: boolean;
  isPending?: boolean;
  /** Children of an index carry their index's path and were never submitted themselves. */
  parent?: string;
  submittedDaysAgo?: number;
  downloadedDaysAgo?: number;
  warnings?: number;
  errors?: number;
  contents?: WmxSitemapContent[];
}

const web = (submitted: number, indexed = 0): WmxSitemapContent => ({
  type: 'web',
  submitted: String(submitted),
  indexed: String(indexed),
});

export const SEED_SITEMAPS: readonly SeedSitemap[] = [
  // An index with two children: list shows the index; ?sitemapIndex= shows the children.
  {
    siteUrl: SEED_PROPERTIES.owned,
    path: 'https://www.example.com/sitemap_index.xml',
    type: 'sitemap',
    isSitemapsIndex: true,
    submittedDaysAgo: 40,
    downloadedDaysAgo: 1,
    contents: [web(182), { type: 'image', submitted: '64', indexed: '0' }],
  },
  {
    siteUrl: SEED_PROPERTIES.owned,
    parent: 'https://www.example.com/sitemap_index.xml',
    path: 'https://www.example.com/post-sitemap.xml',
    type: 'sitemap',
    downloadedDaysAgo: 1,
    contents: [web(120), { type: 'image', submitted: '64', indexed: '0' }],
  },
  {
    siteUrl: SEED_PROPERTIES.owned,
    parent: 'https://www.example.com/sitemap_index.xml',
    path: 'https://www.example.com/page-sitemap.xml',
    type: 'sitemap',
    downloadedDaysAgo: 2,
    contents: [web(62)],
  },
  // A sitemap with problems, so error/warning counts (int64 strings) are visible.
  {
    siteUrl: SEED_PROPERTIES.owned,
    path: 'https://www.example.com/news-sitemap.xml',
    type: 'sitemap',
    submittedDaysAgo: 12,
    downloadedDaysAgo: 3,
    warnings: 4,
    errors: 2,
    contents: [web(35), { type: 'news', submitted: '35', indexed: '0' }],
  },
  // Submitted but never fetched yet.
  {
    siteUrl: SEED_PROPERTIES.owned,
    path: 'https://www.example.com/feed.xml',
    type: 'rssFeed',
    isPending: true,
    submittedDaysAgo: 0,
  },
  {
    siteUrl: SEED_PROPERTIES.domain,
    path: 'https://example.com/sitemap.xml',
    type: 'sitemap',
    submittedDaysAgo: 90,
    downloadedDaysAgo: 2,
    contents: [web(48)],
  },
  {
    siteUrl: SEED_PROPERTIES.fullUser,
    path: 'https://shop.example.com/sitemap.xml',
    type: 'sitemap',
    submittedDaysAgo: 30,
    downloadedDaysAgo: 1,
    warnings: 1,
    contents: [web(540), { type: 'image', submitted: '1210', indexed: '0' }],
  },
  {
    siteUrl: SEED_PROPERTIES.restricted,
    path: 'https://www.example.org/sitemap.xml',
    type: 'sitemap',
    submittedDaysAgo: 200,
    downloadedDaysAgo: 5,
    contents: [web(22)],
  },
  {
    siteUrl: SEED_PROPERTIES.blog,
    path: 'https://blog.example.net/sitemap.xml',
    type: 'sitemap',
    submittedDaysAgo: 60,
    downloadedDaysAgo: 1,
    contents: [web(96)],
  },
  {
    siteUrl: SEED_PROPERTIES.blog,
    path: 'https://blog.example.net/atom.xml',
    type: 'atomFeed',
    submittedDaysAgo: 60,
    downloadedDaysAgo: 1,
    contents: [web(20)],
  },
];

export interface SeedResource {
  type: VerificationSiteType;
  identifier: string;
  owners: string[];
}

export const SEED_RESOURCES: readonly SeedResource[] = [
  { type: 'INET_DOMAIN', identifier: 'example.com', owners: [SEED_OWNER_EMAIL] },
  { type: 'SITE', identifier: 'https://www.example.com/', owners: [SEED_OWNER_EMAIL, 'webmaster@example.com'] },
  { type: 'SITE', identifier: 'https://blog.example.net/', owners: [SEED_OWNER_EMAIL] },
  // Verified but never added to Search Console: the "add" step of setup is what is missing.
  { type: 'SITE', identifier: 'https://docs.example.com/', owners: [SEED_OWNER_EMAIL] },
];

export type InspectionKind =
  | 'indexed'
  | 'indexed-rich-issues'
  | 'indexed-amp'
  | 'crawled-not-indexed'
  | 'noindex'
  | 'robots-blocked'
  | 'unknown'
  | 'canonical-mismatch'
  | 'not-found'
  | 'server-error';

/** URLs with fixed inspection outcomes; every other URL gets one derived from its hash. */
export const SEED_INSPECTIONS: Readonly<Record<string, InspectionKind>> = {
  'https://www.example.com/': 'indexed',
  'https://www.example.com/blog/seo-basics': 'indexed-rich-issues',
  'https://www.example.com/amp/launch-news': 'indexed-amp',
  'https://www.example.com/tag/misc': 'crawled-not-indexed',
  'https://www.example.com/blog/draft-post': 'noindex',
  'https://www.example.com/private/report': 'robots-blocked',
  'https://www.example.com/brand-new-page': 'unknown',
  'https://www.example.com/products?color=red': 'canonical-mismatch',
  'https://www.example.com/old-page': 'not-found',
  'https://shop.example.com/checkout/error': 'server-error',
  'https://blog.example.net/': 'indexed',
};

export interface SeedNotification {
  url: string;
  type: 'URL_UPDATED' | 'URL_DELETED';
  daysAgo: number;
}

export const SEED_NOTIFICATIONS: readonly SeedNotification[] = [
  { url: 'https://www.example.com/jobs/senior-engineer', type: 'URL_UPDATED', daysAgo: 2 },
  { url: 'https://www.example.com/jobs/closed-role', type: 'URL_UPDATED', daysAgo: 20 },
  { url: 'https://www.example.com/jobs/closed-role', type: 'URL_DELETED', daysAgo: 5 },
];
