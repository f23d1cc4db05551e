import type { searchconsole_v1 } from '@googleapis/searchconsole';
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { OAuth2Client } from 'google-auth-library';
import { GoogleAuthService } from './google-auth.service.js';
import { Clock } from '../common/clock.js';
import { OBSERVER, type Observer } from '../common/observer.js';
import { telemetry } from '../common/telemetry.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import { propertyHost } from '../property/property.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import { actingAs, ConnectedAccounts, type ConnectedGrant } from './connected-accounts.js';
import { CallCancelledError, describeFailure, GoogleApiError, type GoogleOperation, outcomeOf } from './google-error.js';
import { type Failure, MalformedAnswerError, neverSent, readFailure } from './google-failure.js';
import { answerProblem, type MethodSpec, methodSpec } from './google-methods.js';
import { type Sent, sentAttributes } from './google-span.js';
import { IndexingClient } from './indexing.client.js';
import { SiteVerificationClient } from './site-verification.client.js';

/** Requests sent for one call at most, first one included. */
export const MAX_ATTEMPTS = 4;
/**
 * A request that timed out (each attempt may last the whole deadline) or was
 * answered with garbage (a proxy or portal rarely stops doing so within
 * seconds) is sent at most this often in one call.
 */
export const MAX_SUSPECT_ATTEMPTS = 2;
const MAX_RETRY_AFTER_SECONDS = 20;

/** The Google clients a request function is handed. */
export interface GoogleClients {
  readonly searchconsole: searchconsole_v1.Searchconsole;
  readonly indexing: IndexingClient;
  readonly siteVerification: SiteVerificationClient;
}

/** The clients of one call, the OAuth client they authenticate with, and in connected mode the grant they act with. */
interface Loaded {
  readonly clients: GoogleClients;
  readonly auth: OAuth2Client;
  readonly grant?: ConnectedGrant;
}

/** One Google request, made with the clients it is given. */
export type GoogleRequest<T> = (clients: GoogleClients) => Promise<{ data: T }>;

/** How one call may be sent again, beyond the method's own rules. */
export interface CallOptions {
  /**
   * Aborted when the MCP client cancelled: a call not yet sent is not sent
   * (CallCancelledError), and a failed one is not sent again. A request already
   * on its way is never interrupted — its answer is kept, so what Google did is known.
   */
  readonly signal?: AbortSignal;
  /**
   * false: a quota answer is thrown at once instead of being retried, because
   * the caller (a batch) waits and probes once for all of its items.
   */
  readonly retryQuota?: boolean;
}

/**
 * The one place a Google call is made: the clients (pointed at GSC_API_ROOT_URL
 * when set, with the GSC_GOOGLE_TIMEOUT_MS deadline on every API and token
 * request), bounded retries that honour Retry-After, a check that a 200 is the
 * answer the method returns, and failures turned into sentences.
 *
 * Retries are ours rather than gaxios's: gaxios ignores Retry-After, retries a
 * daily-quota 429 as eagerly as a transient one, and never retries POST — which
 * is right for Indexing publish but wrong for read-only POSTs such as
 * searchanalytics.query and URL inspection.
 */
@Injectable()
export class GoogleService {
  private clients?: Promise<GoogleClients>;
  /** Connected mode: the clients of each grant's OAuth2Client; ConnectedAccounts bounds how many clients live. */
  private readonly connectedClients = new WeakMap<OAuth2Client, Promise<GoogleClients>>();

  constructor(
    private readonly auth: GoogleAuthService,
    @Inject(CONFIG) private readonly config: Config,
    @Optional() private readonly clock: Clock = new Clock(),
    @Optional() @Inject(OBSERVER) private readonly observer?: Observer,
    @Optional() private readonly connected?: ConnectedAccounts,
  ) {}

