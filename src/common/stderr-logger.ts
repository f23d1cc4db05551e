import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { SERVER_NAME } from './product.js';

// Nest's start-up chatter, useful only when debugging Nest itself.
const QUIET_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);

/**
 * Nest's ConsoleLogger writes LOG and WARN to stdout, which in stdio mode is
 * the JSON-RPC channel. Every level goes to stderr here, in every transport.
 */
export class StderrLogger extends ConsoleLogger {
  constructor() {
    super(SERVER_NAME, { prefix: 'gsc-mcp', colors: false });
  }

  protected override printMessages(messages: unknown[], context = '', logLevel: LogLevel = 'log', _stream?: 'stdout' | 'stderr', errorStack?: unknown): void {
    if (logLevel === 'log' && QUIET_CONTEXTS.has(context)) return;
    super.printMessages(messages, context, logLevel, 'stderr', errorStack);
  }
}
