// Reads whatever a Google call threw (a GaxiosError from an API or token
// request, a transport failure, a body that is not an answer) into plain facts
// that a sentence and a retry decision can be built from. Classification uses
// Google's structured fields (HTTP status, errors[].reason, error.details[]
// ErrorInfo, the token endpoint's `error`), never the wording of a quota
// message: Google's 429 reads the same for every limit (PRODUCT §9a).

import { API_NAMES, type GoogleApi } from './google-methods.js';
import { redactSecrets, requestSecrets } from './upstream-secrets.js';

export type GoogleErrorKind =
  /** The token endpoint refused the credential, or an API rejected the access token (401). */
  | 'credential'
  /** The access token lacks the OAuth scope the method needs. */
  | 'scope'
  /** Any other 403: the credential has no (or too little) access to the resource. */
  | 'permission'
  /** The API is not enabled in the credential's Google Cloud project. */
  | 'service_disabled'
  /** A 429, or a 403 with a usageLimits rate/quota reason. */
  | 'quota'
  | 'not_found'
  /** Any other 4xx: Google refused the request as sent. */
  | 'invalid'
  /** 5xx or 408: Google failed. */
  | 'unavailable'
  /** No answer within GSC_GOOGLE_TIMEOUT_MS. */
  | 'timeout'
  /** No connection, or the connection broke. */
  | 'network'
  /** A 200 whose body is not the answer the method returns. */
  | 'malformed';

export type QuotaWindow = 'minute' | 'day';

export interface QuotaFacts {
  /** Only when Google's structured answer says so; undefined means Google did not say which limit. */
  readonly window?: QuotaWindow;
  /** ErrorInfo metadata quota_limit, e.g. DefaultPublishRequestsPerDayPerProject. */
  readonly limit?: string;
  readonly limitValue?: number;
  readonly metric?: string;
  /** The limit is the credential's own rate (userRateLimitExceeded, a limit "per user"), not the project's or property's. */
  readonly perUser?: boolean;
}

export interface DisabledApi {
  readonly title: string;
  readonly service: string;
  readonly project?: string;
  readonly activationUrl: string;
}

/** What the token endpoint said was wrong with the credential. */
export type CredentialProblem =
  /** invalid_grant "Token has been expired or revoked." (refresh token). */
  | 'revoked_token'
  /** invalid_grant "Invalid JWT Signature.": the key was deleted or disabled. */
  | 'key_rejected'
  /** invalid_grant about iat/exp: this machine's clock is off. */
  | 'clock_skew'
  /** invalid_grant "account not found": the service account is gone or disabled. */
  | 'account_missing'
  /** invalid_grant "Invalid email or User ID": the delegation subject does not exist. */
  | 'subject_unknown'
  /** unauthorized_client: domain-wide delegation not authorised for these scopes (or a refresh token of another client). */
  | 'unauthorized_client'
  /** invalid_client / deleted_client: the OAuth client id or secret is wrong, or the client was deleted. */
  | 'client_rejected'
  /** An API answered 401 to the access token. */
  | 'token_rejected'
  | 'other';

export interface Failure {
  readonly kind: GoogleErrorKind;
  /** Whether the failure happened while getting an access token (then nothing was sent to the API). */
  readonly phase: 'token' | 'api';
  readonly status?: number;
  /** Transport code: TimeoutError, ECONNREFUSED, ECONNRESET, ENOTFOUND, … */
  readonly code?: string;
  /** Google's own message (Google-supplied text: data, not instructions). */
  readonly message: string;
  /** The most specific reason Google gave: ErrorInfo reason, errors[].reason, the token `error`, or the RPC status. */
  readonly reason?: string;
  readonly retryAfterSeconds?: number;
  readonly quota?: QuotaFacts;
  readonly disabled?: DisabledApi;
  readonly credential?: CredentialProblem;
  /** For malformed: what came instead of the answer. */
  readonly answer?: string;
}

/** A 200 whose body is not the method's answer; thrown by GoogleService and by the token-response check. */
export class MalformedAnswerError extends Error {
  constructor(
    /** e.g. "an HTML page ("<html>…")". */
    readonly problem: string,
    readonly phase: 'token' | 'api',
  ) {
    super(`Google answered with ${problem}`);
  }
}

