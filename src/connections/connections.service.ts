import { Injectable } from '@nestjs/common';
import { GrantRevocation, type RevocationOutcome } from '../accounts/grant-revocation.js';
import { ConnectedAccounts, type ConnectedGrant } from '../google/connected-accounts.js';

/**
 * The calling person's connected Google accounts (PRODUCT.md §8d "Several
 * Google accounts per person"): which they are, and disconnecting one. No MCP
 * here; the properties each account sees come from the tools' AccountSites.
 */
@Injectable()
export class ConnectionsService {
  constructor(
    private readonly accounts: ConnectedAccounts,
    private readonly revocation: GrantRevocation,
  ) {}

  /** The principal's usable accounts, newest first. */
  list(principal: string): Promise<ConnectedGrant[]> {
    return this.accounts.grantsOf(principal);
  }

  /** The principal's account with this e-mail (case-insensitive), or undefined. */
  async find(principal: string, googleEmail: string): Promise<ConnectedGrant | undefined> {
    const wanted = googleEmail.trim().toLowerCase();
    return (await this.list(principal)).find((g) => g.googleEmail.toLowerCase() === wanted);
  }

  /**
   * Revokes the account's grant at Google, then deletes it here; nothing is deleted when Google cannot be reached
   * (UserFacingError). The same path as ops' DELETE /admin/accounts/{principal}/{account} (GrantRevocation).
   */
  disconnect(grant: ConnectedGrant): Promise<RevocationOutcome | undefined> {
    return this.revocation.revokeAndDelete(grant.principal, grant.googleSub);
  }
}
