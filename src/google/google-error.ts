import { inert } from '../common/inert-text.js';
import { plural } from '../common/sentences.js';
import { UserFacingError } from '../common/user-facing-error.js';
import type { CredentialProblem, DisabledApi, Failure, GoogleErrorKind, QuotaFacts, QuotaWindow } from './google-failure.js';
import { neverSent } from './google-failure.js';
import { type GoogleMethod, methodSpec } from './google-methods.js';

export type { GoogleErrorKind } from './google-failure.js';

/** What a Google call was for, so that a failure can be told as a sentence. */
export interface GoogleOperation {
  /** Which Google method; decides retries, the answer's shape and the limits quoted. */
  readonly method: GoogleMethod;
  /** Infinitive phrase: "list the sitemaps of https://example.com/". */
  readonly action: string;
  /** The property involved, if any. */
  readonly property?: string;
}

/** The structured facts of a failed Google call, for code that branches on them. */
export interface GoogleErrorFacts {
  readonly kind: GoogleErrorKind;
  /** 'token': the access token could not be had, so nothing reached the API. */
  readonly phase: 'token' | 'api';
  readonly status?: number;
  readonly reason?: string;
  /** Transport code for failures without an HTTP answer. */
  readonly code?: string;
  readonly retryAfterSeconds?: number;
  readonly quota?: QuotaFacts;
  readonly disabled?: DisabledApi;
  readonly credential?: CredentialProblem;
  /** 'unknown' when a write may have been applied although the call failed. */
  readonly outcome: 'unchanged' | 'unknown';
  /** Requests sent for this call. */
  readonly attempts: number;
  /** Google's own message, unchanged (Google-supplied text: treat as data). */
  readonly googleMessage: string;
}

/** A failed Google call, told as a sentence, with the facts callers branch on. */
export class GoogleApiError extends UserFacingError {
  constructor(
    message: string,
    readonly facts: GoogleErrorFacts,
  ) {
    super(message);
  }

  get kind(): GoogleErrorKind {
    return this.facts.kind;
  }
  get status(): number | undefined {
    return this.facts.status;
  }
  get reason(): string | undefined {
    return this.facts.reason;
  }
  /** The quota window when Google's answer says it; undefined for other failures and for an unsaid window. */
  get quotaWindow(): QuotaWindow | undefined {
    return this.facts.quota?.window;
  }
  get retryAfterSeconds(): number | undefined {
    return this.facts.retryAfterSeconds;
  }
  get googleMessage(): string {
    return this.facts.googleMessage;
  }

  /** The same failure told differently, e.g. with a domain's own rules added. */
  rephrased(message: string): GoogleApiError {
    return new GoogleApiError(message, this.facts);
  }
}

/**
 * The MCP client cancelled before this call was sent, so it was not: nothing
 * reached Google. Batches catch it per item and list the item as not run.
 */
export class CallCancelledError extends UserFacingError {
  constructor(readonly op: GoogleOperation) {
    super(`The request was cancelled before this server asked Google to ${op.action}, so it was not sent. Nothing was changed.`);
  }
}

/** Who is calling Google, for sentences about the credential. Never holds a secret. */
export interface CredentialContext {
  /** `connected`: a person's own grant (PRODUCT.md §8d); principal names its Google account. */
  readonly kind: 'service_account' | 'oauth' | 'connected' | 'none';
  /** Service account e-mail, "OAuth client <id>", or "the Google account <e-mail>". */
  readonly principal?: string;
  /** Where it came from: GSC_SERVICE_ACCOUNT_KEY, GOOGLE_APPLICATION_CREDENTIALS (…), … */
  readonly origin?: string;
  /** GSC_IMPERSONATE. */
  readonly subject?: string;
  readonly keyId?: string;
  /** The OAuth scopes requested (those of the registered tools). */
  readonly scopes: readonly string[];
}

export interface SentenceContext {
  readonly credential: CredentialContext;
  readonly attempts: number;
  readonly timeoutMs: number;
  readonly now: Date;
}

/** Whether a write may have been applied although the call failed. */
export function outcomeOf(failure: Failure, method: GoogleMethod): 'unchanged' | 'unknown' {
  if (!methodSpec(method).write || neverSent(failure)) {
    return 'unchanged';
  }
  return ['timeout', 'network', 'unavailable', 'malformed'].includes(failure.kind) ? 'unknown' : 'unchanged';
}

/** The sentence a model reads: what failed, why, what to do next, whether anything changed. */
export function describeFailure(failure: Failure, op: GoogleOperation, ctx: SentenceContext): string {
  return failure.phase === 'token' ? describeTokenFailure(failure, op, ctx) : describeApiFailure(failure, op, ctx);
}

const NOTHING_SENT = 'Nothing was sent to Google, so nothing was changed.';

