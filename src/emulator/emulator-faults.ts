// Injected faults: which request they hit, and what the answer looks like —
// an error (a status or one of Google's named bodies), no answer at all, or a
// 200 whose body is not what the method returns.

import { googleErrorBody, type ErrorStyle } from './emulator-errors.js';
import { FAULT_KINDS, FAULT_PRESETS, type EmulatorQuotas, type FaultKind, type FaultSpec, type RouteName } from './emulator-types.js';
import {
  indexingQuotaBody,
  inspectionQuotaBody,
  legacyRateLimitBody,
  presetBody,
  projectNumberOf,
  type GoogleErrorBody,
} from './emulator-usage-limits.js';

export interface ActiveFault extends FaultSpec {
  kind: FaultKind;
  remaining: number;
}

/** An answer the server writes as-is: JSON when `body` is set, raw bytes when `raw` is. */
export interface Answer {
  status: number;
  body?: unknown;
  raw?: { contentType: string; payload: string };
  headers?: Record<string, string>;
  /** Never answer: keep the socket open until the client gives up or the emulator closes. */
  hang?: true;
}

const PRESET_STATUS = (preset: string) => (preset === 'resource_exhausted' ? 429 : 403);

/** Checks a fault from code or from the control API; throws a sentence naming what is wrong. */
export function validateFault(spec: FaultSpec): ActiveFault {
  if (!spec || typeof spec.route !== 'string' || !spec.route) {
    throw new Error('a fault needs a route (a route name or "*")');
  }
  const kind = spec.kind ?? 'status';
  if (!FAULT_KINDS.includes(kind)) {
    throw new Error(`fault kind must be one of ${FAULT_KINDS.join(', ')}`);
  }
  if (spec.preset !== undefined && !FAULT_PRESETS.includes(spec.preset)) {
    throw new Error(`fault preset must be one of ${FAULT_PRESETS.join(', ')}`);
  }
  if (spec.preset !== undefined && kind !== 'status') {
    throw new Error('a preset is an error answer: use it with kind "status"');
  }
  if (spec.preset !== undefined && spec.route === 'token') {
    throw new Error('presets are API answers; the token endpoint has none');
  }
  if (spec.status !== undefined && (!Number.isInteger(spec.status) || spec.status < 100 || spec.status > 599)) {
    throw new Error('status must be an HTTP status code');
  }
  if (kind === 'status' && spec.status === undefined && spec.preset === undefined) {
    throw new Error('a fault of kind "status" needs {route, status} or {route, preset}');
  }
  const times = spec.times ?? 1;
  if (!(times > 0)) {
    throw new Error('times must be a positive number or Infinity');
  }
  if (spec.cutAt !== undefined && !(Number.isInteger(spec.cutAt) && spec.cutAt >= 0)) {
    throw new Error('cutAt must be a byte count');
  }
  if (spec.bodyMatches !== undefined && (!spec.bodyMatches || typeof spec.bodyMatches !== 'object' || Array.isArray(spec.bodyMatches))) {
    throw new Error('bodyMatches must be an object of body fields and their values');
  }
  return { ...spec, kind, remaining: times };
}

export class FaultRegistry {
  private faults: ActiveFault[] = [];

  add(spec: FaultSpec): void {
    this.faults.push(validateFault(spec));
  }

  /** The first fault for this route (or '*', which never matches /token) whose bodyMatches the body meets, counted as used. */
  take(route: string, isToken: boolean, body?: unknown): ActiveFault | undefined {
    const fault = this.faults.find(
      (f) => f.remaining > 0 && (f.route === route || (f.route === '*' && !isToken)) && bodyMeets(f.bodyMatches, body),
    );
    if (!fault) {
      return undefined;
    }
    fault.remaining -= 1;
    this.faults = this.faults.filter((f) => f.remaining > 0);
    return fault;
  }

  clear(): void {
    this.faults = [];
  }
}

function bodyMeets(expected: Record<string, unknown> | undefined, body: unknown): boolean {
  if (!expected) {
    return true;
  }
  if (!body || typeof body !== 'object') {
    return false;
  }
  const actual = body as Record<string, unknown>;
  return Object.entries(expected).every(([field, value]) => JSON.stringify(actual[field]) === JSON.stringify(value));
}

/** Whether the request is carried out before the fault answers. */
export function faultApplies(fault: ActiveFault): boolean {
  if (fault.kind === 'status') {
    return false;
  }
  if (fault.kind === 'truncated' && fault.body === undefined) {
    return true;
  }
  return fault.applied ?? false;
}

export interface FaultContext {
  route: RouteName;
  style: ErrorStyle;
  service: string;
  /** Cloud project of the caller, when the bearer token resolved. */
  project?: string;
  /** The parsed request body (URL Inspection names its property there). */
  body: unknown;
  /** The access token the request was sent with ({bearer} in a fault's message). */
  bearer?: string;
  limits: EmulatorQuotas;
}

