import { Injectable } from '@nestjs/common';
import { GoogleApiError } from '../google/google-error.js';
import { GoogleService } from '../google/google.service.js';
import type { UrlNotificationMetadata } from '../google/indexing.client.js';

export type NotificationType = 'URL_UPDATED' | 'URL_DELETED';

export const PUBLISH_QUOTA_PER_DAY = 200;

const OWNER_NEEDED =
  'The Indexing API accepts calls only from a verified Owner of a Search Console property that contains the URL (a Full or Restricted user is not enough).';

/** Indexing API urlNotifications (publish / getMetadata). No MCP here. */
@Injectable()
export class IndexingService {
  constructor(private readonly google: GoogleService) {}

  /** The notification history of a URL, or undefined when none was ever sent (Google answers 404). */
  async metadata(url: string): Promise<UrlNotificationMetadata | undefined> {
    try {
      return await this.google.call({ method: 'urlNotifications.getMetadata', action: `read the Indexing API notification history of ${url}` }, (c) =>
        c.indexing.urlNotifications.getMetadata({ url }),
      );
    } catch (error) {
      if (error instanceof GoogleApiError && error.status === 404) return undefined;
      throw explain(error);
    }
  }

  /**
   * Sends one notification. A POST that counts against a daily quota is never
   * repeated on our own: when the outcome is unknown, the caller is told so.
   */
  async publish(url: string, type: NotificationType): Promise<UrlNotificationMetadata> {
    try {
      const data = await this.google.call({ method: 'urlNotifications.publish', action: `send a ${type} notification for ${url} to the Indexing API` }, (c) =>
        c.indexing.urlNotifications.publish({ requestBody: { url, type } }),
      );
      return data.urlNotificationMetadata ?? { url };
    } catch (error) {
      if (error instanceof GoogleApiError && error.facts.outcome === 'unknown') {
        throw error.rephrased(
          `${unknownOutcome(error)} while sending the ${type} notification for ${url}, so Google may or may not have recorded it. It was sent once and not retried, because a duplicate counts against the ${PUBLISH_QUOTA_PER_DAY}-per-day publish quota. Check with get_indexing_status (a notify time from just now means it was recorded) before sending it again.`,
        );
      }
      throw explain(error);
    }
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
  if (!(error instanceof GoogleApiError) || error.kind !== 'permission') return error;
  return error.rephrased(`${error.message} ${OWNER_NEEDED}`);
}