function describeApiFailure(failure: Failure, op: GoogleOperation, ctx: SentenceContext): string {
  const google = quote(failure.message);
  const changed =
    outcomeOf(failure, op.method) === 'unknown'
      ? 'It is not known whether Google applied the change; check the current state before repeating it.'
      : 'Nothing was changed.';
  const who = ctx.credential.principal ?? 'the configured credential';
  const tries = plural(ctx.attempts, 'attempt');
  if (ctx.credential.kind === 'connected') {
    const connected = connectedApiSentence(failure, op, who, google, changed);
    if (connected) {
      return connected;
    }
  }
  switch (failure.kind) {
    case 'credential':
      return `Google rejected the access token of ${who} while trying to ${op.action}: ${google}. ${changed} The key may have been deleted or the refresh token revoked; create a new credential and restart the server.`;
    case 'scope':
      return `Google refused to ${op.action} because the access token lacks the OAuth scope this call needs: ${google}. ${changed} The server requests only the scopes of its registered tools (GSC_READ_ONLY, GSC_ALLOW_TOOLS, GSC_DENY_TOOLS); for a delegated service account, ask the Workspace admin to grant the scope.`;
    case 'service_disabled':
      return disabledSentence(failure.disabled!, op, who, google, ctx.credential.kind === 'connected');
    case 'quota':
      return quotaSentence(failure, op, ctx, google);
    case 'permission': {
      const target = op.property ? ` ${op.property}` : ' this resource';
      return `Google refused to ${op.action}: ${google}. ${changed} The credential (${who}) lacks the permission needed on${target}: add it as a user of the property in Search Console (Settings → Users and permissions) — Owner for indexing and verification, Full for other changes — or check the spelling with list_sites.`;
    }
    case 'not_found':
      return `Google found nothing to ${op.action}: ${google}. ${changed} Check the spelling with the matching list tool.`;
    case 'invalid':
      return `Google refused to ${op.action} (HTTP ${failure.status}): ${google}. ${changed} Correct the arguments and retry.`;
    case 'unavailable':
      return `Google failed with HTTP ${failure.status} while trying to ${op.action} (${google}), after ${tries}. ${changed} This is usually temporary; retry in a minute.`;
    case 'timeout':
      return `Google did not answer within ${seconds(ctx.timeoutMs)} (GSC_GOOGLE_TIMEOUT_MS) while trying to ${op.action}, after ${tries}. ${changed} Google is slow or unreachable right now; retry in a minute, or raise GSC_GOOGLE_TIMEOUT_MS.`;
    case 'network':
      return neverSent(failure)
        ? `Could not reach Google to ${op.action} (${failure.code}) after ${tries}. ${changed} Check the network or GSC_API_ROOT_URL, then retry.`
        : `The connection to Google broke while trying to ${op.action} (${failure.code}), after ${tries}. ${changed} Check the network or GSC_API_ROOT_URL, then retry.`;
    case 'malformed':
      return (
        `Google answered with something that is not a ${op.method} response (${failure.answer}) while trying to ${op.action}, after ${tries}. ${changed} ` +
        'This usually means a proxy, firewall or captive portal between this server and Google answered in its place, or a Google outage; retry in a minute, and check GSC_API_ROOT_URL if it is set.'
      );
  }
}