  /**
   * Runs one Google call: `request` is given the clients (loaded on first use)
   * and may be sent more than once within the bounds of the method's rules.
   * Resolves with the body; throws GoogleApiError with a model-readable message.
   */
  async call<T>(op: GoogleOperation, request: GoogleRequest<T>, options: CallOptions = {}): Promise<T> {
    const { signal } = options;
    if (signal?.aborted) {
      throw new CallCancelledError(op);
    }
    const { clients, auth, grant } = await this.load();
    // The first load imports the clients (~100 ms); the caller may have cancelled meanwhile.
    if (signal?.aborted) {
      throw new CallCancelledError(op);
    }
    let suspect = 0;
    let renewed = false;
    for (let attempt = 1; ; attempt++) {
      const sent = await this.send(op, request, clients, auth, attempt);
      if (!('failure' in sent)) {
        return sent.data;
      }
      const { failure } = sent;
      if (grant && failure.phase === 'api' && failure.kind === 'credential' && !renewed) {
        // A 401 ran nothing: the shared token is dropped and the call sent once more after a refresh,
        // which says (invalid_grant) whether the person revoked this server's access at Google.
        renewed = true;
        await this.connected!.tokenRejected(grant);
        continue;
      }
      if (failure.kind === 'timeout' || failure.kind === 'malformed') {
        suspect++;
      }
      const quotaHeld = failure.kind === 'quota' && options.retryQuota === false;
      const wait = quotaHeld || signal?.aborted ? undefined : retryDelay(methodSpec(op.method), failure, attempt, suspect);
      if (wait === undefined) {
        throw await this.toError(failure, op, attempt, clients, grant);
      }
      // A cancellation during the wait means nothing more is sent: the last failure is the answer.
      if (!(await this.pause(wait, signal))) {
        throw await this.toError(failure, op, attempt, clients, grant);
      }
    }
  }

  /** One request of a call — a Google client span when telemetry is on: Google's answer, or what went wrong. */
  private send<T>(
    op: GoogleOperation,
    request: GoogleRequest<T>,
    clients: GoogleClients,
    auth: OAuth2Client,
    attempt: number,
  ): Promise<Sent<T>> {
    const hooks = telemetry();
    if (!hooks) {
      return this.sendOnce(op, request, clients, auth);
    }
    return hooks.google({ api: methodSpec(op.method).api, method: op.method, attempt }, async (notes) => {
      const sent = await this.sendOnce(op, request, clients, auth);
      notes.set(sentAttributes(sent));
      return sent;
    });
  }

  private async sendOnce<T>(op: GoogleOperation, request: GoogleRequest<T>, clients: GoogleClients, auth: OAuth2Client): Promise<Sent<T>> {
    try {
      const response = await request(clients);
      const problem = answerProblem(op.method, response.data);
      if (problem === undefined) {
        return { data: response.data, status: (response as { status?: number }).status, from: response };
      }
      return { failure: readFailure(new MalformedAnswerError(problem, 'api')), from: response };
    } catch (error) {
      if (!isGoogleFailure(error)) {
        throw error;
      }
      return {
        from: error,
        failure: readFailure(error, {
          // The acting credential's own tokens too (a grant's refresh and access token): Google's text never carries them on.
          secrets: [...this.auth.secrets, ...credentialSecrets(auth)],
          api: methodSpec(op.method).api,
          isTokenUrl: (url) => this.auth.isTokenUrl(url),
          now: this.clock.now(),
        }),
      };
    }
  }