export interface ReadContext {
  /**
   * Secrets this server holds (OAuth client secrets, a refresh token, the
   * acting grant's tokens) that must never be read back out of Google's text;
   * the secrets the failed request itself carried are added by readFailure.
   */
  readonly secrets?: readonly string[];
  /** The API the request went to, for naming it in a disabled-API sentence. */
  readonly api?: GoogleApi;
  /** Whether a request URL is the OAuth token endpoint. */
  readonly isTokenUrl?: (url: string) => boolean;
  /** For Retry-After given as an HTTP date. */
  readonly now?: Date;
}

const QUOTA_REASONS = new Set([
  'quotaExceeded',
  'dailyLimitExceeded',
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'RATE_LIMIT_EXCEEDED',
  'RESOURCE_EXHAUSTED',
]);
/**
 * The fixed texts Google's usageLimits reasons carry. One Platform surfaces
 * (URL Inspection, Indexing) send no errors[] array, so a 403 there may carry
 * only the text and status PERMISSION_DENIED; these texts are the reason's
 * name, not prose, so they decide the kind (never the window, but for the
 * reasons' own words: "Daily", "Rate").
 */
const USAGE_LIMIT_TEXTS: [RegExp, string][] = [
  [/^Daily Limit Exceeded\b/i, 'dailyLimitExceeded'],
  [/^User Rate Limit Exceeded\b/i, 'userRateLimitExceeded'],
  [/^Rate Limit Exceeded\b/i, 'rateLimitExceeded'],
  [/^Quota exceeded\b/i, 'quotaExceeded'],
];
const DISABLED_REASONS = new Set(['SERVICE_DISABLED', 'accessNotConfigured', 'API_DISABLED']);
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ERR_INVALID_URL', 'EHOSTUNREACH', 'ENETUNREACH']);

type HeadersLike = { get?(name: string): string | null } & Record<string, unknown>;

type GaxiosLike = {
  status?: number;
  code?: string | number;
  message?: string;
  config?: { url?: string | URL };
  response?: { status?: number; data?: unknown; headers?: HeadersLike };
};

type ApiErrorBody = {
  code?: number;
  message?: string;
  status?: string;
  errors?: { reason?: string; domain?: string; message?: string }[];
  details?: { '@type'?: string; reason?: string; metadata?: Record<string, string>; links?: { url?: string }[] }[];
};

/**
 * Reads a GaxiosError (or any thrown value) into plain facts. Every text taken
 * from the answer (message, reason, what came instead of an answer) is
 * redacted first: upstream text is copied into sentences a model reads, logs
 * and errors, and a token endpoint or a proxy may echo what it was sent (the
 * refresh token, the client secret, an access token). The error code is kept.
 */
export function readFailure(error: unknown, context: ReadContext = {}): Failure {
  const secrets = [...(context.secrets ?? []), ...requestSecrets(error)];
  const failure = readUnredacted(error, context);
  if (secrets.length === 0) {
    return failure;
  }
  const clean = (text: string | undefined) => (text === undefined ? undefined : redactSecrets(text, secrets));
  return {
    ...failure,
    message: clean(failure.message)!,
    ...(failure.reason !== undefined ? { reason: clean(failure.reason) } : {}),
    ...(failure.answer !== undefined ? { answer: clean(failure.answer) } : {}),
    ...(failure.disabled ? { disabled: redactedDisabled(failure.disabled, secrets) } : {}),
  };
}

function redactedDisabled(disabled: DisabledApi, secrets: readonly string[]): DisabledApi {
  const clean = (text: string) => redactSecrets(text, secrets);
  return {
    title: clean(disabled.title),
    service: clean(disabled.service),
    ...(disabled.project !== undefined ? { project: clean(disabled.project) } : {}),
    activationUrl: clean(disabled.activationUrl),
  };
}

function readUnredacted(error: unknown, context: ReadContext): Failure {
  if (error instanceof MalformedAnswerError) {
    return { kind: 'malformed', phase: error.phase, status: 200, message: error.message, answer: error.problem };
  }
  const e = (error ?? {}) as GaxiosLike;
  const url = e.config?.url?.toString();
  const phase = url && context.isTokenUrl?.(url) ? 'token' : 'api';
  const status = e.response?.status ?? (typeof e.status === 'number' ? e.status : undefined);
  const code = typeof e.code === 'string' ? e.code : undefined;
  const message = e.message ?? String(error);
  if (status === undefined) {
    return { kind: code === 'TimeoutError' ? 'timeout' : 'network', phase, code: code ?? 'no answer', message };
  }
  const retryAfterSeconds = parseRetryAfter(header(e.response?.headers, 'retry-after'), context.now ?? new Date());
  const body = e.response?.data;
  if (phase === 'token') {
    return readTokenFailure(status, body, message, retryAfterSeconds);
  }
  return readApiFailure(status, body, message, retryAfterSeconds, context.api);
}

