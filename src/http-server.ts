import { type INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { GoogleAuthService } from './auth/google-auth.service.js';
import { StderrLogger } from './common/stderr-logger.js';
import type { Config } from './config/config.js';
import { HttpAppModule } from './http-app.module.js';
import { McpHttpController } from './mcp/mcp-http.controller.js';
import { ToolDispatcher } from './mcp/tool-dispatcher.service.js';
import { ToolRegistry } from './mcp/tool-registry.service.js';

export interface RunningHttpServer {
  readonly app: INestApplication;
  /** e.g. http://127.0.0.1:3000 */
  readonly origin: string;
  /** Graceful stop: refuse new requests, let running tool calls finish (bounded), then close. */
  stop(): Promise<void>;
}

/** How long shutdown waits for running tool calls. */
export const SHUTDOWN_GRACE_MS = 25_000;

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

/** Waits for running tool calls, saying so when there are any. */
export async function drain(dispatcher: ToolDispatcher): Promise<void> {
  const logger = new Logger('Shutdown');
  if (dispatcher.running === 0) return;
  logger.log(`waiting for ${dispatcher.running} running tool call(s) to finish`);
  if (!(await dispatcher.idle(SHUTDOWN_GRACE_MS))) {
    logger.warn(`tool calls still running after ${SHUTDOWN_GRACE_MS / 1000} s are abandoned; a guarded call still waiting for a person has changed nothing`);
  }
}

/** Stops gracefully on SIGTERM / SIGINT, then exits. */
export function exitOnSignals(stop: () => Promise<unknown>): void {
  const handler = () => void stop().finally(() => process.exit(0));
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

export function logStartup(app: { get: INestApplication['get'] }, config: Config, where: string): void {
  const credential = app.get(GoogleAuthService).summary();
  const registry = app.get(ToolRegistry);
  const who =
    credential.kind === 'none'
      ? 'no credential (tools answer with setup instructions)'
      : `${credential.kind} ${credential.principal} from ${credential.origin}${credential.subject ? `, acting as ${credential.subject}` : ''}`;
  new Logger('Startup').log(`google-search-console-mcp serving ${where}; credential: ${who}; ${registry.tools.length} tools${config.readOnly ? ' (read-only)' : ''}`);
}
