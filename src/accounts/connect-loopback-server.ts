import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type INestApplicationContext, Logger } from '@nestjs/common';
import type { Config } from '../config/config.js';
import { LOCAL_PRINCIPAL } from '../identity/caller.js';
import { CONNECT_PATHS, ConnectFlow, type ConnectSite } from './connect-flow.service.js';
import { sendFailurePage, sendPage } from './connect-pages.js';
import { type ConnectPageHost, type ConnectRequest, ConnectRequests } from './connect-requests.js';

/** stdio with connected accounts: connect links are served by a loopback page server (undefined otherwise). */
export function serveConnectPagesOnLoopback(app: Pick<INestApplicationContext, 'get'>, config: Config): ConnectLoopbackServer | undefined {
  if (!config.connected) {
    return undefined;
  }
  const pages = new ConnectLoopbackServer(app.get(ConnectFlow));
  app.get(ConnectRequests).servePagesWith(pages);
  return pages;
}

/**
 * stdio's connect pages (PRODUCT.md §8d): a stdio server has no HTTP port, so
 * the first connect request starts one on 127.0.0.1 at a port the system
 * picks, serving only the connect page and Google's callback, and it stops
 * once no request is pending (each is used, or its ten minutes pass) and at
 * shutdown. The browser is `local`'s: only this machine reaches the port.
 * Google accepts any port on 127.0.0.1 for a Desktop OAuth client ("Loopback
 * IP address", https://developers.google.com/identity/protocols/oauth2/native-app),
 * which is the client type stdio needs.
 */
export class ConnectLoopbackServer implements ConnectPageHost {
  private readonly logger = new Logger('ConnectPages');
  private server?: Server;
  private origin?: Promise<string>;
  private readonly waiting = new Map<string, NodeJS.Timeout>();

  constructor(private readonly flow: ConnectFlow) {}

  base(): Promise<string> {
    return (this.origin ??= this.listen());
  }

  pending(request: ConnectRequest): void {
    clearTimeout(this.waiting.get(request.id));
    const timer = setTimeout(() => this.settled(request.id), Math.max(0, Date.parse(request.expiresAt) - Date.now()) + 1_000);
    timer.unref();
    this.waiting.set(request.id, timer);
  }

  settled(id: string): void {
    clearTimeout(this.waiting.get(id));
    this.waiting.delete(id);
    if (this.waiting.size === 0) {
      // After the answer being written: the page that says "Connected" still reaches the browser.
      setImmediate(() => void (this.waiting.size === 0 && this.close()));
    }
  }

  /** Whether the page server is listening (for the start-up line and tests). */
  get listening(): boolean {
    return this.server?.listening === true;
  }

  /** Stops serving (shutdown, or nothing pending): links still pending point at a closed port from now on. */
  async close(): Promise<void> {
    for (const timer of this.waiting.values()) {
      clearTimeout(timer);
    }
    this.waiting.clear();
    const server = this.server;
    this.server = undefined;
    this.origin = undefined;
    if (!server) {
      return;
    }
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      // A browser's keep-alive connection would otherwise hold the port for its idle timeout.
      setTimeout(() => server.closeAllConnections(), 1_000).unref();
    });
    this.logger.log('connect page server stopped (no connection pending)');
  }

  private async listen(): Promise<string> {
    const server = createServer((req, res) => void this.handle(req, res, server));
    server.keepAliveTimeout = 5_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    this.logger.log(`connect page served at ${origin}${CONNECT_PATHS.page} while a connection is pending`);
    return origin;
  }

  private async handle(req: IncomingMessage, res: ServerResponse, server: Server): Promise<void> {
    const { port } = server.address() as AddressInfo;
    // DNS rebinding: a page on another name that resolves to 127.0.0.1 is not this page.
    if (req.headers.host !== `127.0.0.1:${port}` && req.headers.host !== `localhost:${port}`) {
      return sendPage(res, 403, { title: 'Forbidden', lines: ['This page answers on its loopback address only.'] });
    }
    if (req.method !== 'GET') {
      return sendPage(res, 405, { title: 'Method not allowed', lines: ['The connect page answers GET only.'] });
    }
    const site: ConnectSite = {
      base: `http://127.0.0.1:${port}`,
      proof: { kind: 'principal', principal: () => Promise.resolve(LOCAL_PRINCIPAL) },
      // The port is this page's, not the server's: a stdio server has no address of its own.
      server: 'the Search Console server your MCP client runs over stdio on this machine',
    };
    try {
      if (!(await this.flow.route(req, res, site))) {
        sendPage(res, 404, { title: 'Not found', lines: ['This server serves the connect page only.'] });
      }
    } catch (error) {
      sendFailurePage(res, error, (line) => this.logger.error(line));
    }
  }
}
