import type * as OpenIdClient from 'openid-client';
import type { AuthConfig } from '../config/config.js';
import { isSecureUrl } from '../identity/issuer-keys.js';
import { AccessTokenError, principalOfClaims } from '../identity/access-token-verifier.js';

// Resource-server mode (PRODUCT.md §8d "The connect page"): the browser logs in
// with the company's identity provider — the issuer that signs the MCP access
// tokens — through openid-client, authorization code + PKCE (S256) + nonce, so
// the connect page knows which principal holds the browser. The principal is
// read from the ID token by the very rule the access-token verifier uses
// (principalOfClaims: GSC_AUTH_PRINCIPAL_CLAIM, else a verified `email`, else
// `sub`; the canonical spelling), with userinfo's claims when the ID token
// lacks the one that names people. The ID token comes straight from the token
// endpoint over TLS, which OpenID Connect Core §3.1.3.7 accepts in place of a
// signature check; openid-client checks iss, aud, exp, iat and nonce.

type Oidc = typeof OpenIdClient;

/** What the login started: kept in the state store until the IdP answers. */
export interface IdpLoginStart {
  readonly url: string;
  readonly verifier: string;
  readonly nonce: string;
}

export class IdpLoginError extends Error {
  override readonly name = 'IdpLoginError';
}

export class IdpLogin {
  private discovered?: Promise<OpenIdClient.Configuration>;

  constructor(
    private readonly auth: AuthConfig,
    private readonly client: { readonly clientId: string; readonly clientSecret: string },
    private readonly timeoutMs: number,
  ) {}

  /** The IdP's authorization URL for this browser, with `state`, PKCE and a nonce. */
  async start(redirectUri: string, state: string): Promise<IdpLoginStart> {
    const [oidc, config] = await Promise.all([openid(), this.configuration()]);
    const verifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email',
      response_type: 'code',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, verifier, nonce };
  }

  /**
   * Exchanges the code (checked against state, verifier and nonce) and returns
   * the principal the ID token names. Throws IdpLoginError with a sentence.
   */
  async finish(redirectUri: string, query: URLSearchParams, expected: { state: string; verifier: string; nonce: string }): Promise<string> {
    const [oidc, config] = await Promise.all([openid(), this.configuration()]);
    // openid-client sends the callback URL without its query as redirect_uri: the registered one.
    const current = new URL(redirectUri);
    current.search = query.toString();
    let claims: Record<string, unknown> | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: expected.verifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
      // An ID token without the claim that names people (some IdPs keep `email` to userinfo): ask userinfo,
      // for that subject only; the ID token's own claims win where both say something.
      const wanted = this.auth.principalClaim ?? 'email';
      if (claims && claims[wanted] === undefined && config.serverMetadata().userinfo_endpoint) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
        claims = { ...info, ...claims };
      }
    } catch (error) {
      const code = (error as { error?: unknown }).error;
      throw new IdpLoginError(
        `the sign-in with ${this.auth.issuer} did not complete (${typeof code === 'string' ? code : (error as Error).message})`,
      );
    }
    if (!claims) {
      throw new IdpLoginError(`${this.auth.issuer} returned no ID token`);
    }
    try {
      return principalOfClaims(claims, this.auth).principal;
    } catch (error) {
      if (error instanceof AccessTokenError) {
        throw new IdpLoginError(
          `the sign-in with ${this.auth.issuer} named nobody usable (${error.description.replace('access token', 'ID token')})`,
        );
      }
      throw error;
    }
  }

  private configuration() {
    const attempt = async () => {
      const oidc = await openid();
      const options = {
        timeout: Math.ceil(this.timeoutMs / 1000),
        // http only for a loopback issuer (tests, a local IdP), as the access-token verifier allows.
        ...(new URL(this.auth.issuer).protocol === 'http:' && isSecureUrl(this.auth.issuer)
          ? { execute: [oidc.allowInsecureRequests] }
          : {}),
      };
      const discover = (algorithm: 'oidc' | 'oauth2') =>
        oidc.discovery(new URL(this.auth.issuer), this.client.clientId, this.client.clientSecret, undefined, { ...options, algorithm });
      return discover('oidc').catch(() => discover('oauth2'));
    };
    // A failed discovery is tried again on the next login rather than remembered.
    this.discovered ??= attempt().catch((error: unknown) => {
      this.discovered = undefined;
      throw new IdpLoginError(`the identity provider ${this.auth.issuer} cannot be reached (${(error as Error).message})`);
    });
    return this.discovered;
  }
}

let loaded: Promise<Oidc> | undefined;
/** Loaded on first use: openid-client stays out of start-up for everyone not in connected resource-server mode. */
function openid(): Promise<Oidc> {
  return (loaded ??= import('openid-client'));
}
