import { Inject, Injectable } from '@nestjs/common';
import type { OAuth2Client } from 'google-auth-library';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import type { CredentialContext } from './google-error.js';
import { MalformedAnswerError } from './google-failure.js';

const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

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
  /** GSC_OAUTH_TOKEN_URL as isTokenUrl compares it: parsed once, not on each of its two calls per Google request. */
  private readonly configuredTokenUrl?: string;

  constructor(@Inject(CONFIG) private readonly config: Config) {
    const tokenUrl = config.google.oauthTokenUrl;
    if (tokenUrl !== undefined) {
      this.configuredTokenUrl = new URL(tokenUrl).href.split('?')[0];
    }
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

  /** The credential as error sentences name it: who, from where, for which scopes. No secret. */
  credentialContext(): CredentialContext {
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
    client.transporter.interceptors.request.add({
      resolved: async (options) => {
        if (!this.isTokenUrl(String(options.url))) {
          return options;
        }
        if (redirect) {
          options.url = redirect;
        }
        // google-auth-library retries a token POST up to 3 times on its own; inside
        // GoogleService's bounded attempts that made 16 requests for one call.
        options.retry = false;
        options.retryConfig = { ...options.retryConfig, retry: 0 };
        return options;
      },
    });
    // A 200 from the token endpoint that is not a token (an HTML login page of a
    // proxy, truncated JSON) would otherwise become a request without credentials.
    client.transporter.interceptors.response.add({
      resolved: async (response) => {
        if (!this.isTokenUrl(String(response.config?.url ?? ''))) {
          return response;
        }
        const data = response.data as { access_token?: unknown } | undefined;
        if (
          typeof data !== 'object' ||
          data === null ||
          Array.isArray(data) ||
          typeof data.access_token !== 'string' ||
          !data.access_token
        ) {
          throw new MalformedAnswerError(describeTokenBody(response.data), 'token');
        }
        return response;
      },
    });
    return client;
  }
}

function describeTokenBody(data: unknown): string {
  if (data === undefined || data === null || data === '') {
    return 'an empty body';
  }
  if (typeof data === 'string') {
    return data.trim().startsWith('<') ? 'an HTML page' : 'something that is not JSON';
  }
  if (Array.isArray(data)) {
    return 'a JSON array';
  }
  return 'a JSON object without access_token';
}
