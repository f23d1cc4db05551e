import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { AccessTokenError, AccessTokenVerifier } from '../identity/access-token-verifier.js';
import { authFailure, bearerTokenOf, type ProtectedResourceSettings } from '../identity/protected-resource.js';
import { Clock } from '../common/clock.js';
import { SERVER_NAME } from '../common/product.js';
import { CONFIG, type Config } from '../config/config.js';
import { authInfoFor, LOCAL_PRINCIPAL } from '../identity/caller.js';
import { checkPrincipal, escapedPrincipal, type PrincipalProblem, principalRefusal } from '../common/principal-name.js';
import { HTTP_MOUNT, type HttpMount } from './http-mount.js';

/** A request that cannot go on: the status, the headers (a Bearer challenge) and the sentence for the JSON-RPC error. */
export interface Refused {
  readonly status: number;
  readonly message: string;
  readonly headers?: Record<string, string>;
  /** A principal refused for its spelling (PRODUCT.md §8b): what the audit trail records — a reason code and the spelling escaped to ASCII. */
  readonly refusedPrincipal?: { readonly reason: `principal_${PrincipalProblem}`; readonly principal: string };
}

/**
 * The shared bearer token identifies one principal, bound to the token: two
 * servers with different tokens sharing a state store and approval secret are
 * different principals, so neither accepts the other's approvals, sessions or
 * exports. It is `token:` and 64 bits of a SHA-256 of the token (prefixed with
 * this purpose), never the token: the audit trail and /admin show principals.
 * 64 bits keep a deployment's few tokens apart and give nothing usable about a
 * token of at least 16 characters (`openssl rand -hex 32` is what the README
 * asks for). A slow hash would cost every process ~50–300 ms on its first
 * request, and a gateway that runs a process per request would pay it on each.
 */
export function tokenPrincipal(token: string): string {
  return `token:${createHash('sha256').update(`google-search-console-mcp principal of GSC_HTTP_TOKEN\0${token}`).digest('hex').slice(0, 16)}`;
}

const SESSIONLESS_TTL_SECONDS = 3600;

/**
 * Who is calling over HTTP (PRODUCT §8b), in one of four ways: the host
 * application names them (the embedded module's `principal`), an OAuth 2.1
 * access token from GSC_AUTH_ISSUER, the shared GSC_HTTP_TOKEN (principal
 * `token:<hash of the token>`), or nothing at all on loopback (principal `local`).
 * Every principal is in the one canonical spelling (common/principal-name.ts).
 */
@Injectable()
export class HttpIdentity {
  private readonly logger = new Logger('HttpIdentity');
  private readonly verifier?: AccessTokenVerifier;
  private sharedTokenPrincipal?: string;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(HTTP_MOUNT) private readonly mount: HttpMount,
    clock: Clock,
  ) {
    if (config.auth) {
      this.verifier = new AccessTokenVerifier(config.auth, { clock, onWarning: (message) => this.logger.warn(message) });
    }
  }

  /** Whether the MCP endpoint demands a credential a DNS-rebinding page cannot have. */
  get credentialRequired(): boolean {
    return this.mode !== 'local';
  }

  get mode(): 'host' | 'oauth' | 'token' | 'local' {
    if (this.mount.principal) {
      return 'host';
    }
    if (this.config.auth) {
      return 'oauth';
    }
    if (this.config.http.token) {
      return 'token';
    }
    return 'local';
  }

  async identify(req: IncomingMessage, mcpPath: string): Promise<AuthInfo | Refused> {
    const now = Math.floor(Date.now() / 1000);
    if (this.mount.principal) {
      const named = await this.mount.principal(req);
      if (typeof named !== 'string' || !named.trim()) {
        return {
          status: 401,
          message:
            'The host application did not identify the caller (its principal option returned nothing), so this request is refused; sign in through the host application',
        };
      }
      const checked = checkPrincipal(named.trim());
      if (!checked.ok) {
        return {
          status: 401,
          message: `The caller is refused: ${principalRefusal(checked.problem, 'the principal the host application named')}.`,
          refusedPrincipal: { reason: `principal_${checked.problem}`, principal: escapedPrincipal(named.trim()) },
        };
      }
      const { principal } = checked;
      const groups = (await this.mount.groups?.(req)) ?? [];
      return authInfoFor({ principal, groups: groups.filter((g) => typeof g === 'string') }, now + SESSIONLESS_TTL_SECONDS);
    }
    if (this.verifier) {
      return this.verifyOAuth(req, mcpPath);
    }
    if (this.config.http.token) {
      const presented = bearerTokenOf(req.headers.authorization);
      if (!('token' in presented) || !sameSecret(presented.token, this.config.http.token)) {
        return {
          status: 401,
          message: 'Missing or invalid bearer token (GSC_HTTP_TOKEN)',
          headers: { 'WWW-Authenticate': `Bearer realm="${SERVER_NAME}"` },
        };
      }
      this.sharedTokenPrincipal ??= tokenPrincipal(this.config.http.token);
      return authInfoFor({ principal: this.sharedTokenPrincipal, groups: [] }, now + SESSIONLESS_TTL_SECONDS);
    }
    return authInfoFor({ principal: LOCAL_PRINCIPAL, groups: [] }, now + SESSIONLESS_TTL_SECONDS);
  }

  /** What the protected-resource metadata says, for this request's origin. */
  protectedResource(mcpPath: string): ProtectedResourceSettings | undefined {
    const auth = this.config.auth;
    return auth ? { issuer: auth.issuer, audience: auth.audience, publicUrl: this.config.http.publicUrl, mcpPath } : undefined;
  }

  private async verifyOAuth(req: IncomingMessage, mcpPath: string): Promise<AuthInfo | Refused> {
    const settings = this.protectedResource(mcpPath)!;
    const origin = requestOrigin(req);
    const presented = bearerTokenOf(req.headers.authorization);
    if ('missing' in presented) {
      return {
        ...authFailure(settings, origin),
        message: 'Authentication required: send an OAuth access token as Authorization: Bearer <token>',
      };
    }
    if ('malformed' in presented) {
      return {
        ...authFailure(settings, origin, { description: 'The Authorization header is not a Bearer token' }),
        message: 'The Authorization header is not a Bearer token',
      };
    }
    try {
      const token = await this.verifier!.verify(presented.token);
      return authInfoFor({ principal: token.principal, groups: token.groups }, token.expiresAt, 'redacted', [...token.scopes]);
    } catch (error) {
      if (!(error instanceof AccessTokenError)) {
        throw error;
      }
      const failure = authFailure(settings, origin, { description: error.description, temporary: error.temporary });
      const spelling = error.reason === 'unnormalized_principal' || error.reason === 'invalid_principal';
      return {
        ...failure,
        message: error.temporary
          ? `The token cannot be checked right now: ${error.description}`
          : `The access token is refused: ${error.description}`,
        ...(spelling && error.refusedPrincipal !== undefined
          ? {
              refusedPrincipal: {
                reason: error.reason === 'unnormalized_principal' ? 'principal_not_normalized' : 'principal_not_plain',
                principal: error.refusedPrincipal,
              },
            }
          : {}),
      };
    }
  }
}

/** scheme://host of a request, from a Host already validated by checkSurface. */
export function requestOrigin(req: IncomingMessage): string {
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${secure ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
}

export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
