import { Injectable } from '@nestjs/common';
import * as z from 'zod';
import { inert } from '../common/inert-text.js';
import type { UrlNotification, UrlNotificationMetadata } from '../google/indexing.client.js';
import { PageUrlArg } from '../tools/tool-args.js';
import type { ToolCall } from '../tools/tool-call.js';
import type { TargetOf } from '../tools/tool-target.js';
import { Tool, ToolProvider } from '../tools/tool.decorator.js';
import { type ToolOutput, toolOutput } from '../tools/tool-output.js';
import { QuotaRemainingOut, quotaRemaining, quotaRemainingLine } from '../quota/quota-report.js';
import type { SentNotification } from './indexing-record.service.js';
import { IndexingService } from './indexing.service.js';

const Notification = z.object({ type: z.string(), notify_time: z.string() });
const Latest = Notification.extend({
  source: z
    .enum(['google', 'this_server'])
    .describe("google: Google's history; this_server: this server's own record (Google often forgets)."),
});
const Sent = z.object({
  type: z.string(),
  sent_at: z.string(),
  principal: z.string(),
  outcome: z.enum(['accepted', 'unknown']).describe('unknown: Google gave no usable answer, so it may or may not have it.'),
  google_notify_time: z.string().optional(),
});
const StatusInput = z.object({ url: PageUrlArg });
const PublishInput = z.object({
  url: PageUrlArg,
  type: z.enum(['URL_UPDATED', 'URL_DELETED']).optional().describe('Default URL_UPDATED; URL_DELETED once the page is gone.'),
});

// The answers lead with the outcome for the URL in one line; every detail is in structuredContent (PRODUCT.md §5b).
const NOT_INDEX_STATUS = 'This is notification history, not index status: inspect_url shows whether Google indexed the page.';
const FORGETS = 'Google answers so even right after a successful publish, so a 404 does not mean nothing was sent';
const ACTS_ON =
  'Google acts on it only for pages with JobPosting or BroadcastEvent (in a VideoObject) structured data (other pages: a sitemap, submit_sitemap), and it is no promise to index: inspect_url shows index status.';

type History = { latest_update?: z.infer<typeof Latest>; latest_remove?: z.infer<typeof Latest> };

@ToolProvider()
@Injectable()
export class IndexingTools {
  constructor(private readonly indexing: IndexingService) {}

  @Tool({
    name: 'get_indexing_status',
    title: 'Indexing API notification history',
    description:
      "When the Indexing API was last notified of a URL's update or removal, per Google and this server's record. For index status use inspect_url.",
    input: StatusInput,
    target: ['page'],
    output: z.object({
      url: z.string(),
      notified: z.boolean().describe("Whether a notification is known to have been sent: in Google's history or this server's own record."),
      latest_update: Latest.optional(),
      latest_remove: Latest.optional(),
      google: z.object({
        found: z.boolean().describe('false: Google answered 404 (it does so even after a publish).'),
        latest_update: Notification.optional(),
        latest_remove: Notification.optional(),
      }),
      sent_by_this_server: z.array(Sent).optional().describe('Newest first, at most 10; absent when the state store cannot be read.'),
    }),
    access: 'read',
    apis: ['indexing'],
  })
  async getIndexingStatus(_args: unknown, call: ToolCall<TargetOf<typeof StatusInput>>): Promise<ToolOutput> {
    const url = call.target.page.href;
    const { google, sent } = await this.indexing.history(url);
    const fromGoogle = google ? googleHistory(google) : {};
    const latest = merge(fromGoogle, sent ?? []);
    const notified = !!(latest.latest_update || latest.latest_remove) || (sent ?? []).length > 0;
    const lines = [
      headline(url, latest, sent ?? []),
      google
        ? `Google's own history: URL_UPDATED ${fromGoogle.latest_update?.notify_time ?? 'none'}, URL_DELETED ${fromGoogle.latest_remove?.notify_time ?? 'none'}.`
        : `Google's own history: 404 "Requested entity was not found." (${FORGETS}).`,
      sentLine(sent),
      NOT_INDEX_STATUS,
    ];
    return toolOutput(
      {
        url,
        notified,
        ...latest,
        google: { found: !!google, ...strip(fromGoogle) },
        ...(sent ? { sent_by_this_server: sent.map(sentOut) } : {}),
      },
      lines.join('\n'),
    );
  }

