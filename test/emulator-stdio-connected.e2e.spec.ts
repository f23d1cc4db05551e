// `npm run emulator` as the README's stdio recipe uses it (PRODUCT.md §3a):
// the standalone emulator process prints a Desktop OAuth client and an MCP
// client configuration; a real stdio client of each revision starts the server
// from that configuration, its URL elicitation opens the connect page the stdio
// process serves on a loopback port, Chromium consents at the emulator, and
// the call goes on as that account. Also: the service-account key is a 0600
// file whose path is printed, never the key itself.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { DEFAULT_GOOGLE_USERS } from '../src/emulator/emulator-oauth.js';
import { text } from './support/clients.js';
import { clickThrough, type Landed } from './support/connect-kit.js';
import { linkClientSpawning } from './support/connected-kit.js';
import { launchChromium } from './support/views-browser.js';

const EMULATOR_MAIN = resolve(import.meta.dirname, '../dist/emulator/emulator-main.js');
const README = readFileSync(resolve(import.meta.dirname, '../README.md'), 'utf8');

interface ServerEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

let emulator: ChildProcess;
let printed = '';
let browser: Browser;
const temp = mkdtempSync(join(tmpdir(), 'gsc-emulator-tmp-'));

beforeAll(async () => {
  // Its own TMPDIR: the emulator's files go to <TMPDIR>/gsc-emulator-<uid>, apart from a developer's own run.
  emulator = spawn(process.execPath, [EMULATOR_MAIN], {
    env: { PATH: process.env.PATH ?? '', HOME: temp, TMPDIR: temp, EMULATOR_PORT: '0' },
  });
  emulator.stdout!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`npm run emulator printed no end line:\n${printed}`)), 20_000);
    emulator.stdout!.on('data', () => {
      if (printed.includes('Ctrl-C to stop.')) {
        clearTimeout(timer);
        done();
      }
    });
    emulator.on('exit', (code) => fail(new Error(`the emulator exited with ${code}:\n${printed}`)));
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  if (emulator && emulator.exitCode === null) {
    await new Promise((done) => {
      emulator.on('exit', done);
      emulator.kill('SIGTERM');
    });
  }
});

/** The mcpServers entry the emulator printed (the indented JSON block). */
function printedEntry(): ServerEntry {
  const lines = printed.split('\n');
  const start = lines.findIndex((l) => l === '  {');
  const end = lines.findIndex((l, i) => i > start && l === '  }');
  const config = JSON.parse(lines.slice(start, end + 1).join('\n')) as { mcpServers: Record<string, ServerEntry> };
  return config.mcpServers['search-console-connected'];
}

const emulatorUrl = () => /Google emulator listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)![1];

describe('npm run emulator', () => {
  it('writes the service-account key to a 0600 file and prints its path once, never the key', () => {
    const keyFile = /key file: +(\S+)/.exec(printed)![1];
    expect(keyFile).toBe(join(temp, `gsc-emulator-${process.getuid!()}`, 'service-account.json'));
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(keyFile, '..')).mode & 0o777).toBe(0o700);
    const key = JSON.parse(readFileSync(keyFile, 'utf8')) as { private_key: string; client_email: string };
    expect(key.client_email).toBe('gsc-demo@emulator-project.iam.gserviceaccount.com');
    expect(printed).not.toContain('PRIVATE KEY');
    expect(printed).not.toContain(Buffer.from(JSON.stringify(key)).toString('base64').slice(0, 40));
    expect(printed).not.toContain('GSC_SERVICE_ACCOUNT_KEY=');
    expect(printed.split(`GSC_SERVICE_ACCOUNT_KEY_FILE=${keyFile}`)).toHaveLength(2);
  });

  it('prints the Desktop OAuth client and a client configuration that is the README recipe, with this run’s port and paths', () => {
    const entry = printedEntry();
    expect(entry.command).toBe(process.execPath);
    expect(entry.args).toEqual([resolve(import.meta.dirname, '../dist/main.js')]);
    // The README's recipe: the same settings, with the default port 4000 and the placeholders for paths.
    const recipe = /<!-- stdio-connected-recipe -->\s*```json\n([\s\S]*?)```/.exec(README);
    expect(recipe).not.toBeNull();
    const documented = (JSON.parse(recipe![1]) as { mcpServers: Record<string, ServerEntry> }).mcpServers['search-console-connected'];
    const asDocumented = Object.fromEntries(
      Object.entries(entry.env).map(([name, value]) => [
        name,
        value
          .replace(emulatorUrl(), 'http://127.0.0.1:4000')
          .replace(`${temp}/gsc-emulator-${process.getuid!()}`, '/tmp/gsc-emulator-1000'),
      ]),
    );
    expect(documented.env).toEqual(asDocumented);
    expect(documented.command).toBe('/path/to/repo/node_modules/.bin/node');
    expect(documented.args).toEqual(['/path/to/repo/dist/main.js']);
  });
});

