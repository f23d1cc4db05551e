import { Inject, Injectable, Optional } from '@nestjs/common';
import type { OAuth2Client } from 'google-auth-library';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import { ConnectedAccounts, type ConnectedGrant } from './connected-accounts.js';
import type { CredentialContext } from './google-error.js';
import { redactSecrets, requestSecrets } from './upstream-secrets.js';
import { guardTokenRequests } from './token-guard.js';

const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

export const SETUP_INSTRUCTIONS =
  'google-search-console-mcp has no Google credential, so nothing was sent to Google. ' +
  'Set one of: GSC_SERVICE_ACCOUNT_KEY (a service account key, raw or base64 JSON) or GSC_SERVICE_ACCOUNT_KEY_FILE; ' +
  'GSC_CLIENT_ID + GSC_CLIENT_SECRET + GSC_REFRESH_TOKEN (an OAuth user credential); ' +
  'or GOOGLE_APPLICATION_CREDENTIALS / `gcloud auth application-default login`. ' +
  'A service account must also be added as a user of each property in Search Console (Settings → Users and permissions). ' +
  'Then restart the server.';

export interface CredentialSummary {
  /** `connected`: no shared credential; each principal acts with their own grant (PRODUCT.md §8d). */
  readonly kind: 'service_account' | 'oauth' | 'connected' | 'none';
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
  /** GSC_OAUTH_TOKEN_URL as isTokenUrl compares it: parsed once, not on each of its two calls per Google request. */
  private readonly configuredTokenUrl?: string;
  /**
   * The secrets of the configuration (the OAuth client secrets of GSC_GOOGLE_OAUTH_CLIENT_SECRET and
   * GSC_CLIENT_SECRET, GSC_REFRESH_TOKEN, a service account's private key): taken out of any text
   * Google (or something in its place) sends back before it is used (google-failure.ts readFailure).
   */
  readonly secrets: readonly string[];

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Optional() private readonly connected?: ConnectedAccounts,
  ) {
    const tokenUrl = config.google.oauthTokenUrl;
    if (tokenUrl !== undefined) {
      this.configuredTokenUrl = new URL(tokenUrl).href.split('?')[0];
    }
    const credential = config.credential;
    this.secrets = Object.freeze(
      [
        config.connected?.clientSecret,
        config.connected?.idpClient?.clientSecret,
        ...(credential.kind === 'oauth' ? [credential.clientSecret, credential.refreshToken] : []),
        credential.kind === 'service_account' ? credential.key.private_key : undefined,
      ].filter((secret): secret is string => typeof secret === 'string' && secret.length > 0),
    );
  }

  /** Text from Google (or a proxy in its place) about a failed request, without any secret the server or that request holds. */
  redact(text: string, error?: unknown): string {
    return redactSecrets(text, [...this.secrets, ...requestSecrets(error)]);
  }

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
    const connected = this.config.connected;
    if (connected) {
      return {
        kind: 'connected',
        principal: `accounts: each person acts as their own Google account (OAuth client ${connected.clientId})`,
        origin: `GSC_GOOGLE_OAUTH_CLIENT_ID; ${this.connected?.describe() ?? 'grant keys not loaded'}`,
      };
    }
    switch (credential.kind) {
      case 'service_account':
        return {
          kind: credential.kind,
          principal: credential.key.client_email,
          origin: credential.origin,
          subject: this.config.impersonate,
        };
      case 'oauth':
        return { kind: credential.kind, principal: `OAuth client ${credential.clientId}`, origin: credential.origin };
      case 'none':
        return { kind: 'none' };
    }
  }

  /** The credential as error sentences name it: who, from where, for which scopes. No secret. With a connected grant, that person's Google account. */
  credentialContext(grant?: ConnectedGrant): CredentialContext {
    if (grant) {
      return {
        kind: 'connected',
        principal: `the Google account ${grant.googleEmail}`,
        origin: `the grant ${grant.principal} connected`,
        scopes: grant.scopes,
      };
    }
    const credential = this.config.credential;
    return {
      ...this.summary(),
      ...(credential.kind === 'service_account' && credential.key.private_key_id ? { keyId: credential.key.private_key_id } : {}),
      scopes: this.scopes,
    };
  }

  /** Whether a request URL is the OAuth token endpoint (Google's, or GSC_OAUTH_TOKEN_URL). */
  isTokenUrl(url: string): boolean {
    const bare = url.split('?')[0];
    return bare === GOOGLE_TOKEN_URL || (this.configuredTokenUrl !== undefined && bare === this.configuredTokenUrl);
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
    if (this.config.credential.kind === 'none') {
      return Promise.reject(new UserFacingError(SETUP_INSTRUCTIONS));
    }
    this.client ??= this.build();
    return this.client;
  }

  private async build(): Promise<OAuth2Client> {
    const { JWT, UserRefreshClient } = await import('google-auth-library');
    const credential = this.config.credential;
    const tokenUrl = this.config.google.oauthTokenUrl;
    // Every request of the client — token and API alike — gets the deadline.
    const transporterOptions = { timeout: this.config.google.timeoutMs };
    if (credential.kind === 'none') {
      throw new UserFacingError(SETUP_INSTRUCTIONS);
    }
    const client =
      credential.kind === 'oauth'
        ? new UserRefreshClient({
            clientId: credential.clientId,
            clientSecret: credential.clientSecret,
            refreshToken: credential.refreshToken,
            transporterOptions,
            ...(tokenUrl ? { endpoints: { oauth2TokenUrl: tokenUrl } } : {}),
          })
        : new JWT({
            email: credential.key.client_email,
            key: credential.key.private_key,
            keyId: credential.key.private_key_id,
            scopes: [...this.scopes],
            subject: this.config.impersonate,
            transporterOptions,
          });
    // The JWT client hard-codes Google's token URL and ignores a key's token_uri,
    // so an override has to happen on the way out (briefs/google.md §6.2).
    const redirect = credential.kind === 'service_account' && tokenUrl ? new URL(tokenUrl) : undefined;
    guardTokenRequests(client, (url) => this.isTokenUrl(url), redirect);
    return client;
  }
}
