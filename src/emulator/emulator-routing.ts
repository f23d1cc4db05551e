// Route table plumbing. Paths are split on '/' while still raw and each segment
// is decoded exactly once, so a percent-encoded siteUrl (https%3A%2F%2F…) stays
// one segment — the way Google's front end treats it.

import type { EmulatorCredentials } from './emulator-credentials.js';
import { badRequest, unknownField, type ErrorStyle } from './emulator-errors.js';
import type { QuotaTracker } from './emulator-quotas.js';
import type { EmulatorState } from './emulator-state.js';
import type { EmulatorQuotas, PermissionLevel, RouteName } from './emulator-types.js';
import type { ResolvedIndexingBehaviour } from './indexing.routes.js';
import type { SearchAnalyticsData } from './search-analytics-data.js';

export const SCOPES = {
  webmasters: 'https://www.googleapis.com/auth/webmasters',
  webmastersReadonly: 'https://www.googleapis.com/auth/webmasters.readonly',
  indexing: 'https://www.googleapis.com/auth/indexing',
  siteverification: 'https://www.googleapis.com/auth/siteverification',
  siteverificationVerifyOnly: 'https://www.googleapis.com/auth/siteverification.verify_only',
} as const;

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteContext {
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  principal: string;
  scopes: string[];
  /** Cloud project the caller's credential belongs to (per-project quotas). */
  project: string;
  now: Date;
  state: EmulatorState;
  /** For an emulator Google user's token: the properties that user sees (else the shared view, state.sites). */
  userSites?: Map<string, PermissionLevel>;
  credentials: EmulatorCredentials;
  quotas: QuotaTracker;
  limits: EmulatorQuotas;
  analytics: SearchAnalyticsData;
  indexing: ResolvedIndexingBehaviour;
}

export interface RouteResult {
  status: number;
  /** undefined → empty body. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef {
  name: RouteName;
  method: HttpMethod;
  /** e.g. '/webmasters/v3/sites/{siteUrl}/sitemaps/{feedpath}' */
  path: string;
  style: ErrorStyle;
  /** For ErrorInfo metadata in scope errors. */
  service: string;
  rpcMethod: string;
  /** Any one of these suffices. */
  scopes: string[];
  handle(ctx: RouteContext): RouteResult;
}

export type RouteMatch =
  | { kind: 'route'; route: RouteDef; params: Record<string, string> }
  | { kind: 'not-found' }
  | { kind: 'method-not-allowed'; style: ErrorStyle }
  | { kind: 'bad-encoding' };

/** Decodes every raw segment once; undefined when one is malformed. */
export function decodeSegments(rawPath: string): string[] | undefined {
  try {
    return rawPath
      .split('/')
      .slice(1)
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

function matchPattern(pattern: string, segments: string[]): Record<string, string> | undefined {
  const parts = pattern.split('/').slice(1);
  if (parts.length !== segments.length) {
    return undefined;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i];
    if (p.startsWith('{') && p.endsWith('}')) {
      if (!segments[i]) {
        return undefined;
      }
      params[p.slice(1, -1)] = segments[i];
    } else if (p !== segments[i]) {
      return undefined;
    }
  }
  return params;
}

export function matchRoute(routes: readonly RouteDef[], method: string, rawPath: string): RouteMatch {
  const segments = decodeSegments(rawPath);
  if (!segments) {
    return { kind: 'bad-encoding' };
  }
  let pathMatched: RouteDef | undefined;
  for (const route of routes) {
    const params = matchPattern(route.path, segments);
    if (!params) {
      continue;
    }
    if (route.method === method) {
      return { kind: 'route', route, params };
    }
    pathMatched ??= route;
  }
  return pathMatched ? { kind: 'method-not-allowed', style: pathMatched.style } : { kind: 'not-found' };
}

/** Style of error body for a path no route matched, by API family prefix. */
export function styleForPath(rawPath: string): ErrorStyle {
  return rawPath.startsWith('/webmasters/') || rawPath.startsWith('/siteVerification/') ? 'classic' : 'rpc';
}

/** The JSON body as an object; Google's proto parser refuses any other top-level value. */
export function objectBody(body: unknown, style: ErrorStyle): Record<string, unknown> {
  if (body === undefined) {
    return {};
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    return body as Record<string, unknown>;
  }
  throw badRequest(style, 'Invalid JSON payload received. Expected an object.');
}

/** Rejects fields the message does not have, worded like Google's JSON parser. */
export function checkFields(obj: Record<string, unknown>, allowed: readonly string[], style: ErrorStyle, path = ''): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      throw unknownField(style, key, path);
    }
  }
}
