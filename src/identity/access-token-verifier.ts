import { type CryptoKey, decodeProtectedHeader, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { ConfigError } from '../config/config-error.js';
import { IssuerKeys, IssuerKeysUnavailable, isSecureUrl } from './issuer-keys.js';
import { hasInvisible } from '../common/inert-text.js';
import { checkPrincipal, escapedPrincipal, principalRefusal } from '../common/principal-name.js';

/** What `config.auth` carries: GSC_AUTH_ISSUER, GSC_AUTH_AUDIENCE, GSC_AUTH_JWKS_URL, GSC_AUTH_PRINCIPAL_CLAIM, GSC_AUTH_GROUPS_CLAIM. */
export interface AccessTokenSettings {
  readonly issuer: string;
  readonly audience: string;
  readonly jwksUrl?: string;
  /** Default: `email`, and `sub` when a token has no `email`. When set, that claim and nothing else. */
  readonly principalClaim?: string;
  /** Default: `groups`. */
  readonly groupsClaim?: string;
}

export interface AccessTokenVerifierOptions {
  readonly clock?: { now(): Date };
  /** Deadline of each request to the issuer (default 5 s). */
  readonly timeoutMs?: number;
  /** Least time between two fetches of the key set, however many unknown `kid`s arrive (default 30 s). */
  readonly cooldownMs?: number;
  /** Key-set cache lifetime (default 10 min). */
  readonly maxAgeMs?: number;
  /** Tolerance on `exp` and `nbf`, 0–60 s (default 60). */
  readonly leewaySeconds?: number;
  readonly fetch?: typeof fetch;
  /** Where a failed key-set refresh is reported (default: nowhere). */
  readonly onWarning?: (message: string) => void;
}

export interface VerifiedAccessToken {
  /** The person: the principal claim's value in the canonical spelling every principal is compared in (common/principal-name.ts). */
  readonly principal: string;
  /** Which claim named them (`email`, `sub`, or the configured one). */
  readonly principalClaim: string;
  readonly groups: readonly string[];
  /** `exp`, in seconds since the epoch (the MCP SDK's AuthInfo.expiresAt unit). */
  readonly expiresAt: number;
  /** From `scope` (space-separated, RFC 9068) or `scp` (Entra ID, Okta). */
  readonly scopes: readonly string[];
  /** `client_id` (RFC 9068), else `azp`. */
  readonly clientId?: string;
  readonly claims: Readonly<JWTPayload>;
}

export type AccessTokenFailure =
  | 'malformed'
  | 'unsupported_algorithm'
  | 'unknown_key'
  | 'bad_signature'
  | 'wrong_issuer'
  | 'wrong_audience'
  | 'expired'
  | 'not_yet_valid'
  | 'missing_expiry'
  | 'missing_principal'
  | 'invalid_principal'
  | 'unnormalized_principal'
  | 'unverified_email'
  | 'invalid_groups'
  | 'keys_unavailable';

// Fixed sentences: they go into WWW-Authenticate error_description, so they
// carry nothing from the token (no claim value, no issuer it named, never the token).
const DESCRIPTIONS: Record<AccessTokenFailure, string> = {
  malformed: 'the access token is not a well-formed JWT',
  unsupported_algorithm: 'the access token is not signed with an accepted asymmetric algorithm',
  unknown_key: 'the access token is signed with a key the issuer does not publish',
  bad_signature: 'the access token signature does not verify',
  wrong_issuer: 'the access token comes from another issuer',
  wrong_audience: 'the access token was not issued for this server',
  expired: 'the access token has expired',
  not_yet_valid: 'the access token is not valid yet',
  missing_expiry: 'the access token has no expiry (exp)',
  missing_principal: 'the access token names no principal',
  invalid_principal: principalRefusal('not_plain', 'the access token principal claim'),
  unnormalized_principal: principalRefusal('not_normalized', 'the access token principal claim'),
  unverified_email: 'the access token email address is not verified',
  invalid_groups: 'the access token groups claim is not a list of names',
  keys_unavailable: 'the issuer signing keys cannot be fetched right now',
};

/** A token was refused. The message is a fixed sentence; it never contains the token or its claims. */
export class AccessTokenError extends Error {
  override readonly name = 'AccessTokenError';
  /** True when the token may be fine and the issuer is what failed (answer 503, not 401). */
  readonly temporary: boolean;

  constructor(
    readonly reason: AccessTokenFailure,
    /** A refused principal claim, escaped to ASCII (escapedPrincipal): for the audit trail, never for the client. */
    readonly refusedPrincipal?: string,
  ) {
    super(DESCRIPTIONS[reason]);
    this.temporary = reason === 'keys_unavailable';
  }

  /** Suitable for `error_description`. */
  get description(): string {
    return this.message;
  }
}

/**
 * MCP authorization (2025-11-25, "Token Handling"): a resource server "MUST
 * validate access tokens as described in OAuth 2.1 Section 5.2" and "MUST
 * validate that access tokens were issued specifically for them as the
 * intended audience". Asymmetric signatures only: with a symmetric algorithm
 * the verification key is the signing key, and an HS256 token "signed" with
 * the issuer's public key would otherwise verify.
 */
export const ACCEPTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;
const ACCEPTED = new Set<string>(ACCEPTED_ALGORITHMS);

export const MAX_LEEWAY_SECONDS = 60;
// Node refuses request headers past 16 KiB in total, so no real bearer token is longer.
const MAX_TOKEN_LENGTH = 16 * 1024;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Verifies OAuth 2.1 access tokens (JWT) for one issuer and audience. */
export class AccessTokenVerifier {
  private readonly keys: IssuerKeys;
  private readonly clock: { now(): Date };
  private readonly leeway: number;

  constructor(
    private readonly settings: AccessTokenSettings,
    options: AccessTokenVerifierOptions = {},
  ) {
    assertSettings(settings);
    this.clock = options.clock ?? { now: () => new Date() };
    this.leeway = options.leewaySeconds ?? MAX_LEEWAY_SECONDS;
    if (!(this.leeway >= 0 && this.leeway <= MAX_LEEWAY_SECONDS)) {
      throw new RangeError(`leewaySeconds must be between 0 and ${MAX_LEEWAY_SECONDS}`);
    }
    this.keys = new IssuerKeys(settings.issuer, settings.jwksUrl, {
      clock: this.clock,
      timeoutMs: options.timeoutMs ?? 5_000,
      cooldownMs: options.cooldownMs ?? 30_000,
      maxAgeMs: options.maxAgeMs ?? 600_000,
      fetch: options.fetch ?? fetch,
      onWarning: options.onWarning ?? (() => undefined),
    });
  }

  /** Throws AccessTokenError. */
  async verify(token: string): Promise<VerifiedAccessToken> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) {
      throw new AccessTokenError('malformed');
    }
    let alg: unknown;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw new AccessTokenError('malformed');
    }
    // Before any key is looked up: `none` and HMAC never reach a verifier.
    if (typeof alg !== 'string' || !ACCEPTED.has(alg)) {
      throw new AccessTokenError('unsupported_algorithm');
    }

    const payload = await this.verifySignatureAndTimes(token);
    return this.identify(payload);
  }

  private async verifySignatureAndTimes(token: string): Promise<JWTPayload> {
    const options: JWTVerifyOptions = {
      algorithms: [...ACCEPTED_ALGORITHMS],
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      requiredClaims: ['exp'],
      clockTolerance: this.leeway,
      currentDate: this.clock.now(),
    };
    try {
      return (await jwtVerify(token, this.keys.resolve, options)).payload;
    } catch (error) {
      // A token without `kid` and a key set with several keys of its type: try each (jose 6 leaves that to the caller).
      if ((error as { code?: string }).code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') {
        return this.tryEachKey(token, error as AsyncIterable<CryptoKey>, options);
      }
      throw toFailure(error);
    }
  }

  private async tryEachKey(token: string, candidates: AsyncIterable<CryptoKey>, options: JWTVerifyOptions): Promise<JWTPayload> {
    let last: unknown = new AccessTokenError('bad_signature');
    for await (const key of candidates) {
      try {
        return (await jwtVerify(token, key, options)).payload;
      } catch (error) {
        last = error;
        if ((error as { code?: string }).code !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') {
          break;
        }
      }
    }
    throw toFailure(last);
  }

  private identify(claims: JWTPayload): VerifiedAccessToken {
    const { principal, principalClaim } = principalOfClaims(claims, this.settings);
    return {
      principal,
      principalClaim,
      groups: this.groupsOf(claims),
      expiresAt: claims.exp!,
      scopes: scopesOf(claims),
      clientId: typeof claims.client_id === 'string' ? claims.client_id : typeof claims.azp === 'string' ? claims.azp : undefined,
      claims: Object.freeze({ ...claims }),
    };
  }

  private groupsOf(claims: JWTPayload): string[] {
    const value = claims[this.settings.groupsClaim ?? 'groups'];
    if (value === undefined || value === null) {
      return [];
    }
    // A scalar or a list of objects is a mis-mapped claim; reading it as "no groups"
    // would quietly take people's rights away with nothing pointing at the cause.
    if (!Array.isArray(value) || !value.every((g) => typeof g === 'string' && g.length > 0 && !hasInvisible(g))) {
      throw new AccessTokenError('invalid_groups');
    }
    return [...new Set(value as string[])];
  }
}

