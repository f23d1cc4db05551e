import type { IncomingMessage } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/server';

/** Bodies of MCP requests may be large (batch tool arguments); the SDK's own default. */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;

export type BodyResult =
  | { readonly ok: true; readonly body: unknown }
  | { readonly ok: false; readonly status: number; readonly code: number; readonly message: string };

/**
 * The JSON body of a POST to the MCP endpoint, read here rather than by a
 * framework parser so that every refusal is a JSON-RPC error (-32700, -32600)
 * with the right status — and a body past the limit is refused from its
 * Content-Length, before it is read. A body a host application's own parser
 * already read is taken as it is.
 */
export async function readJsonBody(req: IncomingMessage & { body?: unknown }, limit = MCP_BODY_LIMIT): Promise<BodyResult> {
  if (req.body !== undefined) {
    return { ok: true, body: req.body };
  }
  if (!isJsonContentType(req.headers['content-type'])) {
    return { ok: false, status: 415, code: -32600, message: 'Unsupported Media Type: Content-Type must be application/json' };
  }
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        req.destroy();
        return tooLarge(limit);
      }
      chunks.push(chunk);
    }
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the request body could not be read' };
  }
  try {
    return { ok: true, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the body is not valid JSON' };
  }
}

function tooLarge(limit: number): BodyResult {
  return { ok: false, status: 413, code: -32600, message: `Request too large: the limit is ${limit / 1024 / 1024} MiB` };
}