/** The 429 Google sends on this route when one of its quotas is exhausted. */
export function routeQuotaBody(ctx: FaultContext): GoogleErrorBody {
  const projectNumber = projectNumberOf(ctx.project ?? 'emulator-project');
  switch (ctx.route) {
    case 'urlInspection.index.inspect': {
      const siteUrl = (ctx.body as { siteUrl?: unknown } | undefined)?.siteUrl;
      return inspectionQuotaBody(typeof siteUrl === 'string' ? siteUrl : '');
    }
    case 'urlNotifications.publish':
      return indexingQuotaBody('publish', projectNumber, ctx.limits.publishPerDay);
    case 'urlNotifications.getMetadata':
      return indexingQuotaBody('metadata', projectNumber, ctx.limits.metadataPerMinute);
    default:
      return legacyRateLimitBody();
  }
}

const retryAfter = (fault: ActiveFault): Record<string, string> =>
  fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};

/** The error answer of a 'status' fault on an API route. */
export function statusFaultAnswer(fault: ActiveFault, ctx: FaultContext): Answer {
  const status = fault.status ?? PRESET_STATUS(fault.preset!);
  const headers = retryAfter(fault);
  if (fault.body !== undefined) {
    return { status, body: fault.body, headers };
  }
  if (fault.preset && fault.preset !== 'resource_exhausted') {
    const body = presetBody(fault.preset, {
      style: ctx.style,
      service: ctx.service,
      projectNumber: projectNumberOf(ctx.project ?? 'emulator-project'),
    });
    if (fault.message && body) {
      body.error.message = fault.message;
    }
    return { status, body, headers };
  }
  if ((status === 429 || fault.preset === 'resource_exhausted') && !fault.message) {
    return { status, body: routeQuotaBody(ctx), headers };
  }
  const reason = fault.reason ?? (status === 429 ? 'rateLimitExceeded' : undefined);
  const message = echoed(fault.message, { bearer: ctx.bearer });
  return { status, body: googleErrorBody(ctx.style, { status, message, reason }), headers };
}

/**
 * A fault's `message` with `{form.<field>}` (a field of the token request's
 * form, e.g. `{form.refresh_token}`) or `{bearer}` (the access token an API
 * request was sent with) replaced by what the request carried: an endpoint, or
 * a proxy in its place, that echoes what it was sent.
 */
export function echoed(message: string | undefined, request: { form?: Record<string, string>; bearer?: string }): string | undefined {
  return message
    ?.replace(/\{form\.([a-z_]+)\}/g, (_, field: string) => request.form?.[field] ?? '')
    .replace(/\{bearer\}/g, () => request.bearer ?? '');
}

/** The error answer of a 'status' fault on the token endpoint (an OAuth error body, RFC 6749 §5.2). */
export function tokenFaultAnswer(fault: ActiveFault, form: Record<string, string> = {}): Answer {
  const status = fault.status!;
  const body = fault.body ?? {
    error: fault.reason ?? (status >= 500 ? 'internal_failure' : 'invalid_request'),
    error_description: echoed(fault.message, { form }) ?? 'Injected fault',
  };
  return { status, body, headers: retryAfter(fault) };
}

const CAPTIVE_PORTAL =
  '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>Network login</title></head>' +
  '<body><h1>Sign in to continue</h1><p>You must log in to this network before you can access the Internet.</p>' +
  '<form method="post" action="/login"><input name="user"><input name="password" type="password"><button>Log in</button></form>' +
  '</body></html>\n';

export function serialize(body: unknown): string {
  return body === undefined ? '' : `${JSON.stringify(body, null, 2)}\n`;
}

/**
 * The answer of a hang / truncated / array / html fault. `real` is the answer
 * the route gave when the request was carried out (for 'truncated' without a body).
 */
export function garbageAnswer(fault: ActiveFault, real?: Answer): Answer {
  const headers = retryAfter(fault);
  switch (fault.kind) {
    case 'hang':
      return { status: 0, hang: true };
    case 'truncated': {
      const whole = fault.body !== undefined ? serialize(fault.body) : serialize(real?.body) || '{\n  "';
      // Never the whole value: a cut that happens to end on a complete JSON value would not be garbage.
      const cut = Math.max(1, Math.min(fault.cutAt ?? Math.floor(whole.length / 2), whole.trimEnd().length - 1));
      return {
        status: fault.status ?? 200,
        raw: { contentType: 'application/json; charset=UTF-8', payload: whole.slice(0, cut) },
        headers,
      };
    }
    case 'array':
      return {
        status: fault.status ?? 200,
        raw: { contentType: 'application/json; charset=UTF-8', payload: serialize(Array.isArray(fault.body) ? fault.body : []) },
        headers,
      };
    case 'html':
      return {
        status: fault.status ?? 200,
        raw: { contentType: 'text/html; charset=utf-8', payload: typeof fault.body === 'string' ? fault.body : CAPTIVE_PORTAL },
        headers,
      };
    default:
      throw new Error(`not a garbage fault: ${fault.kind}`);
  }
}

/**
 * The answer under a non-status fault, or none: garbage, carrying out the
 * request first (`run`) when the fault does, so its effect and answer are real.
 */
export function answerUnderFault(fault: ActiveFault | undefined, run: () => Answer): Answer {
  if (fault && !faultApplies(fault)) {
    return garbageAnswer(fault);
  }
  const real = run();
  return fault ? garbageAnswer(fault, real) : real;
}
