import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { StderrLogger } from './common/stderr-logger.js';
import type { Config } from './config/config.js';
import { HttpAppModule } from './http-app.module.js';
import { McpHttpController } from './mcp/mcp-http.controller.js';
import { ToolDispatcher } from './mcp/tool-dispatcher.service.js';
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
  const app = await NestFactory.create<NestExpressApplication>(HttpAppModule.forRoot(config), {
    logger,
    bufferLogs: true,
    // Flushed once listening: a port in use is then one line from the CLI, not a log dump.
    autoFlushLogs: false,
    abortOnError: false,
    bodyParser: false,
  });
  // MCP bodies can be large (batch tool arguments); Express's default is 100 kB.
  app.useBodyParser('json', { limit: '4mb' });
  await app.listen(config.http.port, config.http.host);
  app.flushLogs();
  const address = app.getHttpServer().address() as { port: number };
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  const origin = `http://${host}:${address.port}`;
  logStartup(app, config, `HTTP on ${origin}/mcp`);
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const answered = app.get(McpHttpController).drain(SHUTDOWN_GRACE_MS);
      app.getHttpServer().close();
      await drain(app.get(ToolDispatcher));
      await answered;
      await app.close();
    })());
  return { app, origin, stop };
}
