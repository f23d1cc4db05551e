import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, Controller, Inject, Logger, type OnModuleDestroy, Req, Res } from '@nestjs/common';
import { type AuthInfo, createMcpHandler, isInitializeRequest, type McpServer, PROTOCOL_VERSION_META_KEY, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { Clock } from '../common/clock.js';
import { SERVER_NAME } from '../common/product.js';
import { CONFIG, type Config } from '../config/config.js';
import { HttpIdentity } from '../http/http-identity.service.js';
import { HttpTraffic } from '../http/http-traffic.service.js';
import { HTTP_MOUNT, type HttpMount } from '../http/http-mount.js';
import { checkSurface } from '../http/http-surface.js';
import { readJsonBody } from '../http/json-body.js';
import { callerOf } from '../identity/caller.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { SessionEventStores, SSE_RETRY_MS } from './session-event-store.js';

type Request = IncomingMessage & { body?: unknown; auth?: AuthInfo; originalUrl?: string };
type Session = { transport: NodeStreamableHTTPServerTransport; server: McpServer; principal?: string; groups?: string; lastSeen: number; active: number };
type Rejection = { status: number; body: unknown; headers?: Record<string, string> };

const SESSION_IDLE_MS = 30 * 60_000;
// The SDK exports only the 2025-era revisions here; 2026-07-28 is served by createMcpHandler.
const LEGACY_VERSIONS = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * Streamable HTTP for both protocol revisions, at the path the module mounts
 * (/mcp standalone, e.g. /api/mcp inside a company app). 2026-07-28 requests
 * are served statelessly by the SDK's handler; 2025-11-25 clients get a
 * session, so that a guarded call can push its approval dialog to them
 * mid-call. Before any of that: Host/Origin, the caller's identity, and the
 * body — every refusal a JSON-RPC error body.
 */
@Controller()
export class McpHttpController implements OnModuleDestroy {
  private readonly logger = new Logger('McpHttp');
  private readonly modern;
  private readonly modernNode;
  private readonly sessions = new Map<string, Session>();
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly factory: McpServerFactory,
    private readonly identity: HttpIdentity,
    private readonly traffic: HttpTraffic,
    private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(HTTP_MOUNT) private readonly mount: HttpMount,
  ) {
    this.modern = createMcpHandler(factory.create, { legacy: 'reject', onerror: (e) => this.logger.warn(e.message) });
    this.modernNode = toNodeHandler(this.modern);
    this.reaper = setInterval(() => this.reapIdleSessions(), 60_000).unref();
  }

  @All()
  async handle(@Req() req: Request, @Res() res: ServerResponse): Promise<void> {
    const surface = checkSurface(req, this.config, this.mount, this.identity.credentialRequired);
    if (!surface.ok) return send(res, rpcError(surface.status, surface.message));
    const auth = await this.identity.identify(req, pathOf(req));
    if ('status' in auth) return send(res, { ...rpcError(auth.status, auth.message), headers: auth.headers });
    req.auth = auth;
    const sessionId = req.headers['mcp-session-id'];
    const session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    // While draining, only messages of open 2025 sessions get through: they may carry
    // the answer to a dialog an in-flight call is waiting for.
    if (this.traffic.draining && !session) {
      return send(res, { ...rpcError(503, `${SERVER_NAME} is shutting down; retry shortly or against another instance`), headers: { 'Retry-After': '5' } });
    }
    if (req.method === 'POST') {
      const parsed = await readJsonBody(req);
      if (!parsed.ok) return send(res, rpcError(parsed.status, parsed.message, parsed.code));
      // JSON-RPC batching was removed from MCP in 2025-06-18; neither revision served here has it.
      if (Array.isArray(parsed.body)) return send(res, rpcError(400, 'JSON-RPC batches are not supported: send one message per request', -32600));
      req.body = parsed.body;
      this.traffic.track(res);
    }
    if (isModernRequest(req)) return this.modernNode(req, res, req.body);
    return this.serveLegacy(req, res, session);
  }

  get openSessions(): number {
    return this.sessions.size;
  }

  private async serveLegacy(req: Request, res: ServerResponse, existing: Session | undefined): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    // Another principal's session is answered exactly as an unknown one. So is the same
    // person's once their groups changed: the session's tools and sites were decided by the
    // groups it was opened with, and a person who left a group must not keep what it granted.
    if (existing && (existing.principal !== req.auth?.clientId || existing.groups !== groupsKey(req.auth))) {
      return send(res, rpcError(404, 'Session not found', -32001));
    }
    let session = existing;
    if (!session) {
      if (sessionId !== undefined) return send(res, rpcError(404, 'Session not found', -32001));
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        return send(res, rpcError(400, 'Bad Request: no valid Mcp-Session-Id; start with an initialize request', -32000));
      }
      if (!this.makeRoom()) {
        return send(res, { ...rpcError(503, `Too many open sessions (GSC_HTTP_MAX_SESSIONS=${this.config.http.maxSessions}) and none is idle; retry shortly`), headers: { 'Retry-After': '5' } });
      }
      session = await this.openSession(req);
      session.groups = groupsKey(req.auth);
    }
    // A 2025 client is asked by push, never by an answer it supplies itself: the
    // 2026 retry fields have no meaning on this revision and are dropped.
    dropRetryFields(req.body);
    session.lastSeen = this.clock.now().getTime();
    session.active++;
    const current = session;
    res.once('close', () => {
      current.active--;
      current.lastSeen = this.clock.now().getTime();
    });
    await session.transport.handleRequest(req, res, req.body);
    // The SDK leaves a cancelled request's stream open with no answer to come; close it, so the
    // client is not left waiting and shutdown does not wait on it for its whole grace period.
    const cancelled = cancelledRequestId(req.body);
    if (cancelled !== undefined) session.transport.closeSSEStream(cancelled);
  }

  @Inject(SessionEventStores) private readonly eventStores!: SessionEventStores;

  private async openSession(req: Request): Promise<Session> {
    const server = this.factory.create({ era: 'legacy', authInfo: req.auth });
    const sessionId = randomUUID();
    const session: Session = {
      server,
      principal: req.auth?.clientId,
      lastSeen: this.clock.now().getTime(),
      active: 0,
      transport: new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: () => sessionId,
        // SEP-1699: event ids, a priming event with `retry`, replay after Last-Event-ID (from the state store).
        eventStore: this.eventStores.forSession(sessionId),
        retryInterval: SSE_RETRY_MS,
        onsessioninitialized: (id) => void this.sessions.set(id, session),
        onsessionclosed: (id) => void this.sessions.delete(id),
      }),
    };
    await server.connect(session.transport);
    return session;
  }

  /** At the cap, the least recently used idle session is closed to make room; false when every session is busy. */
  private makeRoom(): boolean {
    if (this.sessions.size < this.config.http.maxSessions) return true;
    let oldest: [string, Session] | undefined;
    for (const entry of this.sessions) if (entry[1].active === 0 && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry;
    if (!oldest) return false;
    this.close(oldest[0], oldest[1]);
    return true;
  }

  private close(id: string, session: Session): void {
    this.sessions.delete(id);
    void session.server.close().catch(() => undefined);
  }

  private reapIdleSessions(): void {
    const cutoff = this.clock.now().getTime() - SESSION_IDLE_MS;
    for (const [id, session] of this.sessions) if (session.active === 0 && session.lastSeen < cutoff) this.close(id, session);
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.reaper);
    await Promise.allSettled([...this.sessions.values()].map((s) => s.server.close()));
    this.sessions.clear();
    await this.modern.close();
  }
}