/**
 * Who a set of claims names, by the one rule for access tokens and the connect
 * page's IdP login alike: the configured claim, else `email` (verified), else
 * `sub`; in the canonical spelling. Throws AccessTokenError.
 */
export function principalOfClaims(
  claims: JWTPayload,
  settings: Pick<AccessTokenSettings, 'principalClaim'>,
): { principal: string; principalClaim: string } {
  let claim = settings.principalClaim ?? 'email';
  if (settings.principalClaim === undefined && claims.email === undefined) {
    claim = 'sub';
  }
  const value = claims[claim];
  if (value === undefined || value === null || value === '') {
    throw new AccessTokenError('missing_principal');
  }
  if (typeof value !== 'string') {
    throw new AccessTokenError('invalid_principal');
  }
  const checked = checkPrincipal(value);
  if (!checked.ok) {
    throw new AccessTokenError(
      checked.problem === 'not_normalized' ? 'unnormalized_principal' : 'invalid_principal',
      escapedPrincipal(value),
    );
  }
  const { principal } = checked;
  // An address the identity provider says it has not verified could be anyone's.
  if (claim === 'email' && !emailVerified(claims.email_verified)) {
    throw new AccessTokenError('unverified_email');
  }
  return { principal, principalClaim: claim };
}

/**
 * OpenID Connect Core §5.1 makes email_verified a boolean, so only true says
 * "verified". The string "true" passes too, because AWS Cognito sends the
 * claim as a string; "TRUE", "1", 1, "yes" and every other value do not — a
 * claim that is not plainly true is no verification. An absent claim passes:
 * the access tokens of Microsoft Entra ID, and Okta's custom email claims,
 * carry no email_verified at all, and the address is then the issuer's own
 * assertion, as every other claim of the token is.
 */
