import { Inject, Injectable } from '@nestjs/common';
import type { OAuth2Client } from 'google-auth-library';
import { CONFIG, type Config } from '../config/config.js';
import { ConnectedAccounts, type ConnectedGrant, NotConnectedError } from '../google/connected-accounts.js';
import { GrantStore } from './grant-store.js';

/**
 * ConnectedAccounts over the grant store: a principal's grant and a Google
 * client acting as it.
 *
 * FOUNDATION STUB: no cross-process refresh lock, no invalid_grant handling,
 * a new client per call. Completed with the encrypted grant store.
 */
@Injectable()
export class GrantAuth extends ConnectedAccounts {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly grants: GrantStore,
  ) {
    super();
  }

  async grantOf(principal: string): Promise<ConnectedGrant | undefined> {
    const [grant] = await this.grants.list(principal);
    if (!grant) {
      return undefined;
    }
    const { refreshToken: _secret, ...shown } = grant;
    return shown;
  }

  async requireGrant(principal: string): Promise<ConnectedGrant> {
    const grant = await this.grantOf(principal);
    if (!grant) {
      throw new NotConnectedError(principal, 'none');
    }
    return grant;
  }

  async authClient(principal: string): Promise<OAuth2Client> {
    const connected = this.config.connected!;
    const [grant] = await this.grants.list(principal);
    if (!grant) {
      throw new NotConnectedError(principal, 'none');
    }
    const { OAuth2Client } = await import('google-auth-library');
    const client = new OAuth2Client({
      clientId: connected.clientId,
      clientSecret: connected.clientSecret,
      endpoints: { oauth2TokenUrl: connected.tokenUrl },
      transporterOptions: { timeout: this.config.google.timeoutMs },
    });
    client.setCredentials({ refresh_token: grant.refreshToken });
    return client;
  }
}
