import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { OAuth2Client } from 'google-auth-library';
import { Clock } from '../common/clock.js';
import { canonicalPrincipal } from '../common/principal-name.js';
import { CONFIG, type Config } from '../config/config.js';
import type { ConnectedConfig } from '../config/connected-config.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import type { ConnectEventSink, ConnectPageRecord } from './connect-events.js';
import { IdpLogin, IdpLoginError } from './connect-idp.js';
import * as say from './connect-messages.js';
import { browserCookie, browserCookieName, type PageText, readCookie, sendPage, sendRedirect } from './connect-pages.js';
import { CONNECT_REQUEST_TTL_MS, type ConnectOutcome, type ConnectRequest, ConnectRequests } from './connect-requests.js';
import { GrantStore } from './grant-store.js';
import { stateKey } from '../state/keys.js';

/** The connect routes, under a page host's base. */
export const CONNECT_PATHS = {
  page: '/connect/google',
  callback: '/connect/google/callback',
  idpCallback: '/connect/idp/callback',
} as const;

/**
 * How the connect page knows whose browser it is: a principal read from the
 * request (the host app's `principal(req)`; `local` on loopback), or a login
 * with the company IdP (resource-server mode).
 */
export type BrowserProof =
  { readonly kind: 'principal'; readonly principal: (req: IncomingMessage) => Promise<string | undefined> } | { readonly kind: 'idp' };

export interface ConnectSite {
  /** Where the pages are served, no trailing slash; redirect URIs are made under it. */
  readonly base: string;
  readonly proof: BrowserProof;
  /** How the pages name this server to the person: "the Search Console server at https://mcp.corp.example". */
  readonly server: string;
}

/** One login or Google round trip, under its single-use `state`, bound to the request and to the browser. */
interface FlowState {
  readonly kind: 'idp' | 'google';
  readonly requestId: string;
  /** SHA-256 of the browser cookie: the answer must come back to the browser that started. */
  readonly browser: string;
  readonly verifier: string;
  readonly nonce?: string;
}

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;
const STATE_TTL_MS = CONNECT_REQUEST_TTL_MS;

/**
 * The connect page and its callbacks (PRODUCT.md §8d), over Node's request and
 * response so that the HTTP server's routes and stdio's loopback server serve
 * the same flow: prove whose browser it is, send it to Google with PKCE S256,
 * a single-use state, offline access, consent and incremental scopes, then
 * store the grant with the scopes Google reports as granted.
 */
