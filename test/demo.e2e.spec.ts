import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connectHttp } from './support/clients.js';
import { isolatedEnv, MAIN } from './support/env.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';

const DEMO = resolve(import.meta.dirname, '../dist/demo.js');

/** Everything under a folder, as relative paths. */
const contents = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' });

async function startDemo(env: Record<string, string>): Promise<HttpBinary> {
  const demo = await spawnHttpBinary(env, [DEMO]);
  for (let i = 0; i < 200 && !demo.stderr().includes('Press Ctrl+C'); i++) {
    await new Promise((r) => setTimeout(r, 25));
  }
  return demo;
}

/** Runs a command to its exit: status and stderr. */
function run(command: string[], env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, command, { env: isolatedEnv(env), stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      done({ status, stderr });
    });
  });
}

describe('npm run demo, with an empty HOME and no GSC_STATE_DIR', () => {
  const home = mkdtempSync(join(tmpdir(), 'gsc-demo-home-'));
  let demo: HttpBinary;
  let stateDir: string;

  beforeAll(async () => {
    // Empty counts as unset: the demo picks its own folder, and the default one would be under this HOME.
    demo = await startDemo({ HOME: home, XDG_STATE_HOME: '', GSC_STATE_DIR: '' });
    stateDir = /State: +(\S+) \(throw-away/.exec(demo.stderr())?.[1] ?? '';
  });
  afterAll(() => demo.stop());

  it('prints how to connect', () => {
    expect(demo.stderr()).toContain(`MCP endpoint (Streamable HTTP, 2025-11-25 and 2026-07-28):  ${demo.url}`);
    expect(demo.stderr()).toMatch(/claude mcp add --transport http gsc-demo http:\/\/127\.0\.0\.1:\d+\/mcp/);
  });

  it("says which Node the MCP Inspector needs, as the README does (the inspector's engines: >=22.19.0 since 2.0)", () => {
    const needs = /Inspector[\s\S]*?needs Node\.js (\d+\.\d+)\+/.exec(demo.stderr())?.[1];
    expect(needs).toBe('22.19');
    expect(demo.stderr()).toContain('an older Node quietly gets an old Inspector without them');
    const readme = readFileSync(resolve(import.meta.dirname, '../README.md'), 'utf8');
    expect(readme).toContain(`needs **Node.js ${needs} or newer** (\`engines\` of \`@modelcontextprotocol/inspector\``);
  });

  it('suggests a guarded tool among the registered ones', () => {
    expect(demo.stderr()).toMatch(
      /^Try: list_sites, query_search_analytics with site_url "[^"]+", inspect_url, get_indexing_status for \S+, or delete_sitemap \(it asks first\)\.$/m,
    );
  });

  it.each(['2025-11-25', '2026-07-28'] as const)('lets a %s client list the seeded properties', async (revision) => {
    const client = await connectHttp(demo.url, { revision });
    try {
      const result = await client.call('list_sites');
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent?.sites).toContainEqual({ site_url: 'https://www.example.com/', permission_level: 'siteOwner' });
    } finally {
      await client.close();
    }
  });

  it('keeps its state in a throw-away folder, removed on exit, and leaves nothing in HOME', async () => {
    expect(stateDir).toMatch(/gsc-demo-state-/);
    expect(stateDir.startsWith(home)).toBe(false);
    expect(contents(stateDir).length).toBeGreaterThan(0);
    await demo.stop();
    expect(existsSync(stateDir)).toBe(false);
    expect(contents(home)).toEqual([]);
  });
});

describe('npm run demo under GSC_READ_ONLY=true', () => {
  it('suggests no tool that is not registered', async () => {
    const demo = await startDemo({ GSC_READ_ONLY: 'true' });
    try {
      const hint = /^Try: .*$/m.exec(demo.stderr())?.[0];
      expect(hint).toMatch(/^Try: list_sites, /);
      expect(hint).not.toMatch(/delete_|unverify_site|update_site_owners|asks first/);
    } finally {
      await demo.stop();
    }
  });
});

describe('npm run demo on a busy port', () => {
  let busy: Server;
  let port: number;
  beforeAll(async () => {
    busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    port = (busy.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => busy.close(() => r())));

  it('says the same one line as the server, and exits 1', async () => {
    const env = { GSC_HTTP_PORT: String(port), GSC_TRANSPORT: 'http' };
    const [demo, server] = await Promise.all([run([DEMO], env), run([MAIN], env)]);
    expect(server.status).toBe(1);
    expect(server.stderr).toBe(
      `google-search-console-mcp: GSC_HTTP_PORT ${port} on 127.0.0.1 is already in use; stop the other server or choose another port (GSC_HTTP_PORT=0 picks a free one)\n`,
    );
    expect(demo.status).toBe(1);
    expect(demo.stderr).toBe(server.stderr);
  });
});
