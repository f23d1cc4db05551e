import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { type AuthInfo, isInitializeRequest } from '@modelcontextprotocol/server';
import { Clock } from '../common/clock.js';
import { CONFIG, type Config } from '../config/config.js';
import { callerOf } from '../identity/caller.js';
import { STATE_STORE } from '../state/state.module.js';
import { stateKey } from '../state/keys.js';
import type { StateStore } from '../state/state-store.js';
import { rpcError, send } from './json-rpc-reply.js';
import { cancelledRequestId, dropRetryFields, isNotification } from './legacy-request-body.js';
import { buildLive, type Live, replayInitialize } from './legacy-live-server.js';
import { KEEP_ALIVE_MS, openStandaloneStream, resumesStandalone } from './legacy-standalone-stream.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { SessionEventStores } from './session-event-store.js';

export type LegacyRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo };

/** What a session is, kept in the state store so that any replica (or this one after a restart) can serve it. */
type SessionRecord = { principal?: string; groups: string; init: Record<string, unknown> };

/** What this process keeps of a session between its requests: the record, and the GET stream when one is open here. */
type Session = {
  record: SessionRecord;
  lastSeen: number;
  /** When the record's expiry in the state store was last pushed back. */
  touched: number;
  active: number;
  live?: Promise<Live>;
  /**
   * Whether the session has served a request after its initialize. Only then does its server linger after its last
   * request: a burst of sessions being opened does not keep a burst of servers.
   */
  called?: boolean;
  stream?: ServerResponse;
};

const SESSION_IDLE_MS = 30 * 60_000;
/**
 * How long a session's server outlives its last request: a client calling in a
 * loop reuses it instead of paying a rebuild and an initialize replay per call
 * (PRODUCT §10's HTTP bar), while a session idle for longer costs only its record.
 */
const LINGER_MS = 500;
/** A session in use pushes its record's expiry back at most this often (one write, not one per request). */
const TOUCH_EVERY_MS = 60_000;
const sessionKey = (id: string) => stateKey('session', id);

/**
 * The 2025-11-25 sessions of one MCP endpoint: opened by an initialize
 * request, bound to the principal (and groups) that opened them, capped at
 * GSC_HTTP_MAX_SESSIONS (the least recently used idle one makes room), closed
 * after SESSION_IDLE_MS idle. A session exists so that a guarded call can push
 * its approval dialog to the client mid-call; its SSE streams are resumable
 * from the state store (SEP-1699). The HTTP gate in front of it
 * (McpHttpController) has already checked Host/Origin, identity and the body.
 *
 * An idle session costs a compact record, here and in the state store
 * (`mcp-session:v1:<id>`, expiring SESSION_IDLE_MS after its last use), plus its
 * GET stream when the client holds one (legacy-standalone-stream.ts). Its
 * McpServer and transport are built when a request arrives, restored by
 * replaying the session's own initialize request to them, and dropped
 * LINGER_MS after the last request in flight ends: an elicitation's answer
 * arrives while the call that asked is still in flight, so it reaches the same
 * server. A replica
 * that does not know a session id looks it up in the store.
 */
@Injectable()
export class LegacySessions implements OnModuleDestroy {
  private readonly logger = new Logger('LegacySessions');
  private readonly sessions = new Map<string, Session>();
  private readonly reaper: NodeJS.Timeout;
  private readonly keepAlive: NodeJS.Timeout;
  /** Sessions whose live server outlives its last request, each with when it is dropped. */
  private readonly lingering = new Map<Session, number>();
  private lingerSweep: NodeJS.Timeout | undefined;

