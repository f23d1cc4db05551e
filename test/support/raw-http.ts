import { request } from 'node:http';
import { createServer } from 'node:net';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body as JSON, or the first SSE `data:` line as JSON; undefined when neither. */
  readonly json: any;
}

/**
 * One HTTP request with exactly the headers given (node:http, so `Host` can be
 * set as a proxy would pass it, which fetch does not allow).
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<RawResponse> {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    ...(body !== undefined ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' } : {}),
    ...options.headers,
  };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? (body === undefined ? 'GET' : 'POST'), headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const data = /^data: (.+)$/m.exec(text)?.[1];
    if (!data) {
      return undefined;
    }
    try {
      return JSON.parse(data);
    } catch {
      return undefined;
    }
  }
}

/** A port nothing listens on right now (for a server whose own URL must be known before it starts, e.g. as its audience). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    // A failed listen rejects, for the caller to report, instead of an unhandled 'error' event.
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A 2025-11-25 initialize request body. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-http', version: '1.0.0' } },
};
