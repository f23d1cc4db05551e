// The Google emulator: one loopback HTTP origin serving Search Console, URL
// Inspection, Indexing, Site Verification and the OAuth token endpoint in
// Google's wire format, with a request log, fault injection and latency.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handleControlRequest } from './emulator-control.js';
import { EmulatorCredentials } from './emulator-credentials.js';
import { faultBody, googleErrorBody, GoogleApiError, scopeInsufficient, unauthenticated } from './emulator-errors.js';
import { QuotaTracker } from './emulator-quotas.js';
import { matchRoute, styleForPath, type RouteDef } from './emulator-routing.js';
import { EmulatorState } from './emulator-state.js';
import {
  DEFAULT_QUOTAS,
  type EmulatorOptions,
  type EmulatorQuotas,
  type FaultSpec,
  type RecordedRequest,
  type TokenGrant,
} from './emulator-types.js';
import { indexingRoutes } from './indexing.routes.js';
import { SearchAnalyticsData } from './search-analytics-data.js';
import { searchAnalyticsRoutes } from './search-analytics.routes.js';
import { searchConsoleRoutes } from './search-console.routes.js';
import { siteVerificationRoutes } from './site-verification.routes.js';
import { handleTokenRequest } from './token.routes.js';
import { urlInspectionRoutes } from './url-inspection.routes.js';

export type { EmulatorOptions, EmulatorQuotas, RecordedRequest, TokenGrant, FaultSpec } from './emulator-types.js';
export { EmulatorState } from './emulator-state.js';
export { generateServiceAccountKey } from './service-account-key.js';

const ROUTES: readonly RouteDef[] = [
  ...searchConsoleRoutes,
  ...searchAnalyticsRoutes,
  ...urlInspectionRoutes,
  ...indexingRoutes,
  ...siteVerificationRoutes,
];

const BODY_LIMIT = 4 * 1024 * 1024;

interface ActiveFault extends FaultSpec {
  remaining: number;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export class GoogleEmulator {
  readonly url: string;
  readonly tokenUrl: string;
  readonly requests: RecordedRequest[] = [];
  readonly tokenGrants: TokenGrant[] = [];
  readonly state: EmulatorState;
  /** Registered service accounts, refresh tokens and issued access tokens (kept across reset()). */
  readonly credentials = new EmulatorCredentials();
  readonly quotaLimits: EmulatorQuotas;

  private readonly quotas = new QuotaTracker();
  private readonly analytics = new SearchAnalyticsData();
  private faults: ActiveFault[] = [];
  private readonly latency = new Map<string, number>();
  /** Resolvers of latency waits still pending, released at close(). */
  private readonly waiting = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    private readonly now: () => Date,
    options: EmulatorOptions,
    address: AddressInfo,
  ) {
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.url = `http://${host}:${address.port}`;
    this.tokenUrl = `${this.url}/token`;
    this.state = new EmulatorState(now);
    this.quotaLimits = { ...DEFAULT_QUOTAS, ...options.quotas };
  }

