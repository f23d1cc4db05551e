// POST /v1/urlInspection/index:inspect — a One Platform method, so its errors
// carry no errors[] array, and a URL outside the property is PERMISSION_DENIED.

import { GoogleApiError, googleError } from './emulator-errors.js';
import { checkFields, objectBody, SCOPES, type RouteContext, type RouteDef } from './emulator-routing.js';
import { inspectionQuotaBody } from './emulator-usage-limits.js';
import { isDomainProperty, urlInProperty } from './property-scope.js';
import { buildInspectionResult, fallbackCrawlTime, kindForUrl } from './url-inspection-results.js';

const SERVICE = 'searchconsole.googleapis.com';

const notPartOfProperty = () =>
  googleError('rpc', { status: 403, message: 'You do not own this site, or the inspected URL is not part of this property.' });

/**
 * Per property 600/minute and 2 000/Pacific day, per project 15 000/minute and
 * 10 000 000/day. Google answers every one of them with the same body, naming
 * only the property, so the emulator does too.
 */
function takeInspectionQuota(ctx: RouteContext, siteUrl: string): void {
  const exhausted = ctx.quotas.take(
    [
      { key: `inspection-minute|${siteUrl}`, limit: ctx.limits.inspectionPerMinutePerProperty, window: 'minute' },
      { key: `inspection-day|${siteUrl}`, limit: ctx.limits.inspectionPerDayPerProperty, window: 'day' },
      { key: `inspection-project-minute|${ctx.project}`, limit: ctx.limits.inspectionPerMinutePerProject, window: 'minute' },
      { key: `inspection-project-day|${ctx.project}`, limit: ctx.limits.inspectionPerDayPerProject, window: 'day' },
    ],
    ctx.now,
  );
  if (exhausted) {
    throw new GoogleApiError(429, inspectionQuotaBody(siteUrl));
  }
}

/** Sitemaps still known to Search Console that list the URL: the seed world's, or for other URLs the property's first on the URL's host. */
function sitemapsFor(ctx: RouteContext, siteUrl: string, url: string, modelled: boolean): string[] {
  if (modelled) {
    const known = new Set([...ctx.state.sitemaps.values()].flat().map((e) => e.sitemap.path));
    return (ctx.state.listedIn.get(url) ?? []).filter((path) => known.has(path));
  }
  const host = new URL(url).host;
  return ctx.state
    .sitemapsOf(siteUrl)
    .filter((e) => !e.sitemap.isSitemapsIndex && URL.canParse(e.sitemap.path) && new URL(e.sitemap.path).host === host)
    .map((e) => e.sitemap.path)
    .slice(0, 1);
}

export const urlInspectionRoutes: RouteDef[] = [
  {
    name: 'urlInspection.index.inspect',
    method: 'POST',
    path: '/v1/urlInspection/index:inspect',
    style: 'rpc',
    service: SERVICE,
    rpcMethod: 'google.searchconsole.v1.UrlInspectionService.InspectUrl',
    scopes: [SCOPES.webmasters, SCOPES.webmastersReadonly],
    handle(ctx) {
      const body = objectBody(ctx.body, 'rpc');
      checkFields(body, ['inspectionUrl', 'siteUrl', 'languageCode'], 'rpc');
      const { inspectionUrl, siteUrl, languageCode } = body;
      if (typeof inspectionUrl !== 'string' || !inspectionUrl || typeof siteUrl !== 'string' || !siteUrl) {
        throw googleError('rpc', { status: 400, message: 'Request contains an invalid argument.' });
      }
      if (languageCode !== undefined && (typeof languageCode !== 'string' || !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(languageCode))) {
        throw googleError('rpc', { status: 400, message: 'Request contains an invalid argument.' });
      }
      const level = (ctx.userSites ?? ctx.state.sites).get(siteUrl); // an emulator Google user sees only their own properties
      if (!level || level === 'siteUnverifiedUser') {
        throw notPartOfProperty();
      }
      if (!isDomainProperty(siteUrl) && !siteUrl.endsWith('/')) {
        throw notPartOfProperty();
      }
      if (!urlInProperty(inspectionUrl, siteUrl)) {
        throw notPartOfProperty();
      }
      takeInspectionQuota(ctx, siteUrl);
      // A page of the seed world inspects as the world says; a page that ranks on the large property is indexed.
      const page = ctx.state.world.page(inspectionUrl);
      const ranks = !page && ctx.analytics.hasTrafficPage(inspectionUrl);
      const kind = page?.kind ?? (ranks ? 'indexed' : kindForUrl(inspectionUrl));
      return {
        status: 200,
        body: buildInspectionResult({
          url: inspectionUrl,
          siteUrl,
          kind,
          lastCrawlTime: page?.lastCrawlTime ?? fallbackCrawlTime(inspectionUrl, ctx.state.world.anchor),
          sitemaps: sitemapsFor(ctx, siteUrl, inspectionUrl, page !== undefined),
          ...(page?.googleCanonical ? { googleCanonical: page.googleCanonical } : {}),
        }),
      };
    },
  },
];
