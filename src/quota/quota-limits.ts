// Google's published limits that the ledger counts against (briefs/google.md §3,
// developers.google.com/webmaster-tools/limits and
// developers.google.com/search/apis/indexing-api/v3/quota-pricing). A token so
// that a test can stand on a small limit, as the emulator does.

export const QUOTA_LIMITS = Symbol('QUOTA_LIMITS');

export interface QuotaLimits {
  /** URL Inspection per property per minute. */
  readonly inspectionPerMinute: number;
  /** URL Inspection per property per Pacific day. */
  readonly inspectionPerDay: number;
  /** Indexing API publishes (URL_UPDATED and URL_DELETED together) per Google Cloud project per Pacific day; the default a project gets. */
  readonly publishPerDay: number;
}

export const GOOGLE_QUOTA_LIMITS: QuotaLimits = { inspectionPerMinute: 600, inspectionPerDay: 2000, publishPerDay: 200 };