@Injectable()
export class ConnectFlow {
  // What happened, for the operator: principals and Google accounts, never a code, token or state.
  private readonly logger = new Logger('ConnectPages');
  private idpLogin?: IdpLogin;
  private events?: ConnectEventSink;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(STATE_STORE) private readonly store: StateStore,
    private readonly requests: ConnectRequests,
    private readonly grants: GrantStore,
    private readonly clock: Clock,
  ) {}

  /** Where the pages' events go besides stderr: the audit trail (mcp/connect-page-audit.ts); the latest caller wins. */
  recordEventsWith(sink: ConnectEventSink): void {
    this.events = sink;
  }

  /** Dispatches by path (stdio's loopback server); false when the path is not a connect route. */
  async route(req: IncomingMessage, res: ServerResponse, site: ConnectSite): Promise<boolean> {
    const path = new URL(req.url ?? '/', 'http://connect.invalid').pathname.replace(/\/+$/, '');
    const handlers = new Map([
      [CONNECT_PATHS.page, () => this.page(req, res, site)],
      [CONNECT_PATHS.callback, () => this.googleCallback(req, res, site)],
      [CONNECT_PATHS.idpCallback, () => this.idpCallback(req, res, site)],
    ]);
    // A Map, not an object: `/constructor` or `/__proto__` must not find anything.
    const handler = handlers.get(path as (typeof CONNECT_PATHS)[keyof typeof CONNECT_PATHS]);
    if (!handler) {
      return false;
    }
    await handler();
    return true;
  }

  /** GET /connect/google?request=<id>: whose browser is this, then to Google (or first to the IdP). */
  async page(req: IncomingMessage, res: ServerResponse, site: ConnectSite): Promise<void> {
    const connected = this.connected(res);
    if (!connected) {
      return;
    }
    const checked = await this.requests.check(queryOf(req).get('request') ?? '');
    if (!checked.ok) {
      return sendPage(res, ...say.REFUSED[checked.reason]);
    }
    const secure = site.base.startsWith('https:');
    const cookies: string[] = [];
    let cookie = readCookie(req, browserCookieName(secure));
    if (!cookie || !TOKEN_SHAPE.test(cookie)) {
      cookie = token();
      cookies.push(browserCookie(secure, cookie, STATE_TTL_MS / 1000));
    }
    const browser = digest(cookie);
    if (site.proof.kind === 'idp') {
      const login = this.idp(res);
      if (!login) {
        return;
      }
      const state = token();
      let started;
      try {
        started = await login.start(`${site.base}${CONNECT_PATHS.idpCallback}`, state);
      } catch (error) {
        return sendPage(res, 502, this.idpUnavailable(error));
      }
      await this.putState(state, { kind: 'idp', requestId: checked.request.id, browser, verifier: started.verifier, nonce: started.nonce });
      return sendRedirect(res, started.url, cookies);
    }
    const named = await site.proof.principal(req);
    if (named === undefined) {
      return sendPage(res, 401, say.SIGN_IN_FIRST);
    }
    return this.toGoogle(res, connected, checked.request, named, browser, site, cookies);
  }

  /** GET /connect/idp/callback: the company IdP's answer; the ID token names the browser's principal. */
  async idpCallback(req: IncomingMessage, res: ServerResponse, site: ConnectSite): Promise<void> {
    const connected = this.connected(res);
    const login = connected && this.idp(res);
    if (!connected || !login) {
      return;
    }
    const query = queryOf(req);
    const flow = await this.takeState(req, res, site, 'idp', query.get('state'));
    if (!flow) {
      return;
    }
    const error = query.get('error');
    if (error === 'access_denied') {
      // The person cancelled the sign-in (RFC 6749 §4.1.2.1): as final as a no at Google, so the waiting call is told.
      return this.saidNo(res, flow.requestId, 'cancelled');
    }
    if (error !== null) {
      return sendPage(res, 403, say.idpError(this.config.auth!.issuer, error));
    }
    const checked = await this.requests.check(flow.requestId);
    if (!checked.ok) {
      return sendPage(res, ...say.REFUSED[checked.reason]);
    }
    let principal: string;
    try {
      principal = await login.finish(`${site.base}${CONNECT_PATHS.idpCallback}`, query, {
        state: query.get('state')!,
        verifier: flow.verifier,
        nonce: flow.nonce!,
      });
    } catch (failure) {
      return sendPage(res, 502, this.idpUnavailable(failure));
    }
    return this.toGoogle(res, connected, checked.request, principal, flow.browser, site);
  }

  /** GET /connect/google/callback: Google's answer; exchange, read what was granted and by whom, store the grant. */
  async googleCallback(req: IncomingMessage, res: ServerResponse, site: ConnectSite): Promise<void> {
    const connected = this.connected(res);
    if (!connected) {
      return;
    }
    const query = queryOf(req);
    const flow = await this.takeState(req, res, site, 'google', query.get('state'));
    if (!flow) {
      return;
    }
    const error = query.get('error');
    if (error === 'access_denied') {
      return this.saidNo(res, flow.requestId, 'denied');
    }
    const code = query.get('code');
    if (error !== null || !code) {
      return sendPage(res, 400, say.googleError(error ?? undefined));
    }
    const checked = await this.requests.check(flow.requestId);
    if (!checked.ok) {
      return sendPage(res, ...say.REFUSED[checked.reason]);
    }
    const request = checked.request;
    const client = await this.googleClient(connected, `${site.base}${CONNECT_PATHS.callback}`);
    let tokens;
    try {
      ({ tokens } = await client.getToken({ code, codeVerifier: flow.verifier }));
    } catch (failure) {
      return sendPage(res, 502, say.googleFailure('did not accept the sign-in answer', failure));
    }
    if (!tokens.refresh_token) {
      return sendPage(res, 502, say.NO_REFRESH_TOKEN);
    }
    let account: { sub?: unknown; email?: unknown };
    try {
      client.setCredentials(tokens);
      account = (await client.request<{ sub?: unknown; email?: unknown }>({ url: connected.userinfoUrl })).data;
    } catch (failure) {
      return sendPage(res, 502, say.googleFailure('did not say which Google account this is', failure));
    }
    if (typeof account.sub !== 'string' || typeof account.email !== 'string') {
      return sendPage(res, 502, say.NO_ACCOUNT);
    }
    if (!(await this.requests.markUsed(request))) {
      return sendPage(res, ...say.REFUSED.used);
    }
    const granted = (tokens.scope ?? '').split(/\s+/).filter(Boolean);
    await this.grants.save({
      principal: request.principal,
      googleSub: account.sub,
      googleEmail: account.email,
      scopes: granted,
      connectedAt: this.clock.now().toISOString(),
      refreshToken: tokens.refresh_token,
    });
    const missing = request.scopes.filter((s) => !granted.includes(s) && !['openid', 'email'].includes(s));
    this.logger.log(`connected ${account.email} for ${request.principal} (${granted.length} scopes granted)`);
    await this.record({ event: 'connect_completed', principal: request.principal, google_account: account.email, tool: request.tool });
    return sendPage(res, 200, say.connected(account.email, { server: site.server, principal: request.principal }, granted, missing));
  }

  /** The person's browser is proven to be the request's principal (or refused with 403); off to Google. */
  private async toGoogle(
    res: ServerResponse,
    connected: ConnectedConfig,
    request: ConnectRequest,
    named: string,
    browser: string,
    site: ConnectSite,
    cookies: string[] = [],
  ): Promise<void> {
    const principal = canonicalPrincipal(named.trim());
    if (principal !== request.principal) {
      this.logger.warn(
        `a connect link made for ${request.principal} was opened by ${principal ?? 'a principal that is not plain text'}: refused`,
      );
      await this.record({
        event: 'connect_wrong_person',
        principal: principal ?? null,
        target_principal: request.principal,
        tool: request.tool,
      });
      return sendPage(res, 403, say.SOMEONE_ELSE, cookies);
    }
    const client = await this.googleClient(connected, `${site.base}${CONNECT_PATHS.callback}`);
    const { codeVerifier, codeChallenge } = await client.generateCodeVerifierAsync();
    const state = token();
    await this.putState(state, { kind: 'google', requestId: request.id, browser, verifier: codeVerifier });
    const { CodeChallengeMethod } = await import('google-auth-library');
    const url = client.generateAuthUrl({
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: true,
      scope: [...request.scopes],
      state,
      code_challenge: codeChallenge,
      code_challenge_method: CodeChallengeMethod.S256,
    });
    await this.record({ event: 'connect_started', principal: request.principal, tool: request.tool });
    return sendRedirect(res, url, cookies);
  }

  /** The state's flow, once: unknown, another browser's, or replayed → a page, and undefined. */
  private async takeState(
    req: IncomingMessage,
    res: ServerResponse,
    site: ConnectSite,
    kind: FlowState['kind'],
    state: string | null,
  ): Promise<FlowState | undefined> {
    const raw = state && TOKEN_SHAPE.test(state) ? await this.store.get(stateKey('connectState', state)) : undefined;
    const flow = raw ? (JSON.parse(raw) as FlowState) : undefined;
    if (!flow || flow.kind !== kind) {
      sendPage(res, 400, say.NOT_WAITING);
      return undefined;
    }
    const cookie = readCookie(req, browserCookieName(site.base.startsWith('https:')));
    if (!cookie || !sameDigest(digest(cookie), flow.browser)) {
      this.logger.warn('a connect answer reached another browser than the one that opened the link: refused');
      const request = await this.requests.peek(flow.requestId);
      await this.record({ event: 'connect_wrong_browser', principal: null, target_principal: request?.principal, tool: request?.tool });
      sendPage(res, 403, say.DIFFERENT_BROWSER);
      return undefined;
    }
    if (!(await this.store.claim(stateKey('connectStateUsed', String(state)), STATE_TTL_MS))) {
      this.logger.warn('a connect answer was replayed (its state was already used): refused');
      sendPage(res, 400, say.NOT_WAITING);
      return undefined;
    }
    return flow;
  }

  /**
   * The person said no: at Google (`denied`: error=access_denied, which is what
   * Google's Cancel button answers) or at the company IdP's sign-in
   * (`cancelled`). The request is spent with that outcome, so the call waiting
   * on it (any replica: it reads the store) ends within a poll; nothing is stored.
   */
  private async saidNo(res: ServerResponse, requestId: string, outcome: ConnectOutcome): Promise<void> {
    const checked = await this.requests.check(requestId);
    const request = checked.ok && (await this.requests.markEnded(checked.request, outcome)) ? checked.request : undefined;
    if (request) {
      this.logger.log(`${request.principal} ${outcome === 'denied' ? 'declined at Google' : 'cancelled the sign-in'}: nothing stored`);
      await this.record({
        event: outcome === 'denied' ? 'connect_denied' : 'connect_sign_in_cancelled',
        principal: request.principal,
        tool: request.tool,
      });
    }
    return sendPage(res, 200, say.saidNo(outcome, request?.via === 'dialog', this.config.auth?.issuer));
  }

  private async record(entry: ConnectPageRecord): Promise<void> {
    await this.events?.(entry);
  }

  private putState(state: string, flow: FlowState): Promise<void> {
    return this.store.put(stateKey('connectState', state), JSON.stringify(flow), STATE_TTL_MS);
  }

  private connected(res: ServerResponse): ConnectedConfig | undefined {
    if (!this.config.connected) {
      sendPage(res, 404, say.NOT_CONNECTED_MODE);
    }
    return this.config.connected;
  }

  private idp(res: ServerResponse): IdpLogin | undefined {
    const auth = this.config.auth;
    const client = this.config.connected?.idpClient;
    if (!auth || !client) {
      sendPage(res, 500, say.IDP_NOT_CONFIGURED);
      return undefined;
    }
    return (this.idpLogin ??= new IdpLogin(auth, client, this.config.google.timeoutMs));
  }

  private idpUnavailable(error: unknown): PageText {
    if (!(error instanceof IdpLoginError)) {
      throw error;
    }
    return say.signInFailed(error.message);
  }

  private async googleClient(connected: ConnectedConfig, redirectUri: string): Promise<OAuth2Client> {
    const { OAuth2Client } = await import('google-auth-library');
    return new OAuth2Client({
      clientId: connected.clientId,
      clientSecret: connected.clientSecret,
      redirectUri,
      endpoints: { oauth2AuthBaseUrl: connected.authorizeUrl, oauth2TokenUrl: connected.tokenUrl },
      transporterOptions: { timeout: this.config.google.timeoutMs },
    });
  }
}

function queryOf(req: IncomingMessage): URLSearchParams {
  return new URL(req.url ?? '/', 'http://connect.invalid').searchParams;
}

function token(): string {
  return randomBytes(24).toString('base64url');
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

function sameDigest(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
