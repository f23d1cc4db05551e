import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './config-error.js';
import { quote } from './quote.js';
import { SETTINGS, type SettingSpec } from './settings-table.js';

export const PACKAGE_NAME = 'google-search-console-mcp';

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
    if (arg === '--help' || arg === '-h') return { kind: 'help' };
    if (arg === '--version') return { kind: 'version' };
    if (arg === '--http') {
      forceHttp = true;
      continue;
    }
    const what = arg.startsWith('-') ? 'unknown option' : 'unexpected argument';
    throw new ConfigError(`${what} ${quote(arg)}; the options are --http, --help and --version, and every setting is an environment variable — run ${PACKAGE_NAME} --help`);
  }
  return { kind: 'serve', forceHttp };
}

/** The --help text: usage, options, and every setting of the configuration table. */
export function usage(): string {
  const width = Math.max(...SETTINGS.map((s) => s.name.length)) + 2;
  const settings = (SETTINGS as readonly SettingSpec[]).map((s) => `  ${(s.name + (s.secret ? ' *' : '')).padEnd(width + 2)}${s.help}`);
  return [
    `Usage: ${PACKAGE_NAME} [--http]`,
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

/** The version of the installed package, read from its package.json. */
export function packageVersion(from = import.meta.url): string {
  let dir = dirname(fileURLToPath(from));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const pkg = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === PACKAGE_NAME && pkg.version) return pkg.version;
    }
    dir = dirname(dir);
  }
  throw new Error(`${PACKAGE_NAME}: package.json not found above ${fileURLToPath(from)}`);
}
