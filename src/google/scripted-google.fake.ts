// A tiny HTTP server for specs that answers exactly what a test scripts — the
// bodies Google really sends, truncated JSON, HTML, a connection that never
// answers — so that they go through the real client libraries (gaxios,
// googleapis-common, google-auth-library). The emulator models Google's
// behaviour; this one misbehaves on request.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Reply = (req: IncomingMessage, res: ServerResponse) => void;

export const reply = {
  json:
    (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
    (_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
      res.end(JSON.stringify(body));
    },
  raw:
    (status: number, contentType: string | undefined, text: string): Reply =>
    (_req, res) => {
      res.writeHead(status, contentType ? { 'content-type': contentType } : {});
      res.end(text);
    },
  /** Accepts the request and never answers. */
  hang: (() => undefined) as Reply,
  /** Sends the status line, headers and half a body, then nothing. */
  stall: ((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
    res.write('{"siteEntry": [');
  }) as Reply,
  /** Closes the connection without an answer. */
  reset: ((req) => req.socket.destroy()) as Reply,
  /** A token, as Google's token endpoint issues it. */
  token: ((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ access_token: 'ya29.scripted', expires_in: 3599, token_type: 'Bearer' }));
  }) as Reply,
};

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

export class ScriptedGoogle {
  readonly requests: SeenRequest[] = [];
  private tokenScript: Reply[] = [reply.token];
  private apiScript: Reply[] = [reply.json(200, {})];
  private tokenIndex = 0;
  private apiIndex = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<ScriptedGoogle> {
    let self: ScriptedGoogle | undefined;
    const server = createServer((req, res) => self!.handle(req, res));
    self = new ScriptedGoogle(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return self;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get tokenUrl(): string {
    return `${this.url}/token`;
  }

  /** Replies for /token, in order; the last one repeats. */
  token(...replies: Reply[]): this {
    this.tokenScript = replies;
    this.tokenIndex = 0;
    return this;
  }

  /** Replies for every other path, in order; the last one repeats. */
  api(...replies: Reply[]): this {
    this.apiScript = replies;
    this.apiIndex = 0;
    return this;
  }

  tokenRequests(): SeenRequest[] {
    return this.requests.filter((r) => r.path === '/token');
  }

  apiRequests(): SeenRequest[] {
    return this.requests.filter((r) => r.path !== '/token');
  }

  reset(): void {
    this.requests.length = 0;
    this.token(reply.token);
    this.api(reply.json(200, {}));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      this.requests.push({ method: req.method ?? 'GET', path, body: Buffer.concat(chunks).toString('utf8') });
      const isToken = path === '/token';
      const script = isToken ? this.tokenScript : this.apiScript;
      const index = isToken ? this.tokenIndex++ : this.apiIndex++;
      script[Math.min(index, script.length - 1)](req, res);
    });
  }
}