  static async start(options: EmulatorOptions = {}): Promise<GoogleEmulator> {
    let emulator: GoogleEmulator | undefined;
    const server = createServer((req, res) => {
      emulator!.dispatch(req, res).catch((err: unknown) => {
        if (!res.headersSent && !res.destroyed) {
          res.writeHead(500, { 'content-type': 'application/json; charset=UTF-8' });
          res.end(JSON.stringify(googleErrorBody('classic', { status: 500, message: String(err) })));
        }
      });
    });
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

  reset(): void {
    this.state.reset();
    this.clearLog();
    this.clearFaults();
    this.quotas.clear();
  }

  async close(): Promise<void> {
    for (const release of this.waiting) release();
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  registerServiceAccount(input: { clientEmail: string; publicKeyPem: string; delegation?: Record<string, string[]> }): void {
    this.credentials.registerServiceAccount(input);
  }

  registerRefreshToken(input: { clientId: string; clientSecret: string; refreshToken: string; user: string; scopes: string[] }): void {
    this.credentials.registerRefreshToken(input);
  }

  /** Mints an access token directly, for clients configured with a static token (demo mode). */
  issueAccessToken(input: { principal: string; scopes: string[]; project?: string; lifetimeSeconds?: number }): string {
    return this.credentials.issue(input.principal, input.scopes, input.project ?? 'emulator-project', input.lifetimeSeconds);
  }

  injectFault(fault: FaultSpec): void {
    this.faults.push({ ...fault, remaining: fault.times ?? 1 });
  }

  setLatency(route: string, ms: number): void {
    if (ms > 0) this.latency.set(route, ms);
    else this.latency.delete(route);
  }

  /** Clears injected faults and latencies. */
  clearFaults(): void {
    this.faults = [];
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
      return this.send(res, handleControlRequest(this, method, rawPath, raw));
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
    const answer = rawPath === '/token' ? await this.token(method, req, raw, record) : await this.api(method, req, raw, record);
    record.status = answer.status;
    this.send(res, answer);
  }

  private async token(method: string, req: IncomingMessage, raw: Buffer, record: RecordedRequest): Promise<Answer> {
    const text = raw.toString('utf8');
    let form: Record<string, string>;
    if ((req.headers['content-type'] ?? '').includes('json')) {
      try {
        form = JSON.parse(text) as Record<string, string>;
      } catch {
        form = {};
      }
    } else {
      form = Object.fromEntries(new URLSearchParams(text));
    }
    record.body = text ? form : undefined;
    await this.delay('token', true);
    const fault = this.takeFault('token', true);
    if (fault) return fault;
    if (method !== 'POST') return { status: 405, body: { error: 'invalid_request', error_description: 'Method Not Allowed' } };
    const answer = handleTokenRequest(form, { credentials: this.credentials, tokenUrl: this.tokenUrl });
    if (answer.grant) this.tokenGrants.push(answer.grant);
    record.principal = answer.principal;
    return { status: answer.status, body: answer.body, headers: { 'cache-control': 'no-cache, no-store, max-age=0, must-revalidate' } };
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
    const fault = this.takeFault(route.name, false, route);
    if (fault) return fault;

    try {
      if (!holder) throw unauthenticated(route.style);
      if (!route.scopes.some((s) => holder.scopes.includes(s))) throw scopeInsufficient(route.style, route.service, route.rpcMethod);
      if (!bodyValid) {
        throw new GoogleApiError(400, googleErrorBody(route.style, { status: 400, message: 'Invalid JSON payload received. Unexpected token.', reason: 'parseError' }));
      }
      const result = route.handle({
        params,
        query: record.query,
        body,
        principal: holder.principal,
        scopes: holder.scopes,
        project: holder.project,
        now: this.now(),
        state: this.state,
        credentials: this.credentials,
        quotas: this.quotas,
        limits: this.quotaLimits,
        analytics: this.analytics,
      });
      return result;
    } catch (err) {
      if (err instanceof GoogleApiError) return { status: err.status, body: err.body, headers: err.headers };
      // An emulator bug still answers like Google's backend would, and says what broke.
      const message = `Internal error encountered. (emulator: ${err instanceof Error ? err.message : String(err)})`;
      return { status: 500, body: googleErrorBody(route.style, { status: 500, message }) };
    }
  }

  private delay(route: string, isToken: boolean): Promise<void> {
    const ms = this.latency.get(route) ?? (isToken ? undefined : this.latency.get('*'));
    if (!ms) return Promise.resolve();
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

  private takeFault(route: string, isToken: boolean, def?: RouteDef): Answer | undefined {
    const fault = this.faults.find((f) => f.remaining > 0 && (f.route === route || (f.route === '*' && !isToken)));
    if (!fault) return undefined;
    fault.remaining -= 1;
    this.faults = this.faults.filter((f) => f.remaining > 0);
    const headers: Record<string, string> = fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {};
    let body = fault.body;
    if (body === undefined) {
      body = isToken
        ? { error: fault.status >= 500 ? 'internal_failure' : 'invalid_request', error_description: fault.message ?? 'Injected fault' }
        : faultBody(def?.style ?? 'classic', fault.status, fault.message);
    }
    return { status: fault.status, body, headers };
  }

  private send(res: ServerResponse, answer: Answer): void {
    if (res.destroyed || res.writableEnded) return;
    const payload = answer.body === undefined ? '' : `${JSON.stringify(answer.body, null, 2)}\n`;
    const headers: Record<string, string | number> = { ...answer.headers };
    if (answer.status !== 204) headers['content-length'] = Buffer.byteLength(payload);
    if (payload) headers['content-type'] = 'application/json; charset=UTF-8';
    res.writeHead(answer.status, headers);
    res.end(payload);
  }
}
