// What the token endpoint trusts and what it has issued. Kept apart from the
// data state so reset() does not invalidate tokens clients already cache.

import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';

export interface ServiceAccountEntry {
  clientEmail: string;
  publicKey: KeyObject;
  /** Subject → scopes a Workspace admin delegated to this service account. */
  delegation: Record<string, string[]>;
  project: string;
}

export interface RefreshTokenEntry {
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  user: string;
  scopes: string[];
  /** Set for grants an emulator Google user gave through the consent page: their tokens see that user's properties. */
  googleUser?: string;
}

export interface AccessTokenEntry {
  principal: string;
  scopes: string[];
  /** Wall-clock milliseconds: the client decides when to refresh by its own clock, so expiry must use the same one. */
  expiresAt: number;
  /** The Cloud project quotas are charged to. */
  project: string;
  /** The emulator Google user whose consent this token carries (per-user property view, userinfo). */
  googleUser?: string;
  /** The refresh token it was minted from, so revoking the grant ends it too. */
  refreshToken?: string;
}

export interface DecodedJwt {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Buffer;
}

export const ACCESS_TOKEN_LIFETIME_SECONDS = 3599;

export function decodeJwt(token: string): DecodedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) {
    return undefined;
  }
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as unknown;
    const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
    if (!header || typeof header !== 'object' || !claims || typeof claims !== 'object') {
      return undefined;
    }
    return {
      header: header as Record<string, unknown>,
      claims: claims as Record<string, unknown>,
      signingInput: `${parts[0]}.${parts[1]}`,
      signature: Buffer.from(parts[2], 'base64url'),
    };
  } catch {
    return undefined;
  }
}

export function verifyRs256(jwt: DecodedJwt, key: KeyObject): boolean {
  if (jwt.header.alg !== 'RS256') {
    return false;
  }
  try {
    return verify('RSA-SHA256', Buffer.from(jwt.signingInput), key, jwt.signature);
  } catch {
    return false;
  }
}

/** The Cloud project of a service account: name@PROJECT.iam.gserviceaccount.com. */
function projectOf(clientEmail: string): string {
  const m = /@([^.]+)\.iam\.gserviceaccount\.com$/.exec(clientEmail);
  return m ? m[1] : (clientEmail.split('@')[1] ?? clientEmail);
}

export function splitScopes(value: unknown): string[] {
  return typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : [];
}

export class EmulatorCredentials {
  readonly serviceAccounts = new Map<string, ServiceAccountEntry>();
  readonly refreshTokens = new Map<string, RefreshTokenEntry>();
  readonly accessTokens = new Map<string, AccessTokenEntry>();

  registerServiceAccount(input: { clientEmail: string; publicKeyPem: string; delegation?: Record<string, string[]> }): void {
    this.serviceAccounts.set(input.clientEmail, {
      clientEmail: input.clientEmail,
      publicKey: createPublicKey(input.publicKeyPem),
      delegation: { ...input.delegation },
      project: projectOf(input.clientEmail),
    });
  }

  registerRefreshToken(input: RefreshTokenEntry): void {
    this.refreshTokens.set(input.refreshToken, { ...input, scopes: [...input.scopes] });
  }

  issue(
    principal: string,
    scopes: string[],
    project: string,
    lifetimeSeconds = ACCESS_TOKEN_LIFETIME_SECONDS,
    grant: { googleUser?: string; refreshToken?: string } = {},
  ): string {
    const token = `ya29.${randomBytes(60).toString('base64url')}`;
    this.accessTokens.set(token, {
      principal,
      scopes: [...scopes],
      expiresAt: Date.now() + lifetimeSeconds * 1000,
      project,
      ...(grant.googleUser ? { googleUser: grant.googleUser } : {}),
      ...(grant.refreshToken ? { refreshToken: grant.refreshToken } : {}),
    });
    return token;
  }

  /** Revocation: the refresh token and every access token minted from it stop working. */
  revokeGrant(refreshToken: string): void {
    this.refreshTokens.delete(refreshToken);
    for (const [token, entry] of this.accessTokens) {
      if (entry.refreshToken === refreshToken) {
        this.accessTokens.delete(token);
      }
    }
  }

  /**
   * The holder of a bearer token: one this endpoint issued that has not
   * expired, or a self-signed service-account JWT (google-auth-library's
   * useJWTAccessWithScope mode). Both use the wall clock, not the emulator's
   * clock, because the client signs and refreshes by the wall clock.
   */
  resolveBearer(token: string): AccessTokenEntry | undefined {
    const issued = this.accessTokens.get(token);
    if (issued) {
      return issued.expiresAt > Date.now() ? issued : undefined;
    }
    const jwt = decodeJwt(token);
    if (!jwt) {
      return undefined;
    }
    const iss = jwt.claims.iss;
    const sa = typeof iss === 'string' ? this.serviceAccounts.get(iss) : undefined;
    if (!sa || !verifyRs256(jwt, sa.publicKey)) {
      return undefined;
    }
    const exp = Number(jwt.claims.exp);
    if (!Number.isFinite(exp) || exp * 1000 <= Date.now()) {
      return undefined;
    }
    const scopes = splitScopes(jwt.claims.scope);
    if (!scopes.length) {
      return undefined;
    }
    return { principal: sa.clientEmail, scopes, expiresAt: exp * 1000, project: sa.project };
  }
}
