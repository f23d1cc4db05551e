import { Injectable } from '@nestjs/common';
import type { indexing_v3 } from '@googleapis/indexing';
import { GoogleApiError } from '../google/google-error.js';
import { GoogleService } from '../google/google.service.js';

export type NotificationType = 'URL_UPDATED' | 'URL_DELETED';

export const PUBLISH_QUOTA_PER_DAY = 200;

const OWNER_NEEDED =
  'The Indexing API accepts calls only from a verified Owner of a Search Console property that contains the URL (a Full or Restricted user is not enough), and only when the Indexing API is enabled in the credential’s Google Cloud project.';

/** Indexing API urlNotifications (publish / getMetadata). No MCP here. */
@Injectable()
export class IndexingService {
  constructor(private readonly google: GoogleService) {}

  /** The notification history of a URL, or undefined when none was ever sent (Google answers 404). */
  async metadata(url: string): Promise<indexing_v3.Schema$UrlNotificationMetadata | undefined> {
    try {
      return await this.google.call({ action: `read the Indexing API notification history of ${url}`, retry: true, write: false }, () =>
        this.google.indexing().urlNotifications.getMetadata({ url }),
      );
    } catch (error) {
      if (error instanceof GoogleApiError && error.status === 404) return undefined;
      throw explain(error, false);
    }
  }

  /**
   * Sends one notification. A POST that counts against a daily quota is never
   * repeated on our own: when the outcome is unknown, the caller is told so.
   */
  async publish(url: string, type: NotificationType): Promise<indexing_v3.Schema$UrlNotificationMetadata> {
    try {
      const data = await this.google.call({ action: `send a ${type} notification for ${url} to the Indexing API`, retry: false, write: true }, () =>
        this.google.indexing().urlNotifications.publish({ requestBody: { url, type } }),
      );
      return data.urlNotificationMetadata ?? { url };
    } catch (error) {
      if (error instanceof GoogleApiError && (error.status === undefined || error.status >= 500)) {
        const what = error.status === undefined ? 'The connection to Google failed' : `Google failed with HTTP ${error.status}`;
        throw error.rephrased(
          `${what} while sending the ${type} notification for ${url}, so Google may or may not have recorded it. It was sent once and not retried, because a duplicate counts against the ${PUBLISH_QUOTA_PER_DAY}-per-day publish quota. Check with get_indexing_status (a notify time from just now means it was recorded) before sending it again.`,
        );
      }
      throw explain(error, true);
    }
  }
}

/** Adds the Indexing API's own rules to Google's permission and quota refusals. */
function explain(error: unknown, publish: boolean): unknown {
  if (!(error instanceof GoogleApiError)) return error;
  let extra: string | undefined;
  if (error.status === 403 && !/scope/i.test(`${error.reason} ${error.message}`)) extra = OWNER_NEEDED;
  if (error.status === 429) {
    extra = publish
      ? `The Indexing API allows ${PUBLISH_QUOTA_PER_DAY} publish requests (URL_UPDATED and URL_DELETED together) per day per Google Cloud project; the count resets at midnight Pacific Time.`
      : 'The Indexing API allows 180 notification-history reads per minute per Google Cloud project.';
  }
  if (!extra) return error;
  return error.rephrased(`${error.message} ${extra}`);
}
