import { Injectable } from '@nestjs/common';
import type { searchconsole_v1 } from '@googleapis/searchconsole';
import { UserFacingError } from '../common/user-facing-error.js';
import { CallCancelledError, GoogleApiError } from '../google/google-error.js';
import { GoogleService } from '../google/google.service.js';
import { actingAccountName, actingIdentity } from '../google/connected-accounts.js';
import { runBounded } from '../common/bounded-pool.js';
import { NOTHING_CHANGED } from '../common/sentences.js';

/** Submissions in flight at once in a batch: well under 20 QPS / 200 QPM per user. */
export const SUBMIT_CONCURRENCY = 4;

export interface SubmitResult {
  readonly sitemap_url: string;
  readonly submitted: boolean;
  readonly error?: string;
  /** Not sent, because the client cancelled the call first. */
  readonly cancelled?: true;
}

export interface SubmitManyOptions {
  readonly concurrency?: number;
  /** The MCP client cancelled: no new submission starts; those sent finish and are reported. */
  readonly signal?: AbortSignal;
  /** Called as each submission is answered, for progress notifications. */
  readonly onSettled?: (result: SubmitResult, settled: number) => void;
}

const CANCELLED = 'Not sent: the request was cancelled before this sitemap was submitted.';

/** Search Console sitemaps (list/get/submit/delete). No MCP here. */
@Injectable()
export class SitemapsService {
  constructor(private readonly google: GoogleService) {}

  async list(property: string, sitemapIndex?: string): Promise<searchconsole_v1.Schema$WmxSitemap[]> {
    const what = sitemapIndex ? `list the sitemaps in the index ${sitemapIndex} of ${property}` : `list the sitemaps of ${property}`;
    const data = await this.google.call({ method: 'sitemaps.list', action: what, property }, (c) =>
      c.searchconsole.sitemaps.list({ siteUrl: property, ...(sitemapIndex ? { sitemapIndex } : {}) }),
    );
    // Google omits empty repeated fields: {} means none.
    return data.sitemap ?? [];
  }

  async get(property: string, sitemapUrl: string): Promise<searchconsole_v1.Schema$WmxSitemap> {
    try {
      return await this.google.call({ method: 'sitemaps.get', action: `read the sitemap ${sitemapUrl} of ${property}`, property }, (c) =>
        c.searchconsole.sitemaps.get({ siteUrl: property, feedpath: sitemapUrl }),
      );
    } catch (error) {
      throw notSubmitted(
        error,
        property,
        sitemapUrl,
        NOTHING_CHANGED,
        'list_sitemaps shows the submitted ones, and with sitemap_index the children of an index.',
      );
    }
  }

  async submit(property: string, sitemapUrl: string, signal?: AbortSignal): Promise<void> {
    // PUT: sending it again has no further effect, so the usual retries are safe (none once cancelled).
    await this.google.call(
      { method: 'sitemaps.submit', action: `submit the sitemap ${sitemapUrl} to ${property}`, property },
      (c) => c.searchconsole.sitemaps.submit({ siteUrl: property, feedpath: sitemapUrl }),
      { signal },
    );
  }

  async delete(property: string, sitemapUrl: string): Promise<void> {
    try {
      await this.google.call({ method: 'sitemaps.delete', action: `delete the sitemap ${sitemapUrl} from ${property}`, property }, (c) =>
        c.searchconsole.sitemaps.delete({ siteUrl: property, feedpath: sitemapUrl }),
      );
    } catch (error) {
      throw notSubmitted(
        error,
        property,
        sitemapUrl,
        'Nothing was deleted.',
        'list_sitemaps shows the submitted ones; only those can be deleted (the children of a sitemap index go with their index).',
      );
    }
  }

  /**
   * Submits each sitemap once, a few at a time. One failure does not stop the
   * others — except an exhausted quota, a rejected credential or a refused
   * permission on the property, after which the rest would fail the same way
   * (and each failure would cost quota), so they are not sent. Once the signal
   * aborts, nothing new is sent; what was sent finishes and is reported.
   */
  async submitMany(property: string, sitemapUrls: readonly string[], options: SubmitManyOptions = {}): Promise<SubmitResult[]> {
    const stops = (error: unknown) => error instanceof GoogleApiError && stopReason(error) !== undefined;
    let settled = 0;
    const submitOne = async (sitemap_url: string): Promise<void> => {
      try {
        await this.submit(property, sitemap_url, options.signal);
      } catch (error) {
        if (!(error instanceof CallCancelledError)) {
          options.onSettled?.({ sitemap_url, submitted: false, error: (error as Error).message }, ++settled);
        }
        throw error;
      }
      options.onSettled?.({ sitemap_url, submitted: true }, ++settled);
    };
    const outcomes = await runBounded(sitemapUrls, options.concurrency ?? SUBMIT_CONCURRENCY, submitOne, {
      stopOn: stops,
      signal: options.signal,
    });
    const unexpected = outcomes.find((o) => o.state === 'failed' && !(o.error instanceof UserFacingError));
    if (unexpected?.state === 'failed') {
      throw unexpected.error;
    }
    const stopper = outcomes.find((o) => o.state === 'failed' && stops(o.error));
    const stop = stopper?.state === 'failed' ? stopReason(stopper.error as GoogleApiError) : undefined;
    return outcomes.map((outcome, i): SubmitResult => {
      const sitemap_url = sitemapUrls[i];
      if (outcome.state === 'done') {
        return { sitemap_url, submitted: true };
      }
      if (outcome.state === 'skipped') {
        return { sitemap_url, submitted: false, error: `Not sent: ${stop}` };
      }
      if (outcome.state === 'cancelled' || outcome.error instanceof CallCancelledError) {
        return { sitemap_url, submitted: false, error: CANCELLED, cancelled: true };
      }
      return { sitemap_url, submitted: false, error: (outcome.error as Error).message };
    });
  }
}

function stopReason(error: GoogleApiError): string | undefined {
  switch (error.kind) {
    case 'quota':
      return "Google's quota was exhausted by an earlier submission in this batch; submit it again later.";
    case 'credential':
      return `Google rejected the access token of ${actingIdentity('the credential')} on an earlier submission in this batch.`;
    case 'service_disabled':
      return actingAccountName()
        ? "Google refused an earlier submission in this batch because the Search Console API is not enabled in the Google Cloud project of this server's OAuth client (GSC_GOOGLE_OAUTH_CLIENT_ID), so the rest would be refused too."
        : "Google refused an earlier submission in this batch because the Search Console API is not enabled in the credential's Google Cloud project, so the rest would be refused too.";
    case 'permission':
    case 'scope':
      return 'Google refused an earlier submission in this batch for lack of permission on the property, so the rest would be refused too.';
    default:
      return undefined;
  }
}

/** A 404 on a sitemap means the property has no submission under exactly that URL. */
function notSubmitted(error: unknown, property: string, sitemapUrl: string, unchanged: string, next: string): unknown {
  if (error instanceof GoogleApiError && error.status === 404) {
    return error.rephrased(
      `${property} has no sitemap known to Search Console as ${sitemapUrl}. ${unchanged} The URL must match the submitted one exactly (scheme, www, path); ${next}`,
    );
  }
  return error;
}
