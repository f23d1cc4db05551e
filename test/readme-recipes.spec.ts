import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse as parseToml } from 'smol-toml';

// Every client recipe of the README's "Connecting a client", read as the client
// would: JSON and TOML blocks parsed, and each `mcp add` command line split
// into words and read by the client's own argument rules (Claude Code's -e and
// --header take several values, so the server's name must come before them;
// Gemini CLI's -e and -H likewise; Codex takes one value per --env and the
// command after --). Set GSC_CLIENT_CLIS to a folder holding the real
// `claude`, `gemini` and `codex` bins (npm install @anthropic-ai/claude-code
// @google/gemini-cli @openai/codex) and the same recipes are also run, against
// the built server, with a throw-away HOME.

const ROOT = resolve(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = README.slice(
  README.indexOf('## Connecting a client'),
  README.indexOf('\n## ', README.indexOf('## Connecting a client') + 1),
);
const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], text: m[2] }));
const PUBLISHED = ['npx', '-y', 'google-search-console-mcp'];
const HTTP_URL = 'http://127.0.0.1:3000/mcp';

/** POSIX shell words of one command line (quotes, backslash-newline continuations, comments); $VAR stays as written. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) {
        quote = undefined;
      } else {
        word = (word ?? '') + c;
      }
    } else if (c === '"' || c === "'") {
      quote = c;
      word ??= '';
    } else if (c === '#' && word === undefined) {
      break;
    } else if (/\s/.test(c)) {
      if (word !== undefined) {
        words.push(word);
      }
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) {
    throw new Error(`unbalanced ${quote} in: ${line}`);
  }
  if (word !== undefined) {
    words.push(word);
  }
  return words;
}

/** The command lines of the shell blocks, continuations joined, comments and blank lines dropped. */
const commands = blocks
  .filter((b) => b.lang === 'sh')
  .flatMap((b) => b.text.replace(/\\\n\s*/g, ' ').split('\n'))
  .map(shellWords)
  .filter((words) => words.length > 0);
const mcpAdds = (client: string) => commands.filter((w) => w[0] === client && w[1] === 'mcp' && w[2] === 'add').map((w) => w.slice(3));

interface Parsed {
  readonly options: Record<string, string[]>;
  readonly positionals: string[];
  /** After a bare `--`. */
  readonly rest: string[];
}

/**
 * Reads argv by one client's rules: `single` options take one value, `many`
 * take every following word up to the next option (commander's variadic and
 * yargs' array options), flags none; `--` ends the options.
 */
function readArgs(
  argv: readonly string[],
  rules: { single: string[]; many: string[]; flags?: string[]; unknownAsPositional?: boolean },
): Parsed {
  const options: Record<string, string[]> = {};
  const positionals: string[] = [];
  let i = 0;
  while (i < argv.length) {
    const word = argv[i++];
    if (word === '--') {
      return { options, positionals, rest: argv.slice(i) };
    }
    const known = [...rules.single, ...rules.many, ...(rules.flags ?? [])].includes(word);
    if (!word.startsWith('-') || (!known && rules.unknownAsPositional)) {
      positionals.push(word);
      continue;
    }
    if (!known) {
      throw new Error(`unknown option ${word}`);
    }
    const values = (options[word] ??= []);
    if (rules.single.includes(word)) {
      values.push(argv[i++]);
    } else if (rules.many.includes(word)) {
      while (i < argv.length && !argv[i].startsWith('-')) {
        values.push(argv[i++]);
      }
    }
  }
  return { options, positionals, rest: [] };
}

const ENV_ASSIGNMENT = /^[A-Z][A-Z0-9_]*=\S+$/;
const CLAUDE = { single: ['--transport', '-t', '--scope', '-s'], many: ['-e', '--env', '-H', '--header'] };
// yargs: the command's own options (-y of npx) are its arguments.
const GEMINI = {
  single: ['--transport', '-t', '--type', '--scope', '-s', '--timeout', '--description'],
  many: ['-e', '--env', '-H', '--header'],
  flags: ['--trust'],
  unknownAsPositional: true,
};
const CODEX = { single: ['--env', '--url', '--bearer-token-env-var'], many: [] };

