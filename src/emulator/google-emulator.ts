// The Google emulator: one loopback HTTP origin serving Search Console, URL
// Inspection, Indexing, Site Verification and the OAuth token endpoint in
// Google's wire format, with a request log, fault injection and latency.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleControlRequest } from './emulator-control.js';
import { parseTokenForm, readBody, writeAnswer } from './emulator-http.js';
import { EmulatorCredentials } from './emulator-credentials.js';
import { OAuthUsers, type GoogleUser, type OAuthWebClient } from './emulator-oauth.js';
import { googleErrorBody, GoogleApiError, scopeInsufficient, unauthenticated } from './emulator-errors.js';
import { answerUnderFault, FaultRegistry, statusFaultAnswer, tokenFaultAnswer, type Answer } from './emulator-faults.js';
import { QuotaTracker } from './emulator-quotas.js';
import { matchRoute, styleForPath, type RouteDef } from './emulator-routing.js';
import { EmulatorState } from './emulator-state.js';
import {
  DEFAULT_QUOTAS,
  type EmulatorOptions,
  type EmulatorQuotas,
  type FaultSpec,
  type IndexingBehaviour,
  type RecordedRequest,
  type TokenGrant,
} from './emulator-types.js';
import { projectNumberOf, serviceDisabledBody } from './emulator-usage-limits.js';
import { indexingRoutes, resolveIndexingBehaviour, type ResolvedIndexingBehaviour } from './indexing.routes.js';
import { SearchAnalyticsData, type AnonymizedShare } from './search-analytics-data.js';
import { anonymizedShare, rowsAvailable, type AnalyticsSummaryQuery } from './search-analytics-query.js';
import { searchAnalyticsRoutes } from './search-analytics.routes.js';
import { searchConsoleRoutes } from './search-console.routes.js';
import { siteVerificationRoutes } from './site-verification.routes.js';
import { handleTokenRequest } from './token.routes.js';
import {
  AUTHORIZE_PATH,
  CONSENT_PATH,
  handleAuthorize,
  handleConsent,
  handleRevoke,
  handleUserinfo,
  REVOKE_PATH,
  USERINFO_PATH,
  type OAuthContext,
} from './oauth.routes.js';
import { urlInspectionRoutes } from './url-inspection.routes.js';

export type {
  AnalyticsOptions,
  EmulatorOptions,
  EmulatorQuotas,
  FaultKind,
  FaultPreset,
  FaultSpec,
  IndexingBehaviour,
  RecordedRequest,
  TokenGrant,
} from './emulator-types.js';
export { EmulatorState } from './emulator-state.js';
export { generateServiceAccountKey } from './service-account-key.js';

const ROUTES: readonly RouteDef[] = [
  ...searchConsoleRoutes,
  ...searchAnalyticsRoutes,
  ...urlInspectionRoutes,
  ...indexingRoutes,
  ...siteVerificationRoutes,
];

export class GoogleEmulator {
  readonly url: string;
  readonly tokenUrl: string;
  readonly requests: RecordedRequest[] = [];
  readonly tokenGrants: TokenGrant[] = [];
  readonly state: EmulatorState;
  /** Registered service accounts, refresh tokens and issued access tokens (kept across reset()). */
  readonly credentials = new EmulatorCredentials();
  /** Emulator Google users, their per-user permissions and the OAuth web clients they consent to (kept across reset()). */
  readonly oauth = new OAuthUsers();
  readonly quotaLimits: EmulatorQuotas;

  private readonly quotas = new QuotaTracker();
  private readonly analytics: SearchAnalyticsData;
  private readonly faults = new FaultRegistry();
  private readonly latency = new Map<string, number>();
  /** Resolvers of latency waits still pending, released at close(). */
  private readonly waiting = new Set<() => void>();
  /** Answers held open by 'hang' faults, destroyed at close(). */
  private readonly hung = new Set<ServerResponse>();
  private readonly disabled = new Set<string>();
  private indexingOptions: IndexingBehaviour;
  private indexing: ResolvedIndexingBehaviour;

  private constructor(
    private readonly server: Server,
    private readonly now: () => Date,
    private readonly options: EmulatorOptions,
    address: AddressInfo,
  ) {
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.url = `http://${host}:${address.port}`;
    this.tokenUrl = `${this.url}/token`;
    this.state = new EmulatorState(now);
    this.quotaLimits = { ...DEFAULT_QUOTAS, ...options.quotas };
    this.analytics = new SearchAnalyticsData(options.analytics, (url) => this.state.world.droppedFrom(url));
    this.restoreStartBehaviour();
  }