  constructor(
    private readonly factory: McpServerFactory,
    private readonly eventStores: SessionEventStores,
    private readonly clock: Clock,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {
    this.reaper = setInterval(() => this.reapIdleSessions(), 60_000).unref();
    // One timer for every open GET stream, rather than one per session.
    this.keepAlive = setInterval(() => this.sendKeepAlive(), KEEP_ALIVE_MS).unref();
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
    if (sessionId === undefined) {
      return this.initialize(req, res);
    }
    const session = typeof sessionId === 'string' ? await this.find(sessionId) : undefined;
    // Another principal's session is answered exactly as an unknown one. So is the same
    // person's once their groups changed: the session's tools and sites were decided by the
    // groups it was opened with, and a person who left a group must not keep what it granted.
    if (!session || session.record.principal !== req.auth?.clientId || session.record.groups !== groupsKey(req.auth)) {
      return send(res, rpcError(404, 'Session not found', -32001));
    }
    const id = sessionId as string;
    this.touch(id, session);
    if (req.method === 'GET' && resumesStandalone(req)) {
      return this.holdStream(id, session, req, res);
    }
    // A 2025 client is asked by push, never by an answer it supplies itself: the
    // 2026 retry fields have no meaning on this revision and are dropped.
    dropRetryFields(req.body);
    // A notification to a session with nothing in flight (`initialized`, a late `cancelled`) has no one to tell.
    if (session.active === 0 && req.method === 'POST' && isNotification(req.body)) {
      res.writeHead(202).end();
      return;
    }
    // Before a call with nothing else in flight (a lingering server included): a session another
    // replica ended (DELETE) is ended here too.
    if (session.active === 0 && (await this.endedElsewhere(id))) {
      this.forget(id, session);
      return send(res, rpcError(404, 'Session not found', -32001));
    }
    session.active++;
    session.called = true;
    this.lingering.delete(session);
    res.once('close', () => this.finished(session));
    const live = await (session.live ??= this.revive(id, session, req.auth));
    await live.transport.handleRequest(req, res, req.body);
    // The SDK leaves a cancelled request's stream open with no answer to come; close it, so the
    // client is not left waiting and shutdown does not wait on it for its whole grace period.
    const cancelled = cancelledRequestId(req.body);
    if (cancelled !== undefined) {
      live.transport.closeSSEStream(cancelled);
    }
  }

  private async initialize(req: LegacyRequest, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      return send(res, rpcError(400, 'Bad Request: no valid Mcp-Session-Id; start with an initialize request', -32000));
    }
    if (!this.makeRoom()) {
      return send(res, {
        ...rpcError(503, `Too many open sessions (GSC_HTTP_MAX_SESSIONS=${this.config.http.maxSessions}) and none is idle; retry shortly`),
        headers: { 'Retry-After': '5' },
      });
    }
    const id = randomUUID();
    const now = this.clock.now().getTime();
    const record: SessionRecord = { principal: req.auth?.clientId, groups: groupsKey(req.auth), init: req.body.params };
    const session: Session = { record, lastSeen: now, touched: now, active: 1 };
    res.once('close', () => this.finished(session));
    const live = this.build(id, session, req.auth, async (sessionId) => {
      this.sessions.set(sessionId, session);
      await this.save(sessionId, record);
    });
    session.live = Promise.resolve(live);
    await live.server.connect(live.transport);
    this.track(live, session);
    await live.transport.handleRequest(req, res, req.body);
  }

  /** The session named by an id: open here, or recorded in the state store by another replica (or before a restart). */
  private async find(id: string): Promise<Session | undefined> {
    const known = this.sessions.get(id);
    if (known) {
      return known;
    }
    let stored: string | undefined;
    try {
      stored = await this.store.get(sessionKey(id));
    } catch (error) {
      this.logger.warn(`session ${id} could not be looked up in the state store: ${messageOf(error)}`);
    }
    if (stored === undefined || !this.makeRoom()) {
      return undefined;
    }
    const now = this.clock.now().getTime();
    const session: Session = this.sessions.get(id) ?? {
      record: JSON.parse(stored) as SessionRecord,
      lastSeen: now,
      touched: now,
      active: 0,
    };
    this.sessions.set(id, session);
    return session;
  }

  /** A server and transport for the session; `initialized` is called when its initialize request is served. */
  private build(id: string, session: Session, authInfo: AuthInfo | undefined, initialized?: (id: string) => Promise<void>): Live {
    return buildLive(this.factory, this.eventStores, {
      id,
      authInfo,
      standaloneStream: () => session.stream,
      initialized,
      closed: () => this.close(id),
    });
  }

  /** The session's server and transport again, as they were after its initialize request (which is replayed to them). */
  private async revive(id: string, session: Session, authInfo: AuthInfo | undefined): Promise<Live> {
    const live = this.build(id, session, authInfo);
    await live.server.connect(live.transport);
    this.track(live, session);
    await replayInitialize(live, session.record.init, authInfo);
    return live;
  }

  /**
   * A request's JSON-RPC call can outlive its HTTP response (a client whose stream was cut resumes it
   * with Last-Event-ID): each call in flight counts as activity until its answer is sent or it is cancelled.
   */
  private track(live: Live, session: Session): void {
    const inFlight = new Set<string | number>();
    const onmessage = live.transport.onmessage;
    live.transport.onmessage = (message, extra) => {
      const m = message as { id?: string | number; method?: string; params?: { requestId?: string | number } };
      if (m.method !== undefined && m.id !== undefined && !inFlight.has(m.id)) {
        inFlight.add(m.id);
        session.active++;
      } else if (m.method === 'notifications/cancelled' && m.params?.requestId !== undefined && inFlight.delete(m.params.requestId)) {
        this.finished(session);
      }
      onmessage?.(message, extra);
    };
    const sendOnTransport = live.transport.send.bind(live.transport);
    live.transport.send = async (message, options) => {
      try {
        await sendOnTransport(message, options);
      } finally {
        if (('result' in message || 'error' in message) && message.id !== undefined && inFlight.delete(message.id)) {
          this.finished(session);
        }
      }
    };
  }

