import 'reflect-metadata';
import { ConfigError } from './config/config-error.js';
import { ELICITATION_OFF_LINE, SERVER_NAME as NAME } from './common/product.js';
import { type Config, loadConfig, scrubSecrets } from './config/config.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(process.env, { forceHttp: process.argv.includes('--http') });
  } catch (error) {
    return exitWith(error);
  } finally {
    scrubSecrets(process.env);
  }
  if (!config.elicitation) process.stderr.write(`${ELICITATION_OFF_LINE}\n`);
  try {
    // Loaded after the configuration is valid, so a bad setting never pays for Nest.
    if (config.transport === 'http') {
      const [{ startHttpServer }, { exitOnSignals }] = await Promise.all([import('./http-server.js'), import('./server-lifecycle.js')]);
      exitOnSignals((await startHttpServer(config)).stop);
    } else {
      await (await import('./stdio-server.js')).startStdioServer(config);
    }
  } catch (error) {
    exitWith(error);
  }
}

function exitWith(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${NAME}: ${error.message}\n`);
  } else {
    process.stderr.write(`${NAME}: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
}

void main();