/**
 * The SDK's routing rule (isLegacyRequest), read off the already-parsed body
 * instead of rebuilding a web Request for every call: a request is modern when
 * its body carries the per-request `_meta` protocol-version claim, or when it
 * names a non-2025 revision in MCP-Protocol-Version (the modern path then
 * answers the malformed request with the right error).
 */
export function isModernRequest(req: Request): boolean {
  const body = req.body as { params?: { _meta?: Record<string, unknown> } } | undefined;
  if (req.method === 'POST' && body && body.params?._meta?.[PROTOCOL_VERSION_META_KEY] !== undefined) return true;
  const header = req.headers['mcp-protocol-version'];
  return typeof header === 'string' && !LEGACY_VERSIONS.has(header);
}

type Message = { method?: unknown; params?: Record<string, unknown> } | undefined;

function cancelledRequestId(body: unknown): string | number | undefined {
  const message = body as Message;
  const id = message?.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function dropRetryFields(body: unknown): void {
  const message = body as Message;
  if (message?.method !== 'tools/call' || !message.params) return;
  delete message.params.requestState;
  delete message.params.inputResponses;
}

function groupsKey(auth: AuthInfo | undefined): string {
  return [...callerOf(auth).groups].sort().join('\n');
}

/** The endpoint's path as the request reached it, global prefix included. */
function pathOf(req: Request): string {
  return new URL(req.originalUrl ?? req.url ?? '/', 'http://localhost').pathname;
}

export function rpcError(status: number, message: string, code = -32000): Rejection {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

function send(res: ServerResponse, rejection: Rejection): void {
  res.writeHead(rejection.status, { 'content-type': 'application/json', ...rejection.headers });
  res.end(JSON.stringify(rejection.body));
}
