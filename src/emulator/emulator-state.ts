// The mutable Google-side world: properties, sitemaps, verification resources,
// Indexing notifications and tokens the user has "placed". Tests may read and
// change it directly; reset() rebuilds it from the seed.

import {
  SEED_INSPECTIONS,
  SEED_NOTIFICATIONS,
  SEED_RESOURCES,
  SEED_SITEMAPS,
  SEED_SITES,
  type InspectionKind,
} from './emulator-seed.js';
import type {
  PermissionLevel,
  UrlNotificationMetadata,
  VerificationSite,
  WebResource,
  WmxSitemap,
} from './emulator-types.js';
import { resourceIdFor, siteCoversProperty } from './property-scope.js';

export interface SitemapEntry {
  sitemap: WmxSitemap;
  /** Path of the sitemap index that lists this one; undefined for submitted sitemaps. */
  parent?: string;
}

const DAY_MS = 86400000;

/** Site Verification ids compare in decoded form; identifiers of domains are case-insensitive. */
export function normalizeVerificationSite(site: VerificationSite): VerificationSite {
  return site.type === 'INET_DOMAIN' ? { type: site.type, identifier: site.identifier.toLowerCase() } : site;
}

export function placedTokenKey(site: VerificationSite, method: string): string {
  const s = normalizeVerificationSite(site);
  const m = method === 'DNS' ? 'DNS_TXT' : method;
  return `${s.type}|${s.identifier}|${m}`;
}

export class EmulatorState {
  /** Property → the permission level every principal has on it (Search Console's table is global here). */
  readonly sites = new Map<string, PermissionLevel>();
  /** Property → its sitemaps (submitted ones and children of indexes). */
  readonly sitemaps = new Map<string, SitemapEntry[]>();
  /** Decoded resource id (dns://example.com, https://www.example.com/) → resource. */
  readonly resources = new Map<string, WebResource>();
  /** Page URL → Indexing metadata. */
  readonly notifications = new Map<string, UrlNotificationMetadata>();
  /** placedTokenKey(site, method) of tokens the user has put in DNS / on the page. */
  readonly placedTokens = new Set<string>();
  /** Page URL → fixed URL Inspection outcome. */
  readonly inspectionFixtures = new Map<string, InspectionKind>();

  constructor(private readonly clock: () => Date) {
    this.reset();
  }

  reset(): void {
    const now = this.clock().getTime();
    const ago = (days: number | undefined) => (days === undefined ? undefined : new Date(now - days * DAY_MS).toISOString());

    this.sites.clear();
    for (const s of SEED_SITES) this.sites.set(s.siteUrl, s.permissionLevel);

    this.sitemaps.clear();
    for (const s of SEED_SITEMAPS) {
      const sitemap: WmxSitemap = {
        path: s.path,
        ...(s.parent ? {} : { lastSubmitted: ago(s.submittedDaysAgo ?? 0) }),
        isPending: s.isPending ?? false,
        isSitemapsIndex: s.isSitemapsIndex ?? false,
        type: s.type,
        ...(s.downloadedDaysAgo !== undefined ? { lastDownloaded: ago(s.downloadedDaysAgo) } : {}),
        warnings: String(s.warnings ?? 0),
        errors: String(s.errors ?? 0),
        ...(s.contents?.length ? { contents: s.contents.map((c) => ({ ...c })) } : {}),
      };
      this.sitemapsOf(s.siteUrl, true).push({ sitemap, parent: s.parent });
    }

    this.resources.clear();
    for (const r of SEED_RESOURCES) {
      const site = { type: r.type, identifier: r.identifier };
      this.resources.set(decodeURIComponent(resourceIdFor(site)), { id: resourceIdFor(site), site, owners: [...r.owners] });
    }

    this.notifications.clear();
    for (const n of SEED_NOTIFICATIONS) {
      const entry = this.notifications.get(n.url) ?? { url: n.url };
      const notification = { url: n.url, type: n.type, notifyTime: ago(n.daysAgo)! };
      if (n.type === 'URL_UPDATED') entry.latestUpdate = notification;
      else entry.latestRemove = notification;
      this.notifications.set(n.url, entry);
    }

    this.placedTokens.clear();
    this.inspectionFixtures.clear();
    for (const [url, kind] of Object.entries(SEED_INSPECTIONS)) this.inspectionFixtures.set(url, kind);
  }

  sitemapsOf(siteUrl: string, create = false): SitemapEntry[] {
    let list = this.sitemaps.get(siteUrl);
    if (!list) {
      list = [];
      if (create) this.sitemaps.set(siteUrl, list);
    }
    return list;
  }

  placeToken(site: VerificationSite, method: string): void {
    this.placedTokens.add(placedTokenKey(site, method));
  }

  isTokenPlaced(site: VerificationSite, method: string): boolean {
    return this.placedTokens.has(placedTokenKey(site, method));
  }

  /** Whether a verified resource owned by `principal` proves ownership of a property. */
  ownsViaVerification(principal: string, property: string): boolean {
    for (const r of this.resources.values()) {
      if (r.owners.includes(principal) && siteCoversProperty(r.site, property)) return true;
    }
    return false;
  }
}
