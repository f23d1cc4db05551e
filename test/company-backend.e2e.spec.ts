import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, type TestClient, text } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import {
  EXAMPLE,
  hostEnv,
  hostRequest,
  installedCopies,
  installExample,
  PRODUCT,
  pinDependencies,
  type RunningHost,
  runHostToExit,
  startHost,
} from './support/host-app.js';
import { accept, modernToolCall } from './support/modern-wire.js';
import { npm } from './support/npm.js';
import { scratchDir } from './support/scratch.js';

// PRODUCT §8a, as a company would do it: examples/company-backend (its own
// /hello, a global auth guard that reads x-company-key and sets req.user, a
// global { data } interceptor, @nestjs/config feeding forRootAsync, the /api
// prefix, its own /metrics) installed from the packed tarball into a folder
// outside this checkout, built by its own tsc, started with node, and driven
// through /api/mcp by the official clients of both revisions.

const REPO = join(import.meta.dirname, '..');
const SITE = SEED_PROPERTIES.owned; // https://www.example.com/
const FEED = 'https://www.example.com/feed.xml';
const NEWS = 'https://www.example.com/news-sitemap.xml';
const INDEX = 'https://www.example.com/sitemap_index.xml';
// Nest 12.0.0 was published declaring ^11 peers of its own packages (npm refuses the set); 12.0.1 is the oldest coherent 12.
const OLDEST_NEST = '12.0.1';
const NEST = ['@nestjs/common', '@nestjs/core', '@nestjs/platform-express'];

const USERS = {
  'alice-key': { email: 'alice@corp.example', groups: ['seo'] },
  'bob-key': { email: 'bob@corp.example', groups: ['seo'] },
  'carol-key': { email: 'carol@corp.example', groups: [] },
};
const as = (key: keyof typeof USERS) => ({ 'x-company-key': key });
const yes = () => ({ action: 'accept' as const, content: { confirm: true } });

let scratch: string;
let tarball: string;
let google: TestGoogle;
let keyFile: string;

