import { type INestApplicationContext, Logger } from '@nestjs/common';
import { GoogleAuthService } from './google/google-auth.service.js';
import { SERVER_NAME } from './common/product.js';
import { type Config, describeState } from './config/config.js';
import { ApprovalSecrets } from './call/approval/approval-secrets.service.js';
import { type ToolDispatcher } from './call/tool-dispatcher.service.js';
import { ToolRegistry } from './tools/tool-registry.service.js';

// What the stdio and the HTTP server share about starting and stopping.

/** How long shutdown waits for running tool calls. */
export const SHUTDOWN_GRACE_MS = 25_000;

/** Waits for running tool calls, saying so when there are any. */
export async function drain(dispatcher: ToolDispatcher): Promise<void> {
  const logger = new Logger('Shutdown');
  if (dispatcher.running === 0) {
    return;
  }
  logger.log(`waiting for ${dispatcher.running} running tool call(s) to finish`);
  if (!(await dispatcher.idle(SHUTDOWN_GRACE_MS))) {
    logger.warn(
      `tool calls still running after ${SHUTDOWN_GRACE_MS / 1000} s are abandoned; a guarded call still waiting for a person has changed nothing`,
    );
  }
}

/** Stops gracefully on SIGTERM / SIGINT, then exits. */
export function exitOnSignals(stop: () => Promise<unknown>): void {
  const handler = () => void stop().finally(() => process.exit(0));
  process.once('SIGTERM', handler);
  process.once('SIGINT', handler);
}

/** The one start-up line: where it serves, which credential, how many tools, the state store and where the approval secret came from (never a value). */
export function logStartup(app: Pick<INestApplicationContext, 'get'>, config: Config, where: string): void {
  const credential = app.get(GoogleAuthService).summary();
  const registry = app.get(ToolRegistry);
  const who =
    credential.kind === 'none'
      ? 'no credential (tools answer with setup instructions)'
      : `${credential.kind} ${credential.principal} from ${credential.origin}${credential.subject ? `, acting as ${credential.subject}` : ''}`;
  const state = `state: ${describeState(config.state)}, ${app.get(ApprovalSecrets).describe()}`;
  // The model's tools; the views' app-only tools are counted apart.
  const appOnly = registry.tools.filter((t) => t.spec.appOnlyFor).length;
  const tools = `${registry.tools.length - appOnly} tools${appOnly ? ` (+${appOnly} app-only for views)` : ''}`;
  new Logger('Startup').log(
    `${SERVER_NAME} serving ${where}; credential: ${who}; ${tools}${config.readOnly ? ' (read-only)' : ''}; ${state}`,
  );
}
