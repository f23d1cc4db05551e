import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { CONFIG, type Config } from '../config/config.js';
import { GoogleApiError, type GoogleOperation } from '../google/google-error.js';
import { GoogleService } from '../google/google.service.js';
import type { UrlNotificationMetadata } from '../google/indexing.client.js';
import { QuotaLedger } from '../quota/quota-ledger.service.js';
import type { QuotaScope, QuotaSnapshot } from '../quota/quota-types.js';
import { GOOGLE_QUOTA_LIMITS } from '../quota/quota-limits.js';
import { quotaProjectOf, type QuotaProject } from '../quota/quota-project.js';
import { IndexingRecord, type NotificationType, type SentNotification } from './indexing-record.service.js';

export type { NotificationType } from './indexing-record.service.js';

const OWNER_NEEDED =
  'The Indexing API accepts calls only from a verified Owner of a Search Console property that contains the URL (a Full or Restricted user is not enough).';

/** What a publish came to: Google's answer, this server's record of it, and the project's quota as this server counts it. */
export interface Published {
  readonly metadata: UrlNotificationMetadata;
  /** undefined when the state store could not be written. */
  readonly record?: SentNotification;
  /** This server's record of the URL after this publish, newest first (earlier notifications of the other type included). */
  readonly sent: readonly SentNotification[];
  readonly quota?: QuotaSnapshot;
  readonly project?: QuotaProject;
}

/** Google's history of a URL (undefined: Google answered 404) beside this server's own record. */
export interface NotificationHistory {
  readonly google?: UrlNotificationMetadata;
  /** Newest first; undefined when the state store cannot be read. */
  readonly sent?: SentNotification[];
}

/** Indexing API urlNotifications (publish / getMetadata), with this server's own record of what it sent. No MCP here. */
@Injectable()
export class IndexingService {
  private readonly project?: QuotaProject;

  constructor(
    private readonly google: GoogleService,
    private readonly record: IndexingRecord,
    private readonly ledger: QuotaLedger,
    private readonly clock: Clock,
    @Inject(CONFIG) config: Config,
  ) {
    this.project = quotaProjectOf(config.credential, config.connected?.clientId);
  }

  /**
   * Google's notification history of a URL beside this server's record. A
   * 404 is Google's answer "no history", which it also gives right after a
   * successful publish: it is reported, never read as "never notified".
   */
  async history(url: string): Promise<NotificationHistory> {
    const [google, sent] = await Promise.all([this.metadata(url), this.record.of(url)]);
    return { ...(google ? { google } : {}), ...(sent ? { sent } : {}) };
  }

  /** Google's notification history of a URL, or undefined when Google answers 404. */
  async metadata(url: string): Promise<UrlNotificationMetadata | undefined> {
    try {
      return await this.google.call(
        { method: 'urlNotifications.getMetadata', action: `read the Indexing API notification history of ${url}` },
        (c) => c.indexing.urlNotifications.getMetadata({ url }),
      );
    } catch (error) {
      if (error instanceof GoogleApiError && error.status === 404) {
        return undefined;
      }
      throw explain(error);
    }
  }

  /**
   * Sends one notification and records it. A POST that counts against a daily
   * quota is never repeated on our own: when the outcome is unknown, the caller
   * is told so, and the record says so too.
   */
  async publish(url: string, type: NotificationType, principal: string): Promise<Published> {
    const scope: QuotaScope | undefined = this.project && { kind: 'publish', project: this.project.id };
    const op: GoogleOperation = {
      method: 'urlNotifications.publish',
      action: `send a ${type} notification for ${url} to the Indexing API`,
    };
    const reserved = scope ? await this.ledger.reserve(scope) : undefined;
    const reservation = reserved?.ok ? reserved.reservation : undefined;
    try {
      const data = await this.google.call(op, (c) => c.indexing.urlNotifications.publish({ requestBody: { url, type } }));
      const metadata = data.urlNotificationMetadata ?? { url };
      const echoed = (type === 'URL_UPDATED' ? metadata.latestUpdate : metadata.latestRemove)?.notifyTime ?? undefined;
      const record = await this.keep({ url, type, principal, outcome: 'accepted', ...(echoed ? { google_notify_time: echoed } : {}) });
      const sent = (await this.record.of(url)) ?? (record ? [record] : []);
      return { metadata, ...(record ? { record } : {}), sent, ...(await this.quotaOf(scope)) };
    } catch (error) {
      if (error instanceof GoogleApiError && error.facts.outcome === 'unknown') {
        // Google may have counted and recorded it: keep the reservation and the record.
        const kept = await this.keep({ url, type, principal, outcome: 'unknown' });
        throw error.rephrased(
          `${unknownOutcome(error)} while sending the ${type} notification for ${url}, so Google may or may not have recorded it. It was sent once and not retried, because a duplicate counts against the ${GOOGLE_QUOTA_LIMITS.publishPerDay}-per-day publish quota. ` +
            `${kept ? 'This server recorded the attempt. ' : ''}Check with get_indexing_status (a notify time from just now means it was recorded) before sending it again.`,
        );
      }
      await this.ledger.release(reservation);
      const explained = explain(error);
      if (scope && explained instanceof GoogleApiError && explained.kind === 'quota') {
        throw await this.ledger.explainRefusal(explained, scope, op, 'day');
      }
      throw explained;
    }
  }

  private async keep(notification: Omit<SentNotification, 'sent_at'>): Promise<SentNotification | undefined> {
    const full: SentNotification = { ...notification, sent_at: this.clock.now().toISOString() };
    return (await this.record.add(full)) ? full : undefined;
  }

  private async quotaOf(scope: QuotaScope | undefined): Promise<{ quota?: QuotaSnapshot; project?: QuotaProject }> {
    const quota = scope ? await this.ledger.snapshot(scope) : undefined;
    return { ...(quota ? { quota } : {}), ...(this.project ? { project: this.project } : {}) };
  }
}

function unknownOutcome(error: GoogleApiError): string {
  switch (error.kind) {
    case 'timeout':
      return 'Google did not answer in time (GSC_GOOGLE_TIMEOUT_MS)';
    case 'malformed':
      return 'Google answered with something that is not a publish response';
    case 'unavailable':
      return `Google failed with HTTP ${error.status}`;
    default:
      return 'The connection to Google failed';
  }
}

/** Adds the Indexing API's own rule to a permission refusal (quota limits are in the quota sentence already). */
function explain(error: unknown): unknown {
  if (!(error instanceof GoogleApiError) || error.kind !== 'permission') {
    return error;
  }
  return error.rephrased(`${error.message} ${OWNER_NEEDED}`);
}
