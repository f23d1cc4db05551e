// The deterministic world the emulator starts from (and reset() returns to).
// Times are stored as "days ago" so the seed stays plausible under any clock.

import type { PermissionLevel, VerificationSiteType } from './emulator-types.js';

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
  /**
   * Which of the site's pages (on the sitemap's host; path without the leading '/')
   * it lists: its contents are counted from the seed world (seed-world.ts), and an
   * index counts its children's. Omitted for a sitemap Google has not read yet.
   */
  lists?: (path: string) => boolean;
  /** Also a news sitemap: its pages are counted again as type 'news'. */
  news?: boolean;
}

const all = () => true;
const isBlog = (path: string) => path.startsWith('blog/');
const isPost = (path: string) => /^blog\/./.test(path);

export const SEED_SITEMAPS: readonly SeedSitemap[] = [
  // An index with two children: list shows the index; ?sitemapIndex= shows the children.
  {
    siteUrl: SEED_PROPERTIES.owned,
    path: 'https://www.example.com/sitemap_index.xml',
    type: 'sitemap',
    isSitemapsIndex: true,
    submittedDaysAgo: 40,
    downloadedDaysAgo: 1,
  },
  {
    siteUrl: SEED_PROPERTIES.owned,
    parent: 'https://www.example.com/sitemap_index.xml',
    path: 'https://www.example.com/post-sitemap.xml',
    type: 'sitemap',
    downloadedDaysAgo: 1,
    lists: isBlog,
  },
  {
    siteUrl: SEED_PROPERTIES.owned,
    parent: 'https://www.example.com/sitemap_index.xml',
    path: 'https://www.example.com/page-sitemap.xml',
    type: 'sitemap',
    downloadedDaysAgo: 2,
    lists: (path) => !isBlog(path) && !path.startsWith('amp/'),
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
    lists: (path) => path.startsWith('amp/') || isPost(path),
    news: true,
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
    lists: all,
  },
  {
    siteUrl: SEED_PROPERTIES.fullUser,
    path: 'https://shop.example.com/sitemap.xml',
    type: 'sitemap',
    submittedDaysAgo: 30,
    downloadedDaysAgo: 1,
    warnings: 1,
    lists: all,
  },
  {
    siteUrl: SEED_PROPERTIES.restricted,
    path: 'https://www.example.org/sitemap.xml',
    type: 'sitemap',
    submittedDaysAgo: 200,
    downloadedDaysAgo: 5,
    lists: all,
  },
  {
    siteUrl: SEED_PROPERTIES.blog,
    path: 'https://blog.example.net/sitemap.xml',
    type: 'sitemap',
    submittedDaysAgo: 60,
    downloadedDaysAgo: 1,
    lists: all,
  },
  {
    siteUrl: SEED_PROPERTIES.blog,
    path: 'https://blog.example.net/atom.xml',
    type: 'atomFeed',
    submittedDaysAgo: 60,
    downloadedDaysAgo: 1,
    lists: isPost,
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

export interface SeedNotification {
  url: string;
  type: 'URL_UPDATED' | 'URL_DELETED';
  daysAgo: number;
  /** UTC hour of that day. */
  hour: number;
}

export const SEED_NOTIFICATIONS: readonly SeedNotification[] = [
  { url: 'https://www.example.com/jobs/senior-engineer', type: 'URL_UPDATED', daysAgo: 2, hour: 9 },
  { url: 'https://www.example.com/jobs/closed-role', type: 'URL_UPDATED', daysAgo: 20, hour: 14 },
  // Then crawled the next day and found gone (seed-world.ts: crawled 4 days ago, 404).
  { url: 'https://www.example.com/jobs/closed-role', type: 'URL_DELETED', daysAgo: 5, hour: 16 },
];
