import type { Credentials, OAuth2Client } from 'google-auth-library';
import { guardTokenRequests } from '../google/token-guard.js';

export interface GrantClientOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tokenUrl: string;
  readonly timeoutMs: number;
  readonly refreshToken: string;
  /** Refresh this long before Google's expiry: the same margin the shared token cache uses. */
  readonly marginMs: number;
}

/**
 * Gets an access token for the grant: from the state store when another
 * process already has one, else by calling `refresh` (the token endpoint) under
 * the cross-process lock. `used` is the refresh token this client holds;
 * `refresh` sends the one it is given (the stored one, when the person
 * reconnected meanwhile). Resolves with the tokens; throws what the endpoint threw.
 */
export type SharedRefresh = (used: string, refresh: (refreshToken: string) => Promise<Credentials>) => Promise<Credentials>;

/**
 * An OAuth2Client (google-auth-library) acting as one grant: its refresh goes
 * through `shared` instead of straight to Google, and its token requests are
 * guarded like the shared credential's (no retries of its own, a 200 that is
 * not a token is a failure). google-auth-library is imported here, on first
 * use, so that start-up never pays for it.
 */
export async function grantClient(options: GrantClientOptions, shared: SharedRefresh): Promise<OAuth2Client> {
  const { OAuth2Client } = await import('google-auth-library');
  class GrantClient extends OAuth2Client {
    protected override async refreshTokenNoCache(refreshToken?: string | null) {
      const tokens = await shared(refreshToken ?? options.refreshToken, async (token) => (await super.refreshTokenNoCache(token)).tokens);
      return { tokens: { ...tokens }, res: null };
    }
  }
  const client = new GrantClient({
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    endpoints: { oauth2TokenUrl: options.tokenUrl },
    eagerRefreshThresholdMillis: options.marginMs,
    transporterOptions: { timeout: options.timeoutMs },
  });
  client.setCredentials({ refresh_token: options.refreshToken });
  const tokenUrl = new URL(options.tokenUrl).href.split('?')[0];
  guardTokenRequests(client, (url) => url.split('?')[0] === tokenUrl);
  return client;
}
