// Real google-auth-library clients aimed at the emulator, for tests and demos.
// The JWT client hard-codes https://oauth2.googleapis.com/token (the key's
// token_uri is ignored), so its token request is re-pointed by an interceptor.

import { JWT, UserRefreshClient } from 'google-auth-library';
import type { ServiceAccountKeyFile } from './service-account-key.js';

const GOOGLE_TOKEN_ORIGIN = 'https://oauth2.googleapis.com';

/** Sends a client's token requests to the emulator instead of Google. */
export function redirectTokenRequests(client: JWT, emulatorUrl: string): void {
  client.transporter.interceptors.request.add({
    // gaxios runs interceptors in its promise chain, so a throw here is its rejection either way.
    resolved: (config) => {
      const url = new URL(String(config.url));
      if (url.origin === GOOGLE_TOKEN_ORIGIN) {
        config.url = new URL(url.pathname, emulatorUrl);
      }
      return Promise.resolve(config);
    },
  });
}

export function emulatorJwtClient(emulatorUrl: string, key: ServiceAccountKeyFile, scopes: string[], subject?: string): JWT {
  const client = new JWT({ email: key.client_email, key: key.private_key, keyId: key.private_key_id, scopes, subject });
  redirectTokenRequests(client, emulatorUrl);
  return client;
}

export function emulatorRefreshClient(
  tokenUrl: string,
  input: { clientId: string; clientSecret: string; refreshToken: string },
): UserRefreshClient {
  return new UserRefreshClient({ ...input, endpoints: { oauth2TokenUrl: tokenUrl } });
}
