// Google's OAuth 2.0 for Web Server Applications, the browser side: the
// authorization endpoint (/o/oauth2/v2/auth) with a consent page, the consent
// decision, token revocation (/revoke) and userinfo (/oauth2/v3/userinfo).
// Sources are cited in README.md ("Connected accounts").

import type { EmulatorCredentials } from './emulator-credentials.js';
import type { Answer } from './emulator-faults.js';
import { CODE_LIFETIME_MS, IDENTITY_SCOPES, newId, type OAuthUsers, type PendingConsent, redirectAllowed } from './emulator-oauth.js';
import { SCOPES } from './emulator-routing.js';

export const AUTHORIZE_PATH = '/o/oauth2/v2/auth';
export const CONSENT_PATH = '/o/oauth2/v2/auth/consent';
export const REVOKE_PATH = '/revoke';
export const USERINFO_PATH = '/oauth2/v3/userinfo';

const KNOWN_SCOPES = new Set<string>([...Object.keys(IDENTITY_SCOPES), ...Object.values(SCOPES)]);
const PENDING_LIFETIME_MS = 10 * 60 * 1000;
const NO_STORE = { 'cache-control': 'no-cache, no-store, max-age=0, must-revalidate' };

export interface OAuthContext {
  oauth: OAuthUsers;
  credentials: EmulatorCredentials;
  now: number;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(status: number, title: string, body: string): Answer {
  const payload =
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body>${body}</body></html>\n`;
  return { status, raw: { contentType: 'text/html; charset=utf-8', payload }, headers: NO_STORE };
}

/** Google shows errors it will not send back to the app on its own page: "Error 400: redirect_uri_mismatch". */
function errorPage(status: number, error: string, detail: string): Answer {
  return page(
    status,
    `Error ${status}: ${error}`,
    `<h1>Access blocked: authorization error</h1><p id="error">Error ${status}: ${escapeHtml(error)}</p><p id="detail">${escapeHtml(detail)}</p>`,
  );
}

function redirect(redirectUri: string, params: Record<string, string | undefined>): Answer {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined) {
      url.searchParams.set(k, v);
    }
  }
  return { status: 302, raw: { contentType: 'text/html; charset=utf-8', payload: '' }, headers: { ...NO_STORE, location: url.toString() } };
}

export function handleAuthorize(query: Record<string, string>, ctx: OAuthContext): Answer {
  const client = query.client_id ? ctx.oauth.clients.get(query.client_id) : undefined;
  if (!client) {
    return errorPage(401, 'invalid_client', 'The OAuth client was not found.');
  }
  const redirectUri = query.redirect_uri;
  if (!redirectUri || !redirectAllowed(client, redirectUri)) {
    return errorPage(
      400,
      'redirect_uri_mismatch',
      `You can't sign in to this app because it doesn't comply with Google's OAuth 2.0 policy. redirect_uri=${redirectUri ?? ''}`,
    );
  }
  const invalid = (detail: string) => errorPage(400, 'invalid_request', detail);
  if (!query.response_type) {
    return invalid('Required parameter is missing: response_type');
  }
  if (query.response_type !== 'code') {
    return invalid(`Invalid response_type: ${query.response_type}`);
  }
  const scopes = (query.scope ?? '').split(/\s+/).filter(Boolean);
  if (!scopes.length) {
    return invalid('Missing required parameter: scope');
  }
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s));
  if (unknown.length) {
    return errorPage(400, 'invalid_scope', `Some requested scopes were invalid. {invalid=[${unknown.join(', ')}]}`);
  }
  // Stricter than Google, which also accepts no PKCE or `plain`: a server holding people's grants must use S256.
  if (!query.code_challenge) {
    return invalid('Missing required parameter: code_challenge (this emulator requires PKCE)');
  }
  if ((query.code_challenge_method ?? 'plain') !== 'S256') {
    return invalid(`Invalid code_challenge_method: ${query.code_challenge_method ?? '(none, meaning plain)'}; this emulator requires S256`);
  }
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(query.code_challenge)) {
    return invalid('Invalid code_challenge.');
  }
  const accessType = query.access_type ?? 'online';
  if (accessType !== 'online' && accessType !== 'offline') {
    return invalid(`Invalid access_type: ${accessType}`);
  }
  const prompts = (query.prompt ?? '').split(/\s+/).filter(Boolean);
  const badPrompt = prompts.find((p) => !['none', 'consent', 'select_account'].includes(p));
  if (badPrompt) {
    return invalid(`Invalid prompt: ${badPrompt}`);
  }
  if (prompts.includes('none')) {
    if (prompts.length > 1) {
      return invalid('prompt=none cannot be combined with other values');
    }
    // The emulator has no signed-in browser session, so it can never answer without showing a page.
    return redirect(redirectUri, { error: 'interaction_required', state: query.state });
  }
  const igs = query.include_granted_scopes ?? 'false';
  if (igs !== 'true' && igs !== 'false') {
    return invalid(`Invalid include_granted_scopes: ${igs}`);
  }

  const pending: PendingConsent = {
    id: newId('', 24),
    clientId: client.clientId,
    redirectUri,
    scopes,
    state: query.state,
    codeChallenge: query.code_challenge,
    offline: accessType === 'offline',
    includeGrantedScopes: igs === 'true',
    expiresAt: ctx.now + PENDING_LIFETIME_MS,
  };
  ctx.oauth.pending.set(pending.id, pending);
  return consentPage(pending, ctx);
}

