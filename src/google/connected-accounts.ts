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
  /** A client acting as the principal's Google account; access tokens are refreshed once at a time across processes. Throws NotConnectedError. */
  abstract authClient(principal: string): Promise<OAuth2Client>;
  // Not abstract, so that a test's fake of the three methods above stays complete; GrantAuth overrides each.
  /** authClient with the grant it acts with (GoogleService names its Google account in sentences and the audit). Throws NotConnectedError. */
  async connection(principal: string): Promise<GrantConnection> {
    const grant = await this.requireGrant(principal);
    return { grant, client: await this.authClient(principal) };
  }
  /**
   * Google answered 401 to the grant's access token (revoked at Google, which
   * ends its access tokens too): forget the token every process shares, so the
   * next attempt refreshes — and learns from invalid_grant whether the grant is over.
   */
  async tokenRejected(_grant: ConnectedGrant): Promise<void> {}
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

/** Who a Google call is made for: entered by the MCP dispatcher around each tool call, read by GoogleService in connected mode. */
export interface ActingAs {
  readonly principal: string;
  /** Set by GoogleService when a Google request went out with the principal's grant: the audit trail names it. */
  googleEmail?: string;
  /** Set by the MCP dispatcher once the call is admitted: the Google account of the grant it acts with, which the quota ledger counts reservations for (before any request went out). */
  account?: string;
}
export const actingAs = new AsyncLocalStorage<ActingAs>();

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
