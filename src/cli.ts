import 'reflect-metadata';
import { type Command, parseCommandLine, usage } from './config/command-line.js';
import { ConfigError } from './config/config-error.js';
import { ELICITATION_OFF_LINE, SERVER_NAME, serverVersion } from './common/product.js';
import { type Config, loadConfig, scrubSecrets } from './config/config.js';
import { listenError } from './config/listen-error.js';
import { installTelemetry } from './common/telemetry.js';

async function main(): Promise<void> {
  let command: Command;
  try {
    command = parseCommandLine(process.argv.slice(2));
  } catch (error) {
    return exitWith(error);
  }
  // No transport exists yet, so stdout is still the terminal's: --help and --version answer there, as CLIs do
  // (`gsc-mcp --version` in a script). Once a server runs, stdout carries only JSON-RPC.
  if (command.kind === 'help') {
    return void process.stdout.write(usage());
  }
  if (command.kind === 'version') {
    return void process.stdout.write(`${serverVersion()}\n`);
  }

  let config: Config;
  try {
    config = loadConfig(process.env, { forceHttp: command.forceHttp });
  } catch (error) {
    return exitWith(error);
  } finally {
    scrubSecrets(process.env);
  }
  if (!config.elicitation) {
    process.stderr.write(`${ELICITATION_OFF_LINE}\n`);
  }
  try {
    // OpenTelemetry only when an OTLP endpoint is set: otherwise not one of its modules is loaded.
    if (config.telemetry) {
      const { startTelemetry } = await import('./telemetry/otel-telemetry.js').catch(otelMissing);
      installTelemetry(await startTelemetry(config.telemetry, serverVersion()));
    }
    // Loaded after the configuration is valid, so a bad setting never pays for Nest.
    if (config.transport === 'http') {
      const [{ startHttpServer }, { exitOnSignals }] = await Promise.all([import('./http-server.js'), import('./server-lifecycle.js')]);
      // The handlers go in before the server listens: a SIGTERM just after the start-up line (a pod stopped as
      // it starts) is then a graceful stop once started, never Node's default of dying mid-start.
      const started = startHttpServer(config);
      exitOnSignals(() => started.then(({ stop }) => stop()));
      await started;
    } else {
      await (await import('./stdio-server.js')).startStdioServer(config);
    }
  } catch (error) {
    exitWith(listenError(error, config.http) ?? error);
  }
}

/**
 * OpenTelemetry's packages are optional peer dependencies (about 23 MB a stdio user never loads, over the
 * 80 MB install budget): a server told to export without them stops at start-up saying what to install.
 */
function otelMissing(error: unknown): never {
  const missing = /Cannot find (?:package|module) '(@opentelemetry\/[^'/]+)/.exec(error instanceof Error ? error.message : '');
  if (!missing) {
    throw error;
  }
  throw new ConfigError(
    `OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, but OpenTelemetry is not installed (${missing[1]} is missing): ` +
      'install the @opentelemetry/* optional peer dependencies our package.json lists, beside the server, or unset the variable.',
  );
}

function exitWith(error: unknown): never {
  if (error instanceof ConfigError) {
    process.stderr.write(`${SERVER_NAME}: ${error.message}\n`);
  } else {
    process.stderr.write(`${SERVER_NAME}: failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
}

void main();