function consentPage(p: PendingConsent, ctx: OAuthContext): Answer {
  const users = [...ctx.oauth.users.values()]
    .map(
      (u, i) =>
        `<li><label><input type="radio" name="user" value="${escapeHtml(u.email)}"${i === 0 ? ' checked' : ''}> ` +
        `${escapeHtml(u.name ?? u.email)} &lt;${escapeHtml(u.email)}&gt;</label></li>`,
    )
    .join('');
  const scopes = p.scopes
    .map((s) => {
      const identity = Object.hasOwn(IDENTITY_SCOPES, s);
      // Identity scopes are always granted: shown ticked and disabled, and not read from the form.
      return `<li><label><input type="checkbox" name="scope" value="${escapeHtml(s)}" checked${identity ? ' disabled' : ''}> ${escapeHtml(s)}</label></li>`;
    })
    .join('');
  return page(
    200,
    'Sign in - Google Accounts (emulator)',
    `<h1>Choose an account</h1><p>to continue to <span id="client">${escapeHtml(p.clientId)}</span></p>` +
      `<form method="post" action="${CONSENT_PATH}"><input type="hidden" name="request" value="${escapeHtml(p.id)}">` +
      `<fieldset><legend>Account</legend><ul>${users}</ul></fieldset>` +
      `<fieldset><legend>This app wants to</legend><ul>${scopes}</ul></fieldset>` +
      `<button type="submit" name="decision" value="deny">Cancel</button> <button type="submit" name="decision" value="allow">Allow</button></form>`,
  );
}

export function handleConsent(form: URLSearchParams, ctx: OAuthContext): Answer {
  const pending = ctx.oauth.takePending(form.get('request') ?? '', ctx.now);
  if (!pending) {
    return errorPage(400, 'invalid_request', 'This sign-in request has expired or was already answered. Start again from the app.');
  }
  if (form.get('decision') !== 'allow') {
    return redirect(pending.redirectUri, { error: 'access_denied', state: pending.state });
  }
  const email = form.get('user') ?? '';
  if (!ctx.oauth.users.has(email)) {
    return errorPage(400, 'invalid_request', 'Choose an account.');
  }
  const ticked = new Set(form.getAll('scope'));
  const chosen = pending.scopes
    .filter((s) => Object.hasOwn(IDENTITY_SCOPES, s) || ticked.has(s))
    .map((s) => (Object.hasOwn(IDENTITY_SCOPES, s) ? IDENTITY_SCOPES[s] : s));
  const scopes = [...new Set([...(pending.includeGrantedScopes ? ctx.oauth.previouslyGranted(pending.clientId, email) : []), ...chosen])];
  ctx.oauth.rememberGrant(pending.clientId, email, chosen);
  const code = newId('4/0A', 40);
  ctx.oauth.codes.set(code, {
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    user: email,
    scopes,
    codeChallenge: pending.codeChallenge,
    offline: pending.offline,
    expiresAt: ctx.now + CODE_LIFETIME_MS,
    used: false,
  });
  // Google also echoes the granted scopes and the account's authuser/prompt in the redirect; `scope` is the useful one.
  return redirect(pending.redirectUri, { code, scope: scopes.join(' '), state: pending.state });
}

/** POST /revoke: a refresh token revokes the grant; an access token does too when it came from one. */
export function handleRevoke(token: string | undefined, ctx: OAuthContext): Answer {
  const invalid: Answer = {
    status: 400,
    body: { error: 'invalid_token', error_description: 'Token expired or revoked' },
    headers: NO_STORE,
  };
  if (!token) {
    return { status: 400, body: { error: 'invalid_request', error_description: 'Bad Request' }, headers: NO_STORE };
  }
  const creds = ctx.credentials;
  const access = creds.accessTokens.get(token);
  const refreshToken = creds.refreshTokens.has(token) ? token : access?.refreshToken;
  if (!refreshToken && !access) {
    return invalid;
  }
  if (refreshToken) {
    creds.revokeGrant(refreshToken);
  } else {
    creds.accessTokens.delete(token);
  }
  return { status: 200, body: {}, headers: NO_STORE };
}

/** GET /oauth2/v3/userinfo: the OpenID Connect claims the granted scopes allow. */
export function handleUserinfo(bearer: string | undefined, ctx: OAuthContext): Answer {
  const unauthorized: Answer = {
    status: 401,
    body: { error: 'invalid_request', error_description: 'Invalid Credentials' },
    headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
  };
  const holder = bearer ? ctx.credentials.resolveBearer(bearer) : undefined;
  const user = holder?.googleUser ? ctx.oauth.users.get(holder.googleUser) : undefined;
  if (!holder || !user) {
    return unauthorized;
  }
  const has = (s: string) => holder.scopes.includes(s);
  const email = has(IDENTITY_SCOPES.email);
  const profile = has(IDENTITY_SCOPES.profile);
  if (!email && !profile && !has('openid')) {
    return unauthorized;
  }
  return {
    status: 200,
    body: {
      sub: user.sub,
      ...(profile && user.name ? { name: user.name } : {}),
      ...(profile && user.picture ? { picture: user.picture } : {}),
      ...(email ? { email: user.email, email_verified: true } : {}),
    },
    headers: NO_STORE,
  };
}