describe('README client recipes, read by each client’s argument rules', () => {
  it('has the recipes this checks', () => {
    expect(mcpAdds('claude')).toHaveLength(2);
    expect(mcpAdds('gemini')).toHaveLength(2);
    expect(mcpAdds('codex')).toHaveLength(2);
    expect(blocks.filter((b) => b.lang === 'json').length).toBeGreaterThanOrEqual(3);
    expect(blocks.filter((b) => b.lang === 'toml')).toHaveLength(1);
  });

  it('Claude Code: the name first, then -e KEY=value pairs, then -- and the command; --header after the URL', () => {
    const [stdio, http] = mcpAdds('claude').map((argv) => readArgs(argv, CLAUDE));
    expect(stdio.positionals).toEqual(['search-console']);
    expect(stdio.rest).toEqual(PUBLISHED);
    expect(stdio.options['-e'].length).toBeGreaterThan(0);
    for (const value of stdio.options['-e']) {
      expect(value).toMatch(ENV_ASSIGNMENT);
    }
    expect(http.options['--transport']).toEqual(['http']);
    expect(http.positionals).toEqual(['search-console', HTTP_URL]);
    expect(http.options['--header']).toEqual(['Authorization: Bearer $GSC_HTTP_TOKEN']);
  });

  it('Gemini CLI: the name and the command first, -e and -H after them', () => {
    const [stdio, http] = mcpAdds('gemini').map((argv) => readArgs(argv, GEMINI));
    expect(stdio.positionals).toEqual(['search-console', ...PUBLISHED]);
    for (const value of stdio.options['-e']) {
      expect(value).toMatch(ENV_ASSIGNMENT);
    }
    expect(http.options['--transport']).toEqual(['http']);
    expect(http.positionals).toEqual(['search-console', HTTP_URL]);
    expect(http.options['-H']).toEqual(['Authorization: Bearer $GSC_HTTP_TOKEN']);
  });

  it('Codex: the name, --env KEY=value, then -- and the command; or --url with --bearer-token-env-var', () => {
    const [stdio, http] = mcpAdds('codex').map((argv) => readArgs(argv, CODEX));
    expect(stdio.positionals).toEqual(['search_console']);
    expect(stdio.rest).toEqual(PUBLISHED);
    for (const value of stdio.options['--env']) {
      expect(value).toMatch(ENV_ASSIGNMENT);
    }
    expect(http.positionals).toEqual(['search_console_http']);
    expect(http.options).toEqual({ '--url': [HTTP_URL], '--bearer-token-env-var': ['GSC_HTTP_TOKEN'] });
  });

  it('the JSON configurations parse, and each server is the published stdio command or the HTTP URL', () => {
    for (const block of blocks.filter((b) => b.lang === 'json')) {
      const config = JSON.parse(block.text) as {
        mcpServers?: Record<string, Record<string, unknown>>;
        servers?: Record<string, Record<string, unknown>>;
      };
      const servers = Object.values(config.mcpServers ?? config.servers ?? {});
      expect(servers.length).toBeGreaterThan(0);
      for (const server of servers) {
        if ('url' in server) {
          expect(server.url).toBe(HTTP_URL);
          expect(JSON.stringify(server.headers)).toMatch(/"Authorization":"Bearer \$\{(env|input):[\w-]+\}"/);
        } else {
          expect([server.command, ...(server.args as string[])]).toEqual(PUBLISHED);
          for (const [name, value] of Object.entries((server.env ?? {}) as Record<string, unknown>)) {
            expect(`${name}=${String(value)}`).toMatch(ENV_ASSIGNMENT);
          }
        }
      }
    }
  });

  it('the Codex TOML parses to the same two servers', () => {
    const toml = parseToml(blocks.find((b) => b.lang === 'toml')!.text) as { mcp_servers: Record<string, Record<string, unknown>> };
    expect(toml.mcp_servers.search_console).toEqual({
      command: 'npx',
      args: PUBLISHED.slice(1),
      env: { GSC_SERVICE_ACCOUNT_KEY_FILE: expect.any(String) },
    });
    expect(toml.mcp_servers.search_console_http).toEqual({ url: HTTP_URL, bearer_token_env_var: 'GSC_HTTP_TOKEN' });
  });

  it('the way that works before publication: clone, npm ci, then the clone’s dist/main.js or a global install of the packed tarball', () => {
    const before = section.slice(0, section.indexOf('**Claude Desktop**'));
    expect(before).toMatch(/Not on the npm registry yet/);
    expect(commands).toContainEqual(expect.arrayContaining(['npm', 'ci']));
    expect(commands).toContainEqual(['npm', 'pack', '&&', 'npm', 'install', '-g', './google-search-console-mcp-*.tgz']);
    expect(before).toContain('/path/to/repo/dist/main.js');
    expect(before).toContain('/path/to/repo/node_modules/.bin/node /path/to/repo/dist/main.js');
  });

  it('Docker: the token is exported first and passed by name, and the port published on loopback as the Dockerfile says', () => {
    const exported = commands.findIndex(
      (w) => w[0] === 'export' && /^GSC_HTTP_TOKEN=\$\(openssl rand -hex \d+\)$/.test(w.slice(1).join(' ')),
    );
    const run = commands.findIndex((w) => w[0] === 'docker' && w[1] === 'run');
    expect(exported).toBeGreaterThanOrEqual(0);
    expect(run).toBeGreaterThan(exported);
    const argv = commands[run];
    expect(argv[argv.indexOf('-e') + 1]).toBe('GSC_HTTP_TOKEN');
    expect(argv).toContain('-p');
    expect(argv[argv.indexOf('-p') + 1]).toBe('127.0.0.1:3000:3000');
    const header = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('#'))
      .join('\n');
    expect(header).toContain('export GSC_HTTP_TOKEN=$(openssl rand -hex 24)');
    expect(header).toMatch(/docker run -p 127\.0\.0\.1:3000:3000 -e GSC_HTTP_TOKEN -e /);
  });
});

