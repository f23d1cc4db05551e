// POST /token: Google's OAuth token endpoint for the grants the product uses —
// a service account's signed JWT assertion, a user's refresh token, and an
// authorization code with its PKCE verifier (connected accounts).
// Error bodies are the OAuth form ({error, error_description}), not the API form.

import { randomBytes } from 'node:crypto';
import { ACCESS_TOKEN_LIFETIME_SECONDS, decodeJwt, splitScopes, verifyRs256, type EmulatorCredentials } from './emulator-credentials.js';
import { s256, type OAuthUsers } from './emulator-oauth.js';
import type { TokenGrant } from './emulator-types.js';

export const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
const LEGACY_AUDIENCES = ['https://www.googleapis.com/oauth2/v4/token', 'https://accounts.google.com/o/oauth2/token'];
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLOCK_SKEW_SECONDS = 300;

export interface TokenAnswer {
  status: number;
  body: unknown;
  grant?: TokenGrant;
  principal?: string;
}

const oauthError = (status: number, error: string, description: string) => ({
  status,
  body: { error, error_description: description },
});

export interface TokenEndpointContext {
  credentials: EmulatorCredentials;
  /** The emulator's own token URL, also accepted as assertion audience. */
  tokenUrl: string;
  /** Emulator Google users and the web clients they consent to (authorization_code grant). */
  oauth: OAuthUsers;
}