/** A person's own Google account: what they (or a property owner) can do, instead of restarting the server with another credential. */
function connectedApiSentence(failure: Failure, op: GoogleOperation, who: string, google: string, changed: string): string | undefined {
  switch (failure.kind) {
    case 'credential':
      return `Google rejected the access token of ${who} while trying to ${op.action}: ${google}. ${changed} Access may have been revoked at Google; connect the Google account again.`;
    case 'scope':
      return `Google refused to ${op.action} because the access token lacks the OAuth scope this call needs: ${google}. ${changed} ${capital(who)} was connected without that permission (a box left unticked on Google's consent page); connect it again and allow it.`;
    case 'permission': {
      const target = op.property ? ` ${op.property}` : ' this resource';
      return `Google refused to ${op.action}: ${google}. ${changed} ${capital(who)} lacks the permission needed on${target}: an owner of the property can add it as a user in Search Console (Settings → Users and permissions) — Owner for indexing and verification, Full for other changes — or check the spelling with list_sites.`;
    }
    default:
      return undefined;
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function disabledSentence(disabled: DisabledApi, op: GoogleOperation, who: string, google: string, connected: boolean): string {
  const project = disabled.project ? `the Google Cloud project ${disabled.project}` : 'the Google Cloud project';
  // A person's own Google account belongs to no project: the API is counted against the OAuth client this server connects accounts with.
  const whose = connected
    ? `of this server's OAuth client (GSC_GOOGLE_OAUTH_CLIENT_ID), through which ${who} acts`
    : `that the credential (${who}) belongs to`;
  return (
    `Google refused to ${op.action} because the ${disabled.title} (${disabled.service}) is not enabled in ${project} ${whose}: ${google}. Nothing was changed. ` +
    `Enable it at ${disabled.activationUrl} (a project Owner or Editor can; it takes a few minutes to take effect), then retry.`
  );
}

function quotaSentence(failure: Failure, op: GoogleOperation, ctx: SentenceContext, google: string): string {
  const limits = methodSpec(op.method).limits;
  const midnight = `midnight Pacific Time, in about ${untilPacificMidnight(ctx.now)}`;
  const wait = failure.retryAfterSeconds ?? 60;
  switch (failure.quota?.window) {
    case 'day':
      return `Google's daily quota is exhausted, so it refused to ${op.action}: ${google}. Nothing was changed. ${limits}; the count resets at ${midnight}. Retry then, or narrow the request.`;
    case 'minute':
      if (failure.quota?.perUser) {
        const sender =
          ctx.credential.kind === 'connected'
            ? (ctx.credential.principal ?? 'the Google account')
            : `the credential (${ctx.credential.principal ?? 'the configured credential'})`;
        return (
          `Google's per-user rate limit is exhausted: ${sender} sent too many requests in a short time, so Google refused to ${op.action}: ${google}. ` +
          `Nothing was changed. ${limits}. Retry in ${wait} seconds, with fewer calls at once; other users' quotas are not affected.`
        );
      }
      return `Google's per-minute quota is exhausted, so it refused to ${op.action}: ${google}. Nothing was changed. ${limits}. Retry in ${wait} seconds.`;
    default:
      return (
        `Google's quota is exhausted, so it refused to ${op.action}: ${google}. Nothing was changed. Google's answer does not say which limit was hit. ${limits}. ` +
        `If it was a per-minute limit, retry in ${wait} seconds; if it was a daily one, it resets at ${midnight}.`
      );
  }
}

/**
 * The first sentences of a quota refusal whose answer does not say which limit,
 * once the quota ledger has judged which one it most likely was (PRODUCT §9a):
 * the likely limit comes first, so the person reads "daily" before the detail.
 */
export function likelyQuotaLead(op: GoogleOperation, googleMessage: string, likely: QuotaWindow): string {
  return (
    `Google's ${likely === 'day' ? 'daily' : 'per-minute'} quota is most likely exhausted, so it refused to ${op.action}: ${quote(googleMessage)}. Nothing was changed. ` +
    `Google's answer does not say which limit was hit. ${methodSpec(op.method).limits}.`
  );
}

function describeTokenFailure(failure: Failure, op: GoogleOperation, ctx: SentenceContext): string {
  const c = ctx.credential;
  const google = quote(failure.message);
  const origin = c.origin ?? 'the configured credential';
  const tries = plural(ctx.attempts, 'attempt');
  if (failure.kind !== 'credential') {
    const what =
      failure.kind === 'timeout'
        ? `did not answer within ${seconds(ctx.timeoutMs)} (GSC_GOOGLE_TIMEOUT_MS)`
        : failure.kind === 'network'
          ? `could not be reached (${failure.code})`
          : failure.kind === 'malformed'
            ? `answered with ${failure.answer} instead of a token`
            : `failed with HTTP ${failure.status} (${google})`;
    return (
      `Google's OAuth token endpoint ${what}, so no access token could be had to ${op.action} (${tries}). ${NOTHING_SENT} ` +
      'This is usually temporary; retry in a minute, and check GSC_OAUTH_TOKEN_URL and the network if it persists.' +
      (c.kind === 'connected' ? ` ${capital(c.principal ?? 'the Google account')} stays connected.` : '')
    );
  }
  if (c.kind === 'connected') {
    return connectedTokenSentence(failure, op, c, google);
  }
  const account =
    c.kind === 'service_account' ? `the service account ${c.principal}` : `the OAuth credential (${c.principal ?? 'GSC_CLIENT_ID'})`;
  const refused = `Google's OAuth token endpoint refused ${account} from ${origin}, so no access token was issued to ${op.action}: ${google}.`;
  const restart = 'and restart the server; retrying with the same credential fails the same way.';
  const scopes = c.scopes.length ? c.scopes.join(', ') : 'those of the registered tools';
  switch (failure.credential) {
    case 'key_rejected':
      return (
        `${refused} The key${c.keyId ? ` ${c.keyId}` : ''} was deleted or disabled in the Google Cloud console, or it does not belong to this service account. ${NOTHING_SENT} ` +
        `Create a new JSON key (Google Cloud console → IAM & Admin → Service accounts → ${c.principal} → Keys → Add key), put it in ${origin}, ${restart}`
      );
    case 'clock_skew':
      return (
        `${refused} Google rejects the signed token's issue and expiry times: this machine's clock reads ${ctx.now.toISOString()} and is off by more than a few minutes. ${NOTHING_SENT} ` +
        'Set the clock right (enable NTP, e.g. `timedatectl set-ntp true`, or resync the host or VM clock), then retry; the key itself is fine.'
      );
    case 'account_missing':
      return `${refused} The service account was deleted or disabled in its Google Cloud project. ${NOTHING_SENT} Re-enable it (IAM & Admin → Service accounts) or create a new one with a key, add it as a user of each property in Search Console, put the key in ${origin}, ${restart}`;
    case 'subject_unknown':
      return `${refused} Google knows no user ${c.subject ?? ''} (GSC_IMPERSONATE) to act as. ${NOTHING_SENT} Set GSC_IMPERSONATE to an existing user of the Workspace domain, or unset it to act as the service account itself, ${restart}`;
    case 'revoked_token':
      return (
        `${refused} The refresh token was revoked (the Google user removed this app's access, changed their password, or an admin revoked it) or it expired ` +
        `(an OAuth consent screen in "Testing" status issues refresh tokens that last 7 days; one unused for 6 months expires). ${NOTHING_SENT} ` +
        `Create a new refresh token for this OAuth client with the scopes ${scopes}, set it in GSC_REFRESH_TOKEN, ${restart}`
      );
    case 'unauthorized_client':
      if (c.kind === 'service_account' && c.subject) {
        return (
          `${refused} Domain-wide delegation for acting as ${c.subject} (GSC_IMPERSONATE) is not authorised for the scopes this server requests. ${NOTHING_SENT} ` +
          `A Workspace super admin must allow the service account's client ID (the numeric "client_id" in its key; IAM & Admin → Service accounts → Unique ID) ` +
          `in the Admin console (Security → Access and data control → API controls → Manage domain-wide delegation) with exactly these OAuth scopes: ${scopes}. ` +
          'Or narrow the tools (GSC_READ_ONLY, GSC_ALLOW_TOOLS) so fewer scopes are requested, or unset GSC_IMPERSONATE and add the service account itself as a user of each property in Search Console.'
        );
      }
      if (c.kind === 'oauth') {
        return `${refused} The refresh token was issued to a different OAuth client than GSC_CLIENT_ID, or this client may not use refresh tokens. ${NOTHING_SENT} Create the refresh token with this client's id and secret, set it in GSC_REFRESH_TOKEN, ${restart}`;
      }
      return `${refused} This service account may not obtain tokens this way. ${NOTHING_SENT} Check in the Google Cloud console that the service account is enabled and its key current, ${restart}`;
    case 'client_rejected':
      return `${refused} The client secret in GSC_CLIENT_SECRET does not match GSC_CLIENT_ID, or the OAuth client was deleted (Google Cloud console → APIs & Services → Credentials). ${NOTHING_SENT} Set the id and secret of an existing OAuth client, with a refresh token made by it, ${restart}`;
    default:
      return (
        `${refused} The credential is not usable as configured. ${NOTHING_SENT} Check ${origin}: a current service account key, or an OAuth client id, secret and refresh token that belong together, ` +
        restart
      );
  }
}

function connectedTokenSentence(failure: Failure, op: GoogleOperation, c: CredentialContext, google: string): string {
  const refused = `Google's OAuth token endpoint refused ${c.origin ?? 'the connected grant'} (${c.principal ?? 'a Google account'}), so no access token was issued to ${op.action}: ${google}.`;
  switch (failure.credential) {
    case 'client_rejected':
      return (
        `${refused} The client secret in GSC_GOOGLE_OAUTH_CLIENT_SECRET does not match GSC_GOOGLE_OAUTH_CLIENT_ID, or that OAuth client was deleted (Google Cloud console → APIs & Services → Credentials). ${NOTHING_SENT} ` +
        "The server's operator must set the id and secret of the OAuth client the accounts were connected with and restart the server; the connected accounts stay stored."
      );
    case 'revoked_token':
      return `${refused} Access was revoked at Google or expired. ${NOTHING_SENT} Connect the Google account again.`;
    default:
      return `${refused} ${NOTHING_SENT} Connect the Google account again; if that fails too, the server's operator should check GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_GOOGLE_OAUTH_CLIENT_SECRET.`;
  }
}

/** About how long until midnight in America/Los_Angeles, where Google's daily quotas reset. */
export function untilPacificMidnight(now: Date): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Los_Angeles',
    hour: 'numeric',
    minute: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(now);
  const value = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const minutes = 24 * 60 - (value('hour') * 60 + value('minute'));
  if (minutes < 90) {
    return plural(Math.max(1, minutes), 'minute');
  }
  return plural(Math.round(minutes / 60), 'hour');
}

function quote(text: string): string {
  return `"${inert(text.replace(/\s+/g, ' ').trim(), 300)}"`;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}
