// POST /v1/urlInspection/index:inspect — a One Platform method, so its errors
// carry no errors[] array, and a URL outside the property is PERMISSION_DENIED.

import { googleError, quotaExceeded } from './emulator-errors.js';
import { checkFields, objectBody, SCOPES, type RouteContext, type RouteDef } from './emulator-routing.js';
import { isDomainProperty, urlInProperty } from './property-scope.js';
import { buildInspectionResult, kindForUrl } from './url-inspection-results.js';

const SERVICE = 'searchconsole.googleapis.com';

const notPartOfProperty = () =>
  googleError('rpc', { status: 403, message: 'You do not own this site, or the inspected URL is not part of this property.' });

function takeInspectionQuota(ctx: RouteContext, siteUrl: string): void {
  const perMinute = ctx.limits.inspectionPerMinutePerProperty;
  const perDay = ctx.limits.inspectionPerDayPerProperty;
  const exhausted = ctx.quotas.take(
    [
      { key: `inspection-minute|${siteUrl}`, limit: perMinute, window: 'minute' },
      { key: `inspection-day|${siteUrl}`, limit: perDay, window: 'day' },
    ],
    ctx.now,
  );
  if (!exhausted) return;
  const perDayHit = exhausted.window === 'day';
  throw quotaExceeded('rpc', {
    service: SERVICE,
    metric: 'searchconsole.googleapis.com/url_inspection_requests',
    limitName: perDayHit ? 'URL inspection queries per day per site' : 'URL inspection queries per minute per site',
    limitValue: exhausted.limit,
    consumer: `projects/${ctx.project}`,
  });
}

function sitemapsFor(ctx: RouteContext, siteUrl: string, url: string): string[] {
  const host = new URL(url).host;
  return ctx.state
    .sitemapsOf(siteUrl)
    .filter((e) => !e.sitemap.isSitemapsIndex && URL.canParse(e.sitemap.path) && new URL(e.sitemap.path).host === host)
    .map((e) => e.sitemap.path);
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
      const level = ctx.state.sites.get(siteUrl);
      if (!level || level === 'siteUnverifiedUser') throw notPartOfProperty();
      if (!isDomainProperty(siteUrl) && !siteUrl.endsWith('/')) throw notPartOfProperty();
      if (!urlInProperty(inspectionUrl, siteUrl)) throw notPartOfProperty();
      takeInspectionQuota(ctx, siteUrl);
      const kind = ctx.state.inspectionFixtures.get(inspectionUrl) ?? kindForUrl(inspectionUrl);
      return {
        status: 200,
        body: buildInspectionResult({
          url: inspectionUrl,
          siteUrl,
          kind,
          now: ctx.now,
          sitemaps: sitemapsFor(ctx, siteUrl, inspectionUrl),
        }),
      };
    },
  },
];