// The real clients, when they are at hand (see the top of this file).
const CLIS = process.env.GSC_CLIENT_CLIS;
const describeClis = CLIS && ['claude', 'gemini', 'codex'].every((bin) => existsSync(join(CLIS, bin))) ? describe : describe.skip;

describeClis('README client recipes, run by the real client CLIs against the built server', () => {
  const node = process.execPath;
  const main = join(ROOT, 'dist/main.js');
  /** The recipe's argv with the published command replaced by the clone's (the package is not on the registry yet). */
  const fromClone = (argv: string[]) => {
    const at = argv.findIndex((_, i) => argv.slice(i, i + PUBLISHED.length).join(' ') === PUBLISHED.join(' '));
    if (at < 0) {
      return argv;
    }
    return [...argv.slice(0, at), node, main, ...argv.slice(at + PUBLISHED.length)];
  };
  const client = (bin: string, args: string[], home: string, cwd: string) =>
    spawnSync(join(CLIS!, bin), args, { cwd, encoding: 'utf8', timeout: 90_000, env: { PATH: process.env.PATH ?? '', HOME: home } });
  const workspace = () => {
    const home = mkdtempSync(join(tmpdir(), 'gsc-client-home-'));
    const project = join(home, 'project');
    mkdirSync(project);
    return { home, project };
  };
  // A property the server accepts with no credential, so it starts and lists its tools.
  const settings = (argv: string[]) =>
    argv.map((w) => (/^GSC_SERVICE_ACCOUNT_KEY_FILE=/.test(w) ? 'GSC_SITE_URL=sc-domain:example.com' : w));

  it('Claude Code adds the stdio recipe and `claude mcp list` connects to it', () => {
    const { home, project } = workspace();
    const added = client('claude', ['mcp', 'add', ...settings(fromClone(mcpAdds('claude')[0]))], home, project);
    expect(added.status).toBe(0);
    const listed = client('claude', ['mcp', 'list'], home, project);
    expect(listed.stdout + listed.stderr).toMatch(/search-console: .* - ✔ Connected/);
  });

  it('Gemini CLI adds the stdio recipe and `gemini mcp list` connects to it (in a trusted folder)', () => {
    const { home, project } = workspace();
    mkdirSync(join(home, '.gemini'));
    writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'TRUST_FOLDER' }));
    const added = client('gemini', ['mcp', 'add', ...settings(fromClone(mcpAdds('gemini')[0]))], home, project);
    expect(added.status).toBe(0);
    const listed = client('gemini', ['mcp', 'list'], home, project);
    expect(listed.stdout + listed.stderr).toMatch(/search-console: .* - Connected/);
  });

  it('Codex adds both recipes as the README’s TOML says', () => {
    const { home, project } = workspace();
    for (const argv of mcpAdds('codex')) {
      expect(client('codex', ['mcp', 'add', ...fromClone(argv)], home, project).status).toBe(0);
    }
    const written = parseToml(readFileSync(join(home, '.codex', 'config.toml'), 'utf8')) as {
      mcp_servers: Record<string, Record<string, unknown>>;
    };
    expect(written.mcp_servers.search_console).toMatchObject({
      command: node,
      args: [main],
      env: { GSC_SERVICE_ACCOUNT_KEY_FILE: '/path/to/key.json' },
    });
    expect(written.mcp_servers.search_console_http).toEqual({ url: HTTP_URL, bearer_token_env_var: 'GSC_HTTP_TOKEN' });
  });
});
