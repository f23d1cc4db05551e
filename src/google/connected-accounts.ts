import { AsyncLocalStorage } from 'node:async_hooks';
import type { OAuth2Client } from 'google-auth-library';
import { UserFacingError } from '../common/user-facing-error.js';

/** A principal's connected Google account, as the rest of the server may see it: never a token. */
export interface ConnectedGrant {
  readonly principal: string;
  /** Google's stable account id (userinfo `sub`). */
  readonly googleSub: string;
  readonly googleEmail: string;
  /** The scopes Google reported as granted (full URLs; a person may untick some). */
  readonly scopes: readonly string[];
  /** ISO time the grant was stored. */
  readonly connectedAt: string;
}

/**
 * Connected accounts (PRODUCT.md §8d) as the Google layer needs them; the
 * implementation lives in accounts/ (which imports this folder, never the
 * reverse). Bound only when the configuration has `connected`.
 */
export abstract class ConnectedAccounts {
  /** The principal's usable grant: undefined when there is none, it was revoked (invalid_grant), or its record does not open (tampered, moved, unknown key). */
  abstract grantOf(principal: string): Promise<ConnectedGrant | undefined>;
  /** The usable grant, or NotConnectedError saying why there is none (none, revoked, unreadable): what the dispatcher checks before a Google tool runs. */
  abstract requireGrant(principal: string): Promise<ConnectedGrant>;
  /** A client acting as the principal's Google account (`googleSub`: that one of several); access tokens are refreshed once at a time across processes. Throws NotConnectedError. */
  abstract authClient(principal: string, googleSub?: string): Promise<OAuth2Client>;
  /** Every usable grant of the principal (several Google accounts per person), newest first. */
  async grantsOf(principal: string): Promise<ConnectedGrant[]> {
    const grant = await this.grantOf(principal);
    return grant ? [grant] : [];
  }
  // Not abstract, so that a test's fake of the three methods above stays complete; GrantAuth overrides each.
  /**
   * authClient with the grant it acts with (GoogleService names its Google account in sentences and the audit).
   * `googleSub` names one of the principal's accounts (what the call resolved to); without it, the newest. Throws NotConnectedError.
   */
  async connection(principal: string, googleSub?: string): Promise<GrantConnection> {
    const grant = await this.requireGrant(principal);
    if (googleSub !== undefined && grant.googleSub !== googleSub) {
      throw new NotConnectedError(principal, 'none');
    }
    return { grant, client: await this.authClient(principal, googleSub) };
  }
  /**
   * Google answered 401 to the grant's access token (revoked at Google, which
   * ends its access tokens too): forget the token every process shares, so the
   * next attempt refreshes — and learns from invalid_grant whether the grant is over.
   */
  async tokenRejected(_grant: ConnectedGrant): Promise<void> {}
  /**
   * Disconnects one Google account of the principal: revokes the grant at
   * Google, then deletes it here (nothing is deleted when Google cannot be
   * reached). Undefined when the principal has no such account.
   */
  disconnect(_principal: string, _googleSub: string): Promise<{ grant: ConnectedGrant; revokedAtGoogle: boolean } | undefined> {
    return Promise.reject(new Error('this ConnectedAccounts cannot disconnect an account'));
  }
  /** For the start-up line: where the grant keys come from (never a value). */
  describe(): string {
    return 'connected accounts';
  }
}

/** A client acting as one grant's Google account. */
export interface GrantConnection {
  readonly grant: ConnectedGrant;
  readonly client: OAuth2Client;
}

/**
 * Who a Google call is made for: entered once per tool call by the call's
 * admission step (the principal) and once more by its account step (the
 * account it resolved to), read by GoogleService in connected mode. Frozen
 * when entered: nothing below writes who acts. Google calls only append to
 * `used` the accounts they went out as (the audit trail and the answers name them).
 */
