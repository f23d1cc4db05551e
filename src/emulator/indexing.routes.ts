// Indexing API v3: publish and getMetadata. Only an Owner of a property that
// covers the URL may use it; a Full user is refused like a stranger.
//
// By default the API "forgets", as widely reported since 2024: publish answers
// {urlNotificationMetadata: {url}} without latestUpdate, and getMetadata answers
// 404 for the URL it was just told about. The emulator still records every
// notification (visible in state.notifications and to history mode).

import { GoogleApiError, googleError, notFound } from './emulator-errors.js';
import { checkFields, objectBody, SCOPES, type RouteContext, type RouteDef } from './emulator-routing.js';
import type { IndexingBehaviour, UrlNotification, UrlNotificationMetadata } from './emulator-types.js';
import { indexingQuotaBody, projectNumberOf, type IndexingLimit } from './emulator-usage-limits.js';
import { urlInProperty } from './property-scope.js';

export interface ResolvedIndexingBehaviour {
  forgetful: boolean;
  metadataLagMs: number;
  publishEchoesMetadata: boolean;
}

export function resolveIndexingBehaviour(options: IndexingBehaviour = {}): ResolvedIndexingBehaviour {
  const forgetful = options.forgetful ?? true;
  const metadataLagMs = options.metadataLagMs ?? Infinity;
  if (!(metadataLagMs >= 0)) {
    throw new Error('indexing.metadataLagMs must be a non-negative number of milliseconds (or Infinity)');
  }
  return { forgetful, metadataLagMs, publishEchoesMetadata: options.publishEchoesMetadata ?? !forgetful };
}

/** The latest notification time of an entry, in epoch ms. */
function latestNotifyTime(entry: UrlNotificationMetadata): number {
  return Math.max(...[entry.latestUpdate, entry.latestRemove].filter((n) => n !== undefined).map((n) => Date.parse(n.notifyTime)));
}

/** What getMetadata shows: nothing while Google "forgets" a notification. */
function visibleMetadata(ctx: RouteContext, entry: UrlNotificationMetadata | undefined): UrlNotificationMetadata | undefined {
  if (!entry || !ctx.indexing.forgetful) {
    return entry;
  }
  return ctx.now.getTime() - latestNotifyTime(entry) >= ctx.indexing.metadataLagMs ? entry : undefined;
}

const SERVICE = 'indexing.googleapis.com';
const NOTIFICATION_TYPES = ['URL_UPDATED', 'URL_DELETED'] as const;

const invalidArgument = (message = 'Request contains an invalid argument.', details?: unknown[]) =>
  googleError('rpc', { status: 400, message, details });

function requireOwner(ctx: RouteContext, url: string): void {
  // An emulator Google user's token owns only that user's properties.
  for (const [property, level] of ctx.userSites ?? ctx.state.sites) {
    if (level === 'siteOwner' && urlInProperty(url, property)) {
      return;
    }
  }
  throw googleError('rpc', { status: 403, message: 'Permission denied. Failed to verify the URL ownership.' });
}

/** Per-project quotas: publishes per Pacific day or metadata reads per minute, and every request per minute. */
function takeQuota(ctx: RouteContext, kind: 'publish' | 'metadata'): void {
  const publish = kind === 'publish';
  const limit = publish ? ctx.limits.publishPerDay : ctx.limits.metadataPerMinute;
  const exhausted = ctx.quotas.take(
    [
      { key: `indexing-${kind}|${ctx.project}`, limit, window: publish ? 'day' : 'minute' },
      { key: `indexing-requests|${ctx.project}`, limit: ctx.limits.indexingPerMinute, window: 'minute' },
    ],
    ctx.now,
  );
  if (!exhausted) {
    return;
  }
  const which: IndexingLimit = exhausted.key.startsWith('indexing-requests') ? 'requests' : kind;
  throw new GoogleApiError(429, indexingQuotaBody(which, projectNumberOf(ctx.project), exhausted.limit));
}

const isHttpUrl = (url: unknown): url is string => typeof url === 'string' && URL.canParse(url) && /^https?:$/.test(new URL(url).protocol);

export const indexingRoutes: RouteDef[] = [
  {
    name: 'urlNotifications.publish',
    method: 'POST',
    path: '/v3/urlNotifications:publish',
    style: 'rpc',
    service: SERVICE,
    rpcMethod: 'google.indexing.v3.UrlNotificationService.Publish',
    scopes: [SCOPES.indexing],
    handle(ctx) {
      const body = objectBody(ctx.body, 'rpc');
      checkFields(body, ['url', 'type', 'notifyTime'], 'rpc');
      const { url, type } = body;
      if (
        type !== undefined &&
        !(NOTIFICATION_TYPES as readonly unknown[]).includes(type) &&
        type !== 'URL_NOTIFICATION_TYPE_UNSPECIFIED'
      ) {
        throw invalidArgument(
          `Invalid value at 'url_notification.type' (type.googleapis.com/google.indexing.v3.UrlNotification.Type), ${JSON.stringify(type)}`,
          [
            {
              '@type': 'type.googleapis.com/google.rpc.BadRequest',
              fieldViolations: [
                {
                  field: 'url_notification.type',
                  description: `Invalid value at 'url_notification.type' (type.googleapis.com/google.indexing.v3.UrlNotification.Type), ${JSON.stringify(type)}`,
                },
              ],
            },
          ],
        );
      }
      if (!isHttpUrl(url)) {
        throw invalidArgument();
      }
      if (type === undefined || type === 'URL_NOTIFICATION_TYPE_UNSPECIFIED') {
        throw invalidArgument();
      }
      requireOwner(ctx, url);
      takeQuota(ctx, 'publish');
      const notification: UrlNotification = { url, type: type as UrlNotification['type'], notifyTime: ctx.now.toISOString() };
      const entry: UrlNotificationMetadata = ctx.state.notifications.get(url) ?? { url };
      if (notification.type === 'URL_UPDATED') {
        entry.latestUpdate = notification;
      } else {
        entry.latestRemove = notification;
      }
      ctx.state.notifications.set(url, entry);
      const echoed = ctx.indexing.publishEchoesMetadata ? structuredClone(entry) : { url };
      return { status: 200, body: { urlNotificationMetadata: echoed } };
    },
  },
  {
    name: 'urlNotifications.getMetadata',
    method: 'GET',
    path: '/v3/urlNotifications/metadata',
    style: 'rpc',
    service: SERVICE,
    rpcMethod: 'google.indexing.v3.UrlNotificationService.GetMetadata',
    scopes: [SCOPES.indexing],
    handle(ctx) {
      const url = ctx.query.url;
      if (!isHttpUrl(url)) {
        throw invalidArgument();
      }
      requireOwner(ctx, url);
      takeQuota(ctx, 'metadata');
      const entry = visibleMetadata(ctx, ctx.state.notifications.get(url));
      if (!entry) {
        throw notFound('rpc');
      }
      return { status: 200, body: entry };
    },
  },
];
