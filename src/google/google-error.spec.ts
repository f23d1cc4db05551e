import { describe, expect, it } from '@jest/globals';
import {
  type CredentialContext,
  describeFailure,
  type GoogleOperation,
  outcomeOf,
  type SentenceContext,
  untilPacificMidnight,
} from './google-error.js';
import { type Failure, MalformedAnswerError, readFailure } from './google-failure.js';
import { answerProblem, GOOGLE_METHODS, type GoogleMethod } from './google-methods.js';

const TOKEN_URL = 'https://oauth2.googleapis.com/token';
const API_URL = 'https://searchconsole.googleapis.com/webmasters/v3/sites';
const isTokenUrl = (url: string) => url === TOKEN_URL;

/** A GaxiosError as gaxios builds it: config.url, response.{status,data,headers}, code. */
function gaxios(
  url: string,
  status: number | undefined,
  data?: unknown,
  headers: Record<string, string> = {},
  code?: string,
  message = 'Request failed',
) {
  return Object.assign(new Error(message), {
    config: { url },
    ...(status === undefined ? {} : { status, response: { status, data, headers: new Headers(headers) } }),
    ...(code ? { code } : {}),
  });
}

const rpc = (code: number, message: string, status: string, details?: unknown[]) => ({
  error: { code, message, status, ...(details ? { details } : {}) },
});
const classic = (code: number, reason: string, message: string, domain = 'global') => ({
  error: { code, message, errors: [{ message, domain, reason }] },
});
const errorInfo = (reason: string, metadata: Record<string, string>) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason,
  domain: 'googleapis.com',
  metadata,
});

