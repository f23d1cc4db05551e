import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { STATE_STORE } from '../state/state.module.js';
import { type StateStore, StateUnavailableError } from '../state/state-store.js';
import { stateKey } from '../state/keys.js';

// The server's own record of the Indexing API notifications it sent
// (PRODUCT §8c, §9a). Google's getMetadata is widely reported to answer 404
// right after a successful publish, and publish to answer without latestUpdate,
// so this record is the only reliable history of what this server did. It is
// per URL, in the state store (every process and replica sees it):
//   indexing:v1:sent:<sha256 of the URL>   stream of SentNotification JSON, newest 50 kept, 180 days after the latest

export type NotificationType = 'URL_UPDATED' | 'URL_DELETED';

export interface SentNotification {
  readonly url: string;
  readonly type: NotificationType;
  /** When this server had Google's answer (or gave up waiting for it). */
  readonly sent_at: string;
  /** Who asked for it (the MCP caller). */
  readonly principal: string;
  /** accepted: Google answered 200; unknown: no usable answer (timeout, 5xx, a broken connection), so Google may or may not have it. */
  readonly outcome: 'accepted' | 'unknown';
  /** Google's notifyTime, when its answer carried one. */
  readonly google_notify_time?: string;
}

const KEEP = 50;
const TTL_MS = 180 * 24 * 3_600_000;

@Injectable()
export class IndexingRecord {
  private readonly logger = new Logger('IndexingRecord');

  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  /** Keeps a notification; false when the store cannot be reached (the publish itself has happened and is reported anyway). */
  async add(notification: SentNotification): Promise<boolean> {
    try {
      await this.store.append(keyOf(notification.url), JSON.stringify(notification), { maxLength: KEEP, ttlMs: TTL_MS });
      return true;
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) {
        throw error;
      }
      this.logger.warn(`Indexing notification for ${notification.url} not recorded: ${error.message}`);
      return false;
    }
  }

  /** The newest notifications sent for a URL, newest first; undefined when the store cannot be read. */
  async of(url: string, limit = 10): Promise<SentNotification[] | undefined> {
    try {
      const entries = await this.store.readLatest(keyOf(url), { limit });
      return entries.map((e) => parse(e.value)).filter((n): n is SentNotification => n !== undefined && n.url === url);
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) {
        throw error;
      }
      return undefined;
    }
  }
}

function keyOf(url: string): string {
  return stateKey('indexing', createHash('sha256').update(url).digest('hex'));
}

function parse(text: string): SentNotification | undefined {
  try {
    const value = JSON.parse(text) as SentNotification;
    return typeof value.url === 'string' &&
      (value.type === 'URL_UPDATED' || value.type === 'URL_DELETED') &&
      typeof value.sent_at === 'string'
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}
