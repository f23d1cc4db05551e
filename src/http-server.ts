import { type INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { GoogleAuthService } from './auth/google-auth.service.js';
import { StderrLogger } from './common/stderr-logger.js';
import type { Config } from './config/config.js';
import { HttpAppModule } from './http-app.module.js';
import { ToolRegistry } from './mcp/tool-registry.service.js';

export interface RunningHttpServer {
  readonly app: INestApplication;
  /** e.g. http://127.0.0.1:3000 */
  readonly origin: string;
}

/** Boots the Nest HTTP app: /mcp and /admin, bound to GSC_HTTP_HOST:GSC_HTTP_PORT. */
export async function startHttpServer(config: Config, logger = new StderrLogger()): Promise<RunningHttpServer> {
  const app = await NestFactory.create<NestExpressApplication>(HttpAppModule.forRoot(config), {
    logger,
    bufferLogs: true,
    abortOnError: false,
    bodyParser: false,
  });
  // MCP bodies can be large (batch tool arguments); Express's default is 100 kB.
  app.useBodyParser('json', { limit: '4mb' });
  app.enableShutdownHooks();
  await app.listen(config.http.port, config.http.host);
  app.flushLogs();
  const address = app.getHttpServer().address() as { port: number };
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  const origin = `http://${host}:${address.port}`;
  logStartup(app, config, `HTTP on ${origin}/mcp`);
  return { app, origin };
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
