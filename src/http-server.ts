import type { IncomingMessage, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter, type NestExpressApplication } from '@nestjs/platform-express';
import { StderrLogger } from './common/stderr-logger.js';
import { telemetry } from './common/telemetry.js';
import { optionalModules } from './app.module.js';
import type { Config } from './config/config.js';
import { HttpIdentity } from './http/http-identity.service.js';
import { HttpTraffic } from './http/http-traffic.service.js';
import { answerOversized, MCP_BODY_LIMIT, tooLargeMessage } from './http/json-body.js';
import { rpcError } from './mcp/json-rpc-reply.js';
import { SearchConsoleMcpModule } from './search-console-mcp.module.js';
import { ToolDispatcher } from './call/tool-dispatcher.service.js';
import { drain, logStartup, SHUTDOWN_GRACE_MS } from './server-lifecycle.js';

export interface RunningHttpServer {
  readonly app: INestApplication;
  /** e.g. http://127.0.0.1:3000 */
  readonly origin: string;
  /** Graceful stop: refuse new requests, let running tool calls finish (bounded), then close. */
  readonly stop: () => Promise<void>;
}

/** Boots the Nest HTTP app: /mcp and /admin, bound to GSC_HTTP_HOST:GSC_HTTP_PORT. */
export async function startHttpServer(config: Config, logger = new StderrLogger()): Promise<RunningHttpServer> {
  // The adapter is handed over rather than left for Nest to require(): that keeps
  // Express out of what the stdio server loads (scripts/bundle.mjs).
  const module = SearchConsoleMcpModule.forConfig(config, await optionalModules(config));
  const app = await NestFactory.create<NestExpressApplication>(module, new ExpressAdapter(), {
    logger,
    bufferLogs: true,
    // Flushed once listening: a port in use is then one line from the CLI, not a log dump.
    autoFlushLogs: false,
    abortOnError: false,
    bodyParser: false,
  });
  app.use(limitBodies);
  // Longer than the 60 s idle timeout of common proxies and clients' pools, so a connection is never
  // closed here while a client is about to reuse it (an ECONNRESET on the next request).
  const server = app.getHttpServer();
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await app.listen(config.http.port, config.http.host);
  app.flushLogs();
  const address = app.getHttpServer().address() as { port: number };
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  const origin = `http://${host}:${address.port}`;
  const callers = {
    host: 'named by the host app',
    oauth: `OAuth access tokens from ${config.auth?.issuer ?? ''}`,
    token: 'GSC_HTTP_TOKEN (one principal)',
    local: 'loopback, no token (one principal)',
  }[app.get(HttpIdentity).mode];
  logStartup(app, config, `HTTP on ${origin}/mcp (callers: ${callers})`);
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const answered = app.get(HttpTraffic).drain(SHUTDOWN_GRACE_MS);
      app.getHttpServer().close();
      await drain(app.get(ToolDispatcher));
      await answered;
      // Every request is answered (or past its grace): what is still open carries none — a kept-alive
      // connection, or one a client or load balancer opened and never used, which close() alone would wait
      // for until its peer drops it (tens of seconds, past a pod's grace period).
      app.getHttpServer().closeAllConnections();
      await app.close();
      await telemetry()?.shutdown();
    })());
  return { app, origin, stop };
}

/** Bodies are for /mcp (which reads its own, up to 4 MiB); anywhere else 64 KiB, refused from Content-Length before a byte is read. */
const OTHER_BODY_LIMIT = 64 * 1024;

function limitBodies(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  const mcp = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') === '/mcp';
  if (
    declared > (mcp ? MCP_BODY_LIMIT : OTHER_BODY_LIMIT) ||
    (!mcp && req.headers['transfer-encoding'] !== undefined && req.method !== 'GET')
  ) {
    const message = tooLargeMessage(mcp ? MCP_BODY_LIMIT : OTHER_BODY_LIMIT);
    // Answered, then the body drained (bounded) before the close, so the client reads this rather than a reset.
    answerOversized(req, res, 413, JSON.stringify(mcp ? rpcError(413, message, -32600).body : { statusCode: 413, message }));
    return;
  }
  next();
}
