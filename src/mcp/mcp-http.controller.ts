import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, Controller, Inject, Logger, type OnModuleDestroy, Req, Res } from '@nestjs/common';
import { type AuthInfo, createMcpHandler, isInitializeRequest, type McpServer, PROTOCOL_VERSION_META_KEY, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { CONFIG, type Config } from '../config/config.js';
import { checkMcpAccess, type Rejection, rpcError } from './http-access.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { SessionEventStores, SSE_RETRY_MS } from './session-event-store.js';

type Request = IncomingMessage & { body?: unknown; auth?: AuthInfo };
type Session = { transport: NodeStreamableHTTPServerTransport; server: McpServer; principal?: string; lastSeen: number };

const SESSION_IDLE_MS = 30 * 60_000;
// The SDK exports only the 2025-era revisions here; 2026-07-28 is served by createMcpHandler.
const LEGACY_VERSIONS = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * Streamable HTTP at /mcp for both protocol revisions. 2026-07-28 requests are
 * served statelessly by the SDK's handler; 2025-11-25 clients get a session,
 * so that a guarded call can push its approval dialog to them mid-call.
 */
@Controller()
export class McpHttpController implements OnModuleDestroy {
  private readonly logger = new Logger('McpHttp');
  private readonly modern;
  private readonly modernNode;
  private readonly sessions = new Map<string, Session>();
  private readonly reaper: NodeJS.Timeout;
  private draining = false;
  private openPosts = 0;
  private postsDone?: () => void;

  constructor(
    private readonly factory: McpServerFactory,
    @Inject(CONFIG) private readonly config: Config,
  ) {
    this.modern = createMcpHandler(factory.create, { legacy: 'reject', onerror: (e) => this.logger.warn(e.message) });
    this.modernNode = toNodeHandler(this.modern);
    this.reaper = setInterval(() => this.reapIdleSessions(), 60_000).unref();
  }

  @All('mcp')
  async handle(@Req() req: Request, @Res() res: ServerResponse): Promise<void> {
    const access = checkMcpAccess(req, this.config);
    if (access && 'status' in access) return send(res, access);
    if (access) req.auth = access;
    const sessionId = req.headers['mcp-session-id'];
    // While draining, only messages of open 2025 sessions get through: they may carry
    // the answer to a dialog an in-flight call is waiting for.
    if (this.draining && !(typeof sessionId === 'string' && this.sessions.has(sessionId))) {
      return send(res, { ...rpcError(503, 'google-search-console-mcp is shutting down; retry shortly or against another instance'), headers: { 'Retry-After': '5' } });
    }
    if (req.method === 'POST') this.track(res);
    if (isModernRequest(req)) return this.modernNode(req, res, req.body);
    return this.serveLegacy(req, res);
  }

  /**
   * Refuses new work and resolves once every POST being answered has been
   * answered (or after timeoutMs): a tool result is written after the call
   * itself returns, and must not be cut off by the shutdown.
   */
  drain(timeoutMs: number): Promise<void> {
    this.draining = true;
    if (this.openPosts === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.postsDone = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private track(res: ServerResponse): void {
    this.openPosts++;
    res.once('close', () => {
      if (--this.openPosts === 0) this.postsDone?.();
    });
  }

  get openSessions(): number {
    return this.sessions.size;
  }

  private async serveLegacy(req: Request, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    let session = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    if (session && session.principal !== req.auth?.clientId) return send(res, rpcError(404, 'Session not found', -32001));
    if (!session) {
      if (sessionId !== undefined) return send(res, rpcError(404, 'Session not found', -32001));
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        return send(res, rpcError(400, 'Bad Request: no valid Mcp-Session-Id; start with an initialize request', -32000));
      }
      session = await this.openSession(req);
    }
    session.lastSeen = Date.now();
    await session.transport.handleRequest(req, res, req.body);
  }

  @Inject(SessionEventStores) private readonly eventStores!: SessionEventStores;

  private async openSession(req: Request): Promise<Session> {
    const server = this.factory.create({ era: 'legacy', authInfo: req.auth });
    const sessionId = randomUUID();
    const session: Session = {
      server,
      principal: req.auth?.clientId,
      lastSeen: Date.now(),
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

  private reapIdleSessions(): void {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const [id, session] of this.sessions) {
      if (session.lastSeen < cutoff) {
        this.sessions.delete(id);
        void session.server.close().catch(() => undefined);
      }
    }
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
  if (req.method === 'POST' && body && !Array.isArray(body) && body.params?._meta?.[PROTOCOL_VERSION_META_KEY] !== undefined) return true;
  const header = req.headers['mcp-protocol-version'];
  return typeof header === 'string' && !LEGACY_VERSIONS.has(header);
}

function send(res: ServerResponse, rejection: Rejection): void {
  res.writeHead(rejection.status, { 'content-type': 'application/json', ...rejection.headers });
  res.end(JSON.stringify(rejection.body));
}
