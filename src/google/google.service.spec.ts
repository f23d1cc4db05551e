// Google misbehaving, through the real client libraries: every case below is an
// answer Google (or something between us and Google) really gives, served by a
// local HTTP server to the real gaxios / googleapis-common / google-auth-library
// stack that GoogleService builds. Each row says how many requests went out,
// what kind of failure it became, and what the sentence must say.

import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { GoogleAuthService } from './google-auth.service.js';
import { ManualClock } from '../../test/support/manual-clock.js';
import { type Config, loadConfig } from '../config/config.js';
import { GoogleApiError, type GoogleErrorFacts, type GoogleErrorKind } from './google-error.js';
import type { GoogleMethod } from './google-methods.js';
import type { Failure } from './google-failure.js';
import { methodSpec } from './google-methods.js';
import { type GoogleRequest, GoogleService, MAX_ATTEMPTS, retryDelay } from './google.service.js';
import { type Reply, reply, ScriptedGoogle } from './scripted-google.fake.js';

const SA_EMAIL = 'gsc-bot@demo-project.iam.gserviceaccount.com';
const SCOPES = [
  'https://www.googleapis.com/auth/webmasters',
  'https://www.googleapis.com/auth/indexing',
  'https://www.googleapis.com/auth/siteverification',
];
const PROPERTY = 'https://www.example.com/';
// A key file in Google's layout with a fresh key pair, made here rather than by the
// emulator's helper: emulator/ builds on google/, so google/ specs must not import it
// (scripts/check-folder-cycles.mjs). The scripted Google below never checks the signature.
const key = {
  type: 'service_account',
  project_id: 'demo-project',
  private_key_id: 'a'.repeat(40),
  private_key: generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  }).privateKey,
  client_email: SA_EMAIL,
  client_id: '100000000000000000001',
  auth_uri: 'https://accounts.google.com/o/oauth2/auth',
  token_uri: 'https://oauth2.googleapis.com/token',
  auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
  client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(SA_EMAIL)}`,
  universe_domain: 'googleapis.com',
};

/** Waits nothing between attempts and remembers what it was asked to wait (the test clock), with a hook inside the wait. */
class InstantClock extends ManualClock {
  /** Called during the next wait, before it ends (e.g. to abort a signal there). */
  duringWait?: () => void;
  override async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.duringWait?.();
    return super.sleep(ms, signal);
  }
}

type CredentialSetup = 'service_account' | 'delegated' | 'oauth';

function serviceFor(google: ScriptedGoogle, credential: CredentialSetup = 'service_account', timeoutMs = 300) {
  const env: Record<string, string> = { GSC_API_ROOT_URL: google.url, GSC_OAUTH_TOKEN_URL: google.tokenUrl };
  if (credential === 'oauth') {
    Object.assign(env, {
      GSC_CLIENT_ID: '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com',
      GSC_CLIENT_SECRET: 'GOCSPX-not-a-real-secret',
      GSC_REFRESH_TOKEN: '1//not-a-real-refresh-token',
    });
  } else {
    env.GSC_SERVICE_ACCOUNT_KEY = JSON.stringify(key);
    if (credential === 'delegated') {
      env.GSC_IMPERSONATE = 'owner@example.com';
    }
  }
  const base = loadConfig(env);
  const config: Config = { ...base, google: { ...base.google, timeoutMs } };
  const auth = new GoogleAuthService(config);
  auth.useScopes(SCOPES);
  const clock = new InstantClock(new Date());
  const service = new GoogleService(auth, config, clock);
  return { service, clock, waits: clock.waits };
}

/** One sample request per method, as the domain services send it. */
const REQUESTS: Record<GoogleMethod, GoogleRequest<unknown>> = {
  'sites.list': (c) => c.searchconsole.sites.list({}),
  'sites.get': (c) => c.searchconsole.sites.get({ siteUrl: PROPERTY }),
  'sites.add': (c) => c.searchconsole.sites.add({ siteUrl: PROPERTY }),
  'sites.delete': (c) => c.searchconsole.sites.delete({ siteUrl: PROPERTY }),
  'sitemaps.list': (c) => c.searchconsole.sitemaps.list({ siteUrl: PROPERTY }),
  'sitemaps.get': (c) => c.searchconsole.sitemaps.get({ siteUrl: PROPERTY, feedpath: `${PROPERTY}sitemap.xml` }),
  'sitemaps.submit': (c) => c.searchconsole.sitemaps.submit({ siteUrl: PROPERTY, feedpath: `${PROPERTY}sitemap.xml` }),
  'sitemaps.delete': (c) => c.searchconsole.sitemaps.delete({ siteUrl: PROPERTY, feedpath: `${PROPERTY}sitemap.xml` }),
  'searchanalytics.query': (c) =>
    c.searchconsole.searchanalytics.query({ siteUrl: PROPERTY, requestBody: { startDate: '2026-11-01', endDate: '2026-11-07' } }),
  'urlInspection.index.inspect': (c) =>
    c.searchconsole.urlInspection.index.inspect({ requestBody: { inspectionUrl: PROPERTY, siteUrl: PROPERTY } }),
  'urlNotifications.publish': (c) =>
    c.indexing.urlNotifications.publish({ requestBody: { url: `${PROPERTY}jobs/1`, type: 'URL_UPDATED' } }),
  'urlNotifications.getMetadata': (c) => c.indexing.urlNotifications.getMetadata({ url: `${PROPERTY}jobs/1` }),
  'webResource.getToken': (c) => c.siteVerification.getToken({ site: { type: 'SITE', identifier: PROPERTY }, verificationMethod: 'META' }),
  'webResource.insert': (c) => c.siteVerification.insert('META', { site: { type: 'SITE', identifier: PROPERTY } }),
  'webResource.list': (c) => c.siteVerification.list(),
  'webResource.get': (c) => c.siteVerification.get('https://www.example.com/'),
  'webResource.update': (c) => c.siteVerification.update('https://www.example.com/', { owners: ['a@example.com'] }),
  'webResource.patch': (c) => c.siteVerification.patch('https://www.example.com/', { owners: ['a@example.com'] }),
  'webResource.delete': (c) => c.siteVerification.delete('https://www.example.com/'),
};

const call = (service: GoogleService, method: GoogleMethod, action = `do ${method}`) =>
  service.call({ method, action, property: PROPERTY }, REQUESTS[method]);

// Google's bodies, as documented or reported (briefs/google.md §2.1, §12).
const INSPECTION_429 = { error: { code: 429, message: 'Quota exceeded for sc-domain:example.fr.', status: 'RESOURCE_EXHAUSTED' } };
const PUBLISH_DAILY_429 = {
  error: {
    code: 429,
    message:
      "Quota exceeded for quota metric 'Publish requests' and limit 'Publish requests per day' of service 'indexing.googleapis.com' for consumer 'project_number:123456789012'.",
    status: 'RESOURCE_EXHAUSTED',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'RATE_LIMIT_EXCEEDED',
        domain: 'googleapis.com',
        metadata: {
          service: 'indexing.googleapis.com',
          consumer: 'projects/123456789012',
          quota_metric: 'indexing.googleapis.com/v3_publish_requests',
          quota_limit: 'DefaultPublishRequestsPerDayPerProject',
          quota_limit_value: '200',
        },
      },
    ],
  },
};
const DISABLED_MESSAGE =
  'Google Search Console API has not been used in project 123456789012 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/searchconsole.googleapis.com/overview?project=123456789012 then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.';
const SERVICE_DISABLED = {
  error: {
    code: 403,
    message: DISABLED_MESSAGE,
    errors: [
      {
        message: DISABLED_MESSAGE,
        domain: 'usageLimits',
        reason: 'accessNotConfigured',
        extendedHelp: 'https://console.developers.google.com',
      },
    ],
    status: 'PERMISSION_DENIED',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'SERVICE_DISABLED',
        domain: 'googleapis.com',
        metadata: {
          consumer: 'projects/123456789012',
          service: 'searchconsole.googleapis.com',
          serviceTitle: 'Google Search Console API',
          activationUrl: 'https://console.developers.google.com/apis/api/searchconsole.googleapis.com/overview?project=123456789012',
          containerInfo: '123456789012',
        },
      },
    ],
  },
};
const INDEXING_NOT_CONFIGURED_MESSAGE =
  'Web Search Indexing API has not been used in project 987654321 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/indexing.googleapis.com/overview?project=987654321 then retry.';
const INDEXING_NOT_CONFIGURED = { error: { code: 403, message: INDEXING_NOT_CONFIGURED_MESSAGE, status: 'PERMISSION_DENIED' } };
const classic = (code: number, reason: string, message: string, domain = 'global') => ({
  error: { code, message, errors: [{ message, domain, reason }] },
});
const FORBIDDEN_SITE = classic(
  403,
  'forbidden',
  `User does not have sufficient permission for site '${PROPERTY}'. See also: https://support.google.com/webmasters/answer/2451999.`,
);
const SCOPE_INSUFFICIENT = {
  error: {
    code: 403,
    message: 'Request had insufficient authentication scopes.',
    errors: [{ message: 'Insufficient Permission', domain: 'global', reason: 'insufficientPermissions' }],
    status: 'PERMISSION_DENIED',
    details: [
      {
        '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
        reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
        domain: 'googleapis.com',
        metadata: { service: 'searchconsole.googleapis.com' },
      },
    ],
  },
};
const UNAUTHENTICATED = {
  error: {
    code: 401,
    message:
      'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
    status: 'UNAUTHENTICATED',
  },
};
const tokenError = (status: number, error: string, description: string) => reply.json(status, { error, error_description: description });

