// /__emulator/* — the same controls as the GoogleEmulator methods, over HTTP,
// for tests that run the server (and so the emulator's callers) out of process.
// These calls are never recorded in the request log.

import type { GoogleEmulator } from './google-emulator.js';
import type { FaultSpec, IndexingBehaviour } from './emulator-types.js';
import { ROW_CAP, type AnalyticsSummaryQuery } from './search-analytics-query.js';

interface ControlAnswer {
  status: number;
  body?: unknown;
}

const ok = (body: unknown = { ok: true }): ControlAnswer => ({ status: 200, body });
const fail = (status: number, message: string): ControlAnswer => ({ status, body: { error: message } });

function json(raw: Buffer): Record<string, unknown> {
  const text = raw.toString('utf8').trim();
  if (!text) {
    return {};
  }
  const parsed = JSON.parse(text) as unknown;
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

/** JSON cannot carry Infinity: "Infinity" or -1 mean "until cleared". */
function parseTimes(value: unknown): number | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (value === 'Infinity' || value === -1) {
    return Infinity;
  }
  if (typeof value === 'number' && value > 0) {
    return value;
  }
  throw new Error('times must be a positive number or "Infinity"');
}

/** Milliseconds, or "Infinity". */
function parseLag(value: unknown): number | undefined {
  if (value === undefined || value === null) {
    return undefined;
  }
  if (value === 'Infinity') {
    return Infinity;
  }
  if (typeof value === 'number' && value >= 0) {
    return value;
  }
  throw new Error('metadataLagMs must be a non-negative number or "Infinity"');
}

function optionalBoolean(value: unknown, name: string): boolean | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'boolean') {
    throw new Error(`${name} must be true or false`);
  }
  return value;
}

/** Infinity survives JSON as the string "Infinity". */
const jsonSafe = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (_k, v: unknown) => (v === Infinity ? 'Infinity' : v)));

