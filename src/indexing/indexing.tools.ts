import { Injectable } from '@nestjs/common';
import type { UrlNotification, UrlNotificationMetadata } from '../google/indexing.client.js';
import * as z from 'zod';
import { PageUrlArg } from '../mcp/tool-args.js';
import type { TargetOf, ToolCall } from '../mcp/tool-call.js';
import { Tool, ToolProvider } from '../mcp/tool.decorator.js';
import { type ToolOutput, toolOutput } from '../mcp/tool-output.js';
import { IndexingService, PUBLISH_QUOTA_PER_DAY } from './indexing.service.js';

const Notification = z.object({ type: z.string(), notify_time: z.string() });
const StatusInput = z.object({ url: PageUrlArg });
const PublishInput = z.object({
  url: PageUrlArg,
  type: z.enum(['URL_UPDATED', 'URL_DELETED']).optional().describe('Default URL_UPDATED; URL_DELETED once the page is gone.'),
});

const NOT_INDEX_STATUS = 'This is the history of notifications sent, not index status: inspect_url shows whether Google indexed the page.';

@ToolProvider()
@Injectable()
export class IndexingTools {
  constructor(private readonly indexing: IndexingService) {}

  @Tool({
    name: 'get_indexing_status',
    title: 'Indexing API notification history',
    description: 'When the Indexing API was last notified of an update or removal of a URL. Not index status: use inspect_url for that.',
    input: StatusInput,
    output: z.object({
      url: z.string(),
      notified: z.boolean().describe('Whether any notification was ever sent for this URL.'),
      latest_update: Notification.optional(),
      latest_remove: Notification.optional(),
    }),
    access: 'read',
    apis: ['indexing'],
  })
  async getIndexingStatus(_args: unknown, call: ToolCall<TargetOf<typeof StatusInput>>): Promise<ToolOutput> {
    const url = call.target.page.href;
    const meta = await this.indexing.metadata(url);
    if (!meta) {
      return toolOutput({ url, notified: false }, `No Indexing API notification was ever sent for ${url}: Google has no notification history for it. ${NOT_INDEX_STATUS}`);
    }
    const history = historyOf(meta);
    const lines = [
      `Indexing API notification history for ${url}:`,
      `- latest URL_UPDATED: ${history.latest_update?.notify_time ?? 'none'}`,
      `- latest URL_DELETED: ${history.latest_remove?.notify_time ?? 'none'}`,
      NOT_INDEX_STATUS,
    ];
    return toolOutput({ url, notified: true, ...history }, lines.join('\n'));
  }

  @Tool({
    name: 'request_indexing',
    title: 'Notify the Indexing API',
    description:
      'Tell the Indexing API a URL was updated or removed. Google acts on it only for JobPosting or BroadcastEvent pages; needs Owner access; 200/day quota. Other pages: use sitemaps.',
    input: PublishInput,
    output: z.object({
      url: z.string(),
      type: z.enum(['URL_UPDATED', 'URL_DELETED']),
      notify_time: z.string().optional().describe('When Google recorded this notification.'),
      latest_update: Notification.optional(),
      latest_remove: Notification.optional(),
    }),
    access: 'write',
    apis: ['indexing'],
  })
  async requestIndexing(args: z.infer<typeof PublishInput>, call: ToolCall<TargetOf<typeof PublishInput>>): Promise<ToolOutput> {
    const url = call.target.page.href;
    const type = args.type ?? 'URL_UPDATED';
    const history = historyOf(await this.indexing.publish(url, type));
    const notifyTime = (type === 'URL_UPDATED' ? history.latest_update : history.latest_remove)?.notify_time;
    const text = [
      `Google recorded the ${type} notification for ${url}${notifyTime ? ` at ${notifyTime}` : ''}; do not send it again for the same change.`,
      'Google acts on Indexing API notifications only for pages with JobPosting or BroadcastEvent (in a VideoObject) structured data; for other pages use a sitemap (submit_sitemap) instead.',
      `The API needs Owner access on the property, and each notification counts against the ${PUBLISH_QUOTA_PER_DAY}-per-day publish quota.`,
      'A notification is not a promise to index: get_indexing_status shows what was sent, inspect_url whether the page is indexed.',
    ];
    return toolOutput({ url, type, ...(notifyTime ? { notify_time: notifyTime } : {}), ...history }, text.join(' '));
  }
}

function historyOf(meta: UrlNotificationMetadata) {
  const one = (n: UrlNotification | undefined) => (n?.notifyTime ? { type: n.type ?? '', notify_time: n.notifyTime } : undefined);
  const latest_update = one(meta.latestUpdate);
  const latest_remove = one(meta.latestRemove);
  return { ...(latest_update ? { latest_update } : {}), ...(latest_remove ? { latest_remove } : {}) };
}