function emailVerified(value: unknown): boolean {
  return value === undefined || value === true || value === 'true';
}

function scopesOf(claims: JWTPayload): string[] {
  const raw = claims.scope ?? claims.scp;
  const list = typeof raw === 'string' ? raw.split(' ') : Array.isArray(raw) ? raw : [];
  return [...new Set(list.filter((s): s is string => typeof s === 'string' && s.length > 0))];
}

function toFailure(error: unknown): AccessTokenError {
  if (error instanceof AccessTokenError) {
    return error;
  }
  if (error instanceof IssuerKeysUnavailable) {
    return new AccessTokenError('keys_unavailable');
  }
  const { code, claim, reason } = error as { code?: string; claim?: string; reason?: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new AccessTokenError('expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'iss') {
        return new AccessTokenError('wrong_issuer');
      }
      if (claim === 'aud') {
        return new AccessTokenError('wrong_audience');
      }
      if (claim === 'exp') {
        return new AccessTokenError(reason === 'missing' ? 'missing_expiry' : 'malformed');
      }
      if (claim === 'nbf' && reason === 'check_failed') {
        return new AccessTokenError('not_yet_valid');
      }
      return new AccessTokenError('malformed');
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return new AccessTokenError('unknown_key');
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new AccessTokenError('bad_signature');
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return new AccessTokenError('unsupported_algorithm');
    // The issuer published a set jose cannot use (a private key, a malformed member).
    case 'ERR_JWKS_INVALID':
    case 'ERR_JWK_INVALID':
      return new AccessTokenError('keys_unavailable');
    default:
      return new AccessTokenError('malformed');
  }
}

/**
 * The same rules the configuration applies to GSC_AUTH_*; repeated here so the
 * verifier cannot be built on an unsafe issuer by another path (the module's
 * options, a test).
 */
function assertSettings(settings: AccessTokenSettings): void {
  const { issuer, audience, jwksUrl, principalClaim, groupsClaim } = settings;
  if (!URL.canParse(issuer) || !isSecureUrl(issuer)) {
    throw new ConfigError(
      'GSC_AUTH_ISSUER must be the issuer URL exactly as tokens carry it in iss, https (http only to a loopback host), e.g. https://login.corp.example/',
    );
  }
  const url = new URL(issuer);
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(
      'GSC_AUTH_ISSUER must have no query, fragment or user name (RFC 8414 §2); write it exactly as tokens carry it in iss',
    );
  }
  if (!audience?.trim()) {
    throw new ConfigError('GSC_AUTH_AUDIENCE must name this server as tokens carry it in aud, e.g. https://mcp.corp.example/mcp');
  }
  if (jwksUrl !== undefined && !isSecureUrl(jwksUrl)) {
    throw new ConfigError(
      'GSC_AUTH_JWKS_URL must be an https URL (http only to a loopback host), e.g. https://login.corp.example/.well-known/jwks.json',
    );
  }
  for (const [variable, value] of [
    ['GSC_AUTH_PRINCIPAL_CLAIM', principalClaim],
    ['GSC_AUTH_GROUPS_CLAIM', groupsClaim],
  ] as const) {
    if (value !== undefined && !value.trim()) {
      throw new ConfigError(`${variable} must be a claim name, such as email or groups`);
    }
  }
}