export function handleControlRequest(emulator: GoogleEmulator, method: string, rawPath: string, raw: Buffer, query = ''): ControlAnswer {
  const action = `${method} ${rawPath.replace(/\/+$/, '')}`;
  try {
    switch (action) {
      case 'GET /__emulator/requests':
        return ok(emulator.requests);
      case 'GET /__emulator/token-grants':
        return ok(emulator.tokenGrants);
      case 'GET /__emulator/state':
        return ok({
          sites: Object.fromEntries(emulator.state.sites),
          sitemaps: Object.fromEntries(emulator.state.sitemaps),
          resources: [...emulator.state.resources.values()],
          notifications: [...emulator.state.notifications.values()],
          placedTokens: [...emulator.state.placedTokens],
        });
      case 'POST /__emulator/reset':
        emulator.reset();
        return ok();
      case 'POST /__emulator/clear-log':
        emulator.clearLog();
        return ok();
      case 'POST /__emulator/faults': {
        // {route, status} | {route, preset} | {route, kind: hang|truncated|array|html}, plus times, retryAfter, body, message, applied, cutAt.
        const body = json(raw);
        emulator.injectFault({ ...(body as unknown as FaultSpec), times: parseTimes(body.times) });
        return ok();
      }
      case 'GET /__emulator/services':
        return ok({ disabled: emulator.disabledServices() });
      case 'POST /__emulator/services': {
        const body = json(raw);
        if (typeof body.service !== 'string' || typeof body.enabled !== 'boolean') {
          return fail(400, 'services needs {service: e.g. "indexing.googleapis.com", enabled: boolean}');
        }
        emulator.setServiceEnabled(body.service, body.enabled);
        return ok({ disabled: emulator.disabledServices() });
      }
      case 'GET /__emulator/indexing':
        return ok(jsonSafe(emulator.indexingBehaviour()));
      case 'POST /__emulator/indexing': {
        const body = json(raw);
        const behaviour: IndexingBehaviour = {};
        const forgetful = optionalBoolean(body.forgetful, 'forgetful');
        const echoes = optionalBoolean(body.publishEchoesMetadata, 'publishEchoesMetadata');
        const lag = parseLag(body.metadataLagMs);
        if (forgetful !== undefined) {
          behaviour.forgetful = forgetful;
        }
        if (echoes !== undefined) {
          behaviour.publishEchoesMetadata = echoes;
        }
        if (lag !== undefined) {
          behaviour.metadataLagMs = lag;
        }
        emulator.setIndexingBehaviour(behaviour);
        return ok(jsonSafe(emulator.indexingBehaviour()));
      }
      case 'GET /__emulator/project-number':
        return ok({ projectNumber: emulator.projectNumber(new URLSearchParams(query).get('project') ?? undefined) });
      case 'POST /__emulator/analytics/anonymized-share': {
        const body = json(raw);
        if (typeof body.property !== 'string' || typeof body.startDate !== 'string' || typeof body.endDate !== 'string') {
          return fail(400, 'anonymized-share needs {property, startDate, endDate, type?, dataState?}');
        }
        return ok(emulator.anonymizedShare(body.property, body as unknown as AnalyticsSummaryQuery));
      }
      case 'POST /__emulator/analytics/rows-available': {
        const body = json(raw);
        if (typeof body.property !== 'string' || !body.request || typeof body.request !== 'object') {
          return fail(400, 'rows-available needs {property, request: a searchAnalytics.query body}');
        }
        return ok({ available: emulator.analyticsRowsAvailable(body.property, body.request), cap: ROW_CAP });
      }
      case 'DELETE /__emulator/faults':
        emulator.clearFaults();
        return ok();
      case 'POST /__emulator/latency': {
        const body = json(raw);
        if (typeof body.route !== 'string' || typeof body.ms !== 'number') {
          return fail(400, 'latency needs {route: string, ms: number}');
        }
        emulator.setLatency(body.route, body.ms);
        return ok();
      }
      case 'POST /__emulator/place-token': {
        const body = json(raw);
        const site = body.site as { type?: unknown; identifier?: unknown } | undefined;
        if (
          !site ||
          (site.type !== 'SITE' && site.type !== 'INET_DOMAIN') ||
          typeof site.identifier !== 'string' ||
          typeof body.method !== 'string'
        ) {
          return fail(400, 'place-token needs {site: {type: SITE|INET_DOMAIN, identifier}, method}');
        }
        emulator.placeVerificationToken({ type: site.type, identifier: site.identifier }, body.method);
        return ok();
      }
      case 'POST /__emulator/service-accounts': {
        const body = json(raw);
        if (typeof body.clientEmail !== 'string' || typeof body.publicKeyPem !== 'string') {
          return fail(400, 'service-accounts needs {clientEmail, publicKeyPem, delegation?}');
        }
        emulator.registerServiceAccount({
          clientEmail: body.clientEmail,
          publicKeyPem: body.publicKeyPem,
          delegation: body.delegation as Record<string, string[]> | undefined,
        });
        return ok();
      }
      case 'POST /__emulator/refresh-tokens': {
        const b = json(raw);
        if (![b.clientId, b.clientSecret, b.refreshToken, b.user].every((v) => typeof v === 'string') || !Array.isArray(b.scopes)) {
          return fail(400, 'refresh-tokens needs {clientId, clientSecret, refreshToken, user, scopes[]}');
        }
        emulator.registerRefreshToken(b as unknown as Parameters<GoogleEmulator['registerRefreshToken']>[0]);
        return ok();
      }
      case 'POST /__emulator/access-tokens': {
        const b = json(raw);
        if (typeof b.principal !== 'string' || !Array.isArray(b.scopes)) {
          return fail(400, 'access-tokens needs {principal, scopes[]}');
        }
        return ok({ access_token: emulator.issueAccessToken({ principal: b.principal, scopes: b.scopes as string[] }) });
      }
      case 'POST /__emulator/oauth-clients': {
        const b = json(raw);
        const uris = b.redirectUris;
        if (
          typeof b.clientId !== 'string' ||
          typeof b.clientSecret !== 'string' ||
          !Array.isArray(uris) ||
          !uris.every((u) => typeof u === 'string') ||
          (b.type !== undefined && b.type !== 'web' && b.type !== 'desktop') ||
          (b.name !== undefined && typeof b.name !== 'string')
        ) {
          return fail(400, 'oauth-clients needs {clientId, clientSecret, redirectUris[], type?: web | desktop, name?}');
        }
        emulator.registerOAuthClient({
          clientId: b.clientId,
          clientSecret: b.clientSecret,
          redirectUris: uris,
          type: b.type,
          ...(typeof b.name === 'string' ? { name: b.name } : {}),
        });
        return ok();
      }
      case 'GET /__emulator/google-users':
        return ok([...emulator.oauth.users.values()]);
      case 'POST /__emulator/google-users': {
        const b = json(raw);
        if (typeof b.email !== 'string' || typeof b.sub !== 'string' || !b.sites || typeof b.sites !== 'object') {
          return fail(400, 'google-users needs {email, sub, name?, picture?, sites: {siteUrl: permissionLevel}}');
        }
        emulator.registerGoogleUser(b as unknown as Parameters<GoogleEmulator['registerGoogleUser']>[0]);
        return ok();
      }
      case 'POST /__emulator/user-permissions': {
        const b = json(raw);
        const levels = ['siteOwner', 'siteFullUser', 'siteRestrictedUser', 'siteUnverifiedUser', null];
        if (typeof b.email !== 'string' || typeof b.siteUrl !== 'string' || !levels.includes(b.level as string | null)) {
          return fail(
            400,
            'user-permissions needs {email, siteUrl, level: siteOwner | siteFullUser | siteRestrictedUser | siteUnverifiedUser | null}',
          );
        }
        emulator.setUserPermission(b.email, b.siteUrl, (b.level ?? undefined) as Parameters<GoogleEmulator['setUserPermission']>[2]);
        return ok();
      }
      default:
        return fail(404, `unknown control endpoint ${action}`);
    }
  } catch (err) {
    return fail(400, err instanceof Error ? err.message : String(err));
  }
}
