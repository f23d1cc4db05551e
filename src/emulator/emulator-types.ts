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
  /** How the Indexing API remembers notifications; see IndexingBehaviour. Default: forgetful. */
  indexing?: IndexingBehaviour;
  /**
   * APIs switched off in the caller's Cloud project: every call to them answers
   * 403 SERVICE_DISABLED, as Google does before the API is enabled. Service
   * names: 'searchconsole.googleapis.com', 'indexing.googleapis.com',
   * 'siteverification.googleapis.com'.
   */
  disabledServices?: string[];
  analytics?: AnalyticsOptions;
}

export interface IndexingBehaviour {
  /**
   * true (default): getMetadata answers 404 "Requested entity was not found."
   * for a URL until `metadataLagMs` after its latest notification — with the
   * default lag of Infinity, always (as widely reported since 2024).
   * false: getMetadata returns the recorded history at once.
   */
  forgetful?: boolean;
  /** Milliseconds (emulator clock) a notification stays invisible to getMetadata when forgetful. Default Infinity. */
  metadataLagMs?: number;
  /** Whether publish's answer carries latestUpdate/latestRemove. Default: !forgetful. */
  publishEchoesMetadata?: boolean;
}

export interface AnalyticsOptions {
  /**
   * 'google' (default): rows by clicks descending, except a query grouped by
   * date (or hour) alone, which comes in time order as in Google's own
   * how-to output. 'clicks': by clicks descending for every grouping.
   */
  order?: 'google' | 'clicks';
  /** Share (0–1) of each day's impressions that belongs to anonymised queries, per property; default per property from its seed. */
  anonymizedShare?: Record<string, number>;
}

export interface EmulatorQuotas {
  inspectionPerMinutePerProperty: number;
  inspectionPerDayPerProperty: number;
  inspectionPerMinutePerProject: number;
  inspectionPerDayPerProject: number;
  publishPerDay: number;
  metadataPerMinute: number;
  /** Every Indexing API request of a project, publish and getMetadata together. */
  indexingPerMinute: number;
  analyticsPerMinutePerSite: number;
  analyticsPerMinutePerUser: number;
  /**
   * Search Analytics load per property in 10-minute chunks and per Pacific day,
   * in the emulator's own units (days in range × 1, or × 2 grouped/filtered by
   * page or query, or × 5 by both). Google publishes no numbers: Infinity by default.
   */
  analyticsLoadShortTerm: number;
  analyticsLoadLongTerm: number;
  otherPerMinutePerUser: number;
  otherPerSecondPerUser: number;
}

export const DEFAULT_QUOTAS: EmulatorQuotas = {
  inspectionPerMinutePerProperty: 600,
  inspectionPerDayPerProperty: 2000,
  inspectionPerMinutePerProject: 15000,
  inspectionPerDayPerProject: 10_000_000,
  publishPerDay: 200,
  metadataPerMinute: 180,
  indexingPerMinute: 380,
  analyticsPerMinutePerSite: 1200,
  analyticsPerMinutePerUser: 1200,
  analyticsLoadShortTerm: Infinity,
  analyticsLoadLongTerm: Infinity,
  otherPerMinutePerUser: 200,
  otherPerSecondPerUser: 20,
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
  grantType: 'jwt-bearer' | 'refresh_token' | 'authorization_code';
  principal: string;
  subject?: string;
  scopes: string[];
  ok: boolean;
  error?: string;
}

/**
 * - status (default): an HTTP error answer (`status`, or the preset's).
 * - hang: the request is read and never answered; close() still ends promptly.
 * - truncated: 200 application/json whose body stops mid-way (the real answer
 *   cut in half, or `body` cut when given; `cutAt` bytes to choose).
 * - array: 200 application/json with a JSON array (`body` when it is one, else []).
 * - html: `status` (default 200) text/html, as a captive portal or proxy sends.
 */
export type FaultKind = 'status' | 'hang' | 'truncated' | 'array' | 'html';

/** Google's real error bodies, by name; see emulator-usage-limits.ts for each shape and its source. */
export type FaultPreset =
  | 'service_disabled'
  | 'access_not_configured'
  | 'quota_exceeded'
  | 'daily_limit_exceeded'
  | 'rate_limit_exceeded'
  | 'user_rate_limit_exceeded'
  | 'resource_exhausted';

export const FAULT_KINDS: readonly FaultKind[] = ['status', 'hang', 'truncated', 'array', 'html'];
export const FAULT_PRESETS: readonly FaultPreset[] = [
  'service_disabled',
  'access_not_configured',
  'quota_exceeded',
  'daily_limit_exceeded',
  'rate_limit_exceeded',
  'user_rate_limit_exceeded',
  'resource_exhausted',
];

export interface FaultSpec {
  /** A route name ('sites.list', 'token', …) or '*' for every API route (not /token). */
  route: string;
  kind?: FaultKind;
  /** Required for kind 'status' unless a preset gives it. */
  status?: number;
  preset?: FaultPreset;
  /** Default 1; Infinity = until cleared. */
  times?: number;
  /** Seconds, sent as Retry-After. */
  retryAfter?: number;
  body?: unknown;
  /** The error's text; `{form.<field>}` (token route) and `{bearer}` (API routes) echo what the request carried. */
  message?: string;
  /** The error code: the token endpoint's `error` (default invalid_request, or internal_failure for a 5xx), an API error's reason. */
  reason?: string;
  /**
   * Whether the request takes effect before the fault answers (a write that
   * happened, then a hang or garbage). Default false, except for 'truncated'
   * without `body`, which cuts the real answer and so always carries it out.
   */
  applied?: boolean;
  /** For 'truncated': bytes of the body to send (default: half, never a whole JSON value). */
  cutAt?: number;
  /** Only requests whose JSON body has these fields with these values (compared as JSON), e.g. `{ startRow: 25000 }`. */
  bodyMatches?: Record<string, unknown>;
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
