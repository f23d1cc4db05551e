import type { ServerResponse } from 'node:http';

/** A refusal answered before (or instead of) the SDK: a JSON-RPC error body with its HTTP status. */
export type Rejection = { status: number; body: unknown; headers?: Record<string, string> };

export function rpcError(status: number, message: string, code = -32000): Rejection {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

export function send(res: ServerResponse, rejection: Rejection): void {
  res.writeHead(rejection.status, { 'content-type': 'application/json', ...rejection.headers });
  res.end(JSON.stringify(rejection.body));
}