  static async start(options: EmulatorOptions = {}): Promise<GoogleEmulator> {
    resolveIndexingBehaviour(options.indexing); // a bad option fails before a port is taken
    let emulator: GoogleEmulator | undefined;
    const server = createServer((req, res) => {
      emulator!.dispatch(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(500, { 'content-type': 'application/json; charset=UTF-8' });
          res.end(JSON.stringify(googleErrorBody('classic', { status: 500, message: String(err) })));
        }
      });
    });
    // Node closes idle keep-alive sockets after 5 s; a client reusing one at that moment gets ECONNRESET,
    // which Google's front ends (minutes of keep-alive) never cause. close() still ends every connection.
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
    emulator = new GoogleEmulator(server, options.now ?? (() => new Date()), options, server.address() as AddressInfo);
    return emulator;
  }

  apiRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.route !== 'token');
  }

  clearLog(): void {
    this.requests.length = 0;
    this.tokenGrants.length = 0;
  }

  /** Back to the seed and to the start options: data, log, faults, latency, quota counters, services, Indexing behaviour. */
  reset(): void {
    this.state.reset();
    this.analytics.clear();
    this.clearLog();
    this.clearFaults();
    this.quotas.clear();
    this.restoreStartBehaviour();
  }

  /** The Indexing behaviour and disabled services of the start options, which setIndexingBehaviour and setServiceEnabled change until reset(). */
  private restoreStartBehaviour(): void {
    this.indexingOptions = { ...this.options.indexing };
    this.indexing = resolveIndexingBehaviour(this.indexingOptions);
    this.disabled.clear();
    for (const service of this.options.disabledServices ?? []) {
      this.disabled.add(service);
    }
  }

  /** Ends promptly even with requests held by 'hang' faults or latency: their sockets are destroyed. */
  async close(): Promise<void> {
    for (const release of this.waiting) {
      release();
    }
    for (const res of this.hung) {
      res.destroy();
    }
    this.hung.clear();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  /** Switches an API on or off for every project (off = 403 SERVICE_DISABLED), until reset(). */
  setServiceEnabled(service: string, enabled: boolean): void {
    if (enabled) {
      this.disabled.delete(service);
    } else {
      this.disabled.add(service);
    }
  }

  disabledServices(): string[] {
    return [...this.disabled];
  }

  /** Changes how the Indexing API remembers notifications, until reset(). */
  setIndexingBehaviour(behaviour: IndexingBehaviour): void {
    const next = { ...this.indexingOptions, ...behaviour };
    this.indexing = resolveIndexingBehaviour(next); // throws on a bad value, changing nothing
    this.indexingOptions = next;
  }

  indexingBehaviour(): Readonly<ResolvedIndexingBehaviour> {
    return { ...this.indexing };
  }

  /** The project number Google would name for a credential's project (as in "has not been used in project N"). */
  projectNumber(project = 'emulator-project'): string {
    return projectNumberOf(project);
  }

  /**
   * The anonymised-query traffic in a window: what a no-dimension query counts
   * beyond the sum of its query rows, exactly as this emulator generated it.
   */
  anonymizedShare(property: string, query: AnalyticsSummaryQuery): AnonymizedShare {
    return anonymizedShare(this.analytics, property, query, this.now());
  }

  /** How many rows a Search Analytics request matches before Google's 50 000-row cap and paging. */
  analyticsRowsAvailable(property: string, body: object): number {
    return rowsAvailable(this.analytics, property, body as Record<string, unknown>, this.now());
  }

  /**
   * A credential registered here belongs to the seeded account: it is a
   * verified owner of the seeded Site Verification resources (as if the
   * account holder had added it), so webResource.list agrees with sites.list.
   * Principals it may impersonate are not.
   */
  registerServiceAccount(input: { clientEmail: string; publicKeyPem: string; delegation?: Record<string, string[]> }): void {
    this.credentials.registerServiceAccount(input);
    this.state.addAccountPrincipal(input.clientEmail);
  }

  registerRefreshToken(input: { clientId: string; clientSecret: string; refreshToken: string; user: string; scopes: string[] }): void {
    this.credentials.registerRefreshToken(input);
    this.state.addAccountPrincipal(input.user);
  }

  /** An OAuth web client (type "Web application") the consent page and the authorization_code grant accept. */
  registerOAuthClient(client: OAuthWebClient): void {
    this.oauth.registerClient(client);
  }

  /** Adds or replaces an emulator Google user (alice@example.com, bob@example.net and carol@example.org exist from the start). */
  registerGoogleUser(user: GoogleUser): void {
    this.oauth.registerUser(user);
  }

  /** Grants (or with undefined, removes) one emulator Google user's access to one property. */
  setUserPermission(email: string, siteUrl: string, level: GoogleUser['sites'][string] | undefined): void {
    this.oauth.setPermission(email, siteUrl, level);
  }

  /** Mints an access token directly, for clients configured with a static token (demo mode). */
  issueAccessToken(input: { principal: string; scopes: string[]; project?: string; lifetimeSeconds?: number }): string {
    return this.credentials.issue(input.principal, input.scopes, input.project ?? 'emulator-project', input.lifetimeSeconds);
  }

  /**
   * Makes the next matching request(s) fail, hang or answer garbage. Throws on
   * a malformed fault. See FaultSpec; e.g. { route: 'urlNotifications.publish',
   * preset: 'service_disabled' } or { route: 'token', kind: 'hang' }.
   */
  injectFault(fault: FaultSpec): void {
    this.faults.add(fault);
  }

  setLatency(route: string, ms: number): void {
    if (ms > 0) {
      this.latency.set(route, ms);
    } else {
      this.latency.delete(route);
    }
  }

  /** Clears injected faults and latencies. */
  clearFaults(): void {
    this.faults.clear();
    this.latency.clear();
  }

  placeVerificationToken(site: { type: 'SITE' | 'INET_DOMAIN'; identifier: string }, method: string): void {
    this.state.placeToken(site, method);
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const rawPath = q >= 0 ? rawUrl.slice(0, q) : rawUrl;
    const query = Object.fromEntries(new URLSearchParams(q >= 0 ? rawUrl.slice(q + 1) : ''));
    const method = (req.method ?? 'GET').toUpperCase();
    let raw: Buffer;
    try {
      raw = await readBody(req);
    } catch {
      return this.send(res, { status: 413, body: googleErrorBody(styleForPath(rawPath), { status: 413, message: 'Request too large.' }) });
    }
    if (rawPath.startsWith('/__emulator/')) {
      return this.send(res, handleControlRequest(this, method, rawPath, raw, q >= 0 ? rawUrl.slice(q + 1) : ''));
    }
    const record: RecordedRequest = {
      method,
      rawPath,
      route: rawPath === '/token' ? 'token' : 'unknown',
      params: {},
      query,
      body: undefined,
      status: 0,
      at: this.now().toISOString(),
    };
    this.requests.push(record);
    const oauthAnswer = this.oauthRoute(method, rawPath, req, raw, query, record);
    if (oauthAnswer) {
      record.status = oauthAnswer.status;
      return this.send(res, oauthAnswer);
    }
    const answer = rawPath === '/token' ? await this.token(method, req, raw, record) : await this.api(method, req, raw, record);
    record.status = answer.status;
    this.send(res, answer);
  }

  /** The browser and revocation side of OAuth; undefined for every other path. */
  private oauthRoute(
    method: string,
    rawPath: string,
    req: IncomingMessage,
    raw: Buffer,
    query: Record<string, string>,
    record: RecordedRequest,
  ): Answer | undefined {
    const ctx: OAuthContext = { oauth: this.oauth, credentials: this.credentials, now: Date.now() };
    const notAllowed: Answer = { status: 405, body: { error: 'invalid_request', error_description: 'Method Not Allowed' } };
    switch (rawPath) {
      case AUTHORIZE_PATH:
        record.route = 'oauth.authorize';
        return method === 'GET' ? handleAuthorize(query, ctx) : notAllowed;
      case CONSENT_PATH:
        record.route = 'oauth.consent';
        return method === 'POST' ? handleConsent(new URLSearchParams(raw.toString('utf8')), ctx) : notAllowed;
      case REVOKE_PATH: {
        record.route = 'oauth.revoke';
        if (method !== 'POST') {
          return notAllowed;
        }
        const form = parseTokenForm(raw.toString('utf8'), req.headers['content-type']);
        // Google takes the token as a form field or, as google-auth-library sends it, in the query string.
        return handleRevoke(form.token ?? query.token, ctx);
      }
      case USERINFO_PATH: {
        record.route = 'oauth.userinfo';
        if (method !== 'GET' && method !== 'POST') {
          return notAllowed;
        }
        const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1] ?? query.access_token;
        const answer = handleUserinfo(bearer, ctx);
        record.principal = bearer ? this.credentials.resolveBearer(bearer)?.principal : undefined;
        return answer;
      }
      default:
        return undefined;
    }
  }

  private runToken(method: string, form: Record<string, string>, record: RecordedRequest): Answer {
    if (method !== 'POST') {
      return { status: 405, body: { error: 'invalid_request', error_description: 'Method Not Allowed' } };
    }
    const answer = handleTokenRequest(form, { credentials: this.credentials, tokenUrl: this.tokenUrl, oauth: this.oauth });
    if (answer.grant) {
      this.tokenGrants.push(answer.grant);
    }
    record.principal = answer.principal;
    return { status: answer.status, body: answer.body, headers: { 'cache-control': 'no-cache, no-store, max-age=0, must-revalidate' } };
  }

  private async token(method: string, req: IncomingMessage, raw: Buffer, record: RecordedRequest): Promise<Answer> {
    const text = raw.toString('utf8');
    const form = parseTokenForm(text, req.headers['content-type']);
    record.body = text ? form : undefined;
    await this.delay('token', true);
    // Faults may match the form's fields, plus emulator_user: the Google user a refresh token or code belongs to.
    const user = this.credentials.refreshTokens.get(form.refresh_token ?? '')?.googleUser ?? this.oauth.codes.get(form.code ?? '')?.user;
    const fault = this.faults.take('token', true, user ? { ...form, emulator_user: user } : form);
    if (fault?.kind === 'status') {
      return tokenFaultAnswer(fault, form);
    }
    return answerUnderFault(fault, () => this.runToken(method, form, record));
  }

  private async api(method: string, req: IncomingMessage, raw: Buffer, record: RecordedRequest): Promise<Answer> {
    const text = raw.toString('utf8');
    let body: unknown;
    let bodyValid = true;
    if (text.trim()) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
        bodyValid = false;
      }
    }
    record.body = body;
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    const holder = bearer ? this.credentials.resolveBearer(bearer) : undefined;
    record.principal = holder?.principal;
    const match = matchRoute(ROUTES, method, record.rawPath);
    if (match.kind !== 'route') {
      const style = match.kind === 'method-not-allowed' ? match.style : styleForPath(record.rawPath);
      const status = match.kind === 'method-not-allowed' ? 405 : match.kind === 'bad-encoding' ? 400 : 404;
      const message = status === 404 ? `The requested URL ${record.rawPath} was not found on this server.` : undefined;
      return { status, body: googleErrorBody(style, { status, message }) };
    }
    const { route, params } = match;
    record.route = route.name;
    record.params = params;

    await this.delay(route.name, false);
    const fault = this.faults.take(route.name, false, body);
    if (fault?.kind === 'status') {
      return statusFaultAnswer(fault, {
        route: route.name,
        style: route.style,
        service: route.service,
        project: holder?.project,
        body,
        bearer,
        limits: this.quotaLimits,
      });
    }
    return answerUnderFault(fault, () => this.runRoute(route, params, record, body, bodyValid, holder));
  }

  private runRoute(
    route: RouteDef,
    params: Record<string, string>,
    record: RecordedRequest,
    body: unknown,
    bodyValid: boolean,
    holder: ReturnType<EmulatorCredentials['resolveBearer']>,
  ): Answer {
    try {
      if (!holder) {
        throw unauthenticated(route.style);
      }
      if (this.disabled.has(route.service)) {
        throw new GoogleApiError(403, serviceDisabledBody(route.style, route.service, projectNumberOf(holder.project)));
      }
      if (!route.scopes.some((s) => holder.scopes.includes(s))) {
        throw scopeInsufficient(route.style, route.service, route.rpcMethod);
      }
      if (!bodyValid) {
        throw new GoogleApiError(
          400,
          googleErrorBody(route.style, { status: 400, message: 'Invalid JSON payload received. Unexpected token.', reason: 'parseError' }),
        );
      }
      return route.handle({
        params,
        query: record.query,
        body,
        principal: holder.principal,
        scopes: holder.scopes,
        project: holder.project,
        now: this.now(),
        state: this.state,
        userSites: holder.googleUser ? this.oauth.visibleSites(holder.googleUser, this.state.sites) : undefined,
        credentials: this.credentials,
        quotas: this.quotas,
        limits: this.quotaLimits,
        analytics: this.analytics,
        indexing: this.indexing,
      });
    } catch (err) {
      if (err instanceof GoogleApiError) {
        return { status: err.status, body: err.body, headers: err.headers };
      }
      // An emulator bug still answers like Google's backend would, and says what broke.
      const message = `Internal error encountered. (emulator: ${err instanceof Error ? err.message : String(err)})`;
      return { status: 500, body: googleErrorBody(route.style, { status: 500, message }) };
    }
  }

  private delay(route: string, isToken: boolean): Promise<void> {
    const ms = this.latency.get(route) ?? (isToken ? undefined : this.latency.get('*'));
    if (!ms) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const release = () => {
        clearTimeout(timer);
        this.waiting.delete(release);
        resolve();
      };
      const timer = setTimeout(release, ms);
      this.waiting.add(release);
    });
  }

  private send(res: ServerResponse, answer: Answer): void {
    if (answer.hang && !res.destroyed) {
      this.hung.add(res);
      res.once('close', () => this.hung.delete(res));
      return;
    }
    writeAnswer(res, answer);
  }
}
