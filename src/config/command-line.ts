import { ConfigError } from './config-error.js';
import { quote } from './quote.js';
import { SETTINGS, type SettingSpec } from './settings-table.js';
import { SERVER_NAME } from '../common/product.js';

export type Command = { kind: 'serve'; forceHttp: boolean } | { kind: 'help' } | { kind: 'version' };

const OPTIONS = [
  ['--http', 'serve Streamable HTTP instead of stdio (same as GSC_TRANSPORT=http)'],
  ['--help, -h', 'print this help and exit'],
  ['--version', 'print the version and exit'],
] as const;

/** Reads the command line. Anything unknown is an error: an ignored flag is a setting nobody gets. */
export function parseCommandLine(args: readonly string[]): Command {
  let forceHttp = false;
  for (const arg of args) {
    if (arg === '--help' || arg === '-h') {
      return { kind: 'help' };
    }
    if (arg === '--version') {
      return { kind: 'version' };
    }
    if (arg === '--http') {
      forceHttp = true;
      continue;
    }
    const what = arg.startsWith('-') ? 'unknown option' : 'unexpected argument';
    throw new ConfigError(
      `${what} ${quote(arg)}; the options are --http, --help and --version, and every setting is an environment variable — run ${SERVER_NAME} --help`,
    );
  }
  return { kind: 'serve', forceHttp };
}

/** The --help text: usage, options, and every setting of the configuration table. */
export function usage(): string {
  const width = Math.max(...SETTINGS.map((s) => s.name.length)) + 2;
  const settings = (SETTINGS as readonly SettingSpec[]).map((s) => `  ${(s.name + (s.secret ? ' *' : '')).padEnd(width + 2)}${s.help}`);
  return [
    `Usage: ${SERVER_NAME} [--http]`,
    '',
    'Model Context Protocol server for Google Search Console. Serves MCP over stdio',
    'unless GSC_TRANSPORT=http or --http is given.',
    '',
    'Options:',
    ...OPTIONS.map(([flag, help]) => `  ${flag.padEnd(width + 2)}${help}`),
    '',
    'Settings (environment variables; empty counts as unset; * marks a secret, which',
    'is never printed and is removed from the environment once read):',
    ...settings,
    '',
  ].join('\n');
}
