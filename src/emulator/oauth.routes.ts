// Google's OAuth 2.0 for Web Server Applications, the browser side: the
// authorization endpoint (/o/oauth2/v2/auth) with a consent page, the consent
// decision, token revocation (/revoke) and userinfo (/oauth2/v3/userinfo).
// Sources are cited in README.md ("Connected accounts").

import type { EmulatorCredentials } from './emulator-credentials.js';
import type { Answer } from './emulator-faults.js';
import { CODE_LIFETIME_MS, IDENTITY_SCOPES, newId, type OAuthUsers, type PendingConsent, redirectAllowed } from './emulator-oauth.js';
import { SCOPES } from './emulator-routing.js';
import { consentWords } from './consent-words.js';

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

function page(status: number, title: string, body: string, style = ''): Answer {
  const payload =
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(title)}</title>${style ? `<style>${style}</style>` : ''}</head>` +
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

/** The consent page's look: Google's account chooser and consent screen, reduced to what a person reads. */
const CONSENT_STYLE =
  'body{font:15px/1.45 system-ui,sans-serif;color:#1f1f1f;background:#f0f4f9;margin:0;padding:2rem 1rem}' +
  'main{max-width:34rem;margin:0 auto;background:#fff;border-radius:1.75rem;padding:2rem 2.25rem}' +
  '.brand{font-size:1.1rem;margin:0 0 1rem}.brand small{color:#5f6368;font-size:.8rem;margin-left:.4rem}' +
  'h1{font-size:1.6rem;font-weight:400;margin:.2rem 0}h2{font-size:1.05rem;font-weight:500;margin:1.4rem 0 .4rem}' +
  'fieldset{border:0;padding:0;margin:0}legend{font-weight:500;padding:0;margin:.8rem 0 .4rem}' +
  '.account{display:flex;gap:.75rem;align-items:center;border:1px solid #dadce0;border-radius:.6rem;padding:.55rem .8rem;margin:.35rem 0}' +
  '.account:has(input:checked){border-color:#0b57d0;background:#e8f0fe}.account .email{color:#5f6368;font-size:.9rem;display:block}' +
  '.as{display:none;font-weight:500}.perm{display:flex;gap:.6rem;align-items:flex-start;padding:.5rem 0;border-top:1px solid #e3e3e3}' +
  '.perm small{display:block;color:#5f6368;font-size:.75rem;word-break:break-all}.note{color:#444746;font-size:.85rem}' +
  '.client{color:#5f6368;font-size:.75rem;word-break:break-all}.buttons{display:flex;justify-content:flex-end;gap:.75rem;margin-top:1.2rem}' +
  'button{font:inherit;border-radius:1.2rem;padding:.5rem 1.4rem;border:1px solid #747775;background:#fff;color:#0b57d0;cursor:pointer}' +
  'button[value=allow]{background:#0b57d0;border-color:#0b57d0;color:#fff}';

function consentPage(p: PendingConsent, ctx: OAuthContext): Answer {
  const client = ctx.oauth.clients.get(p.clientId);
  const app = escapeHtml(client?.name ?? p.clientId);
  const users = [...ctx.oauth.users.values()];
  const accounts = users
    .map(
      (u, i) =>
        `<label class="account"><input type="radio" name="user" id="user-${i}" value="${escapeHtml(u.email)}"${i === 0 ? ' checked' : ''}>` +
        `<span><span class="name">${escapeHtml(u.name ?? u.email)}</span><span class="email">${escapeHtml(u.email)}</span></span></label>`,
    )
    .join('');
  // The account chosen above, named in the consent part: CSS shows the one whose radio is checked (no script).
  const chosen = users.map((u, i) => `<span class="as" id="as-${i}">${escapeHtml(u.email)}</span>`).join('');
  const showChosen = users.map((_, i) => `form:has(#user-${i}:checked) #as-${i}{display:inline}`).join('');
  const scopes = p.scopes
    .map((s, i) => {
      const identity = Object.hasOwn(IDENTITY_SCOPES, s);
      // Identity scopes are always granted: shown ticked and disabled, and not read from the form.
      return (
        `<div class="perm"><input type="checkbox" name="scope" id="scope-${i}" value="${escapeHtml(s)}" checked${identity ? ' disabled' : ''} aria-describedby="scope-url-${i}">` +
        `<span><label for="scope-${i}">${escapeHtml(consentWords(s))}</label><small id="scope-url-${i}">${escapeHtml(s)}</small></span></div>`
      );
    })
    .join('');
  return page(
    200,
    'Sign in - Google Accounts (emulator)',
    `<main><p class="brand">Google <small>Accounts · emulator, no password</small></p>` +
      `<h1>Choose an account</h1><p>to continue to <strong id="client">${app}</strong></p>` +
      `<form method="post" action="${CONSENT_PATH}"><input type="hidden" name="request" value="${escapeHtml(p.id)}">` +
      `<fieldset><legend>Account</legend>${accounts}</fieldset>` +
      `<h2>${app} wants to access your Google Account</h2><p id="chosen">Signing in as ${chosen}</p>` +
      `<fieldset><legend>Select what ${app} can access</legend>${scopes}</fieldset>` +
      `<p class="note">Make sure you trust ${app}: it gets what you leave ticked. You can remove its access at any time in your Google Account.</p>` +
      `<p class="client">OAuth client ${escapeHtml(p.clientId)} · returns to ${escapeHtml(new URL(p.redirectUri).origin)}</p>` +
      `<div class="buttons"><button type="submit" name="decision" value="deny">Cancel</button> <button type="submit" name="decision" value="allow">Allow</button></div></form></main>`,
    CONSENT_STYLE + showChosen,
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