  /** Waits before sending again, through the Clock (so that tests need not wait); false when the signal aborted the wait. */
  private async pause(ms: number, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.clock.sleep(ms, signal);
      return true;
    } catch {
      return false;
    }
  }

  private async toError(
    failure: Failure,
    op: GoogleOperation,
    attempts: number,
    clients: GoogleClients,
    grant?: ConnectedGrant,
  ): Promise<GoogleApiError> {
    this.observer?.googleError(failure.status);
    const now = this.clock.now();
    let message = describeFailure(failure, op, {
      credential: this.auth.credentialContext(grant),
      attempts,
      timeoutMs: this.config.google.timeoutMs,
      now,
    });
    if (op.property && failure.kind === 'permission') {
      message += await (grant ? this.connectedAccessHint(op.property, clients, grant) : this.accessHint(op.property, clients));
    }
    const { kind, phase, status, reason, code, retryAfterSeconds, quota, disabled, credential } = failure;
    return new GoogleApiError(message, {
      kind,
      phase,
      status,
      reason,
      code,
      retryAfterSeconds,
      quota,
      disabled,
      credential,
      outcome: outcomeOf(failure, op.method),
      attempts,
      googleMessage: failure.message,
    });
  }

  // Search Console answers a misspelt property with 403, and the two spellings of
  // a site hold different data: say whether this exact property is listed (then
  // the permission level is the problem) or which spellings exist for the host.
  private async accessHint(property: string, clients: GoogleClients): Promise<string> {
    try {
      const { data } = await clients.searchconsole.sites.list({});
      if (answerProblem('sites.list', data) !== undefined) {
        return '';
      }
      const sites = data.siteEntry ?? [];
      const exact = sites.find((s) => s.siteUrl === property);
      if (exact) {
        return ` The credential's permission on ${property} is ${exact.permissionLevel}.`;
      }
      const host = propertyHost(property).replace(/^www\./, '');
      const same = sites
        .map((s) => s.siteUrl ?? '')
        .filter(
          (url) =>
            url &&
            propertyHost(url)
              .replace(/^www\./, '')
              .endsWith(host),
        );
      return same.length
        ? ` ${property} is not among this credential's properties; for ${host} it has: ${same.join(', ')}.`
        : ` ${property} is not among this credential's properties, and none exists for ${host}; list_sites shows the ones it can use.`;
    } catch {
      return '';
    }
  }

  // The same for a person's own Google account: which of their properties exist, by name.
  private async connectedAccessHint(property: string, clients: GoogleClients, grant: ConnectedGrant): Promise<string> {
    try {
      const { data } = await clients.searchconsole.sites.list({});
      if (answerProblem('sites.list', data) !== undefined) {
        return '';
      }
      const sites = (data.siteEntry ?? []).filter((s) => s.siteUrl);
      const exact = sites.find((s) => s.siteUrl === property);
      if (exact) {
        return ` The permission of ${grant.googleEmail} on ${property} is ${exact.permissionLevel}.`;
      }
      if (sites.length === 0) {
        return ` ${grant.googleEmail} has no Search Console properties at all; connect a Google account that has ${property}.`;
      }
      // Only properties the caller may use are named; the rest are counted (PRODUCT.md §8d).
      const allowed = actingAs.getStore()?.sites;
      const usable = allowed ? sites.filter((s) => isPropertyAllowed(s.siteUrl!, allowed)) : sites;
      const withheld = sites.length - usable.length;
      const shown = usable.slice(0, 10).map((s) => `${s.siteUrl} (${s.permissionLevel})`);
      const more = [usable.length > 10 ? `${usable.length - 10} more` : '', withheld ? `${withheld} more you may not use here` : ''].filter(
        Boolean,
      );
      return usable.length
        ? ` ${property} is not among the properties of ${grant.googleEmail}, which has: ${shown.join(', ')}${more.length ? ` and ${more.join(' and ')}` : ''}.`
        : ` ${property} is not among the properties of ${grant.googleEmail}, which has none you may use here (${withheld} withheld).`;
    } catch {
      return '';
    }
  }

  private async load(): Promise<Loaded> {
    if (this.config.connected) {
      return this.loadConnected();
    }
    this.clients ??= this.build();
    const clients = await this.clients;
    return { clients, auth: await this.auth.authClient() };
  }

  /** Connected mode: the clients acting as the calling principal's grant; NotConnectedError when there is none. */
  private async loadConnected(): Promise<Loaded> {
    const acting = actingAs.getStore();
    if (!acting) {
      // Never a fall-back to some identity: a call path that forgot to say whom it is for is a bug.
      throw new Error(
        'GoogleService was called outside actingAs.run() in connected mode; the caller must say which principal the call is for',
      );
    }
    if (!this.connected) {
      throw new Error('connected mode without ConnectedAccounts bound (AccountsModule missing from the graph)');
    }
    const { grant, client } = await this.connected.connection(acting.principal, acting.googleSub);
    let clients = this.connectedClients.get(client);
    if (!clients) {
      clients = this.build(client);
      this.connectedClients.set(client, clients);
    }
    const loaded = { clients: await clients, auth: client, grant };
    acting.used?.add(grant.googleEmail);
    return loaded;
  }

  // The generated clients cost ~100 ms to import; a server that only lists its
  // tools, or has no credential, never loads them.
  private async build(connectedClient?: OAuth2Client): Promise<GoogleClients> {
    const auth = connectedClient ?? (await this.auth.authClient());
    const [{ searchconsole }, { createAPIRequest }] = await Promise.all([import('@googleapis/searchconsole'), import('googleapis-common')]);
    const rootUrl = this.config.google.apiRootUrl ? `${this.config.google.apiRootUrl}/` : undefined;
    const options = { auth, retry: false, timeout: this.config.google.timeoutMs, ...(rootUrl ? { rootUrl } : {}) };
    return {
      searchconsole: searchconsole({ version: 'v1', ...options }),
      indexing: new IndexingClient(options, createAPIRequest),
      siteVerification: new SiteVerificationClient(options, createAPIRequest),
    };
  }
}

