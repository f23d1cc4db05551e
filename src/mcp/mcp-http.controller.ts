import type { IncomingMessage, ServerResponse } from 'node:http';
import { All, Controller, Inject, Logger, type OnModuleDestroy, Req, Res } from '@nestjs/common';
import {
  type AuthInfo,
  createMcpHandler,
  PROTOCOL_VERSION_META_KEY,
  type ServerEventBus,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { SERVER_NAME } from '../common/product.js';
import { CONFIG, type Config } from '../config/config.js';
import { HttpIdentity } from '../http/http-identity.service.js';
import { HttpTraffic } from '../http/http-traffic.service.js';
import { HTTP_MOUNT, type HttpMount } from '../http/http-mount.js';
import { checkSurface } from '../http/http-surface.js';
import { answerOversized, readJsonBody } from '../http/json-body.js';
import { rpcError, send } from './json-rpc-reply.js';
import { AuditTrail } from '../call/approval/audit-trail.service.js';
import { LegacySessions } from './legacy-sessions.service.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { SERVER_EVENTS } from '../tools/server-features.js';

type Request = IncomingMessage & { body?: unknown; auth?: AuthInfo; originalUrl?: string };

// The SDK exports only the 2025-era revisions here; 2026-07-28 is served by createMcpHandler.
const LEGACY_VERSIONS = new Set<string>(SUPPORTED_PROTOCOL_VERSIONS);

/**
 * Streamable HTTP for both protocol revisions, at the path the module mounts
 * (/mcp standalone, e.g. /api/mcp inside a company app). The gate: Host/Origin,
 * the caller's identity, and the body — every refusal a JSON-RPC error body.
 * Past it, 2026-07-28 requests are served statelessly by the SDK's handler;
 * 2025-11-25 requests go to their session (LegacySessions), so that a guarded
 * call can push its approval dialog to the client mid-call.
 */
@Controller()
export class McpHttpController implements OnModuleDestroy {
  private readonly logger = new Logger('McpHttp');
  private readonly modern;
  private readonly modernNode;

  constructor(
    factory: McpServerFactory,
    private readonly sessions: LegacySessions,
    private readonly identity: HttpIdentity,
    private readonly traffic: HttpTraffic,
    @Inject(CONFIG) private readonly config: Config,
    @Inject(HTTP_MOUNT) private readonly mount: HttpMount,
    private readonly audit: AuditTrail,
    @Inject(SERVER_EVENTS) events: ServerEventBus,
  ) {
    this.modern = createMcpHandler(factory.create, { legacy: 'reject', bus: events, onerror: (e) => this.logger.warn(e.message) });
    this.modernNode = toNodeHandler(this.modern);
  }

  @All()
  async handle(@Req() req: Request, @Res() res: ServerResponse): Promise<void> {
    const surface = checkSurface(req, this.config, this.mount, this.identity.credentialRequired);
    if (!surface.ok) {
      return send(res, rpcError(surface.status, surface.message));
    }
    const auth = await this.identity.identify(req, pathOf(req));
    if ('status' in auth) {
      if (auth.refusedPrincipal) {
        // Two spellings are never one person (PRODUCT.md §8b): the operator sees who was turned away, and why.
        await this.audit.record({
          event: 'principal_refused',
          tool: `${req.method ?? 'POST'} ${pathOf(req)}`,
          principal: null,
          reason: auth.refusedPrincipal.reason,
          refused_principal: auth.refusedPrincipal.principal,
        });
      }
      return send(res, { ...rpcError(auth.status, auth.message), headers: auth.headers });
    }
    req.auth = auth;
    // While draining, only messages of open 2025 sessions get through: they may carry
    // the answer to a dialog an in-flight call is waiting for.
    if (this.traffic.draining && !this.sessions.has(req)) {
      return send(res, {
        ...rpcError(503, `${SERVER_NAME} is shutting down; retry shortly or against another instance`),
        headers: { 'Retry-After': '5' },
      });
    }
    if (req.method === 'POST') {
      const parsed = await readJsonBody(req);
      if (!parsed.ok) {
        const refusal = rpcError(parsed.status, parsed.message, parsed.code);
        if (parsed.oversized) {
          return answerOversized(req, res, refusal.status, JSON.stringify(refusal.body));
        }
        return send(res, refusal);
      }
      // JSON-RPC batching was removed from MCP in 2025-06-18; neither revision served here has it.
      if (Array.isArray(parsed.body)) {
        return send(res, rpcError(400, 'JSON-RPC batches are not supported: send one message per request', -32600));
      }
      req.body = parsed.body;
      this.traffic.track(res);
    }
    if (isModernRequest(req)) {
      return this.modernNode(req, res, req.body);
    }
    return this.sessions.serve(req, res);
  }

  async onModuleDestroy(): Promise<void> {
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
  if (req.method === 'POST' && body && body.params?._meta?.[PROTOCOL_VERSION_META_KEY] !== undefined) {
    return true;
  }
  const header = req.headers['mcp-protocol-version'];
  return typeof header === 'string' && !LEGACY_VERSIONS.has(header);
}

/** The endpoint's path as the request reached it, global prefix included. */
function pathOf(req: Request): string {
  return new URL(req.originalUrl ?? req.url ?? '/', 'http://localhost').pathname;
}
