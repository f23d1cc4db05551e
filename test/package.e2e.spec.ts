import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isolatedEnv } from './support/env.js';
import { CLEAN_PATH, duBytes, npm } from './support/npm.js';
import { scratchDir } from './support/scratch.js';

// What an `npx google-search-console-mcp` user gets: the packed tarball,
// installed into an empty folder with nothing from this checkout, its bin run
// through npx, offline, over stdio with the official client.

const REPO = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
  dependencies: Record<string, string>;
};
const MB = 1024 * 1024;

let scratch: string;
let app: string;
let packed: { filename: string; files: { path: string }[] };

beforeAll(() => {
  scratch = scratchDir('gsc-package-');
  // dist/ is what `npm test` built a moment ago (pretest); prepare would only build it again.
  packed = (JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], REPO)) as (typeof packed)[])[0];
  app = join(scratch, 'app');
  mkdirSync(app);
  npm(['install', join(scratch, packed.filename), '--no-audit', '--no-fund'], app);
}, 300_000);

afterAll(() => {
  if (scratch) {
    rmSync(scratch, { recursive: true, force: true });
  }
});

/** The bin through npx from the install folder: offline, and with nothing that could point npm back at this checkout. */
function npxEnv(): Record<string, string> {
  const env = isolatedEnv({ PATH: CLEAN_PATH, XDG_STATE_HOME: join(scratch, 'state') });
  for (const name of Object.keys(env)) {
    if (/^npm_/i.test(name) || name === 'INIT_CWD') {
      delete env[name];
    }
  }
  return env;
}
const NPX = ['--offline', manifest.name];

describe('the packed tarball, installed into an empty folder', () => {
  it('carries the build, the README, the licence, changelog and security policy, and no sources or tests', () => {
    const files = packed.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'package.json',
        'README.md',
        'LICENSE',
        'CHANGELOG.md',
        'SECURITY.md',
        'server.json',
        'dist/main.js',
        'dist/cli.bundle.mjs',
        'dist/healthcheck.js',
      ]),
    );
    expect(files.filter((f) => /^(src|test|bench|scripts)\/|^node_modules\/|\.spec\.|^\.env/.test(f))).toEqual([]);
    // Nothing the installed server never loads: source maps, the Google emulator, the demo, test kits.
    expect(files.filter((f) => /\.map$|^dist\/emulator\/|^dist\/demo|test-kit|\.fake\./.test(f))).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/search-console-mcp.module.js',
        'dist/search-console-mcp.module.d.ts',
        'dist/common/node-version-gate.js',
      ]),
    );
  });

  it('installs its Nest peers beside it, one copy each, so the bin and a host app share them', () => {
    const installed = realpathSync(join(app, 'node_modules', manifest.name));
    expect(installed.startsWith(realpathSync(app))).toBe(true);
    const optional = (peer: string) => manifest.peerDependenciesMeta[peer]?.optional === true;
    for (const peer of Object.keys(manifest.peerDependencies).filter((p) => !optional(p))) {
      expect([peer, existsSync(join(app, 'node_modules', peer, 'package.json'))]).toEqual([peer, true]);
      expect([peer, existsSync(join(installed, 'node_modules', peer))]).toEqual([peer, false]);
    }
    // OpenTelemetry's SDK is an optional peer: not installed unless asked for (it would take the install over its
    // budget). Its small API package may come with another dependency, so only the rest is checked.
    const otel = Object.keys(manifest.peerDependencies).filter((p) => optional(p) && p !== '@opentelemetry/api');
    expect(otel.length).toBeGreaterThan(0);
    for (const peer of otel) {
      expect([peer, existsSync(join(app, 'node_modules', peer))]).toEqual([peer, false]);
    }
  });

  it('told to export telemetry without OpenTelemetry installed, stops at start-up in one line saying what to install', () => {
    const env = { ...npxEnv(), GSC_SERVICE_ACCOUNT_KEY: '', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    const result = spawnSync('npx', NPX, { cwd: app, env, input: '', encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^google-search-console-mcp: OTEL_EXPORTER_OTLP_ENDPOINT \(or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT\) is set, but OpenTelemetry is not installed \(@opentelemetry\/[\w-]+ is missing\): install the @opentelemetry\/\* optional peer dependencies/,
    );
  });

  it('stays within the 80 MB production-dependency budget (PRODUCT §10)', () => {
    expect(duBytes(join(app, 'node_modules')) / MB).toBeLessThanOrEqual(80);
  });

  it('runs through npx over stdio: a real client lists the 24 tools', async () => {
    let stderr = '';
    const transport = new StdioClientTransport({ command: 'npx', args: NPX, cwd: app, env: npxEnv(), stderr: 'pipe' });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(24); // 21 Google tools, 3 annotation tools
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_sites', 'query_search_analytics', 'delete_site']));
      expect(stderr).toMatch(/serving stdio; .* 24 tools/);
    } finally {
      await client.close();
    }
  });

  it('answers --version through npx with the package version', () => {
    const result = spawnSync('npx', [...NPX, '--version'], { cwd: app, env: npxEnv(), input: '', encoding: 'utf8', timeout: 30_000 });
    expect({ status: result.status, stdout: result.stdout }).toEqual({ status: 0, stdout: `${manifest.version}\n` });
  });
});
