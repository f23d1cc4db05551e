// Search Console sites.* and sitemaps.* (the /webmasters/v3 surface).

import { forbiddenSite, GoogleApiError, invalidParameter, notFound } from './emulator-errors.js';
import { SCOPES, type RouteContext, type RouteDef } from './emulator-routing.js';
import type { PermissionLevel, WmxSitemap } from './emulator-types.js';
import { legacyRateLimitBody } from './emulator-usage-limits.js';
import { isDomainProperty, isValidPropertyString, siteCoversProperty } from './property-scope.js';

const SERVICE = 'searchconsole.googleapis.com';
const READ = [SCOPES.webmasters, SCOPES.webmastersReadonly];
const WRITE = [SCOPES.webmasters];
const WRITERS: readonly PermissionLevel[] = ['siteOwner', 'siteFullUser'];

/** The properties the caller sees: an emulator Google user's own, or the shared credentials' view. */
export function sitesOf(ctx: RouteContext): ReadonlyMap<string, PermissionLevel> {
  return ctx.userSites ?? ctx.state.sites;
}

/** The caller's level on a listed property, or 403 exactly as Google words it (also for near-miss spellings). */
export function requireListed(ctx: RouteContext, siteUrl: string): PermissionLevel {
  const level = sitesOf(ctx).get(siteUrl);
  if (!level) {
    throw forbiddenSite(siteUrl);
  }
  return level;
}

/** Unverified users see no data. */
export function requireReadable(ctx: RouteContext, siteUrl: string): PermissionLevel {
  const level = requireListed(ctx, siteUrl);
  if (level === 'siteUnverifiedUser') {
    throw forbiddenSite(siteUrl);
  }
  return level;
}

/** Restricted users may read but not change anything. */
export function requireWritable(ctx: RouteContext, siteUrl: string): PermissionLevel {
  const level = requireReadable(ctx, siteUrl);
  if (!WRITERS.includes(level)) {
    throw forbiddenSite(siteUrl);
  }
  return level;
}

/** "All other resources": 20 queries per second and 200 per minute per user. */
function takeOtherQuota(ctx: RouteContext): void {
  const exhausted = ctx.quotas.take(
    [
      { key: `other-second|${ctx.principal}`, limit: ctx.limits.otherPerSecondPerUser, window: 'second' },
      { key: `other|${ctx.principal}`, limit: ctx.limits.otherPerMinutePerUser, window: 'minute' },
    ],
    ctx.now,
  );
  if (exhausted) {
    throw new GoogleApiError(429, legacyRateLimitBody());
  }
}

function asSiteForCoverage(property: string) {
  return isDomainProperty(property)
    ? { type: 'INET_DOMAIN' as const, identifier: property.slice('sc-domain:'.length) }
    : { type: 'SITE' as const, identifier: property };
}

/** Owner if a verification the caller holds, or an owned property above it, proves control. */
function levelForNewProperty(ctx: RouteContext, siteUrl: string): PermissionLevel {
  if (ctx.state.ownsViaVerification(ctx.principal, siteUrl)) {
    return 'siteOwner';
  }
  for (const [property, level] of ctx.state.sites) {
    if (level === 'siteOwner' && siteCoversProperty(asSiteForCoverage(property), siteUrl)) {
      return 'siteOwner';
    }
  }
  return 'siteUnverifiedUser';
}

function topLevel(ctx: RouteContext, siteUrl: string): WmxSitemap[] {
  return ctx.state
    .sitemapsOf(siteUrl)
    .filter((e) => !e.parent)
    .map((e) => e.sitemap);
}

const route = (def: Omit<RouteDef, 'style' | 'service'>): RouteDef => ({ ...def, style: 'classic', service: SERVICE });

