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

  /**
   * The timestamp Nest's ConsoleLogger prints in an English locale
   * ("12/01/2026, 10:16:00 AM", local time), made without Intl: the first Intl
   * formatter of a process loads ICU, ~20 ms of every start otherwise spent on
   * the first log line. (The bundle makes Nest's own formatter lazy, see
   * scripts/bundle.mjs.)
   */
  protected override getTimestamp(): string {
    const now = new Date();
    const two = (n: number) => String(n).padStart(2, '0');
    const hours = now.getHours();
    return `${two(now.getMonth() + 1)}/${two(now.getDate())}/${now.getFullYear()}, ${hours % 12 || 12}:${two(now.getMinutes())}:${two(now.getSeconds())} ${hours < 12 ? 'AM' : 'PM'}`;
  }

  protected override printMessages(
    messages: unknown[],
    context = '',
    logLevel: LogLevel = 'log',
    _stream?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    if (logLevel === 'log' && QUIET_CONTEXTS.has(context)) {
      return;
    }
    super.printMessages(messages, context, logLevel, 'stderr', errorStack);
  }
}