  @Tool({
    name: 'request_indexing',
    title: 'Notify the Indexing API',
    description:
      'Tell the Indexing API a URL was updated or removed. Google acts only on JobPosting or BroadcastEvent pages; needs Owner access; 200/day. Other pages: use sitemaps.',
    input: PublishInput,
    target: ['page'],
    output: z.object({
      url: z.string(),
      type: z.enum(['URL_UPDATED', 'URL_DELETED']),
      notify_time: z
        .string()
        .optional()
        .describe("When Google recorded it, or, when Google's answer does not say, when this server sent it."),
      notify_time_source: z.enum(['google', 'this_server']).optional(),
      latest_update: Latest.optional(),
      latest_remove: Latest.optional(),
      recorded: z
        .boolean()
        .describe("Whether this server's own record of the notification was kept (false: the state store cannot be reached)."),
      quota_remaining: QuotaRemainingOut.optional(),
    }),
    access: 'write',
    apis: ['indexing'],
  })
  async requestIndexing(args: z.infer<typeof PublishInput>, call: ToolCall<TargetOf<typeof PublishInput>>): Promise<ToolOutput> {
    const url = call.target.page.href;
    const type = args.type ?? 'URL_UPDATED';
    const published = await this.indexing.publish(url, type, call.principal);
    const { record } = published;
    const fromGoogle = googleHistory(published.metadata);
    // What Google's answer leaves out (often this very notification) comes from this server's record.
    const latest = merge(fromGoogle, published.sent);
    const own = type === 'URL_UPDATED' ? latest.latest_update : latest.latest_remove;
    const notifyTime = own?.notify_time;
    const when = !notifyTime
      ? ''
      : own?.source === 'google'
        ? `, recorded by Google at ${notifyTime}`
        : `, sent at ${notifyTime} (Google's answer did not echo it; this server's record keeps it)`;
    const text = [
      `${url}: ${type} accepted by Google${when}. Do not send it again for the same change.`,
      record ? '' : 'This server could not record it: its state store cannot be reached.',
      quotaRemainingLine(published.quota, published.project?.label),
      ACTS_ON,
    ].filter(Boolean);
    return toolOutput(
      {
        url,
        type,
        ...(notifyTime ? { notify_time: notifyTime, notify_time_source: own.source } : {}),
        ...latest,
        recorded: !!record,
        ...(published.quota ? { quota_remaining: quotaRemaining(published.quota, published.project?.label) } : {}),
      },
      text.join('\n'),
    );
  }
}

function googleHistory(meta: UrlNotificationMetadata): History {
  const one = (n: UrlNotification | undefined) =>
    n?.notifyTime ? { type: n.type ?? '', notify_time: n.notifyTime, source: 'google' as const } : undefined;
  const latest_update = one(meta.latestUpdate);
  const latest_remove = one(meta.latestRemove);
  return { ...(latest_update ? { latest_update } : {}), ...(latest_remove ? { latest_remove } : {}) };
}

/** The newer of Google's latest and this server's latest accepted notification, per type. */
function merge(google: History, sent: readonly SentNotification[]): History {
  const pick = (type: 'URL_UPDATED' | 'URL_DELETED', theirs: History['latest_update']) => {
    const ours = sent.find((n) => n.type === type && n.outcome === 'accepted');
    const mine = ours ? { type, notify_time: ours.google_notify_time ?? ours.sent_at, source: 'this_server' as const } : undefined;
    if (!theirs) {
      return mine;
    }
    if (!mine) {
      return theirs;
    }
    return Date.parse(mine.notify_time) > Date.parse(theirs.notify_time) ? mine : theirs;
  };
  const latest_update = pick('URL_UPDATED', google.latest_update);
  const latest_remove = pick('URL_DELETED', google.latest_remove);
  return { ...(latest_update ? { latest_update } : {}), ...(latest_remove ? { latest_remove } : {}) };
}

function strip(history: History) {
  const bare = (n: History['latest_update']) => n && { type: n.type, notify_time: n.notify_time };
  return {
    ...(history.latest_update ? { latest_update: bare(history.latest_update) } : {}),
    ...(history.latest_remove ? { latest_remove: bare(history.latest_remove) } : {}),
  };
}

/** The outcome for the URL, in one line: the latest notification of each type, or why none is known. */
function headline(url: string, latest: History, sent: readonly SentNotification[]): string {
  if (latest.latest_update || latest.latest_remove) {
    return `${inert(url)}: latest URL_UPDATED ${describeLatest(latest.latest_update)}; latest URL_DELETED ${describeLatest(latest.latest_remove)}.`;
  }
  const [lost] = sent;
  if (lost) {
    return `${inert(url)}: no notification Google is known to have; this server sent ${lost.type} at ${lost.sent_at}, but Google's answer was lost, so it may or may not have it.`;
  }
  return `${inert(url)}: no Indexing API notification known, neither in Google's history nor in this server's record.`;
}

function describeLatest(latest: History['latest_update']): string {
  if (!latest) {
    return 'none known';
  }
  return `${latest.notify_time} (${latest.source === 'google' ? "Google's history" : "this server's record"})`;
}

function sentLine(sent: readonly SentNotification[] | undefined): string {
  if (!sent) {
    return "This server's own record cannot be read: its state store cannot be reached.";
  }
  if (!sent.length) {
    return "This server's own record has no notification for this URL (another client, or this server before its state store began, may have sent one).";
  }
  const [newest] = sent;
  const lost = sent.filter((n) => n.outcome === 'unknown').length;
  return (
    // The record is read newest first, at most 10 (sent_by_this_server's bound): 10 means "10 or more".
    `This server's record: ${sent.length === 1 ? 'one notification' : sent.length >= 10 ? 'at least 10 notifications' : `${sent.length} notifications`}, the newest ${newest.type} at ${newest.sent_at} by ${inert(newest.principal, 80)}` +
    `${lost ? `; for ${lost} of them Google's answer was lost, so it may or may not have them` : ''} (each in sent_by_this_server).`
  );
}

function sentOut(n: SentNotification) {
  return {
    type: n.type,
    sent_at: n.sent_at,
    principal: n.principal,
    outcome: n.outcome,
    ...(n.google_notify_time ? { google_notify_time: n.google_notify_time } : {}),
  };
}