export const searchConsoleRoutes: RouteDef[] = [
  route({
    name: 'sites.list',
    method: 'GET',
    path: '/webmasters/v3/sites',
    rpcMethod: 'google.webmasters.v3.WebmastersService.ListSites',
    scopes: READ,
    handle(ctx) {
      takeOtherQuota(ctx);
      const siteEntry = [...sitesOf(ctx)].map(([siteUrl, permissionLevel]) => ({ siteUrl, permissionLevel }));
      // Google omits empty repeated fields: no properties is {}.
      return { status: 200, body: siteEntry.length ? { siteEntry } : {} };
    },
  }),
  route({
    name: 'sites.get',
    method: 'GET',
    path: '/webmasters/v3/sites/{siteUrl}',
    rpcMethod: 'google.searchconsole.v1.SitesService.Get',
    scopes: READ,
    handle(ctx) {
      takeOtherQuota(ctx);
      const siteUrl = ctx.params.siteUrl;
      return { status: 200, body: { siteUrl, permissionLevel: requireListed(ctx, siteUrl) } };
    },
  }),
  route({
    name: 'sites.add',
    method: 'PUT',
    path: '/webmasters/v3/sites/{siteUrl}',
    rpcMethod: 'google.searchconsole.v1.SitesService.Add',
    scopes: WRITE,
    handle(ctx) {
      takeOtherQuota(ctx);
      const siteUrl = ctx.params.siteUrl;
      if (!isValidPropertyString(siteUrl)) {
        throw invalidParameter('classic', `'${siteUrl}' is not a valid Search Console site URL.`, 'siteUrl');
      }
      const current = ctx.state.sites.get(siteUrl);
      const level = levelForNewProperty(ctx, siteUrl);
      if (!current || (current === 'siteUnverifiedUser' && level === 'siteOwner')) {
        ctx.state.sites.set(siteUrl, level);
      }
      return { status: 200 };
    },
  }),
  route({
    name: 'sites.delete',
    method: 'DELETE',
    path: '/webmasters/v3/sites/{siteUrl}',
    rpcMethod: 'google.searchconsole.v1.SitesService.Delete',
    scopes: WRITE,
    handle(ctx) {
      takeOtherQuota(ctx);
      if (!ctx.state.sites.delete(ctx.params.siteUrl)) {
        throw notFound('classic', 'Not Found');
      }
      return { status: 204 };
    },
  }),
  route({
    name: 'sitemaps.list',
    method: 'GET',
    path: '/webmasters/v3/sites/{siteUrl}/sitemaps',
    rpcMethod: 'google.searchconsole.v1.SitemapsService.List',
    scopes: READ,
    handle(ctx) {
      takeOtherQuota(ctx);
      const siteUrl = ctx.params.siteUrl;
      requireReadable(ctx, siteUrl);
      const index = ctx.query.sitemapIndex;
      const sitemap = index
        ? ctx.state
            .sitemapsOf(siteUrl)
            .filter((e) => e.parent === index)
            .map((e) => e.sitemap)
        : topLevel(ctx, siteUrl);
      return { status: 200, body: sitemap.length ? { sitemap } : {} };
    },
  }),
  route({
    name: 'sitemaps.get',
    method: 'GET',
    path: '/webmasters/v3/sites/{siteUrl}/sitemaps/{feedpath}',
    rpcMethod: 'google.searchconsole.v1.SitemapsService.Get',
    scopes: READ,
    handle(ctx) {
      takeOtherQuota(ctx);
      const { siteUrl, feedpath } = ctx.params;
      requireReadable(ctx, siteUrl);
      const entry = ctx.state.sitemapsOf(siteUrl).find((e) => e.sitemap.path === feedpath);
      if (!entry) {
        throw notFound('classic', 'Not Found');
      }
      return { status: 200, body: entry.sitemap };
    },
  }),
  route({
    name: 'sitemaps.submit',
    method: 'PUT',
    path: '/webmasters/v3/sites/{siteUrl}/sitemaps/{feedpath}',
    rpcMethod: 'google.searchconsole.v1.SitemapsService.Submit',
    scopes: WRITE,
    handle(ctx) {
      takeOtherQuota(ctx);
      const { siteUrl, feedpath } = ctx.params;
      requireWritable(ctx, siteUrl);
      if (!/^https?:\/\/[^/]+/i.test(feedpath)) {
        throw invalidParameter('classic', `Sitemap URL '${feedpath}' is not a valid absolute URL.`, 'feedpath');
      }
      const list = ctx.state.sitemapsOf(siteUrl, true);
      const lastSubmitted = ctx.now.toISOString();
      const existing = list.find((e) => e.sitemap.path === feedpath && !e.parent);
      if (existing) {
        existing.sitemap = { ...existing.sitemap, lastSubmitted, isPending: true };
      } else {
        list.push({
          sitemap: { path: feedpath, lastSubmitted, isPending: true, isSitemapsIndex: false, type: 'sitemap', warnings: '0', errors: '0' },
        });
      }
      return { status: 200 };
    },
  }),
  route({
    name: 'sitemaps.delete',
    method: 'DELETE',
    path: '/webmasters/v3/sites/{siteUrl}/sitemaps/{feedpath}',
    rpcMethod: 'google.searchconsole.v1.SitemapsService.Delete',
    scopes: WRITE,
    handle(ctx) {
      takeOtherQuota(ctx);
      const { siteUrl, feedpath } = ctx.params;
      requireWritable(ctx, siteUrl);
      const list = ctx.state.sitemapsOf(siteUrl);
      if (!list.some((e) => e.sitemap.path === feedpath && !e.parent)) {
        throw notFound('classic', 'Not Found');
      }
      // Removing an index takes its children with it.
      ctx.state.sitemaps.set(
        siteUrl,
        list.filter((e) => e.sitemap.path !== feedpath && e.parent !== feedpath),
      );
      return { status: 204 };
    },
  }),
];