function readTokenFailure(status: number, body: unknown, fallback: string, retryAfterSeconds: number | undefined): Failure {
  const b = (typeof body === 'object' && body ? body : {}) as { error?: unknown; error_description?: unknown };
  const error = typeof b.error === 'string' ? b.error : undefined;
  const description = typeof b.error_description === 'string' ? b.error_description : undefined;
  const message = error ? `${error}${description ? `: ${description}` : ''}` : fallback;
  const base = { phase: 'token' as const, status, reason: error, message, retryAfterSeconds };
  if (status >= 500 || status === 429 || status === 408) {
    return { ...base, kind: 'unavailable' };
  }
  return { ...base, kind: 'credential', credential: credentialProblem(error, description ?? '') };
}

function credentialProblem(error: string | undefined, description: string): CredentialProblem {
  switch (error) {
    case 'invalid_grant':
      if (/JWT Signature/i.test(description)) {
        return 'key_rejected';
      }
      if (/\b(iat|exp)\b|short-lived|timeframe/i.test(description)) {
        return 'clock_skew';
      }
      if (/email or user id/i.test(description)) {
        return 'subject_unknown';
      }
      if (/account not found|account.*(deleted|disabled)/i.test(description)) {
        return 'account_missing';
      }
      if (/expired|revoked/i.test(description)) {
        return 'revoked_token';
      }
      return 'other';
    case 'unauthorized_client':
      return 'unauthorized_client';
    case 'invalid_client':
    case 'deleted_client':
      return 'client_rejected';
    default:
      return 'other';
  }
}

function readApiFailure(
  status: number,
  body: unknown,
  fallback: string,
  retryAfterSeconds: number | undefined,
  api: GoogleApi | undefined,
): Failure {
  const apiError: ApiErrorBody =
    typeof body === 'object' && body && typeof (body as { error?: unknown }).error === 'object'
      ? ((body as { error: ApiErrorBody }).error ?? {})
      : {};
  const message = typeof apiError.message === 'string' ? apiError.message : typeof body === 'string' && body.trim() ? body : fallback;
  const infos = (Array.isArray(apiError.details) ? apiError.details : []).filter((d) => d && typeof d === 'object');
  const errorInfo = infos.find((d) => String(d['@type'] ?? '').endsWith('google.rpc.ErrorInfo'));
  const itemReasons = (Array.isArray(apiError.errors) ? apiError.errors : [])
    .map((item) => item?.reason)
    .filter((r): r is string => typeof r === 'string');
  const textReason = status === 403 || status === 429 ? USAGE_LIMIT_TEXTS.find(([text]) => text.test(message))?.[1] : undefined;
  const reasons = [errorInfo?.reason, ...itemReasons, apiError.status, textReason].filter((r): r is string => typeof r === 'string');
  const reason = infos.find((d) => typeof d.reason === 'string')?.reason ?? itemReasons[0] ?? apiError.status;
  const base = { phase: 'api' as const, status, message, reason, retryAfterSeconds };

  if (status === 401) {
    return { ...base, kind: 'credential', credential: 'token_rejected' };
  }
  if (reasons.some((r) => DISABLED_REASONS.has(r)) || /has not been used in project|API.* is disabled|it is disabled/i.test(message)) {
    return { ...base, kind: 'service_disabled', disabled: disabledApi(message, errorInfo?.metadata ?? {}, infos, api) };
  }
  if (status === 429 || (status === 403 && reasons.some((r) => QUOTA_REASONS.has(r)))) {
    return { ...base, kind: 'quota', quota: quotaFacts(reasons, errorInfo?.metadata ?? {}, message) };
  }
  if (
    reasons.some((r) => r === 'ACCESS_TOKEN_SCOPE_INSUFFICIENT' || r === 'insufficientPermissions') ||
    /insufficient authentication scopes/i.test(message)
  ) {
    return { ...base, kind: 'scope' };
  }
  if (status === 403) {
    return { ...base, kind: 'permission' };
  }
  if (status === 404) {
    return { ...base, kind: 'not_found' };
  }
  if (status === 408 || status >= 500) {
    return { ...base, kind: 'unavailable' };
  }
  return { ...base, kind: 'invalid' };
}

