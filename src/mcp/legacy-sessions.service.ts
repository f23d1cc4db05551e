import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { type AuthInfo, isInitializeRequest, type McpServer } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { Clock } from '../common/clock.js';
import { CONFIG, type Config } from '../config/config.js';
import { callerOf } from '../identity/caller.js';
import { rpcError, send } from './json-rpc-reply.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { SessionEventStores, SSE_RETRY_MS } from './session-event-store.js';

export type LegacyRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo };
type Session = {
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
  principal?: string;
  groups?: string;
  lastSeen: number;
  active: number;
};

const SESSION_IDLE_MS = 30 * 60_000;

/**
 * The 2025-11-25 sessions of one MCP endpoint: opened by an initialize
 * request, bound to the principal (and groups) that opened them, capped at
 * GSC_HTTP_MAX_SESSIONS (the least recently used idle one makes room), closed
 * after SESSION_IDLE_MS idle. A session exists so that a guarded call can push
 * its approval dialog to the client mid-call; its SSE streams are resumable
 * from the state store (SEP-1699). The HTTP gate in front of it
 * (McpHttpController) has already checked Host/Origin, identity and the body.
 */
@Injectable()
export class LegacySessions implements OnModuleDestroy {
  private readonly sessions = new Map<string, Session>();
  private readonly reaper: NodeJS.Timeout;

  constructor(
    private readonly factory: McpServerFactory,
    private readonly eventStores: SessionEventStores,
    private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
  ) {
    this.reaper = setInterval(() => this.reapIdleSessions(), 60_000).unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Whether the request names a session that is open here (whoever's it is). */
  has(req: IncomingMessage): boolean {
    const sessionId = req.headers['mcp-session-id'];
    return typeof sessionId === 'string' && this.sessions.has(sessionId);
  }

  /** Serves one 2025-11-25 request: in its session, or opening one for an initialize request. */
  async serve(req: LegacyRequest, res: ServerResponse): Promise<void> {
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? this.sessions.get(sessionId) : undefined;
    // Another principal's session is answered exactly as an unknown one. So is the same
    // person's once their groups changed: the session's tools and sites were decided by the
    // groups it was opened with, and a person who left a group must not keep what it granted.
    if (existing && (existing.principal !== req.auth?.clientId || existing.groups !== groupsKey(req.auth))) {
      return send(res, rpcError(404, 'Session not found', -32001));
    }
    let session = existing;
    if (!session) {
      if (sessionId !== undefined) {
        return send(res, rpcError(404, 'Session not found', -32001));
      }
      if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
        return send(res, rpcError(400, 'Bad Request: no valid Mcp-Session-Id; start with an initialize request', -32000));
      }
      if (!this.makeRoom()) {
        return send(res, {
          ...rpcError(
            503,
            `Too many open sessions (GSC_HTTP_MAX_SESSIONS=${this.config.http.maxSessions}) and none is idle; retry shortly`,
          ),
          headers: { 'Retry-After': '5' },
        });
      }
      session = await this.open(req);
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
    if (cancelled !== undefined) {
      session.transport.closeSSEStream(cancelled);
    }
  }

  private async open(req: LegacyRequest): Promise<Session> {
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
    if (this.sessions.size < this.config.http.maxSessions) {
      return true;
    }
    let oldest: [string, Session] | undefined;
    for (const entry of this.sessions) {
      if (entry[1].active === 0 && (!oldest || entry[1].lastSeen < oldest[1].lastSeen)) {
        oldest = entry;
      }
    }
    if (!oldest) {
      return false;
    }
    this.close(oldest[0], oldest[1]);
    return true;
  }

  private close(id: string, session: Session): void {
    this.sessions.delete(id);
    void session.server.close().catch(() => undefined);
  }

  private reapIdleSessions(): void {
    const cutoff = this.clock.now().getTime() - SESSION_IDLE_MS;
    for (const [id, session] of this.sessions) {
      if (session.active === 0 && session.lastSeen < cutoff) {
        this.close(id, session);
      }
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.reaper);
    await Promise.allSettled([...this.sessions.values()].map((s) => s.server.close()));
    this.sessions.clear();
  }
}

type Message = { method?: unknown; params?: Record<string, unknown> } | undefined;

function cancelledRequestId(body: unknown): string | number | undefined {
  const message = body as Message;
  const id = message?.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function dropRetryFields(body: unknown): void {
  const message = body as Message;
  if (message?.method !== 'tools/call' || !message.params) {
    return;
  }
  delete message.params.requestState;
  delete message.params.inputResponses;
}

function groupsKey(auth: AuthInfo | undefined): string {
  return [...callerOf(auth).groups].sort().join('\n');
}
