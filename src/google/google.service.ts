import { setTimeout as sleep } from 'node:timers/promises';
import type { indexing_v3 } from '@googleapis/indexing';
import type { searchconsole_v1 } from '@googleapis/searchconsole';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { GoogleAuthService } from '../auth/google-auth.service.js';
import { OBSERVER, type Observer } from '../common/observer.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import { propertyHost } from '../property/property.js';
import { describeFailure, type Failure, GoogleApiError, type GoogleOperation, isRetryable, readFailure } from './google-error.js';
import { SiteVerificationClient } from './site-verification.client.js';

const MAX_ATTEMPTS = 4;
const MAX_RETRY_AFTER_SECONDS = 20;

/**
 * The generated Google clients, pointed at GSC_API_ROOT_URL when set, and the
 * one place a Google call is made: bounded retries that honour Retry-After, and
 * failures turned into sentences.
 *
 * Retries are ours rather than gaxios's: gaxios ignores Retry-After, retries a
 * daily-quota 429 as eagerly as a transient one, and never retries POST — which
 * is right for Indexing publish but wrong for read-only POSTs such as
 * searchanalytics.query and URL inspection.
 */
@Injectable()
export class GoogleService {
  private clients?: Clients;
  private loading?: Promise<Clients>;

  constructor(
    private readonly auth: GoogleAuthService,
    @Inject(CONFIG) private readonly config: Config,
    @Optional() @Inject(OBSERVER) private readonly observer?: Observer,
  ) {}

  // The clients exist once the first call() has loaded them; every request goes through call().
  searchconsole(): searchconsole_v1.Searchconsole {
    return this.loaded().searchconsole;
  }

  indexing(): indexing_v3.Indexing {
    return this.loaded().indexing;
  }

  siteVerification(): SiteVerificationClient {
    return this.loaded().siteVerification;
  }

  /** Runs one Google call; throws GoogleApiError with a model-readable message. */
  async call<T>(op: GoogleOperation, request: () => Promise<{ data: T }>): Promise<T> {
    this.clients ??= await (this.loading ??= this.load());
    for (let attempt = 1; ; attempt++) {
      try {
        return (await request()).data;
      } catch (error) {
        if (error instanceof UserFacingError) throw error;
        const failure = readFailure(error);
        const wait = this.retryDelay(op, failure, attempt);
        if (wait === undefined) throw await this.toError(failure, op, attempt);
        await sleep(wait);
      }
    }
  }

  private retryDelay(op: GoogleOperation, failure: Failure, attempt: number): number | undefined {
    if (!op.retry || attempt >= MAX_ATTEMPTS || !isRetryable(failure)) return undefined;
    if (failure.retryAfterSeconds !== undefined) {
      return failure.retryAfterSeconds > MAX_RETRY_AFTER_SECONDS ? undefined : failure.retryAfterSeconds * 1000;
    }
    const base = 250 * 3 ** (attempt - 1);
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  private async toError(failure: Failure, op: GoogleOperation, attempts: number): Promise<GoogleApiError> {
    this.observer?.googleError(failure.status);
    let message = describeFailure(failure, op, this.auth.summary().principal, attempts);
    if (op.property && failure.status === 403 && !/SCOPE/i.test(`${failure.reason}`)) message += await this.accessHint(op.property);
    return new GoogleApiError(message, failure.status, failure.reason, failure.quota, failure.retryAfterSeconds, failure.message);
  }

  // Search Console answers a misspelt property with 403, and the two spellings of
  // a site hold different data: say whether this exact property is listed (then
  // the permission level is the problem) or which spellings exist for the host.
  private async accessHint(property: string): Promise<string> {
    try {
      const { data } = await this.searchconsole().sites.list({});
      const sites = data.siteEntry ?? [];
      const exact = sites.find((s) => s.siteUrl === property);
      if (exact) return ` The credential's permission on ${property} is ${exact.permissionLevel}.`;
      const host = propertyHost(property).replace(/^www\./, '');
      const same = sites.map((s) => s.siteUrl ?? '').filter((url) => url && propertyHost(url).replace(/^www\./, '').endsWith(host));
      return same.length
        ? ` ${property} is not among this credential's properties; for ${host} it has: ${same.join(', ')}.`
        : ` ${property} is not among this credential's properties, and none exists for ${host}; list_sites shows the ones it can use.`;
    } catch {
      return '';
    }
  }

  private loaded(): Clients {
    if (!this.clients) throw new Error('Google clients are used before GoogleService.call() loaded them');
    return this.clients;
  }

  // The generated clients cost ~100 ms to import; a server that only lists its
  // tools, or has no credential, never loads them.
  private async load(): Promise<Clients> {
    const auth = await this.auth.authClient();
    const [{ searchconsole }, { indexing }, { createAPIRequest }] = await Promise.all([
      import('@googleapis/searchconsole'),
      import('@googleapis/indexing'),
      import('googleapis-common'),
    ]);
    const rootUrl = this.config.google.apiRootUrl ? `${this.config.google.apiRootUrl}/` : undefined;
    const options = { auth, retry: false, ...(rootUrl ? { rootUrl } : {}) };
    return {
      searchconsole: searchconsole({ version: 'v1', ...options }),
      // @googleapis/indexing 6 is typed against google-auth-library 10; the
      // client only calls authClient.request, which both versions share.
      indexing: indexing({ ...(options as unknown as indexing_v3.Options), version: 'v3' }),
      siteVerification: new SiteVerificationClient(options, createAPIRequest),
    };
  }
}

type Clients = { searchconsole: searchconsole_v1.Searchconsole; indexing: indexing_v3.Indexing; siteVerification: SiteVerificationClient };
