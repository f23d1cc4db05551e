import type { IncomingMessage, ServerResponse } from 'node:http';
import { isJsonContentType } from '@modelcontextprotocol/server';

/** Bodies of MCP requests may be large (batch tool arguments); the SDK's own default. */
export const MCP_BODY_LIMIT = 4 * 1024 * 1024;
/** After a 413, at most this much more of the refused body is read (and dropped) before the connection is closed. */
export const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
/** …and for at most this long. */
export const DRAIN_MAX_MS = 5_000;

export type BodyResult =
  | { readonly ok: true; readonly body: unknown }
  | {
      readonly ok: false;
      readonly status: number;
      readonly code: number;
      readonly message: string;
      /** A body past the limit: part of it may still be on its way (answer with answerOversized). */
      readonly oversized?: true;
    };

/**
 * The JSON body of a POST to the MCP endpoint, read here rather than by a
 * framework parser so that every refusal is a JSON-RPC error (-32700, -32600)
 * with the right status — and a body past the limit is refused from its
 * Content-Length, before it is read. A body a host application's own parser
 * already read is taken as it is.
 *
 * A body found too large while it streams is left unread from there (paused),
 * not destroyed: the caller answers with answerOversized, which drains it.
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
  const read = await new Promise<Buffer | 'too large' | 'failed'>((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: Buffer | 'too large' | 'failed') => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(outcome);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        settle('too large');
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle(Buffer.concat(chunks));
    const onError = () => settle('failed');
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
  if (read === 'too large') {
    return tooLarge(limit);
  }
  if (read === 'failed') {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the request body could not be read' };
  }
  try {
    return { ok: true, body: JSON.parse(read.toString('utf8')) as unknown };
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the body is not valid JSON' };
  }
}

/**
 * Answers a request whose body is past the limit so that the client reads the
 * answer, not a reset. The answer goes out at once, complete (Content-Length)
 * and with `Connection: close`; the rest of the body is then read and dropped,
 * and the response ended (which closes the connection) only once the body is
 * in. Closing a socket with unread bytes makes the kernel send a reset, which
 * can reach the client before it has read the answer: what clients used to
 * see (ECONNRESET instead of the 413). Bounded: past DRAIN_MAX_BYTES more, or
 * DRAIN_MAX_MS, the connection is closed anyway.
 */
export function answerOversized(req: IncomingMessage, res: ServerResponse, status: number, body: string): void {
  const payload = Buffer.from(body, 'utf8');
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': payload.length, connection: 'close' });
  res.write(payload);
  if (req.complete || req.destroyed) {
    res.end();
    return;
  }
  let drained = 0;
  let done = false;
  const finish = (cut: boolean) => {
    if (done) {
      return;
    }
    done = true;
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('aborted', onError);
    if (cut) {
      // The answer is written; a client still sending this much (or this slowly) gets it followed by a close.
      res.end(() => req.socket.destroy());
      return;
    }
    res.end();
  };
  const onData = (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > DRAIN_MAX_BYTES) {
      finish(true);
    }
  };
  const onEnd = () => finish(false);
  const onError = () => finish(true);
  const timer = setTimeout(() => finish(true), DRAIN_MAX_MS);
  timer.unref();
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('aborted', onError);
  req.resume();
}

/** The one sentence of a 413, wherever a body is refused for its size. */
export function tooLargeMessage(limit: number): string {
  const size = limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MiB` : `${limit / 1024} KiB`;
  return `Request too large: the limit is ${size}`;
}

function tooLarge(limit: number): BodyResult {
  return { ok: false, status: 413, code: -32600, message: tooLargeMessage(limit), oversized: true };
}