beforeAll(async () => {
  scratch = scratchDir('gsc-company-');
  // dist/ is what `npm test` built a moment ago (pretest); one tarball serves every host below.
  const packed = (
    JSON.parse(npm(['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], REPO)) as { filename: string }[]
  )[0];
  tarball = join(scratch, packed.filename);
  google = await startGoogle();
  keyFile = join(scratch, 'search-console-key.json');
  writeFileSync(keyFile, google.env.GSC_SERVICE_ACCOUNT_KEY, { mode: 0o600 });
}, 120_000);

afterAll(async () => {
  await google?.emulator.close();
  if (scratch) {
    rmSync(scratch, { recursive: true, force: true });
  }
});

let installed: string | undefined;
/** examples/company-backend installed from the tarball, once: the oldest-Nest host starts from a copy of it. */
function installedExample(): string {
  if (!installed) {
    installed = join(scratch, 'company-backend');
    installExample(installed, tarball);
  }
  return installed;
}

/** The company's environment: its users, and where Search Console's key, state and Google are. */
function companyEnv(name: string, extra: Record<string, string> = {}): Record<string, string> {
  const state = join(scratch, `${name}-state`);
  mkdirSync(state, { recursive: true });
  return {
    COMPANY_USERS: JSON.stringify(USERS),
    SEARCH_CONSOLE_KEY_FILE: keyFile,
    SEARCH_CONSOLE_SITES: `${SITE},${SEED_PROPERTIES.domain}`,
    SEARCH_CONSOLE_STATE_DIR: state,
    SEARCH_CONSOLE_API_ROOT_URL: google.emulator.url,
    SEARCH_CONSOLE_TOKEN_URL: google.emulator.tokenUrl,
    ...extra,
  };
}

const sitemapDeletes = (feedpath: string) =>
  google.emulator.apiRequests().filter((r) => r.route === 'sitemaps.delete' && r.params.feedpath === feedpath);

/** Tools listed, a read, and a guarded call that asks once and reaches Google once, with each client. */
async function driveBothClients(mcp: string, sitemaps: Record<'2026-07-28' | '2025-11-25', string>): Promise<void> {
  for (const revision of ['2026-07-28', '2025-11-25'] as const) {
    const client = await connectHttp(mcp, { revision, elicit: yes }, as('alice-key'));
    try {
      const tools = await client.listTools();
      expect([revision, tools.length]).toEqual([revision, 24]); // the 21 Google tools and the 3 annotation tools
      const read = await client.call('list_sitemaps', { site_url: SITE });
      expect([revision, read.isError ?? false]).toEqual([revision, false]);
      expect(read.structuredContent!.sitemaps.map((s: any) => s.path)).toContain(sitemaps[revision]);

      const deleted = await client.call('delete_sitemap', { site_url: SITE, sitemap_url: sitemaps[revision] });
      expect([revision, deleted.structuredContent]).toEqual([
        revision,
        expect.objectContaining({ executed: true, outcome: 'executed', deleted: true }),
      ]);
      expect([revision, client.dialogs.length]).toEqual([revision, 1]);
      expect(client.dialogs[0]).toContain(sitemaps[revision]);
      expect([revision, sitemapDeletes(sitemaps[revision]).length]).toEqual([revision, 1]);
    } finally {
      await client.close();
    }
  }
}

describe('examples/company-backend on the Nest it installs', () => {
  let app: string;
  let host: RunningHost;
  let mcp: string;

  beforeAll(async () => {
    app = installedExample();
    npm(['run', 'build'], app);
    host = await startHost(app, companyEnv('current'));
    mcp = `${host.origin}/api/mcp`;
  }, 600_000);

  afterAll(async () => {
    await host?.stop();
  });

  it('shares one copy of each Nest package with the module (peer dependencies)', () => {
    const names = ['@nestjs/core', '@nestjs/common'];
    const copies = installedCopies(app, names);
    for (const name of names) {
      expect([name, copies[name].length]).toEqual([name, 1]);
      expect(copies[name][0]).toContain(join(app, 'node_modules', name));
    }
  });

  it('type-checks against google-search-console-mcp/nest: the option types are seen, only that entry is exported', () => {
    // The build above already compiled the example against the entry's declarations; this
    // proves they are real types, not `any`: every @ts-expect-error must meet an error.
    const dir = join(app, 'types-check');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { noEmit: true, rootDir: '.', skipLibCheck: false }, include: ['.'] }),
    );
    writeFileSync(
      join(dir, 'check.ts'),
      `import type { IncomingMessage } from 'node:http';
import type { DynamicModule } from '@nestjs/common';
import { SearchConsoleMcpModule, type HostRequest, type SearchConsoleMcpAsyncOptions, type SearchConsoleMcpOptions } from '${PRODUCT}/nest';

const options: SearchConsoleMcpOptions = {
  settings: { GSC_ALLOWED_SITES: ['sc-domain:corp.example'], GSC_READ_ONLY: false },
  path: 'mcp',
  principal: (req: HostRequest) => req.user?.email,
  groups: async (req) => req.user?.groups ?? [],
  allowedHosts: ['mcp.corp.example'],
  admin: { path: 'admin/search-console' },
  metrics: false,
};
const viaAsync: SearchConsoleMcpAsyncOptions = { inject: ['X'], useFactory: (x: string) => ({ path: x }) };
export const modules: DynamicModule[] = [SearchConsoleMcpModule.forRoot(options), SearchConsoleMcpModule.forRootAsync(viaAsync)];

// A host may type its own request.
interface CompanyRequest extends IncomingMessage { user?: { email: string } }
SearchConsoleMcpModule.forRoot({ principal: (req: CompanyRequest) => req.user?.email });

// @ts-expect-error path is a string
SearchConsoleMcpModule.forRoot({ path: 42 });
// @ts-expect-error admin is { path } or false
SearchConsoleMcpModule.forRoot({ admin: true });
// @ts-expect-error principal answers a string (or nothing)
SearchConsoleMcpModule.forRoot({ principal: () => 42 });
// @ts-expect-error forRootAsync needs a useFactory
SearchConsoleMcpModule.forRootAsync({ inject: [] });
// @ts-expect-error forConfig is the standalone server's own, not part of the public entry
SearchConsoleMcpModule.forConfig({});
// @ts-expect-error nothing but ./nest is exported
void import('${PRODUCT}/dist/app.module.js');
`,
    );
    expect(npm(['exec', '--', 'tsc', '-p', 'types-check'], app)).toBe('');
  });

  it('loads from CommonJS too (require of the ES module entry)', () => {
    const script = `const m = require('${PRODUCT}/nest'); console.log(Object.keys(m).join(','), typeof m.SearchConsoleMcpModule.forRootAsync)`;
    const out = execFileSync(process.execPath, ['-e', script], { cwd: app, encoding: 'utf8', env: hostEnv({}) });
    expect(out.trim()).toBe('SearchConsoleMcpModule function');
  });

  it('serves both clients at /api/mcp through the host guard: tools listed, a read, a guarded call asked once and executed once', async () => {
    await driveBothClients(mcp, { '2026-07-28': FEED, '2025-11-25': NEWS });
  });

  it('hands the module the groups the host guard found: a principal outside "seo" gets only the essential tools', async () => {
    const carol = await connectHttp(mcp, { revision: '2026-07-28' }, as('carol-key'));
    try {
      const names = (await carol.listTools()).map((t: any) => t.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.length).toBeLessThan(24);
      expect(names).toContain('list_sites');
      expect(names).not.toContain('delete_sitemap');
      // Answered exactly as an unknown tool (PRODUCT §8b).
      await expect(carol.call('delete_sitemap', { site_url: SITE, sitemap_url: INDEX })).rejects.toThrow('Tool delete_sitemap not found');
      expect(sitemapDeletes(INDEX)).toHaveLength(0);
    } finally {
      await carol.close();
    }
  });

  it('names the host’s principal in the audit trail at /api/admin/search-console/audit', async () => {
    const answer = await hostRequest(host.origin, '/api/admin/search-console/audit', { headers: as('bob-key') });
    expect(answer.status).toBe(200);
    // The host's global interceptor wraps our admin answers too: they are routes of its app.
    const entries = answer.json().data.entries as { tool: string; event: string; principal: string; era: string }[];
    const executed = entries.filter((e) => e.tool === 'delete_sitemap' && e.event === 'executed');
    expect(executed.map((e) => [e.principal, e.era]).sort()).toEqual([
      ['alice@corp.example', '2025-11-25'],
      ['alice@corp.example', '2026-07-28'],
    ]);
    expect(entries.every((e) => e.principal !== 'local' && e.principal !== null)).toBe(true);
  });

  it('leaves the host’s own routes as the host wrote them: /api/hello, /api/metrics', async () => {
    const hello = await hostRequest(host.origin, '/api/hello', { headers: as('bob-key') });
    expect([hello.status, hello.json()]).toEqual([200, { data: { message: 'Hello, bob@corp.example' } }]);
    const before = (await hostRequest(host.origin, '/api/metrics')).json().data.hello_requests as number;
    await hostRequest(host.origin, '/api/hello', { headers: as('alice-key') });
    const metrics = await hostRequest(host.origin, '/api/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.json()).toEqual({ data: { service: 'company-backend', hello_requests: before + 1 } });
  });

  it('serves its Prometheus metrics at the path it was given, unwrapped by the host interceptor', async () => {
    const ours = await hostRequest(host.origin, '/api/metrics/search-console', { headers: as('alice-key') });
    expect(ours.status).toBe(200);
    expect(ours.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(ours.text).toMatch(/^gsc_mcp_tool_calls_total\{tool="delete_sitemap",outcome="ok"\} 2$/m);
    expect(ours.text).not.toMatch(/^\{"data"/);
  });

  it('is behind the host guard: without its header the host answers 401, not the MCP endpoint', async () => {
    for (const headers of [{}, { 'x-company-key': 'not-a-key' }] as Record<string, string>[]) {
      const refused = await hostRequest(host.origin, '/api/mcp', {
        headers,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      });
      expect(refused.status).toBe(401);
      // Nest's own exception body from the host's guard, not a JSON-RPC error of ours.
      expect(refused.json()).toEqual({
        statusCode: 401,
        error: 'Unauthorized',
        message: 'company-backend: send your company key in the x-company-key header',
      });
    }
    const admin = await hostRequest(host.origin, '/api/admin/search-console/health');
    expect(admin.status).toBe(401);
  });

  it('accepts the host names given in allowedHosts and refuses others (DNS rebinding)', async () => {
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
    const known = await hostRequest(host.origin, '/api/mcp', { headers: { ...as('alice-key'), host: 'mcp.corp.example' }, body: list });
    expect(known.text).not.toMatch(/Invalid Host/);
    const other = await hostRequest(host.origin, '/api/mcp', { headers: { ...as('alice-key'), host: 'attacker.example' }, body: list });
    expect(other.status).toBe(403);
    expect(other.json().error.message).toMatch(/^Invalid Host: "attacker\.example"; add it to the allowedHosts option/);
  });

  describe('what alice obtained is refused for bob', () => {
    it('a confirm token', async () => {
      const alice = await connectHttp(mcp, { revision: '2026-07-28' }, as('alice-key'));
      const bob = await connectHttp(mcp, { revision: '2026-07-28' }, as('bob-key'));
      try {
        const args = { site_url: SITE, sitemap_url: INDEX };
        const issued = await alice.call('delete_sitemap', args);
        expect(issued.structuredContent).toMatchObject({ executed: false, outcome: 'token_issued', confirm_token: expect.any(String) });
        const token = issued.structuredContent!.confirm_token as string;

        const stolen = await bob.call('delete_sitemap', { ...args, confirm_token: token });
        expect(stolen.structuredContent).toEqual({ executed: false, outcome: 'token_rejected' });
        expect(sitemapDeletes(INDEX)).toHaveLength(0);

        // The token was good — for alice.
        const own = await alice.call('delete_sitemap', { ...args, confirm_token: token });
        expect(own.structuredContent).toMatchObject({ executed: true, outcome: 'executed' });
        expect(sitemapDeletes(INDEX)).toHaveLength(1);
      } finally {
        await alice.close();
        await bob.close();
      }
    });

    it('an approval sealed into requestState (2026-07-28)', async () => {
      const args = { site_url: SEED_PROPERTIES.domain, sitemap_url: 'https://example.com/sitemap.xml' };
      const asked = await modernToolCall(mcp, 'delete_sitemap', args, { headers: as('alice-key') });
      expect(asked.body.result.resultType).toBe('input_required');
      const state = asked.body.result.requestState as string;

      const asBob = await modernToolCall(mcp, 'delete_sitemap', args, {
        headers: as('bob-key'),
        requestState: state,
        inputResponses: accept,
      });
      expect(asBob.body.result.resultType).toBe('input_required');
      expect(sitemapDeletes(args.sitemap_url)).toHaveLength(0);

      const asAlice = await modernToolCall(mcp, 'delete_sitemap', args, {
        headers: as('alice-key'),
        requestState: state,
        inputResponses: accept,
      });
      expect(asAlice.body.result.structuredContent).toMatchObject({ executed: true });
      expect(sitemapDeletes(args.sitemap_url)).toHaveLength(1);
    });

    it('a 2025-11-25 session', async () => {
      const alice: TestClient = await connectHttp(mcp, { revision: '2025-11-25' }, as('alice-key'));
      try {
        const sessionId = alice.raw.transport.sessionId as string;
        expect(sessionId).toEqual(expect.any(String));
        const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
        const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
        const asBob = await hostRequest(host.origin, '/api/mcp', { headers: { ...as('bob-key'), ...headers }, body: list });
        expect(asBob.status).toBe(404);
        const asAlice = await hostRequest(host.origin, '/api/mcp', { headers: { ...as('alice-key'), ...headers }, body: list });
        expect(asAlice.status).toBe(200);
        expect(text(await alice.call('list_sites'))).not.toBe('');
      } finally {
        await alice.close();
      }
    });
  });

  it('refuses a bad setting at module init, naming it, and never starts listening', async () => {
    const result = await runHostToExit(app, companyEnv('bad', { SEARCH_CONSOLE_SITES: 'www.example.com' }));
    expect(result.code).not.toBe(0);
    expect(result.output).toContain('ConfigError: GSC_ALLOWED_SITES entry "www.example.com" is a bare hostname');
    expect(result.output).not.toMatch(/company-backend listening/);
    const privateKey = (JSON.parse(readFileSync(keyFile, 'utf8')) as { private_key: string }).private_key;
    expect(result.output).not.toContain(privateKey.split('\n')[1]);
  });
});

describe(`examples/company-backend on the oldest Nest 12 (${OLDEST_NEST})`, () => {
  let app: string;
  let host: RunningHost;

  beforeAll(async () => {
    google.emulator.reset();
    app = join(scratch, 'company-backend-oldest');
    // As a company pinning an older Nest does it: its installed app, `npm install @nestjs/…@${OLDEST_NEST}`, its own build.
    pinDependencies(installedExample(), app, Object.fromEntries(NEST.map((name) => [name, OLDEST_NEST])));
    npm(['run', 'build'], app);
    host = await startHost(app, companyEnv('oldest'));
  }, 600_000);

  afterAll(async () => {
    await host?.stop();
  });

  it(`shares the host's one copy of Nest ${OLDEST_NEST}`, () => {
    const copies = installedCopies(app, NEST);
    for (const name of NEST) {
      expect([name, copies[name]]).toEqual([name, [`${OLDEST_NEST} ${join(app, 'node_modules', name)}`]]);
    }
    expect(JSON.parse(readFileSync(join(app, 'node_modules', PRODUCT, 'package.json'), 'utf8')).peerDependencies['@nestjs/core']).toBe(
      '^12.0.0',
    );
  });

  it('serves both clients: tools listed, a read, a guarded call asked once and executed once', async () => {
    await driveBothClients(`${host.origin}/api/mcp`, { '2026-07-28': NEWS, '2025-11-25': FEED });
  });

  it('leaves the host’s routes as it wrote them', async () => {
    const hello = await hostRequest(host.origin, '/api/hello', { headers: as('carol-key') });
    expect(hello.json()).toEqual({ data: { message: 'Hello, carol@corp.example' } });
    expect((await hostRequest(host.origin, '/api/mcp', { body: {} })).status).toBe(401);
  });
});

// The example in the repository is what the README shows, so a newcomer can copy it.
it('the README’s "Inside your own Nest app" is the example’s module', () => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const module = readFileSync(join(EXAMPLE, 'src', 'app.module.ts'), 'utf8');
  expect(readme).toContain(module.trim());
});