describe('connected mode over stdio from the printed configuration: URL elicitation, the loopback connect page, consent at the emulator', () => {
  const ALICE = DEFAULT_GOOGLE_USERS.find((u) => u.email === 'alice@example.com')!;

  for (const revision of ['2026-07-28', '2025-11-25'] as const) {
    it(`${revision}: list_sites asks, alice connects in the browser, and the call goes on as her`, async () => {
      const entry = printedEntry();
      // Each revision starts from no grant: a state folder of its own instead of the printed one.
      const env = { ...entry.env, GSC_STATE_DIR: mkdtempSync(join(temp, 'state-')), PATH: process.env.PATH ?? '', HOME: temp };
      const landed: Promise<Landed>[] = [];
      const client = await linkClientSpawning(
        { command: entry.command, args: entry.args, env },
        {
          revision,
          // The client opens the link for the person once they accept; the call waits meanwhile.
          answer: async (request) => {
            landed.push(
              browser.newPage().then(async (page) => {
                try {
                  return await clickThrough(page, request.url!, { googleUser: ALICE.email });
                } finally {
                  await page.close();
                }
              }),
            );
            return { action: 'accept' };
          },
        },
      );
      try {
        const result = await client.call('list_sites');
        expect(client.asked).toHaveLength(1);
        expect(client.asked[0].mode).toBe('url');
        expect(client.asked[0].url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/connect\/google\?request=[A-Za-z0-9_-]{32}$/);
        expect(new URL(client.asked[0].url!).origin).not.toBe(emulatorUrl());
        expect(result.isError).toBeFalsy();
        expect(text(result)).not.toMatch(/did not run/);
        const sites = (result.structuredContent!.sites as { site_url: string; google_account: string }[]).map((s) => s.site_url).sort();
        expect(sites).toEqual(Object.keys(ALICE.sites).sort());
        const page = await landed[0];
        expect(page.status).toBe(200);
        expect(page.text).toContain(
          'Connected alice@example.com to the Search Console server your MCP client runs over stdio on this machine for you, the local user.',
        );
        // The Search Console call went out as alice, through the emulator the configuration names.
        const calls = (await (await fetch(`${emulatorUrl()}/__emulator/requests`)).json()) as { route: string; principal?: string }[];
        expect(calls.filter((c) => c.route === 'sites.list').map((c) => c.principal)).toContain(ALICE.email);
      } finally {
        await client.close();
      }
    });
  }

  it('the service-account line works too: the server started with the printed key file lists the seeded properties', async () => {
    const keyFile = /key file: +(\S+)/.exec(printed)![1];
    const line = /^ +(GSC_API_ROOT_URL=\S+ GSC_OAUTH_TOKEN_URL=\S+ GSC_SERVICE_ACCOUNT_KEY_FILE=\S+) npm start$/m.exec(printed)![1];
    const env = Object.fromEntries(line.split(' ').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
    expect(env.GSC_SERVICE_ACCOUNT_KEY_FILE).toBe(keyFile);
    const entry = printedEntry();
    const client = await linkClientSpawning(
      {
        command: entry.command,
        args: entry.args,
        env: { ...env, GSC_STATE_DIR: mkdtempSync(join(temp, 'state-')), PATH: process.env.PATH ?? '', HOME: temp },
      },
      { revision: '2026-07-28' },
    );
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent!.sites as unknown[]).length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it('stopping the emulator removes the key file', async () => {
    const keyFile = /key file: +(\S+)/.exec(printed)![1];
    await new Promise((done) => {
      emulator.on('exit', done);
      emulator.kill('SIGTERM');
    });
    expect(existsSync(keyFile)).toBe(false);
  });
});