export interface ActingAs {
  readonly principal: string;
  /** The properties the principal may use (GSC_ALLOWED_SITES narrowed by its policy rule); undefined means all. Sentences about an account's properties name only these. */
  readonly sites?: readonly string[];
  /** The Google account (userinfo `sub`) the call resolved to, when the principal has several; GoogleService acts as it. */
  readonly googleSub?: string;
  /** Whether an account's granted scopes cover the tool being called: perAccount (list_sites) runs over those accounts only. */
  readonly covers?: (scopes: readonly string[]) => boolean;
  /** The Google account of the grant the call was admitted with, which the quota ledger counts reservations for (before any request went out). */
  readonly account?: string;
  /** Appended by GoogleService (and by actAs from its inner calls): the Google accounts requests went out as, in order. A context without one records nothing. */
  readonly used?: Set<string>;
}
export const actingAs = new AsyncLocalStorage<ActingAs>();

/**
 * The Google account(s) the call being served acts as, as an answer names
 * them ("the Google account alice@example.com"), or undefined outside
 * connected mode — where a sentence says "this credential", the server's one
 * identity. In connected mode an answer never says "this credential" or "the
 * service account": it names the account that acted (the one a Google request
 * went out as, else the one the call was admitted with).
 */
export function actingAccountName(): string | undefined {
  const acting = actingAs.getStore();
  const named = acting?.used?.size ? [...acting.used].join(', ') : acting?.account;
  if (!named) {
    return undefined;
  }
  const accounts = named.split(', ');
  return accounts.length === 1
    ? `the Google account ${accounts[0]}`
    : `the Google accounts ${accounts.slice(0, -1).join(', ')} and ${accounts.at(-1)}`;
}

/** Who acts at Google for this call: the connected Google account(s), else `fallback` (the shared credential). */
export function actingIdentity(fallback = 'this credential'): string {
  return actingAccountName() ?? fallback;
}

export type NotConnectedReason = 'none' | 'revoked' | 'unreadable';

/** The principal has no usable Google grant; nothing was sent to Google. The dispatcher turns it into a request to connect. */
export class NotConnectedError extends UserFacingError {
  constructor(
    readonly principal: string,
    readonly reason: NotConnectedReason,
  ) {
    super(
      reason === 'revoked'
        ? 'The Google account connected for you no longer accepts this server (access was revoked or expired), so nothing was sent to Google. Connect it again.'
        : 'No Google account is connected for you on this server, so nothing was sent to Google. Connect one first.',
    );
  }
}

/**
 * Runs `work` acting as one of the principal's accounts (GoogleService uses
 * that grant and no other). The account it used is added to the surrounding
 * call's record of accounts used, so the audit trail of the tool call names
 * every account it acted as (comma-separated).
 */
export async function actAs<T>(
  grant: Pick<ConnectedGrant, 'principal' | 'googleSub'> & { readonly googleEmail?: string },
  work: () => Promise<T>,
): Promise<T> {
  const outer = actingAs.getStore();
  // The account's e-mail, when known, names it in sentences written before a request goes out (actingAccountName).
  const used = new Set<string>();
  const inner: ActingAs = Object.freeze({
    principal: grant.principal,
    googleSub: grant.googleSub,
    ...(grant.googleEmail ? { account: grant.googleEmail } : {}),
    ...(outer?.sites ? { sites: outer.sites } : {}),
    used,
  });
  try {
    return await actingAs.run(inner, work);
  } finally {
    for (const email of used) {
      outer?.used?.add(email);
    }
  }
}

/**
 * Connected mode, a tool that takes no property (list_sites,
 * list_verified_sites): `work` once per usable account of the calling
 * principal, acting as it, newest account first. Without connected accounts
 * (`accounts` undefined): once, as the server's credential.
 */
export async function perAccount<T>(
  accounts: ConnectedAccounts | undefined,
  work: () => Promise<T>,
): Promise<{ readonly googleEmail?: string; readonly value: T }[]> {
  const acting = actingAs.getStore();
  if (!accounts || !acting) {
    return [{ value: await work() }];
  }
  const { principal, covers } = acting;
  const grants = (await accounts.grantsOf(principal)).filter((g) => !covers || covers(g.scopes));
  if (grants.length === 0) {
    throw new NotConnectedError(principal, 'none');
  }
  return Promise.all(grants.map(async (grant) => ({ googleEmail: grant.googleEmail, value: await actAs(grant, work) })));
}