interface Case {
  readonly name: string;
  readonly method: GoogleMethod;
  readonly credential?: CredentialSetup;
  readonly token?: Reply[];
  readonly api?: Reply[];
  readonly kind: GoogleErrorKind;
  /** API requests (all attempts), and token requests when the case is about the token endpoint. */
  readonly apiRequests: number;
  readonly tokenRequests?: number;
  readonly says: RegExp[];
  readonly facts?: Partial<GoogleErrorFacts>;
}

const CASES: Case[] = [
  // A 200 that is not the answer.
  {
    name: 'truncated JSON on a read',
    method: 'sites.list',
    api: [reply.raw(200, 'application/json; charset=UTF-8', '{"siteEntry": [{"siteUrl": "https://www.exa')],
    kind: 'malformed',
    apiRequests: 2,
    says: [
      /^Google answered with something that is not a sites\.list response \(truncated or malformed JSON \("\{"siteEntry/,
      /Nothing was changed\./,
      /proxy/,
    ],
  },
  {
    name: 'a JSON array where an object belongs',
    method: 'sites.get',
    api: [reply.json(200, [{ siteUrl: PROPERTY }])],
    kind: 'malformed',
    apiRequests: 2,
    says: [/not a sites\.get response \(a JSON array\)/],
  },
  {
    name: 'an HTML page with status 200 (a captive portal)',
    method: 'sitemaps.list',
    api: [reply.raw(200, 'text/html', '<html><body>Please sign in to the Wi-Fi</body></html>')],
    kind: 'malformed',
    apiRequests: 2,
    says: [/an HTML page \("<html><body>Please sign in/],
  },
  {
    name: 'an empty 200 where an object is required',
    method: 'urlInspection.index.inspect',
    api: [reply.raw(200, 'application/json', '')],
    kind: 'malformed',
    apiRequests: 2,
    says: [/not a urlInspection\.index\.inspect response \(an empty body\)/],
  },
  {
    name: 'JSON null',
    method: 'searchanalytics.query',
    api: [reply.json(200, null)],
    kind: 'malformed',
    apiRequests: 2,
    says: [/\(JSON null\)/],
  },
  {
    name: 'an object without the field the method returns',
    method: 'sites.get',
    api: [reply.json(200, { permissionLevel: 'siteOwner' })],
    kind: 'malformed',
    apiRequests: 2,
    says: [/a JSON object without siteUrl/],
  },
  {
    name: 'a list field that is not a list',
    method: 'webResource.list',
    api: [reply.json(200, { items: 'none' })],
    kind: 'malformed',
    apiRequests: 2,
    says: [/a JSON object whose items is not a list/],
  },
  {
    name: 'garbage answering a write is not repeated, outcome unknown',
    method: 'webResource.insert',
    api: [reply.raw(200, 'text/html', '<html>Bad gateway</html>')],
    kind: 'malformed',
    apiRequests: 1,
    says: [/not a webResource\.insert response/, /It is not known whether Google applied the change/],
    facts: { outcome: 'unknown' },
  },
  // No answer in time, or no connection.
  {
    name: 'a connection that never answers (read: one retry)',
    method: 'sites.list',
    api: [reply.hang],
    kind: 'timeout',
    apiRequests: 2,
    says: [
      /^Google did not answer within 0\.3 s \(GSC_GOOGLE_TIMEOUT_MS\) while trying to do sites\.list, after 2 attempts\. Nothing was changed\./,
    ],
  },
  {
    name: 'headers, half a body, then nothing',
    method: 'sites.list',
    api: [reply.stall],
    kind: 'timeout',
    apiRequests: 2,
    says: [/did not answer within 0\.3 s/],
  },
  {
    name: 'a write that times out is not repeated',
    method: 'sitemaps.submit',
    api: [reply.hang],
    kind: 'timeout',
    apiRequests: 1,
    says: [/after 1 attempt\. It is not known whether Google applied the change; check the current state before repeating it\./],
    facts: { outcome: 'unknown' },
  },
  {
    name: 'Indexing publish that times out is sent once',
    method: 'urlNotifications.publish',
    api: [reply.hang],
    kind: 'timeout',
    apiRequests: 1,
    says: [/It is not known whether Google applied the change/],
    facts: { outcome: 'unknown' },
  },
  {
    name: 'a reset connection on a read is retried',
    method: 'sites.get',
    api: [reply.reset],
    kind: 'network',
    apiRequests: MAX_ATTEMPTS,
    says: [/^The connection to Google broke while trying to do sites\.get \(ECONNRESET\), after 4 attempts\. Nothing was changed\./],
  },
  {
    name: 'a reset connection on a write is not',
    method: 'sites.delete',
    api: [reply.reset],
    kind: 'network',
    apiRequests: 1,
    says: [/It is not known whether Google applied the change/],
    facts: { outcome: 'unknown' },
  },
  // Quota: the window only from Google's structured facts.
  {
    name: "Google's real URL Inspection 429 (same for every limit) is sent once",
    method: 'urlInspection.index.inspect',
    api: [reply.json(429, INSPECTION_429)],
    kind: 'quota',
    apiRequests: 1,
    says: [
      /^Google's quota is exhausted, so it refused to do urlInspection\.index\.inspect: "Quota exceeded for sc-domain:example\.fr\."/,
      /does not say which limit was hit\. URL Inspection allows 600 inspections per minute and 2 000 per day per property\./,
      /If it was a per-minute limit, retry in 60 seconds; if it was a daily one, it resets at midnight Pacific Time, in about \d+ (hours?|minutes?)\.$/,
    ],
    facts: { status: 429, reason: 'RESOURCE_EXHAUSTED', quota: { window: undefined } },
  },
  {
    name: 'a 429 whose ErrorInfo names a per-day limit is not retried',
    method: 'urlNotifications.publish',
    api: [reply.json(429, PUBLISH_DAILY_429)],
    kind: 'quota',
    apiRequests: 1,
    says: [
      /^Google's daily quota is exhausted/,
      /200 publish requests \(URL_UPDATED and URL_DELETED together\) per day per Google Cloud project/,
      /resets at midnight Pacific Time/,
    ],
    facts: {
      quota: {
        window: 'day',
        limit: 'DefaultPublishRequestsPerDayPerProject',
        limitValue: 200,
        metric: 'indexing.googleapis.com/v3_publish_requests',
      },
    },
  },
  {
    name: '403 usageLimits dailyLimitExceeded (Site Verification) is quota, not permission',
    method: 'webResource.getToken',
    api: [reply.json(403, classic(403, 'dailyLimitExceeded', 'Daily Limit Exceeded', 'usageLimits'))],
    kind: 'quota',
    apiRequests: 1,
    says: [/^Google's daily quota is exhausted, so it refused to do webResource\.getToken/],
    facts: { quota: { window: 'day' } },
  },
  {
    name: '403 usageLimits userRateLimitExceeded is a per-minute quota, retried',
    method: 'sites.list',
    api: [reply.json(403, classic(403, 'userRateLimitExceeded', 'User Rate Limit Exceeded', 'usageLimits'))],
    kind: 'quota',
    apiRequests: MAX_ATTEMPTS,
    says: [
      /^Google's per-user rate limit is exhausted: the credential \(gsc-bot@demo-project\.iam\.gserviceaccount\.com\) sent too many requests/,
      /20 requests per second and 200 per minute per user/,
      /with fewer calls at once/,
    ],
  },
  {
    name: '403 usageLimits quotaExceeded: quota of an unsaid window, not retried',
    method: 'sitemaps.get',
    api: [reply.json(403, classic(403, 'quotaExceeded', 'Quota exceeded', 'usageLimits'))],
    kind: 'quota',
    apiRequests: 1,
    says: [/^Google's quota is exhausted/, /does not say which limit/],
  },
  // 403s that are not permission.
  {
    name: 'SERVICE_DISABLED names the API, the project and where to enable it',
    method: 'sites.get',
    api: [reply.json(403, SERVICE_DISABLED)],
    kind: 'service_disabled',
    apiRequests: 1,
    says: [
      /^Google refused to do sites\.get because the Google Search Console API \(searchconsole\.googleapis\.com\) is not enabled in the Google Cloud project 123456789012 that the credential \(gsc-bot@demo-project\.iam\.gserviceaccount\.com\) belongs to/,
      /Enable it at https:\/\/console\.developers\.google\.com\/apis\/api\/searchconsole\.googleapis\.com\/overview\?project=123456789012 /,
    ],
    facts: {
      disabled: {
        title: 'Google Search Console API',
        service: 'searchconsole.googleapis.com',
        project: '123456789012',
        activationUrl: 'https://console.developers.google.com/apis/api/searchconsole.googleapis.com/overview?project=123456789012',
      },
    },
  },
  {
    name: 'a disabled API told only in the message (no details)',
    method: 'urlNotifications.getMetadata',
    api: [reply.json(403, INDEXING_NOT_CONFIGURED)],
    kind: 'service_disabled',
    apiRequests: 1,
    says: [
      /the Web Search Indexing API \(indexing\.googleapis\.com\) is not enabled in the Google Cloud project 987654321/,
      /Enable it at https:\/\/console\.developers\.google\.com\/apis\/api\/indexing\.googleapis\.com\/overview\?project=987654321 \(/,
    ],
  },
  {
    name: 'a missing permission gets the access hint (one sites.list)',
    method: 'sites.get',
    api: [
      reply.json(403, FORBIDDEN_SITE),
      reply.json(200, { siteEntry: [{ siteUrl: 'sc-domain:example.com', permissionLevel: 'siteOwner' }] }),
    ],
    kind: 'permission',
    apiRequests: 2,
    says: [
      /lacks the permission needed on https:\/\/www\.example\.com\//,
      /is not among this credential's properties; for example\.com it has: sc-domain:example\.com\./,
    ],
  },
  {
    name: 'an insufficient scope',
    method: 'sites.add',
    api: [reply.json(403, SCOPE_INSUFFICIENT)],
    kind: 'scope',
    apiRequests: 1,
    says: [/lacks the OAuth scope this call needs/],
  },
  {
    name: 'an API 401 is a credential problem',
    method: 'sites.list',
    api: [reply.json(401, UNAUTHENTICATED)],
    kind: 'credential',
    apiRequests: 1,
    says: [/^Google rejected the access token of gsc-bot@/],
    facts: { credential: 'token_rejected' },
  },
  {
    name: 'a persistent 500 on an idempotent write: retried, outcome unknown',
    method: 'sitemaps.submit',
    api: [reply.json(500, classic(500, 'backendError', 'Internal error encountered.'))],
    kind: 'unavailable',
    apiRequests: MAX_ATTEMPTS,
    says: [/HTTP 500 .* after 4 attempts\. It is not known whether Google applied the change/],
    facts: { outcome: 'unknown' },
  },
  // The token endpoint: a credential problem, named; bounded like any request.
  {
    name: 'invalid_grant "Invalid JWT Signature." (key deleted in the console)',
    method: 'sites.list',
    token: [tokenError(400, 'invalid_grant', 'Invalid JWT Signature.')],
    kind: 'credential',
    apiRequests: 0,
    tokenRequests: 1,
    says: [
      /^Google's OAuth token endpoint refused the service account gsc-bot@demo-project\.iam\.gserviceaccount\.com from GSC_SERVICE_ACCOUNT_KEY/,
      /"invalid_grant: Invalid JWT Signature\."/,
      /deleted or disabled in the Google Cloud console/,
      /Nothing was sent to Google, so nothing was changed\./,
      /Create a new JSON key/,
      /put it in GSC_SERVICE_ACCOUNT_KEY/,
    ],
    facts: { phase: 'token', credential: 'key_rejected', status: 400, reason: 'invalid_grant' },
  },
  {
    name: 'invalid_grant about iat/exp (this clock is off)',
    method: 'sites.list',
    token: [
      tokenError(
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      ),
    ],
    kind: 'credential',
    apiRequests: 0,
    tokenRequests: 1,
    says: [/this machine's clock reads \d{4}-\d\d-\d\dT.*off by more than a few minutes/, /enable NTP/, /the key itself is fine/],
    facts: { credential: 'clock_skew' },
  },
  {
    name: 'unauthorized_client under domain-wide delegation names the scopes to allow',
    method: 'sites.list',
    credential: 'delegated',
    token: [
      tokenError(
        401,
        'unauthorized_client',
        'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
      ),
    ],
    kind: 'credential',
    apiRequests: 0,
    tokenRequests: 1,
    says: [
      /acting as owner@example\.com \(GSC_IMPERSONATE\)/,
      /Manage domain-wide delegation\) with exactly these OAuth scopes: https:\/\/www\.googleapis\.com\/auth\/webmasters, https:\/\/www\.googleapis\.com\/auth\/indexing, https:\/\/www\.googleapis\.com\/auth\/siteverification\./,
    ],
    facts: { credential: 'unauthorized_client' },
  },
  {
    name: 'a revoked refresh token',
    method: 'sites.list',
    credential: 'oauth',
    token: [tokenError(400, 'invalid_grant', 'Token has been expired or revoked.')],
    kind: 'credential',
    apiRequests: 0,
    tokenRequests: 1,
    says: [
      /refused the OAuth credential \(OAuth client 123456789012-/,
      /from GSC_CLIENT_ID\/GSC_CLIENT_SECRET\/GSC_REFRESH_TOKEN/,
      /"invalid_grant: Token has been expired or revoked\."/,
      /"Testing" status issues refresh tokens that last 7 days/,
      /set it in GSC_REFRESH_TOKEN/,
    ],
    facts: { credential: 'revoked_token' },
  },
  {
    name: 'a wrong OAuth client secret',
    method: 'sites.list',
    credential: 'oauth',
    token: [tokenError(401, 'invalid_client', 'Unauthorized')],
    kind: 'credential',
    apiRequests: 0,
    tokenRequests: 1,
    says: [/The client secret in GSC_CLIENT_SECRET does not match GSC_CLIENT_ID/],
    facts: { credential: 'client_rejected' },
  },
  {
    name: 'a failing token endpoint is hit at most MAX_ATTEMPTS times, not 16',
    method: 'sites.list',
    token: [tokenError(500, 'internal_failure', 'Backend Error')],
    kind: 'unavailable',
    apiRequests: 0,
    tokenRequests: MAX_ATTEMPTS,
    says: [/^Google's OAuth token endpoint failed with HTTP 500/, /\(4 attempts\)\. Nothing was sent to Google, so nothing was changed\./],
    facts: { phase: 'token', outcome: 'unchanged' },
  },
  {
    name: 'a token endpoint that never answers',
    method: 'sites.list',
    token: [reply.hang],
    kind: 'timeout',
    apiRequests: 0,
    tokenRequests: 2,
    says: [/^Google's OAuth token endpoint did not answer within 0\.3 s \(GSC_GOOGLE_TIMEOUT_MS\)/, /Nothing was sent to Google/],
  },
  {
    name: 'a refresh-token endpoint that never answers (UserRefreshClient has the deadline too)',
    method: 'sites.list',
    credential: 'oauth',
    token: [reply.hang],
    kind: 'timeout',
    apiRequests: 0,
    tokenRequests: 2,
    says: [/^Google's OAuth token endpoint did not answer within 0\.3 s/],
  },
  {
    name: 'a refresh-token endpoint failing with 500 is asked at most MAX_ATTEMPTS times',
    method: 'sites.list',
    credential: 'oauth',
    token: [tokenError(500, 'internal_failure', 'Backend Error')],
    kind: 'unavailable',
    apiRequests: 0,
    tokenRequests: MAX_ATTEMPTS,
    says: [/^Google's OAuth token endpoint failed with HTTP 500/],
  },
  {
    name: 'a token endpoint answering HTML with 200',
    method: 'sites.list',
    token: [reply.raw(200, 'text/html', '<html>proxy login</html>')],
    kind: 'malformed',
    apiRequests: 0,
    tokenRequests: 2,
    says: [
      /^Google's OAuth token endpoint answered with an HTML page instead of a token, so no access token could be had to do sites\.list \(2 attempts\)/,
    ],
  },
];

describe('GoogleService against a misbehaving Google (real client libraries)', () => {
  let google: ScriptedGoogle;
  beforeAll(async () => {
    google = await ScriptedGoogle.start();
  });
  afterAll(() => google.close());
  beforeEach(() => google.reset());

  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    if (c.token) {
      google.token(...c.token);
    }
    if (c.api) {
      google.api(...c.api);
    }
    const { service } = serviceFor(google, c.credential);
    const outcome = await call(service, c.method).then(
      (data) => ({ data }),
      (error: unknown) => ({ error }),
    );
    expect(google.apiRequests()).toHaveLength(c.apiRequests);
    if (c.tokenRequests !== undefined) {
      expect(google.tokenRequests()).toHaveLength(c.tokenRequests);
    }
    expect(outcome).toHaveProperty('error');
    const error = (outcome as { error: unknown }).error;
    expect(error).toBeInstanceOf(GoogleApiError);
    const failure = error as GoogleApiError;
    expect(failure.kind).toBe(c.kind);
    expect(failure.facts.attempts).toBe(Math.max(c.apiRequests - (c.kind === 'permission' ? 1 : 0), c.tokenRequests ?? 0, 1));
    for (const pattern of c.says) {
      expect(failure.message).toMatch(pattern);
    }
    if (c.facts) {
      expect(failure.facts).toMatchObject(c.facts);
    }
    expect(failure.message).not.toMatch(/Correct the arguments/);
  });
});

describe('GoogleService: answers that are data', () => {
  let google: ScriptedGoogle;
  beforeAll(async () => {
    google = await ScriptedGoogle.start();
  });
  afterAll(() => google.close());
  beforeEach(() => google.reset());

  it.each([
    ['sites.list', {}],
    ['sitemaps.list', {}],
    ['searchanalytics.query', { responseAggregationType: 'byProperty' }],
    ['webResource.list', {}],
    ['urlNotifications.getMetadata', { url: `${PROPERTY}jobs/1` }],
  ] as const)('%s: %j (Google omits empty lists) is a legitimate answer', async (method, body) => {
    google.api(reply.json(200, body));
    await expect(call(serviceFor(google).service, method)).resolves.toEqual(body);
    expect(google.apiRequests()).toHaveLength(1);
  });

  it.each(['sites.add', 'sites.delete', 'sitemaps.submit', 'sitemaps.delete', 'webResource.delete'] as const)(
    '%s: an empty 200 or a 204 is success',
    async (method) => {
      google.api(reply.raw(200, undefined, ''), reply.raw(204, undefined, ''));
      const { service } = serviceFor(google);
      await expect(call(service, method)).resolves.toBe('');
      await expect(call(service, method)).resolves.toBe('');
    },
  );

  it('one truncated answer, then the real one: the read succeeds on the retry', async () => {
    google.api(
      reply.raw(200, 'application/json', '{"siteEntry": ['),
      reply.json(200, { siteEntry: [{ siteUrl: PROPERTY, permissionLevel: 'siteOwner' }] }),
    );
    await expect(call(serviceFor(google).service, 'sites.list')).resolves.toEqual({
      siteEntry: [{ siteUrl: PROPERTY, permissionLevel: 'siteOwner' }],
    });
    expect(google.apiRequests()).toHaveLength(2);
  });

  it('honours Retry-After on a 429 within the bound, and gives up past it', async () => {
    google.api(
      reply.json(429, INSPECTION_429, { 'retry-after': '3' }),
      reply.json(200, { inspectionResult: { inspectionResultLink: 'x' } }),
    );
    const first = serviceFor(google);
    await expect(call(first.service, 'urlInspection.index.inspect')).resolves.toEqual({ inspectionResult: { inspectionResultLink: 'x' } });
    expect(first.waits).toEqual([3000]);

    google.reset();
    google.api(reply.json(429, INSPECTION_429, { 'retry-after': '120' }));
    const second = serviceFor(google);
    const error = (await call(second.service, 'urlInspection.index.inspect').catch((e: unknown) => e)) as GoogleApiError;
    expect(google.apiRequests()).toHaveLength(1);
    expect(error.retryAfterSeconds).toBe(120);
    expect(error.message).toMatch(/If it was a per-minute limit, retry in 120 seconds/);
  });

  it('retryQuota: false hands a 429 back at once, for a batch that waits once for all its items', async () => {
    google.api(reply.json(429, INSPECTION_429), reply.json(200, { inspectionResult: {} }));
    const { service, waits } = serviceFor(google);
    const error = (await service
      .call({ method: 'urlInspection.index.inspect', action: 'inspect', property: PROPERTY }, REQUESTS['urlInspection.index.inspect'], {
        retryQuota: false,
      })
      .catch((e: unknown) => e)) as GoogleApiError;
    expect(error.kind).toBe('quota');
    expect(google.apiRequests()).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('a cancelled call is not sent, and a failure is not sent again once the signal aborts during the wait', async () => {
    const { service, clock } = serviceFor(google);
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      service.call({ method: 'sites.list', action: 'list the properties' }, REQUESTS['sites.list'], { signal: aborted.signal }),
    ).rejects.toThrow(/cancelled before this server asked Google to list the properties, so it was not sent/);
    expect(google.apiRequests()).toHaveLength(0);

    google.api(
      reply.json(503, { error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' } }),
      reply.json(200, { siteEntry: [] }),
    );
    const cancelling = new AbortController();
    clock.duringWait = () => cancelling.abort();
    const error = (await service
      .call({ method: 'sites.list', action: 'list the properties' }, REQUESTS['sites.list'], { signal: cancelling.signal })
      .catch((e: unknown) => e)) as GoogleApiError;
    expect(error.kind).toBe('unavailable');
    expect(google.apiRequests()).toHaveLength(1);
  });

  it('sends the deadline-bound token request once per call and reuses the token', async () => {
    const { service } = serviceFor(google);
    await call(service, 'sites.list');
    await call(service, 'sitemaps.list');
    expect(google.tokenRequests()).toHaveLength(1);
    expect(google.apiRequests().map((r) => r.path)).toEqual([
      '/webmasters/v3/sites',
      '/webmasters/v3/sites/https%3A%2F%2Fwww.example.com%2F/sitemaps',
    ]);
  });

  it('a token failure before a publish is retried, since the publish was not sent; the publish goes out once', async () => {
    google.token(reply.json(503, { error: 'internal_failure', error_description: 'Backend Error' }), reply.token);
    google.api(reply.json(200, { urlNotificationMetadata: { url: `${PROPERTY}jobs/1` } }));
    await expect(call(serviceFor(google).service, 'urlNotifications.publish')).resolves.toEqual({
      urlNotificationMetadata: { url: `${PROPERTY}jobs/1` },
    });
    expect(google.tokenRequests()).toHaveLength(2);
    expect(google.apiRequests()).toHaveLength(1);
  });

  it('a bug in a request function is not mistaken for Google', async () => {
    const { service } = serviceFor(google);
    await expect(service.call({ method: 'sites.list', action: 'list' }, async () => Promise.reject(new TypeError('bug')))).rejects.toThrow(
      TypeError,
    );
    expect(google.requests).toHaveLength(0);
  });
});

describe('retryDelay: which failures are sent again', () => {
  const f = (kind: Failure['kind'], extra: Partial<Failure> = {}): Failure => ({ kind, phase: 'api', message: 'x', ...extra });
  it.each<[string, GoogleMethod, Failure, number, number, 'again' | 'stop']>([
    ['a read after a 5xx', 'sites.get', f('unavailable', { status: 503 }), 1, 0, 'again'],
    ['a read on the last attempt', 'sites.get', f('unavailable', { status: 503 }), MAX_ATTEMPTS, 0, 'stop'],
    ['a read after its first timeout', 'sites.get', f('timeout'), 1, 1, 'again'],
    ['a read after its second timeout', 'sites.get', f('timeout'), 2, 2, 'stop'],
    ['a read after garbage, once', 'sites.list', f('malformed'), 1, 1, 'again'],
    ['a read after garbage twice', 'sites.list', f('malformed'), 2, 2, 'stop'],
    [
      'a 429 of an unsaid window (it may be the daily one)',
      'urlInspection.index.inspect',
      f('quota', { status: 429, quota: {} }),
      1,
      0,
      'stop',
    ],
    [
      'a 429 of an unsaid window with Retry-After',
      'urlInspection.index.inspect',
      f('quota', { status: 429, quota: {}, retryAfterSeconds: 2 }),
      1,
      0,
      'again',
    ],
    ['a 429 of the per-minute window', 'sites.list', f('quota', { status: 429, quota: { window: 'minute' } }), 1, 0, 'again'],
    ['a 429 of the daily window', 'urlInspection.index.inspect', f('quota', { status: 429, quota: { window: 'day' } }), 1, 0, 'stop'],
    ['Retry-After past the bound', 'sites.list', f('quota', { status: 429, quota: {}, retryAfterSeconds: 21 }), 1, 0, 'stop'],
    ['a permission refusal', 'sites.get', f('permission', { status: 403 }), 1, 0, 'stop'],
    ['a disabled API', 'sites.get', f('service_disabled', { status: 403 }), 1, 0, 'stop'],
    ['an idempotent write after a 5xx', 'sitemaps.submit', f('unavailable', { status: 500 }), 1, 0, 'again'],
    ['an idempotent write after a timeout', 'sitemaps.submit', f('timeout'), 1, 1, 'stop'],
    ['an idempotent write whose connection was refused', 'sites.add', f('network', { code: 'ECONNREFUSED' }), 1, 0, 'again'],
    ['an idempotent write whose connection broke', 'sites.add', f('network', { code: 'ECONNRESET' }), 1, 0, 'stop'],
    ['Indexing publish after a 5xx', 'urlNotifications.publish', f('unavailable', { status: 500 }), 1, 0, 'stop'],
    ['Indexing publish after a 429', 'urlNotifications.publish', f('quota', { status: 429, quota: {} }), 1, 0, 'stop'],
    [
      'Indexing publish whose token request failed',
      'urlNotifications.publish',
      f('unavailable', { status: 500, phase: 'token' }),
      1,
      0,
      'again',
    ],
    ['any call whose token was refused', 'sites.list', f('credential', { status: 400, phase: 'token' }), 1, 0, 'stop'],
    ['a cancelled request', 'sites.list', f('network', { code: 'AbortError' }), 1, 0, 'stop'],
  ])('%s → %s', (_name, method, failure, attempt, suspect, expected) => {
    expect(retryDelay(methodSpec(method), failure, attempt, suspect) === undefined ? 'stop' : 'again').toBe(expected);
  });

  it('waits what Retry-After says, within the bound', () => {
    expect(retryDelay(methodSpec('sites.list'), f('quota', { status: 429, quota: {}, retryAfterSeconds: 20 }), 1, 0)).toBe(20_000);
  });
});

// Issue 29 break 6: upstream text that echoes a secret (a token endpoint's error_description, a proxy's
// error page, an API error quoting the bearer token) is copied into the sentence a model reads.
describe('secrets in what Google (or something in its place) answers', () => {
  let google: ScriptedGoogle;
  beforeAll(async () => {
    google = await ScriptedGoogle.start();
  });
  afterAll(() => google.close());
  beforeEach(() => google.reset());
  const REFRESH = '1//not-a-real-refresh-token';
  const SECRET = 'GOCSPX-not-a-real-secret';

  const failureOf = async (service: GoogleService) => {
    const error = await call(service, 'sites.list').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GoogleApiError);
    return error as GoogleApiError;
  };
  const leaks = (error: GoogleApiError, ...secrets: string[]) =>
    secrets.filter((s) => `${error.message}\n${JSON.stringify(error.facts)}`.includes(s) || error.message.includes(encodeURIComponent(s)));

  it("takes the refresh token and the client secret out of the token endpoint's error_description, keeping the error code", async () => {
    google.token(
      tokenError(
        400,
        'invalid_grant',
        `Token has been expired or revoked: refresh_token=${REFRESH}&client_secret=${encodeURIComponent(SECRET)}`,
      ),
    );
    const error = await failureOf(serviceFor(google, 'oauth').service);
    expect(leaks(error, REFRESH, SECRET)).toEqual([]);
    expect(error.message).toContain(
      '"invalid_grant: Token has been expired or revoked: refresh_token=[redacted]&client_secret=[redacted]"',
    );
    expect(error.facts).toMatchObject({ phase: 'token', kind: 'credential', credential: 'revoked_token', reason: 'invalid_grant' });
    expect(error.facts.googleMessage).toContain('[redacted]');
  });

  it('takes them out of a plain-text answer too (gaxios makes the body the message), and of a JSON-escaped echo', async () => {
    google.token(reply.raw(400, 'text/plain', `bad request ${JSON.stringify({ refresh_token: REFRESH, client_secret: SECRET })}`));
    expect(leaks(await failureOf(serviceFor(google, 'oauth').service), REFRESH, SECRET)).toEqual([]);
  });

  it('takes the access token the request was sent with out of an API error', async () => {
    google.api(reply.json(403, classic(403, 'forbidden', 'The caller ya29.scripted does not have permission')));
    const error = await failureOf(serviceFor(google, 'oauth').service);
    expect(error.message).not.toContain('ya29.scripted');
    expect(error.message).toContain('The caller [redacted] does not have permission');
  });

  it("takes a service account's JWT assertion out of the token endpoint's text", async () => {
    let assertion = '';
    google.token((_req, res) => {
      // The script runs once the body is in: the assertion the service account just signed, echoed back.
      assertion = new URLSearchParams(google.tokenRequests().at(-1)!.body).get('assertion') ?? '';
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_grant', error_description: `Invalid JWT Signature. (${assertion})` }));
    });
    const error = await failureOf(serviceFor(google).service);
    expect(assertion.length).toBeGreaterThan(100);
    expect(error.message).not.toContain(assertion.slice(0, 60));
    expect(error.facts.credential).toBe('key_rejected');
  });
});
