import type { Attributes } from '../common/telemetry.js';
import type { Failure } from './google-failure.js';

// What a Google client span records (src/common/telemetry.ts), read from what
// GoogleService already holds after one request.

/** One request's outcome: the answer (with its HTTP status), or the failure read from what came back; `from`: gaxios's response or error, read only when traced. */
export type Sent<T> = ({ readonly data: T; readonly status?: number } | { readonly failure: Failure }) & { readonly from?: unknown };

/** The HTTP method and server of a request gaxios made (its config), for the span: never the path or query string. */
function httpFacts(carrier: unknown): Attributes | undefined {
  const config = (carrier as { config?: { method?: unknown; url?: unknown } } | undefined)?.config;
  let url: URL | undefined;
  try {
    url = config?.url instanceof URL ? config.url : typeof config?.url === 'string' ? new URL(config.url) : undefined;
  } catch {
    url = undefined;
  }
  return {
    'http.request.method': typeof config?.method === 'string' ? config.method.toUpperCase() : undefined,
    'server.address': url?.hostname,
    'server.port': url ? Number(url.port || (url.protocol === 'https:' ? 443 : 80)) : undefined,
  };
}

/**
 * What a Google span records: the HTTP status, how the request ended (ok or the
 * failure's kind) and, for a quota answer, which limit Google named — never the
 * request's URL, body, token or Google's message (it may quote the property).
 */
export function sentAttributes(sent: Sent<unknown>): Attributes {
  if (!('failure' in sent)) {
    return { ...httpFacts(sent.from), 'http.response.status_code': sent.status, 'gsc.google.outcome': 'ok' };
  }
  const { kind, status, phase, quota, reason } = sent.failure;
  return {
    ...httpFacts(sent.from),
    'http.response.status_code': status,
    'error.type': status !== undefined ? String(status) : kind,
    'gsc.google.outcome': kind,
    'gsc.google.phase': phase,
    'gsc.google.reason': reason,
    'gsc.quota.outcome': kind === 'quota' ? 'exceeded' : undefined,
    'gsc.quota.window': quota?.window,
    'gsc.quota.limit': quota?.limit,
  };
}