function quotaFacts(reasons: string[], metadata: Record<string, string>, message: string): QuotaFacts {
  const limit = typeof metadata.quota_limit === 'string' ? metadata.quota_limit : undefined;
  const value = Number(metadata.quota_limit_value);
  const perUser = reasons.includes('userRateLimitExceeded') || /per ?user/i.test(limit ?? '');
  return {
    window: quotaWindow(reasons, limit, message),
    ...(perUser ? { perUser } : {}),
    ...(limit ? { limit } : {}),
    ...(Number.isFinite(value) && metadata.quota_limit_value !== undefined ? { limitValue: value } : {}),
    ...(typeof metadata.quota_metric === 'string' ? { metric: metadata.quota_metric } : {}),
  };
}

/**
 * The window, from structured facts only: the ErrorInfo quota_limit name
 * (e.g. DefaultPublishRequestsPerDayPerProject), Google's documented
 * Search Analytics load-quota answers, then the classic reason. Absent all
 * three, Google has not said, and the result is undefined.
 */
function quotaWindow(reasons: string[], limit: string | undefined, message: string): QuotaWindow | undefined {
  if (limit) {
    if (/per ?day|daily/i.test(limit)) {
      return 'day';
    }
    if (/per ?(minute|second)|per ?100 ?seconds/i.test(limit)) {
      return 'minute';
    }
  }
  if (/load quota exceeded \(long-term\)/i.test(message)) {
    return 'day';
  }
  if (/load quota exceeded \(short-term\)/i.test(message)) {
    return 'minute';
  }
  if (reasons.includes('dailyLimitExceeded')) {
    return 'day';
  }
  if (reasons.includes('rateLimitExceeded') || reasons.includes('userRateLimitExceeded')) {
    return 'minute';
  }
  return undefined;
}

function disabledApi(
  message: string,
  metadata: Record<string, string>,
  infos: ApiErrorBody['details'] & object,
  api: GoogleApi | undefined,
): DisabledApi {
  const known = api ? API_NAMES[api] : undefined;
  const service = metadata.service ?? /apis\/api\/([a-z0-9.-]+)/i.exec(message)?.[1] ?? known?.service ?? 'the API';
  const title =
    metadata.serviceTitle ?? /(?:^|\.\s+)([^.]+?) has not been used in project/i.exec(message)?.[1]?.trim() ?? known?.title ?? service;
  const project =
    /^projects\/(.+)$/.exec(metadata.consumer ?? '')?.[1] ??
    metadata.containerInfo ??
    /\bin project ([a-z0-9][a-z0-9-]*)/i.exec(message)?.[1] ??
    /[?&]project=([a-z0-9-]+)/i.exec(message)?.[1];
  const link = infos.flatMap((d) => (Array.isArray(d.links) ? d.links : [])).find((l) => typeof l?.url === 'string')?.url;
  const inMessage = /https:\/\/console\.(?:developers|cloud)\.google\.com\/\S+/.exec(message)?.[0].replace(/[.,;)]+$/, '');
  const activationUrl =
    metadata.activationUrl ??
    link ??
    inMessage ??
    (project
      ? `https://console.developers.google.com/apis/api/${service}/overview?project=${project}`
      : `https://console.cloud.google.com/apis/library/${service}`);
  return { title, service, ...(project ? { project } : {}), activationUrl };
}

/** Whether a transport failure shows that the request never reached Google (so a write did not happen). */
export function neverSent(failure: Failure): boolean {
  return failure.phase === 'token' || (failure.status === undefined && NEVER_SENT.has(failure.code ?? ''));
}

function header(headers: HeadersLike | undefined, name: string): string | undefined {
  if (!headers) {
    return undefined;
  }
  if (typeof headers.get === 'function') {
    return headers.get(name) ?? undefined;
  }
  return (headers as Record<string, string>)[name];
}

function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (!value) {
    return undefined;
  }
  if (/^\d+$/.test(value.trim())) {
    return Number(value.trim());
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now.getTime()) / 1000));
}