export function handleTokenRequest(form: Record<string, string>, ctx: TokenEndpointContext): TokenAnswer {
  const grantType = form.grant_type;
  if (grantType === JWT_BEARER) {
    return jwtGrant(form, ctx);
  }
  if (grantType === 'refresh_token') {
    return refreshGrant(form, ctx);
  }
  if (grantType === 'authorization_code') {
    return codeGrant(form, ctx);
  }
  if (!grantType) {
    return oauthError(400, 'invalid_request', 'Missing required parameter: grant_type');
  }
  return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType}`);
}

function success(
  ctx: TokenEndpointContext,
  principal: string,
  scopes: string[],
  project: string,
  grant: { googleUser?: string; refreshToken?: string } = {},
) {
  const token = ctx.credentials.issue(principal, scopes, project, ACCESS_TOKEN_LIFETIME_SECONDS, grant);
  return {
    status: 200,
    body: { access_token: token, expires_in: ACCESS_TOKEN_LIFETIME_SECONDS, token_type: 'Bearer', scope: scopes.join(' ') },
  };
}

function jwtGrant(form: Record<string, string>, ctx: TokenEndpointContext): TokenAnswer {
  const jwt = form.assertion ? decodeJwt(form.assertion) : undefined;
  const claims = jwt?.claims ?? {};
  const iss = typeof claims.iss === 'string' ? claims.iss : '';
  const sub = typeof claims.sub === 'string' && claims.sub ? claims.sub : undefined;
  const scopes = splitScopes(claims.scope);
  const principal = sub ?? iss;
  const fail = (status: number, error: string, description: string): TokenAnswer => ({
    ...oauthError(status, error, description),
    grant: { grantType: 'jwt-bearer', principal, subject: sub, scopes, ok: false, error },
    principal: principal || undefined,
  });

  if (!form.assertion) {
    return fail(400, 'invalid_request', 'Missing required parameter: assertion');
  }
  const sa = ctx.credentials.serviceAccounts.get(iss);
  if (!jwt || !sa || !verifyRs256(jwt, sa.publicKey)) {
    return fail(400, 'invalid_grant', 'Invalid JWT Signature.');
  }

  const aud = claims.aud;
  if (aud !== GOOGLE_TOKEN_AUDIENCE && aud !== ctx.tokenUrl && !LEGACY_AUDIENCES.includes(String(aud))) {
    return fail(400, 'invalid_grant', `Invalid JWT: Failed audience check. The right audience is ${GOOGLE_TOKEN_AUDIENCE}`);
  }
  const iat = Number(claims.iat);
  const exp = Number(claims.exp);
  const nowSec = Date.now() / 1000;
  if (
    !Number.isFinite(iat) ||
    !Number.isFinite(exp) ||
    exp <= iat ||
    exp - iat > 3600 ||
    iat > nowSec + CLOCK_SKEW_SECONDS ||
    exp < nowSec - CLOCK_SKEW_SECONDS
  ) {
    return fail(
      400,
      'invalid_grant',
      'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
    );
  }
  if (!scopes.length) {
    return fail(400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
  }

  if (sub && sub !== iss) {
    const delegated = sa.delegation[sub];
    if (!delegated || !scopes.every((s) => delegated.includes(s))) {
      return fail(
        401,
        'unauthorized_client',
        'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
      );
    }
  }
  return {
    ...success(ctx, principal, scopes, sa.project),
    grant: { grantType: 'jwt-bearer', principal, subject: sub, scopes, ok: true },
    principal,
  };
}

function refreshGrant(form: Record<string, string>, ctx: TokenEndpointContext): TokenAnswer {
  const requested = splitScopes(form.scope);
  const entry = form.refresh_token ? ctx.credentials.refreshTokens.get(form.refresh_token) : undefined;
  const principal = entry?.user ?? '';
  const fail = (status: number, error: string, description: string): TokenAnswer => ({
    ...oauthError(status, error, description),
    grant: { grantType: 'refresh_token', principal, scopes: requested.length ? requested : (entry?.scopes ?? []), ok: false, error },
    principal: principal || undefined,
  });

  // Google checks the client before the token: an unknown client or a wrong secret is invalid_client (401).
  const clientKnown = [...ctx.credentials.refreshTokens.values()].filter((r) => r.clientId === form.client_id);
  const webClient = form.client_id ? ctx.oauth.clients.get(form.client_id) : undefined;
  if (!form.client_id || (clientKnown.length === 0 && !webClient)) {
    return fail(401, 'invalid_client', 'The OAuth client was not found.');
  }
  if (!clientKnown.some((r) => r.clientSecret === form.client_secret) && webClient?.clientSecret !== form.client_secret) {
    return fail(401, 'invalid_client', 'Unauthorized');
  }
  if (!form.refresh_token) {
    return fail(400, 'invalid_request', 'Missing required parameter: refresh_token');
  }
  if (!entry || entry.clientId !== form.client_id || entry.clientSecret !== form.client_secret) {
    return fail(400, 'invalid_grant', 'Token has been expired or revoked.');
  }
  // A refresh may narrow the scopes it was granted, never widen them.
  if (requested.length && !requested.every((s) => entry.scopes.includes(s))) {
    return fail(
      400,
      'invalid_scope',
      'The requested scope is invalid, unknown, malformed, or exceeds the scope granted by the resource owner.',
    );
  }
  const scopes = requested.length ? requested : entry.scopes;
  return {
    ...success(
      ctx,
      entry.user,
      scopes,
      entry.clientId,
      entry.googleUser ? { googleUser: entry.googleUser, refreshToken: entry.refreshToken } : {},
    ),
    grant: { grantType: 'refresh_token', principal: entry.user, scopes, ok: true },
    principal: entry.user,
  };
}

/**
 * authorization_code: the client authenticates, the code is this client's,
 * unused, unexpired and for the same redirect_uri, and SHA-256 of the verifier
 * is the challenge the authorization request carried (RFC 7636 §4.6).
 */
function codeGrant(form: Record<string, string>, ctx: TokenEndpointContext): TokenAnswer {
  const code = form.code ? ctx.oauth.codes.get(form.code) : undefined;
  const principal = code?.user ?? '';
  const fail = (status: number, error: string, description: string): TokenAnswer => ({
    ...oauthError(status, error, description),
    grant: { grantType: 'authorization_code', principal, scopes: code?.scopes ?? [], ok: false, error },
    principal: principal || undefined,
  });
  const client = form.client_id ? ctx.oauth.clients.get(form.client_id) : undefined;
  if (!client) {
    return fail(401, 'invalid_client', 'The OAuth client was not found.');
  }
  if (client.clientSecret !== form.client_secret) {
    return fail(401, 'invalid_client', 'Unauthorized');
  }
  if (!form.code) {
    return fail(400, 'invalid_request', 'Missing required parameter: code');
  }
  if (!code) {
    return fail(400, 'invalid_grant', 'Malformed auth code.');
  }
  const wasUsed = code.used;
  code.used = true; // single use, whatever happens next
  if (wasUsed || code.expiresAt <= Date.now() || code.clientId !== client.clientId) {
    return fail(400, 'invalid_grant', 'Bad Request');
  }
  if (form.redirect_uri !== code.redirectUri) {
    return fail(400, 'redirect_uri_mismatch', 'Bad Request');
  }
  if (!form.code_verifier) {
    return fail(400, 'invalid_grant', 'Missing code verifier.');
  }
  if (s256(form.code_verifier) !== code.codeChallenge) {
    return fail(400, 'invalid_grant', 'Invalid code verifier.');
  }

  let refreshToken: string | undefined;
  if (code.offline) {
    refreshToken = `1//0${newRefreshSuffix()}`;
    ctx.credentials.registerRefreshToken({
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      refreshToken,
      user: code.user,
      scopes: code.scopes,
      googleUser: code.user,
    });
  }
  const answer = success(ctx, code.user, code.scopes, client.clientId, { googleUser: code.user, refreshToken });
  return {
    status: answer.status,
    body: { ...answer.body, ...(refreshToken ? { refresh_token: refreshToken } : {}) },
    grant: { grantType: 'authorization_code', principal: code.user, scopes: code.scopes, ok: true },
    principal: code.user,
  };
}

const newRefreshSuffix = () => randomBytes(48).toString('base64url');
