import { Injectable } from '@nestjs/common';
import type { ConnectedGrant } from '../google/connected-accounts.js';
import { GrantAuth } from './grant-auth.service.js';
import { GrantStore } from './grant-store.js';

/** What revokeAndDelete did. */
export interface RevocationOutcome {
  /** The grant as it was (never a token); an unreadable record has only its account id. */
  readonly grant: ConnectedGrant;
  /** False when Google had already ended the grant (revoked, or a record that does not open): deleted without asking Google. */
  readonly revokedAtGoogle: boolean;
}

/**
 * "Revoke at Google, then delete here" for one Google account of a principal,
 * shared by ops (`DELETE /admin/accounts/{principal}/{account}`) and the
 * person's own `disconnect_google_account` tool, so both behave alike:
 * Google's revocation endpoint is asked first (a POST with the refresh token
 * in the body); `400 invalid_token` means the token was already dead and the
 * grant is deleted; a 5xx, a timeout or an unreachable endpoint deletes
 * nothing and throws a UserFacingError saying so (a grant deleted here but
 * alive at Google could no longer be revoked by this server).
 */
@Injectable()
export class GrantRevocation {
  constructor(
    private readonly auth: GrantAuth,
    private readonly grants: GrantStore,
  ) {}

  /**
   * The Google account id (`sub`) of the principal's grant named by `account`:
   * its e-mail (any case) or its sub. Undefined when the principal has none.
   */
  async accountOf(principal: string, account: string): Promise<string | undefined> {
    const records = await this.grants.read(principal);
    const wanted = account.trim().toLowerCase();
    const shown = [...records.usable, ...records.revoked];
    return (
      shown.find((g) => g.googleSub === account)?.googleSub ??
      records.unreadable.find((g) => g.googleSub === account)?.googleSub ??
      shown.find((g) => g.googleEmail.toLowerCase() === wanted)?.googleSub
    );
  }

  /**
   * Revokes the grant at Google, then deletes it (its record, shared access
   * token, cached client and last use). `account` is the e-mail or the sub.
   * Undefined when the principal has no such account; throws UserFacingError
   * when Google could not revoke it (nothing deleted), StateUnavailableError
   * when the state store cannot be reached.
   */
  async revokeAndDelete(principal: string, account: string): Promise<RevocationOutcome | undefined> {
    const googleSub = await this.accountOf(principal, account);
    return googleSub === undefined ? undefined : this.auth.disconnect(principal, googleSub);
  }
}
