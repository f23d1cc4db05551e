import { NestFactory } from '@nestjs/core';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { serveConnectPagesOnLoopback } from './accounts/connect-loopback-server.js';
import { AppModule, optionalModules } from './app.module.js';
import { StderrLogger } from './common/stderr-logger.js';
import { telemetry } from './common/telemetry.js';
import type { Config } from './config/config.js';
import { drain, logStartup } from './server-lifecycle.js';
import { McpServerFactory } from './mcp/mcp-server.factory.js';
import { ToolDispatcher } from './call/tool-dispatcher.service.js';

/** Serves MCP over stdin/stdout from a Nest standalone context. stdout carries JSON-RPC only. */
export async function startStdioServer(config: Config): Promise<void> {
  // Anything a dependency prints to the console would otherwise corrupt the protocol stream.
  Object.assign(console, { log: console.error, info: console.error, debug: console.error });
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, await optionalModules(config)), {
    logger: new StderrLogger(),
    bufferLogs: true,
    abortOnError: false,
  });
  app.flushLogs();
  // Connected accounts: the connect page is served on an ephemeral loopback port while a connection is pending.
  const pages = serveConnectPagesOnLoopback(app, config);
  const handle = serveStdio(app.get(McpServerFactory).create);
  logStartup(app, config, 'stdio');
  let closing = false;
  const shutdown = async () => {
    if (closing) {
      return;
    }
    closing = true;
    // A Google change already under way completes even if nobody is left to read the answer.
    await drain(app.get(ToolDispatcher));
    await handle.close().catch(() => undefined);
    await pages?.close();
    await app.close();
    await telemetry()?.shutdown();
    process.exit(0);
  };
  process.stdin.on('end', () => void shutdown());
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}