describe('readFailure: classification from structured facts', () => {
  it.each<[string, unknown, Partial<Failure>]>([
    [
      'a 429 with no reason (URL Inspection)',
      gaxios(API_URL, 429, rpc(429, 'Quota exceeded for sc-domain:example.fr.', 'RESOURCE_EXHAUSTED')),
      { kind: 'quota', quota: {}, reason: 'RESOURCE_EXHAUSTED' },
    ],
    [
      'a 429 whose message says "per day" but nothing structured does',
      gaxios(API_URL, 429, rpc(429, "Quota exceeded for quota metric 'x' and limit 'Queries per day'.", 'RESOURCE_EXHAUSTED')),
      { kind: 'quota', quota: {} },
    ],
    [
      'a 429 whose ErrorInfo names a per-day limit',
      gaxios(
        API_URL,
        429,
        rpc(429, 'Quota exceeded.', 'RESOURCE_EXHAUSTED', [
          errorInfo('RATE_LIMIT_EXCEEDED', { quota_limit: 'DefaultPublishRequestsPerDayPerProject', quota_limit_value: '200' }),
        ]),
      ),
      { kind: 'quota', quota: { window: 'day', limit: 'DefaultPublishRequestsPerDayPerProject', limitValue: 200 } },
    ],
    [
      'a 429 whose ErrorInfo names a per-minute limit',
      gaxios(
        API_URL,
        429,
        rpc(429, 'Quota exceeded.', 'RESOURCE_EXHAUSTED', [
          errorInfo('RATE_LIMIT_EXCEEDED', { quota_limit: 'ReadRequestsPerMinutePerProject' }),
        ]),
      ),
      { kind: 'quota', quota: { window: 'minute', limit: 'ReadRequestsPerMinutePerProject' } },
    ],
    [
      'Search Analytics long-term load quota (documented answer)',
      gaxios(
        API_URL,
        429,
        classic(
          429,
          'rateLimitExceeded',
          'Search Analytics load quota exceeded (long-term). Learn more at https://developers.google.com/webmaster-tools/limits',
        ),
      ),
      { kind: 'quota', quota: { window: 'day' } },
    ],
    [
      'Search Analytics short-term load quota',
      gaxios(API_URL, 429, classic(429, 'rateLimitExceeded', 'Search Analytics load quota exceeded (short-term).')),
      { kind: 'quota', quota: { window: 'minute' } },
    ],
    [
      '403 usageLimits dailyLimitExceeded',
      gaxios(API_URL, 403, classic(403, 'dailyLimitExceeded', 'Daily Limit Exceeded', 'usageLimits')),
      { kind: 'quota', quota: { window: 'day' }, reason: 'dailyLimitExceeded' },
    ],
    [
      '403 usageLimits rateLimitExceeded',
      gaxios(API_URL, 403, classic(403, 'rateLimitExceeded', 'Rate Limit Exceeded', 'usageLimits')),
      { kind: 'quota', quota: { window: 'minute' } },
    ],
    [
      '403 usageLimits userRateLimitExceeded',
      gaxios(API_URL, 403, classic(403, 'userRateLimitExceeded', 'User Rate Limit Exceeded', 'usageLimits')),
      { kind: 'quota', quota: { window: 'minute', perUser: true } },
    ],
    // One Platform surfaces (URL Inspection, Indexing) carry no errors[]: the reason's own fixed text is all there is.
    [
      '403 "Daily Limit Exceeded" without errors[] (One Platform)',
      gaxios(API_URL, 403, rpc(403, 'Daily Limit Exceeded. The quota will be reset at midnight Pacific Time (PT).', 'PERMISSION_DENIED')),
      { kind: 'quota', quota: { window: 'day' } },
    ],
    [
      '403 "User Rate Limit Exceeded" without errors[]',
      gaxios(API_URL, 403, rpc(403, 'User Rate Limit Exceeded', 'PERMISSION_DENIED')),
      { kind: 'quota', quota: { window: 'minute', perUser: true } },
    ],
    [
      '403 "Quota exceeded" without errors[]',
      gaxios(API_URL, 403, rpc(403, 'Quota exceeded', 'PERMISSION_DENIED')),
      { kind: 'quota', quota: {} },
    ],
    [
      '403 whose ErrorInfo names a per-user limit',
      gaxios(
        API_URL,
        403,
        rpc(403, 'Quota exceeded.', 'PERMISSION_DENIED', [errorInfo('RATE_LIMIT_EXCEEDED', { quota_limit: 'defaultPerMinutePerUser' })]),
      ),
      { kind: 'quota', quota: { window: 'minute', limit: 'defaultPerMinutePerUser', perUser: true } },
    ],
    [
      'a 403 whose prose merely mentions a quota is still a permission refusal',
      gaxios(API_URL, 403, rpc(403, 'The caller has no access; quota exceeded elsewhere is not the cause.', 'PERMISSION_DENIED')),
      { kind: 'permission' },
    ],
    [
      '403 usageLimits quotaExceeded',
      gaxios(API_URL, 403, classic(403, 'quotaExceeded', 'Quota exceeded', 'usageLimits')),
      { kind: 'quota', quota: {} },
    ],
    [
      '403 SERVICE_DISABLED with ErrorInfo metadata',
      gaxios(
        API_URL,
        403,
        rpc(403, 'Google Search Console API has not been used in project 42 before or it is disabled.', 'PERMISSION_DENIED', [
          errorInfo('SERVICE_DISABLED', {
            service: 'searchconsole.googleapis.com',
            consumer: 'projects/42',
            serviceTitle: 'Google Search Console API',
            activationUrl: 'https://console.developers.google.com/apis/api/searchconsole.googleapis.com/overview?project=42',
          }),
        ]),
      ),
      {
        kind: 'service_disabled',
        disabled: {
          title: 'Google Search Console API',
          service: 'searchconsole.googleapis.com',
          project: '42',
          activationUrl: 'https://console.developers.google.com/apis/api/searchconsole.googleapis.com/overview?project=42',
        },
      },
    ],
    [
      '403 accessNotConfigured (older APIs; its domain is usageLimits, but it is no quota)',
      gaxios(
        API_URL,
        403,
        classic(
          403,
          'accessNotConfigured',
          'Access Not Configured. Google Site Verification API has not been used in project my-proj before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/siteverification.googleapis.com/overview?project=my-proj then retry.',
          'usageLimits',
        ),
      ),
      {
        kind: 'service_disabled',
        disabled: {
          title: 'Google Site Verification API',
          service: 'siteverification.googleapis.com',
          project: 'my-proj',
          activationUrl: 'https://console.developers.google.com/apis/api/siteverification.googleapis.com/overview?project=my-proj',
        },
      },
    ],
    [
      '403 forbidden on a site',
      gaxios(API_URL, 403, classic(403, 'forbidden', "User does not have sufficient permission for site 'x'.")),
      { kind: 'permission', reason: 'forbidden' },
    ],
    [
      '403 URL Inspection without errors[]',
      gaxios(API_URL, 403, rpc(403, 'You do not own this site, or the inspected URL is not part of this property.', 'PERMISSION_DENIED')),
      { kind: 'permission', reason: 'PERMISSION_DENIED' },
    ],
    [
      '403 ACCESS_TOKEN_SCOPE_INSUFFICIENT',
      gaxios(
        API_URL,
        403,
        rpc(403, 'Request had insufficient authentication scopes.', 'PERMISSION_DENIED', [
          errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT', {}),
        ]),
      ),
      { kind: 'scope', reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT' },
    ],
    [
      '401 at the API',
      gaxios(API_URL, 401, rpc(401, 'Request had invalid authentication credentials.', 'UNAUTHENTICATED')),
      { kind: 'credential', credential: 'token_rejected', phase: 'api' },
    ],
    ['404', gaxios(API_URL, 404, rpc(404, 'Requested entity was not found.', 'NOT_FOUND')), { kind: 'not_found' }],
    ['400', gaxios(API_URL, 400, classic(400, 'invalidParameter', 'Invalid value')), { kind: 'invalid', reason: 'invalidParameter' }],
    ['409', gaxios(API_URL, 409, rpc(409, 'The resource already exists.', 'ALREADY_EXISTS')), { kind: 'invalid' }],
    [
      '502 with an HTML body',
      gaxios(API_URL, 502, '<html>Bad Gateway</html>'),
      { kind: 'unavailable', message: '<html>Bad Gateway</html>' },
    ],
    ['408', gaxios(API_URL, 408, ''), { kind: 'unavailable' }],
    ['Retry-After in seconds', gaxios(API_URL, 429, rpc(429, 'q', 'RESOURCE_EXHAUSTED'), { 'retry-after': '7' }), { retryAfterSeconds: 7 }],
    [
      'Retry-After as an HTTP date',
      gaxios(API_URL, 503, '', { 'retry-after': 'Tue, 01 Dec 2026 08:00:30 GMT' }),
      { kind: 'unavailable', retryAfterSeconds: 30 },
    ],
    [
      'a timeout',
      gaxios(API_URL, undefined, undefined, {}, 'TimeoutError', 'The operation was aborted due to timeout'),
      { kind: 'timeout', code: 'TimeoutError', phase: 'api' },
    ],
    ['a refused connection', gaxios(API_URL, undefined, undefined, {}, 'ECONNREFUSED'), { kind: 'network', code: 'ECONNREFUSED' }],
    [
      'token: invalid_grant Invalid JWT Signature',
      gaxios(TOKEN_URL, 400, { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' }),
      {
        phase: 'token',
        kind: 'credential',
        credential: 'key_rejected',
        reason: 'invalid_grant',
        message: 'invalid_grant: Invalid JWT Signature.',
      },
    ],
    [
      'token: invalid_grant clock skew',
      gaxios(TOKEN_URL, 400, {
        error: 'invalid_grant',
        error_description:
          'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      }),
      { credential: 'clock_skew' },
    ],
    [
      'token: invalid_grant revoked refresh token',
      gaxios(TOKEN_URL, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }),
      { credential: 'revoked_token' },
    ],
    [
      'token: invalid_grant account not found',
      gaxios(TOKEN_URL, 400, { error: 'invalid_grant', error_description: 'Invalid grant: account not found' }),
      { credential: 'account_missing' },
    ],
    [
      'token: invalid_grant unknown delegation subject',
      gaxios(TOKEN_URL, 400, { error: 'invalid_grant', error_description: 'Invalid email or User ID' }),
      { credential: 'subject_unknown' },
    ],
    [
      'token: unauthorized_client',
      gaxios(TOKEN_URL, 401, {
        error: 'unauthorized_client',
        error_description: 'Client is unauthorized to retrieve access tokens using this method.',
      }),
      { credential: 'unauthorized_client', status: 401 },
    ],
    [
      'token: invalid_client',
      gaxios(TOKEN_URL, 401, { error: 'invalid_client', error_description: 'Unauthorized' }),
      { credential: 'client_rejected' },
    ],
    [
      'token: deleted_client',
      gaxios(TOKEN_URL, 401, { error: 'deleted_client', error_description: 'The OAuth client was deleted.' }),
      { credential: 'client_rejected' },
    ],
    ['token: 500', gaxios(TOKEN_URL, 500, { error: 'internal_failure' }), { phase: 'token', kind: 'unavailable' }],
    ['token: timeout', gaxios(TOKEN_URL, undefined, undefined, {}, 'TimeoutError'), { phase: 'token', kind: 'timeout' }],
    [
      'a 200 that is not an answer',
      new MalformedAnswerError('a JSON array', 'api'),
      { kind: 'malformed', answer: 'a JSON array', status: 200 },
    ],
  ])('%s', (_name, error, expected) => {
    expect(readFailure(error, { api: 'searchconsole', isTokenUrl, now: new Date('2026-12-01T08:00:00Z') })).toMatchObject(expected);
  });
});

const SA: CredentialContext = {
  kind: 'service_account',
  principal: 'bot@p.iam.gserviceaccount.com',
  origin: 'GSC_SERVICE_ACCOUNT_KEY_FILE',
  keyId: 'abc123',
  scopes: ['https://www.googleapis.com/auth/webmasters.readonly'],
};
const DELEGATED: CredentialContext = {
  ...SA,
  subject: 'owner@example.com',
  scopes: ['https://www.googleapis.com/auth/webmasters', 'https://www.googleapis.com/auth/indexing'],
};
const OAUTH: CredentialContext = {
  kind: 'oauth',
  principal: 'OAuth client 1-x.apps.googleusercontent.com',
  origin: 'GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN',
  scopes: ['https://www.googleapis.com/auth/webmasters'],
};
const ctx = (credential: CredentialContext = SA, attempts = 1): SentenceContext => ({
  credential,
  attempts,
  timeoutMs: 30_000,
  now: new Date('2026-12-01T07:30:00Z'),
});
const read: GoogleOperation = { method: 'sites.get', action: 'read the property https://e.com/', property: 'https://e.com/' };
const write: GoogleOperation = {
  method: 'sitemaps.submit',
  action: 'submit the sitemap https://e.com/s.xml to https://e.com/',
  property: 'https://e.com/',
};
const api = (f: Partial<Failure> & Pick<Failure, 'kind'>): Failure => ({ phase: 'api', message: 'Google said so.', ...f });
const token = (f: Partial<Failure> & Pick<Failure, 'kind'>): Failure => ({ phase: 'token', message: 'invalid_grant: x', ...f });

describe('describeFailure: one sentence per kind — what failed, why, what next, whether anything changed', () => {
  it.each<[string, Failure, GoogleOperation, SentenceContext, RegExp[]]>([
    [
      'credential (API 401)',
      api({ kind: 'credential', status: 401, credential: 'token_rejected' }),
      read,
      ctx(),
      [
        /^Google rejected the access token of bot@p\.iam\.gserviceaccount\.com while trying to read the property/,
        /create a new credential and restart/,
      ],
    ],
    ['scope', api({ kind: 'scope', status: 403 }), write, ctx(), [/lacks the OAuth scope this call needs/, /GSC_READ_ONLY/]],
    [
      'permission',
      api({ kind: 'permission', status: 403 }),
      read,
      ctx(),
      [/lacks the permission needed on https:\/\/e\.com\//, /Users and permissions/],
    ],
    [
      'service_disabled',
      api({
        kind: 'service_disabled',
        status: 403,
        disabled: {
          title: 'Google Search Console API',
          service: 'searchconsole.googleapis.com',
          project: '42',
          activationUrl: 'https://console.developers.google.com/apis/api/searchconsole.googleapis.com/overview?project=42',
        },
      }),
      read,
      ctx(),
      [
        /the Google Search Console API \(searchconsole\.googleapis\.com\) is not enabled in the Google Cloud project 42/,
        /Enable it at https:\/\/console\.developers\.google\.com\/apis\/api\/searchconsole\.googleapis\.com\/overview\?project=42/,
      ],
    ],
    [
      'quota, daily',
      api({ kind: 'quota', status: 429, quota: { window: 'day' } }),
      { method: 'urlInspection.index.inspect', action: 'inspect x' },
      ctx(),
      [
        /^Google's daily quota is exhausted, so it refused to inspect x/,
        /URL Inspection allows 600 inspections per minute and 2 000 per day per property; the count resets at midnight Pacific Time, in about 30 minutes\. Retry then/,
      ],
    ],
    [
      'quota, per minute, with Retry-After',
      api({ kind: 'quota', status: 429, quota: { window: 'minute' }, retryAfterSeconds: 45 }),
      { method: 'searchanalytics.query', action: 'query x' },
      ctx(),
      [/^Google's per-minute quota is exhausted/, /1 200 queries per minute per property/, /Retry in 45 seconds\.$/],
    ],
    [
      'quota, window unsaid',
      api({ kind: 'quota', status: 429, quota: {} }),
      { method: 'urlNotifications.publish', action: 'notify x' },
      ctx(),
      [
        /^Google's quota is exhausted/,
        /does not say which limit was hit\. The Indexing API allows 200 publish requests/,
        /If it was a per-minute limit, retry in 60 seconds; if it was a daily one, it resets at midnight Pacific Time, in about 30 minutes\.$/,
      ],
    ],
    [
      'not_found',
      api({ kind: 'not_found', status: 404 }),
      read,
      ctx(),
      [/^Google found nothing to read the property/, /matching list tool/],
    ],
    [
      'invalid',
      api({ kind: 'invalid', status: 400 }),
      read,
      ctx(),
      [/^Google refused to read the property https:\/\/e\.com\/ \(HTTP 400\)/, /Correct the arguments and retry\./],
    ],
    [
      'unavailable, read',
      api({ kind: 'unavailable', status: 503 }),
      read,
      ctx(SA, 4),
      [/HTTP 503 .* after 4 attempts\. Nothing was changed\. This is usually temporary/],
    ],
    [
      'unavailable, write',
      api({ kind: 'unavailable', status: 500 }),
      write,
      ctx(SA, 4),
      [/It is not known whether Google applied the change/],
    ],
    [
      'timeout, read',
      api({ kind: 'timeout', code: 'TimeoutError' }),
      read,
      ctx(SA, 2),
      [
        /^Google did not answer within 30 s \(GSC_GOOGLE_TIMEOUT_MS\) while trying to read the property https:\/\/e\.com\/, after 2 attempts\. Nothing was changed\./,
        /raise GSC_GOOGLE_TIMEOUT_MS/,
      ],
    ],
    [
      'timeout, write',
      api({ kind: 'timeout', code: 'TimeoutError' }),
      write,
      ctx(),
      [/after 1 attempt\. It is not known whether Google applied the change; check the current state before repeating it\./],
    ],
    [
      'network, never sent',
      api({ kind: 'network', code: 'ECONNREFUSED' }),
      write,
      ctx(SA, 4),
      [/^Could not reach Google to submit the sitemap .* \(ECONNREFUSED\) after 4 attempts\. Nothing was changed\./],
    ],
    [
      'network, broken mid-way',
      api({ kind: 'network', code: 'ECONNRESET' }),
      write,
      ctx(),
      [/^The connection to Google broke while trying to submit the sitemap/, /It is not known whether/],
    ],
    [
      'malformed',
      api({ kind: 'malformed', status: 200, answer: 'a JSON array' }),
      read,
      ctx(SA, 2),
      [
        /^Google answered with something that is not a sites\.get response \(a JSON array\) while trying to read the property/,
        /Nothing was changed\./,
      ],
    ],
    [
      'token: key rejected',
      token({ kind: 'credential', credential: 'key_rejected' }),
      read,
      ctx(),
      [
        /^Google's OAuth token endpoint refused the service account bot@p\.iam\.gserviceaccount\.com from GSC_SERVICE_ACCOUNT_KEY_FILE/,
        /The key abc123 was deleted or disabled/,
        /Nothing was sent to Google/,
        /put it in GSC_SERVICE_ACCOUNT_KEY_FILE/,
      ],
    ],
    [
      'token: clock skew',
      token({ kind: 'credential', credential: 'clock_skew' }),
      read,
      ctx(),
      [/this machine's clock reads 2026-12-01T07:30:00\.000Z/, /the key itself is fine/],
    ],
    [
      'token: account missing',
      token({ kind: 'credential', credential: 'account_missing' }),
      read,
      ctx(),
      [/service account was deleted or disabled/],
    ],
    [
      'token: subject unknown',
      token({ kind: 'credential', credential: 'subject_unknown' }),
      read,
      ctx(DELEGATED),
      [/Google knows no user owner@example\.com \(GSC_IMPERSONATE\)/],
    ],
    [
      'token: revoked refresh token',
      token({ kind: 'credential', credential: 'revoked_token' }),
      read,
      ctx(OAUTH),
      [
        /refused the OAuth credential \(OAuth client 1-x\.apps\.googleusercontent\.com\)/,
        /with the scopes https:\/\/www\.googleapis\.com\/auth\/webmasters, set it in GSC_REFRESH_TOKEN/,
      ],
    ],
    [
      'token: delegation without these scopes',
      token({ kind: 'credential', credential: 'unauthorized_client' }),
      read,
      ctx(DELEGATED),
      [
        /acting as owner@example\.com \(GSC_IMPERSONATE\)/,
        /with exactly these OAuth scopes: https:\/\/www\.googleapis\.com\/auth\/webmasters, https:\/\/www\.googleapis\.com\/auth\/indexing\./,
      ],
    ],
    [
      'token: unauthorized_client for an OAuth client',
      token({ kind: 'credential', credential: 'unauthorized_client' }),
      read,
      ctx(OAUTH),
      [/issued to a different OAuth client than GSC_CLIENT_ID/],
    ],
    [
      'token: client rejected',
      token({ kind: 'credential', credential: 'client_rejected' }),
      read,
      ctx(OAUTH),
      [/GSC_CLIENT_SECRET does not match GSC_CLIENT_ID, or the OAuth client was deleted/],
    ],
    [
      'token: other refusal',
      token({ kind: 'credential', credential: 'other' }),
      read,
      ctx(),
      [/The credential is not usable as configured\. .*Check GSC_SERVICE_ACCOUNT_KEY_FILE/],
    ],
    [
      'token: endpoint down',
      token({ kind: 'unavailable', status: 503, message: 'x' }),
      write,
      ctx(SA, 4),
      [/^Google's OAuth token endpoint failed with HTTP 503/, /\(4 attempts\)\. Nothing was sent to Google, so nothing was changed\./],
    ],
    [
      'token: endpoint hangs',
      token({ kind: 'timeout', code: 'TimeoutError' }),
      read,
      ctx(SA, 2),
      [/did not answer within 30 s \(GSC_GOOGLE_TIMEOUT_MS\), so no access token could be had to read the property/],
    ],
    [
      'token: garbage',
      token({ kind: 'malformed', answer: 'an HTML page' }),
      read,
      ctx(),
      [/answered with an HTML page instead of a token/],
    ],
  ])('%s', (_name, failure, op, context, patterns) => {
    const sentence = describeFailure(failure, op, context);
    for (const pattern of patterns) {
      expect(sentence).toMatch(pattern);
    }
    expect(sentence).toMatch(/[Nn]othing was changed|It is not known whether Google applied the change/);
    if (failure.kind !== 'invalid') {
      expect(sentence).not.toMatch(/Correct the arguments/);
    }
  });

  it("quotes Google's words inertly: no line breaks or control characters, capped", () => {
    const sentence = describeFailure(
      api({ kind: 'invalid', status: 400, message: `line one\nline two\u202e${'x'.repeat(400)}` }),
      read,
      ctx(),
    );
    expect(sentence).not.toMatch(/[\n\u202e]/);
    expect(sentence).toContain('line one line two\\u202e');
    expect(sentence).toMatch(/more characters\)"/);
  });
});

describe('outcomeOf: whether a write may have happened', () => {
  it.each<[string, Failure, GoogleOperation, 'unchanged' | 'unknown']>([
    ['a read never changes anything', api({ kind: 'timeout' }), read, 'unchanged'],
    ['a write Google refused', api({ kind: 'permission', status: 403 }), write, 'unchanged'],
    ['a write that timed out', api({ kind: 'timeout' }), write, 'unknown'],
    ['a write answered with garbage', api({ kind: 'malformed' }), write, 'unknown'],
    ['a write Google failed (5xx)', api({ kind: 'unavailable', status: 500 }), write, 'unknown'],
    ['a write whose connection was refused', api({ kind: 'network', code: 'ECONNREFUSED' }), write, 'unchanged'],
    ['a write whose connection broke', api({ kind: 'network', code: 'ECONNRESET' }), write, 'unknown'],
    ['a write whose token could not be had', token({ kind: 'timeout' }), write, 'unchanged'],
  ])('%s', (_name, failure, op, outcome) => {
    expect(outcomeOf(failure, op.method)).toBe(outcome);
  });
});

describe('answerProblem: a 200 that is not the answer', () => {
  it.each<[GoogleMethod, unknown, string | undefined]>([
    ['sites.list', {}, undefined],
    ['sites.list', { siteEntry: [] }, undefined],
    ['sites.list', '{"siteEntry": [', 'truncated or malformed JSON ("{"siteEntry": [")'],
    ['sites.list', [], 'a JSON array'],
    ['sites.list', '', 'an empty body'],
    ['sites.list', undefined, 'an empty body'],
    ['sites.list', null, 'JSON null'],
    ['sites.list', 42, 'a JSON number ("42")'],
    ['sites.list', '<!DOCTYPE html><html>', 'an HTML page ("<!DOCTYPE html><html>")'],
    ['sites.list', 'Service Unavailable', 'plain text ("Service Unavailable")'],
    ['sites.list', { siteEntry: {} }, 'a JSON object whose siteEntry is not a list'],
    ['sites.get', { siteUrl: 'https://e.com/', permissionLevel: 'siteOwner' }, undefined],
    ['sites.get', { permissionLevel: 'siteOwner' }, 'a JSON object without siteUrl'],
    ['sites.get', { siteUrl: '' }, 'a JSON object without siteUrl'],
    ['urlInspection.index.inspect', {}, 'a JSON object without inspectionResult'],
    ['webResource.get', { id: 'dns%3A%2F%2Fe.com' }, undefined],
    ['sites.add', '', undefined],
    ['sitemaps.submit', '<html>whatever</html>', undefined],
    ['urlNotifications.publish', {}, undefined],
  ])('%s answering %j → %s', (method, data, problem) => {
    expect(answerProblem(method, data)).toBe(problem);
  });

  it('every method with a body to read names its fields, and every client path is distinct', () => {
    const clients = Object.values(GOOGLE_METHODS).map((m) => m.client);
    expect(new Set(clients).size).toBe(clients.length);
    for (const [name, spec] of Object.entries(GOOGLE_METHODS)) {
      if (!spec.write) {
        expect([name, spec.answer]).toEqual([name, expect.any(Object)]);
      }
    }
  });
});

describe('untilPacificMidnight', () => {
  it.each([
    ['2026-12-01T07:30:00Z', '30 minutes'], // 23:30 PST
    ['2026-12-01T08:00:00Z', '24 hours'], // 00:00 PST
    ['2026-12-01T20:00:00Z', '12 hours'], // 12:00 PST
    ['2026-07-01T05:00:00Z', '2 hours'], // 22:00 PDT
    ['2026-07-01T06:59:00Z', '1 minute'], // 23:59 PDT
  ])('%s → %s', (iso, text) => {
    expect(untilPacificMidnight(new Date(iso))).toBe(text);
  });
});

describe("describeFailure for a person's connected Google account (PRODUCT.md §8d)", () => {
  const connected: SentenceContext = {
    credential: {
      kind: 'connected',
      principal: 'the Google account alice@example.com',
      origin: 'the grant alice@corp.example connected',
      scopes: ['https://www.googleapis.com/auth/webmasters.readonly'],
    },
    attempts: 1,
    timeoutMs: 30_000,
    now: new Date('2026-12-03T10:00:00Z'),
  };
  const op: GoogleOperation = { method: 'sitemaps.submit', action: 'submit the sitemap', property: 'https://www.example.com/' };
  const sentence = (error: unknown) => describeFailure(readFailure(error, { isTokenUrl, api: 'searchconsole' }), op, connected);

  it('a 403 names the Google account and asks a property owner, not the server operator', () => {
    const text = sentence(
      gaxios(API_URL, 403, classic(403, 'forbidden', "User does not have sufficient permission for site 'https://www.example.com/'.")),
    );
    expect(text).toContain(
      'The Google account alice@example.com lacks the permission needed on https://www.example.com/: an owner of the property can add it',
    );
    expect(text).not.toMatch(/credential|restart/);
  });

  it('a missing scope says the person left it unticked and should connect again', () => {
    const text = sentence(
      gaxios(
        API_URL,
        403,
        rpc(403, 'Request had insufficient authentication scopes.', 'PERMISSION_DENIED', [
          errorInfo('ACCESS_TOKEN_SCOPE_INSUFFICIENT', {}),
        ]),
      ),
    );
    expect(text).toContain(
      "was connected without that permission (a box left unticked on Google's consent page); connect it again and allow it.",
    );
  });

  it('a 5xx at the token endpoint keeps the account connected', () => {
    const text = sentence(gaxios(TOKEN_URL, 503, { error: 'backend_error' }));
    expect(text).toMatch(/^Google's OAuth token endpoint failed with HTTP 503/);
    expect(text).toContain('The Google account alice@example.com stays connected.');
  });

  it("a rejected OAuth client is the operator's to fix, and the accounts stay stored", () => {
    const text = sentence(gaxios(TOKEN_URL, 401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' }));
    expect(text).toContain('GSC_GOOGLE_OAUTH_CLIENT_SECRET does not match GSC_GOOGLE_OAUTH_CLIENT_ID');
    expect(text).toContain('the connected accounts stay stored');
    expect(text).not.toContain('GSC_REFRESH_TOKEN');
  });

  // Issue 29: answers in connected mode name the Google account, never "this credential" or "the service account".
  const DISABLED = gaxios(
    API_URL,
    403,
    rpc(403, 'Search Console API has not been used in project 123456789012 before or it is disabled.', 'PERMISSION_DENIED', [
      errorInfo('SERVICE_DISABLED', { service: 'searchconsole.googleapis.com', consumer: 'projects/123456789012' }),
    ]),
  );
  it.each([
    ['a 401', gaxios(API_URL, 401, classic(401, 'authError', 'Invalid Credentials'))],
    ['a 403', gaxios(API_URL, 403, classic(403, 'forbidden', 'User does not have sufficient permission.'))],
    ['a disabled API', DISABLED],
    ['a per-user rate limit', gaxios(API_URL, 403, classic(403, 'userRateLimitExceeded', 'User Rate Limit Exceeded', 'usageLimits'))],
    ['a daily quota', gaxios(API_URL, 403, classic(403, 'dailyLimitExceeded', 'Daily Limit Exceeded', 'usageLimits'))],
    ['a 400', gaxios(API_URL, 400, classic(400, 'invalid', 'Invalid value'))],
    ['a 500', gaxios(API_URL, 500, classic(500, 'backendError', 'Backend Error'))],
    [
      'invalid_grant at the token endpoint',
      gaxios(TOKEN_URL, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' }),
    ],
    [
      'unauthorized_client at the token endpoint',
      gaxios(TOKEN_URL, 400, { error: 'unauthorized_client', error_description: 'Unauthorized' }),
    ],
  ])('%s: the sentence never says "credential" or "service account"', (_what, error) => {
    // Google's own words are quoted as data ("Invalid Credentials"); ours are checked.
    const ours = sentence(error).replace(/"[^"]*"/g, '""');
    expect(ours).not.toMatch(/credential|service account/i);
  });

  it("a disabled API is enabled in the project of the OAuth client the accounts act through, and a per-user limit is the account's", () => {
    const disabled = sentence(DISABLED);
    expect(disabled).toContain(
      "is not enabled in the Google Cloud project 123456789012 of this server's OAuth client (GSC_GOOGLE_OAUTH_CLIENT_ID), through which the Google account alice@example.com acts",
    );
    const perUser = sentence(gaxios(API_URL, 403, classic(403, 'userRateLimitExceeded', 'User Rate Limit Exceeded', 'usageLimits')));
    expect(perUser).toContain("Google's per-user rate limit is exhausted: the Google account alice@example.com sent too many requests");
  });

  it('the shared-credential sentences are unchanged (no "stays connected" there)', () => {
    const shared = {
      ...connected,
      credential: { kind: 'oauth', principal: 'OAuth client x', origin: 'GSC_CLIENT_ID', scopes: [] } as CredentialContext,
    };
    const text = describeFailure(readFailure(gaxios(TOKEN_URL, 503, { error: 'backend_error' }), { isTokenUrl }), op, shared);
    expect(text).not.toContain('stays connected');
  });
});