  private finished(session: Session): void {
    session.active--;
    session.lastSeen = this.clock.now().getTime();
    if (session.active > 0 || !session.live) {
      return;
    }
    if (!session.called) {
      dropLive(session);
      return;
    }
    this.lingering.set(session, session.lastSeen + LINGER_MS);
    this.lingerSweep ??= setInterval(() => this.dropLingering(), LINGER_MS / 2).unref();
  }

  /** Drops the live servers whose linger is over; the sweep stops when none is left. */
  private dropLingering(): void {
    const now = this.clock.now().getTime();
    for (const [session, until] of this.lingering) {
      if (until <= now) {
        this.lingering.delete(session);
        dropLive(session);
      }
    }
    if (this.lingering.size === 0) {
      clearInterval(this.lingerSweep);
      this.lingerSweep = undefined;
    }
  }

  private async holdStream(id: string, session: Session, req: LegacyRequest, res: ServerResponse): Promise<void> {
    if (!req.headers.accept?.includes('text/event-stream')) {
      return send(res, rpcError(406, 'Not Acceptable: Client must accept text/event-stream', -32000));
    }
    if (session.stream && !session.stream.destroyed) {
      return send(res, rpcError(409, 'Conflict: Only one SSE stream is allowed per session', -32000));
    }
    session.stream = res;
    res.once('close', () => {
      if (session.stream === res) {
        session.stream = undefined;
      }
    });
    try {
      await openStandaloneStream(req, res, id, this.eventStores.forSession(id));
    } catch (error) {
      this.logger.warn(`session ${id}: the GET stream could not be resumed: ${messageOf(error)}`);
      res.end();
    }
  }

  /** True only when the store answers that the record is gone; a store that cannot be reached decides nothing. */
  private async endedElsewhere(id: string): Promise<boolean> {
    try {
      return (await this.store.get(sessionKey(id))) === undefined;
    } catch {
      return false;
    }
  }

  private touch(id: string, session: Session): void {
    const now = this.clock.now().getTime();
    session.lastSeen = now;
    if (now - session.touched >= TOUCH_EVERY_MS) {
      session.touched = now;
      void this.save(id, session.record);
    }
  }

  private async save(id: string, record: SessionRecord): Promise<void> {
    try {
      await this.store.put(sessionKey(id), JSON.stringify(record), SESSION_IDLE_MS);
    } catch (error) {
      // The session still works on this replica; only another one (or a restart) will not know it.
      this.logger.warn(`session ${id} is not recorded in the state store: ${messageOf(error)}`);
    }
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
    this.close(oldest[0]);
    return true;
  }

  /** Ends the session everywhere (DELETE, or its idle time is up). */
  private close(id: string): void {
    const session = this.sessions.get(id);
    if (session) {
      this.forget(id, session);
    }
    void this.store.delete(sessionKey(id)).catch(() => undefined);
  }

  /** Drops this process's hold on a session (its record stays in the store until it expires). */
  private forget(id: string, session: Session): void {
    this.sessions.delete(id);
    this.lingering.delete(session);
    session.stream?.end();
    session.stream = undefined;
    dropLive(session);
  }

  private reapIdleSessions(): void {
    const cutoff = this.clock.now().getTime() - SESSION_IDLE_MS;
    for (const [id, session] of this.sessions) {
      if (session.active === 0 && session.lastSeen < cutoff) {
        this.close(id);
      }
    }
  }

  private sendKeepAlive(): void {
    for (const session of this.sessions.values()) {
      if (session.stream && !session.stream.writableEnded) {
        session.stream.write(': keepalive\n\n');
      }
    }
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.reaper);
    clearInterval(this.keepAlive);
    clearInterval(this.lingerSweep);
    this.lingering.clear();
    const lives = [...this.sessions.values()].map(async (s) => {
      s.stream?.end();
      await (await s.live)?.server.close();
    });
    await Promise.allSettled(lives);
    this.sessions.clear();
  }
}

/** Closes the session's server and transport, if it has them (a request that needs them again revives them). */
function dropLive(session: Session): void {
  const live = session.live;
  session.live = undefined;
  void live?.then((l) => l.server.close()).catch(() => undefined);
}

function groupsKey(auth: AuthInfo | undefined): string {
  return [...callerOf(auth).groups].sort().join('\n');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
