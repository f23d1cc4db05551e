// The mutable Google-side world: properties, sitemaps, verification resources,
// Indexing notifications and tokens the user has "placed". Tests may read and
// change it directly; reset() rebuilds it from the seed.

import { SEED_NOTIFICATIONS, SEED_OWNER_EMAIL, SEED_RESOURCES, SEED_SITEMAPS, SEED_SITES, type SeedSitemap } from './emulator-seed.js';
import type {
  PermissionLevel,
  UrlNotificationMetadata,
  VerificationSite,
  WebResource,
  WmxSitemap,
  WmxSitemapContent,
} from './emulator-types.js';
import { resourceIdFor, siteCoversProperty } from './property-scope.js';
import { SeedWorld } from './seed-world.js';

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
  /** The seeded sites' pages, index states, crawl history and traffic, fixed at reset(). */
  world: SeedWorld;
  /** Page URL → paths of the seeded sitemaps that list it. */
  readonly listedIn = new Map<string, string[]>();
  /**
   * Credentials the seeded account holder made verified owners of the seeded
   * resources (every credential registered with the emulator), so that what
   * sites.list calls owned, webResource.list shows as owned by the caller.
   */
  private readonly accountPrincipals = new Set<string>();

  constructor(private readonly clock: () => Date) {
    this.reset();
  }

  reset(): void {
    const now = this.clock().getTime();
    const ago = (days: number | undefined) => (days === undefined ? undefined : new Date(now - days * DAY_MS).toISOString());
    this.world = new SeedWorld(new Date(now));
    const contents = this.seedSitemapContents();

    this.sites.clear();
    for (const s of SEED_SITES) {
      this.sites.set(s.siteUrl, s.permissionLevel);
    }

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
        ...(contents.has(s.path) ? { contents: contents.get(s.path)! } : {}),
      };
      this.sitemapsOf(s.siteUrl, true).push({ sitemap, parent: s.parent });
    }

    this.resources.clear();
    for (const r of SEED_RESOURCES) {
      const site = { type: r.type, identifier: r.identifier };
      this.resources.set(decodeURIComponent(resourceIdFor(site)), { id: resourceIdFor(site), site, owners: [...r.owners] });
    }
    for (const principal of this.accountPrincipals) {
      this.addSeedOwner(principal);
    }

    this.notifications.clear();
    for (const n of SEED_NOTIFICATIONS) {
      const entry = this.notifications.get(n.url) ?? { url: n.url };
      // At a fixed hour of the world's day, like its crawl times.
      const notification = {
        url: n.url,
        type: n.type,
        notifyTime: new Date(this.world.anchor - n.daysAgo * DAY_MS + n.hour * 3_600_000).toISOString(),
      };
      if (n.type === 'URL_UPDATED') {
        entry.latestUpdate = notification;
      } else {
        entry.latestRemove = notification;
      }
      this.notifications.set(n.url, entry);
    }

    this.placedTokens.clear();
  }

  /** Contents of each seeded sitemap, counted from the pages of the seed world it lists; the listing is kept per page for URL Inspection. */
  private seedSitemapContents(): Map<string, WmxSitemapContent[]> {
    this.listedIn.clear();
    const counts = new Map<string, number>();
    for (const s of SEED_SITEMAPS) {
      if (!s.lists) {
        continue;
      }
      const pages = this.world.sitemapPages(s.siteUrl, s.path, s.lists);
      for (const p of pages) {
        this.listedIn.set(p.url, [...(this.listedIn.get(p.url) ?? []), s.path]);
      }
      counts.set(s.path, pages.length);
      if (s.parent) {
        counts.set(s.parent, (counts.get(s.parent) ?? 0) + pages.length);
      }
    }
    const news = new Set(SEED_SITEMAPS.filter((s: SeedSitemap) => s.news).map((s) => s.path));
    const contents = new Map<string, WmxSitemapContent[]>();
    for (const [path, n] of counts) {
      // indexed is deprecated and Google sends "0".
      const web: WmxSitemapContent = { type: 'web', submitted: String(n), indexed: '0' };
      contents.set(path, news.has(path) ? [web, { type: 'news', submitted: String(n), indexed: '0' }] : [web]);
    }
    return contents;
  }

  /** A credential of the seeded account: it becomes a verified owner of every seeded resource the account holder owns (kept across reset()). */
  addAccountPrincipal(principal: string): void {
    this.accountPrincipals.add(principal);
    this.addSeedOwner(principal);
  }

  private addSeedOwner(principal: string): void {
    for (const r of SEED_RESOURCES) {
      const resource = this.resources.get(decodeURIComponent(resourceIdFor(r)));
      if (resource && resource.owners.includes(SEED_OWNER_EMAIL) && !resource.owners.includes(principal)) {
        resource.owners = [...resource.owners, principal];
      }
    }
  }

  sitemapsOf(siteUrl: string, create = false): SitemapEntry[] {
    let list = this.sitemaps.get(siteUrl);
    if (!list) {
      list = [];
      if (create) {
        this.sitemaps.set(siteUrl, list);
      }
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
      if (r.owners.includes(principal) && siteCoversProperty(r.site, property)) {
        return true;
      }
    }
    return false;
  }
}
