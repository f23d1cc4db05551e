import { type BaseContext, PROTOCOL_VERSION_META_KEY, Server, type ServerContext } from '@modelcontextprotocol/server';
import type { Attributes, RequestFacts, TelemetryHooks } from '../common/telemetry.js';

type Handler = (request: WireRequest, ctx: ServerContext) => Promise<unknown>;
type WrapHandler = (this: Server, method: string, handler: Handler) => Handler;
interface WireRequest {
  readonly method: string;
  readonly params?: { readonly name?: unknown; readonly uri?: unknown; readonly _meta?: Readonly<Record<string, unknown>> };
}

let traced = false;

/**
 * Every request of every server, on stdio and HTTP, of both revisions, reaches
 * its handler through Server's `_wrapHandler` (the SDK's hook for wrapping a
 * registered handler, `initialize` and `ping` included): wrapping it once makes
 * each request one server span, named and attributed per the MCP semantic
 * conventions. Called only when telemetry is on; otherwise nothing is patched.
 * The SDK ships no OpenTelemetry integration (typescript-sdk #1264).
 */
export function traceRequests(hooks: TelemetryHooks): void {
  if (traced) {
    return;
  }
  traced = true;
  const prototype = Server.prototype as unknown as { _wrapHandler: WrapHandler };
  const wrap = prototype._wrapHandler;
  prototype._wrapHandler = function (this: Server, method: string, handler: Handler): Handler {
    const inner = wrap.call(this, method, handler);
    return (request, ctx) =>
      hooks.request(requestFacts(this, request, ctx), async (notes) => {
        const result = await inner(request, ctx).catch((error: unknown) => {
          notes.set(errorAttributes(error));
          throw error;
        });
        // A tool's failure is a result, not a JSON-RPC error: the conventions call it tool_error.
        if (method === 'tools/call' && (result as { isError?: unknown } | undefined)?.isError === true) {
          notes.set({ 'error.type': 'tool_error' });
        }
        return result;
      });
  };
}

function requestFacts(server: Server, request: WireRequest, ctx: ServerContext): RequestFacts {
  const { method, params } = request;
  const name = typeof params?.name === 'string' ? params.name : undefined;
  const http = ctx.http !== undefined;
  const attributes: Attributes = {
    'mcp.method.name': method,
    'jsonrpc.request.id': String(ctx.mcpReq.id),
    'mcp.session.id': ctx.sessionId,
    'mcp.protocol.version': protocolVersion(server, ctx),
    'gen_ai.tool.name': method === 'tools/call' ? name : undefined,
    'gen_ai.operation.name': method === 'tools/call' ? 'execute_tool' : undefined,
    'gen_ai.prompt.name': method === 'prompts/get' ? name : undefined,
    'mcp.resource.uri': typeof params?.uri === 'string' && method.startsWith('resources/') ? params.uri : undefined,
    // stdio is a pipe; Streamable HTTP runs over TCP (the conventions' network.* attributes).
    'network.transport': http ? 'tcp' : 'pipe',
    'network.protocol.name': http ? 'http' : undefined,
  };
  return { method, target: method === 'tools/call' || method === 'prompts/get' ? name : undefined, attributes, meta: params?._meta };
}

/** 2026-07-28 names its revision on every request (the envelope); a 2025-11-25 connection negotiated one at initialize. */
function protocolVersion(server: Server, ctx: BaseContext): string | undefined {
  const enveloped = (ctx.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined)?.[PROTOCOL_VERSION_META_KEY];

  return typeof enveloped === 'string' ? enveloped : server.getNegotiatedProtocolVersion();
}

/** A JSON-RPC error: its code is both error.type and rpc.response.status_code, as the conventions say. */
function errorAttributes(error: unknown): Attributes {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'number' && Number.isSafeInteger(code)) {
    return { 'error.type': String(code), 'rpc.response.status_code': String(code) };
  }
  // The SDK answers anything else as -32603.
  return { 'error.type': error instanceof Error ? error.name : '_OTHER', 'rpc.response.status_code': '-32603' };
}
