import type { INestApplication, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { optionalModules } from '../../src/app.module.js';
import { StderrLogger } from '../../src/common/stderr-logger.js';
import { loadConfig } from '../../src/config/config.js';
import { SearchConsoleMcpModule } from '../../src/search-console-mcp.module.js';
import { connectHttp } from './clients.js';
import { isolatedEnv } from './env.js';

export interface InProcessServer {
  readonly app: INestApplication;
  /** e.g. http://127.0.0.1:54321/mcp */
  readonly url: string;
  readonly origin: string;
  close(): Promise<void>;
}

/**
 * Boots the real HTTP app in this process on a free port, from an environment
 * like the binary would get, optionally replacing providers (e.g. the Clock).
 */
export async function startInProcess(
  env: Record<string, string>,
  overrides: [token: unknown, value: unknown][] = [],
  extraModules: Type[] = [],
): Promise<InProcessServer> {
  const config = loadConfig(isolatedEnv({ GSC_HTTP_PORT: '0', ...env }), { forceHttp: true });
  // As startHttpServer does: what configuration switches on (the conformance fixtures) is imported too.
  const optional = await optionalModules(config);
  let builder = Test.createTestingModule({ imports: [SearchConsoleMcpModule.forConfig(config, optional), ...extraModules] });
  for (const [token, value] of overrides) {
    builder = builder.overrideProvider(token).useValue(value);
  }
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: quietLogger() });
  await app.listen(0, '127.0.0.1');
  // Longer than a client's own idle timeout (undici: 4 s), as the emulator does: otherwise, on a loaded
  // machine, the server can close an idle keep-alive socket just as a client reuses it (ECONNRESET).
  app.getHttpServer().keepAliveTimeout = 65_000;
  const { port } = app.getHttpServer().address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  return { app, origin, url: `${origin}/mcp`, close: () => app.close() };
}

function quietLogger() {
  const logger = new StderrLogger();
  logger.setLogLevels(process.env.GSC_TEST_LOGS ? ['log', 'warn', 'error'] : ['error']);
  return logger;
}

/** tools/list as a 2026-07-28 client sees it from a server started for this one question. */
export async function listToolsInProcess(env: Record<string, string>) {
  const server = await startInProcess(env);
  const client = await connectHttp(server.url, { revision: '2026-07-28' });
  try {
    return await client.listTools();
  } finally {
    await client.close();
    await server.close();
  }
}
