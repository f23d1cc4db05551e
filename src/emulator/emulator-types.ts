// Shapes shared by the emulator's modules. Wire types mirror Google's JSON
// exactly (camelCase, int64 as strings) so the emulator can return them as-is.

export interface EmulatorOptions {
  host?: string;
  port?: number;
  /**
   * Clock for analytics dates, quotas and timestamps. Token lifetimes and
   * assertion iat/exp use the wall clock, as the client libraries do.
   */
  now?: () => Date;
  quotas?: Partial<EmulatorQuotas>;
}

export interface EmulatorQuotas {
  inspectionPerMinutePerProperty: number;
  inspectionPerDayPerProperty: number;
  publishPerDay: number;
  metadataPerMinute: number;
  analyticsPerMinutePerSite: number;
  otherPerMinutePerUser: number;
}

export const DEFAULT_QUOTAS: EmulatorQuotas = {
  inspectionPerMinutePerProperty: 600,
  inspectionPerDayPerProperty: 2000,
  publishPerDay: 200,
  metadataPerMinute: 180,
  analyticsPerMinutePerSite: 1200,
  otherPerMinutePerUser: 200,
};

export type RouteName =
  | 'sites.list'
  | 'sites.get'
  | 'sites.add'
  | 'sites.delete'
  | 'sitemaps.list'
  | 'sitemaps.get'
  | 'sitemaps.submit'
  | 'sitemaps.delete'
  | 'searchanalytics.query'
  | 'urlInspection.index.inspect'
  | 'urlNotifications.publish'
  | 'urlNotifications.getMetadata'
  | 'webResource.getToken'
  | 'webResource.insert'
  | 'webResource.get'
  | 'webResource.list'
  | 'webResource.update'
  | 'webResource.patch'
  | 'webResource.delete'
  | 'token'
  | 'unknown';

export interface RecordedRequest {
  method: string;
  /** Exactly as received, query string excluded. */
  rawPath: string;
  route: string;
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  principal?: string;
  status: number;
  at: string;
}

export interface TokenGrant {
  grantType: 'jwt-bearer' | 'refresh_token';
  principal: string;
  subject?: string;
  scopes: string[];
  ok: boolean;
  error?: string;
}

export interface FaultSpec {
  route: string;
  status: number;
  /** Default 1; Infinity = until cleared. */
  times?: number;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  body?: unknown;
  message?: string;
}

export type PermissionLevel = 'siteOwner' | 'siteFullUser' | 'siteRestrictedUser' | 'siteUnverifiedUser';

export interface WmxSitemapContent {
  type: string;
  submitted: string;
  indexed?: string;
}

export interface WmxSitemap {
  path: string;
  lastSubmitted?: string;
  isPending: boolean;
  isSitemapsIndex: boolean;
  type: string;
  lastDownloaded?: string;
  warnings: string;
  errors: string;
  contents?: WmxSitemapContent[];
}

export type VerificationSiteType = 'SITE' | 'INET_DOMAIN';

export interface VerificationSite {
  type: VerificationSiteType;
  identifier: string;
}

export interface WebResource {
  /** Percent-encoded, as Google returns it: dns%3A%2F%2Fexample.com */
  id: string;
  site: VerificationSite;
  owners: string[];
}

export interface UrlNotification {
  url: string;
  type: 'URL_UPDATED' | 'URL_DELETED';
  notifyTime: string;
}

export interface UrlNotificationMetadata {
  url: string;
  latestUpdate?: UrlNotification;
  latestRemove?: UrlNotification;
}
