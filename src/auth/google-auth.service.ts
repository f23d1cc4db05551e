import { Inject, Injectable } from '@nestjs/common';
import type { OAuth2Client } from 'google-auth-library';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';

const GOOGLE_TOKEN_ORIGIN = 'https://oauth2.googleapis.com';

export const SETUP_INSTRUCTIONS =
  'google-search-console-mcp has no Google credential, so nothing was sent to Google. ' +
  'Set one of: GSC_SERVICE_ACCOUNT_KEY (a service account key, raw or base64 JSON) or GSC_SERVICE_ACCOUNT_KEY_FILE; ' +
  'GSC_CLIENT_ID + GSC_CLIENT_SECRET + GSC_REFRESH_TOKEN (an OAuth user credential); ' +
  'or GOOGLE_APPLICATION_CREDENTIALS / `gcloud auth application-default login`. ' +
  'A service account must also be added as a user of each property in Search Console (Settings → Users and permissions). ' +
  'Then restart the server.';

export interface CredentialSummary {
  readonly kind: 'service_account' | 'oauth' | 'none';
  readonly principal?: string;
  readonly origin?: string;
  readonly subject?: string;
}

/**
 * Turns the configured credential into a google-auth-library client that asks
 * for exactly the scopes of the registered tools. The client is built on first
 * use, so a server without a credential still starts and lists its tools.
 */
@Injectable()
export class GoogleAuthService {
  private scopes: readonly string[] = [];
  private client?: Promise<OAuth2Client>;

  constructor(@Inject(CONFIG) private readonly config: Config) {}

  /** Called once by the tool registry after filtering. */
  useScopes(scopes: readonly string[]): void {
    this.scopes = scopes;
    this.client = undefined;
  }

  get requestedScopes(): readonly string[] {
    return this.scopes;
  }

  summary(): CredentialSummary {
    const credential = this.config.credential;
    switch (credential.kind) {
      case 'service_account':
        return { kind: credential.kind, principal: credential.key.client_email, origin: credential.origin, subject: this.config.impersonate };
      case 'oauth':
        return { kind: credential.kind, principal: `OAuth client ${credential.clientId}`, origin: credential.origin };
      case 'none':
        return { kind: 'none' };
    }
  }

  hasCredential(): boolean {
    return this.config.credential.kind !== 'none';
  }

  /**
   * The authenticated client; rejects with the set-up instructions when there
   * is no credential. google-auth-library is loaded here, on first use, so that
   * start-up (and tools/list) never pays for it.
   */
  authClient(): Promise<OAuth2Client> {
    if (this.config.credential.kind === 'none') return Promise.reject(new UserFacingError(SETUP_INSTRUCTIONS));
    this.client ??= this.build();
    return this.client;
  }

  private async build(): Promise<OAuth2Client> {
    const { JWT, UserRefreshClient } = await import('google-auth-library');
    const credential = this.config.credential;
    const tokenUrl = this.config.google.oauthTokenUrl;
    if (credential.kind === 'none') throw new UserFacingError(SETUP_INSTRUCTIONS);
    if (credential.kind === 'oauth') {
      return new UserRefreshClient({
        clientId: credential.clientId,
        clientSecret: credential.clientSecret,
        refreshToken: credential.refreshToken,
        ...(tokenUrl ? { endpoints: { oauth2TokenUrl: tokenUrl } } : {}),
      });
    }
    const jwt = new JWT({
      email: credential.key.client_email,
      key: credential.key.private_key,
      keyId: credential.key.private_key_id,
      scopes: [...this.scopes],
      subject: this.config.impersonate,
    });
    // The JWT client hard-codes Google's token URL and ignores a key's token_uri,
    // so an override has to happen on the way out (briefs/google.md §6.2).
    if (tokenUrl) {
      const target = new URL(tokenUrl);
      jwt.transporter.interceptors.request.add({
        resolved: async (options) => {
          const url = new URL(String(options.url));
          if (url.origin === GOOGLE_TOKEN_ORIGIN) options.url = target;
          return options;
        },
      });
    }
    return jwt;
  }
}