/**
 * How long to wait before sending again, or undefined to give up. A failure
 * while getting the token sent nothing to the API, so it may be retried for any
 * method; otherwise only what the method allows: reads are sent again after a
 * transient failure, idempotent writes only when Google said it failed or the
 * request never left, and Indexing publish never.
 */
export function retryDelay(spec: MethodSpec, failure: Failure, attempt: number, suspect: number): number | undefined {
  if (attempt >= MAX_ATTEMPTS || !retryable(spec, failure)) {
    return undefined;
  }
  if ((failure.kind === 'timeout' || failure.kind === 'malformed') && suspect >= MAX_SUSPECT_ATTEMPTS) {
    return undefined;
  }
  if (failure.retryAfterSeconds !== undefined) {
    return failure.retryAfterSeconds > MAX_RETRY_AFTER_SECONDS ? undefined : failure.retryAfterSeconds * 1000;
  }
  const base = 250 * 3 ** (attempt - 1);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

function retryable(spec: MethodSpec, failure: Failure): boolean {
  if (failure.code === 'AbortError') {
    return false;
  }
  const transient = ['unavailable', 'timeout', 'network', 'malformed'].includes(failure.kind);
  if (failure.phase === 'token') {
    return transient;
  }
  if (!spec.resend) {
    return false;
  }
  switch (failure.kind) {
    // A window Google does not name may be the daily one (URL Inspection's 429
    // is the same for every limit): a backoff of seconds clears neither a day
    // nor a minute and only spends quota, so it is sent again only when Google
    // said when (Retry-After).
    case 'quota':
      return failure.quota?.window === 'minute' || (failure.quota?.window === undefined && failure.retryAfterSeconds !== undefined);
    case 'unavailable':
      return true;
    case 'network':
      return !spec.write || neverSent(failure);
    case 'timeout':
    case 'malformed':
      return !spec.write;
    default:
      return false;
  }
}

/** The tokens an OAuth client holds right now (never shown; only taken out of Google's text). */
function credentialSecrets(client: OAuth2Client): string[] {
  const { access_token, refresh_token, id_token } = client.credentials ?? {};
  return [access_token, refresh_token, id_token].filter((t): t is string => typeof t === 'string');
}

/** A GaxiosError (it carries the request config) or a body that is not an answer; anything else is a bug, not Google. */
function isGoogleFailure(error: unknown): boolean {
  if (error instanceof UserFacingError) {
    return false;
  }
  return error instanceof MalformedAnswerError || (error instanceof Error && typeof (error as { config?: unknown }).config === 'object');
}
