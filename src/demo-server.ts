import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ELICITATION_OFF_LINE, SERVER_NAME } from './common/product.js';
import { CONNECT_PATHS } from './accounts/connect-flow.service.js';
import { ConfigError } from './config/config-error.js';
import { type Config, loadConfig, scrubSecrets } from './config/config.js';
import { listenError } from './config/listen-error.js';
import { SEED_PROPERTIES } from './emulator/emulator-seed.js';
import { generateServiceAccountKey, GoogleEmulator } from './emulator/google-emulator.js';
import { AUTHORIZE_PATH, REVOKE_PATH } from './emulator/oauth.routes.js';
import { startHttpServer } from './http-server.js';
import { IndexingRecord } from './indexing/indexing-record.service.js';
import { ToolRegistry } from './tools/tool-registry.service.js';
import { exitOnSignals } from './server-lifecycle.js';

/**
 * `npm run demo`: the HTTP server against the built-in Google emulator, with a
 * freshly generated service-account key, so every tool can be tried without a
 * Google account. Honours GSC_HTTP_HOST / GSC_HTTP_PORT and every other setting
 * (GSC_READ_ONLY, GSC_ALLOW_TOOLS, ELICITATION, …); only the credential and the
 * Google endpoints are the emulator's.
 *
 * Its state (approval secret, audit trail, quota ledger, exports) goes to a
 * throw-away folder removed on exit unless GSC_STATE_DIR names one: a demo's
 * approvals and quota ledger must never be inherited by a later real server
 * in the default state folder.
 *
 * `npm run demo -- --connected`: connected accounts (PRODUCT.md §8d) instead of
 * the service account. The emulator plays Google's sign-in and consent too, so
 * a newcomer clicks through connecting "their" Google account (alice, bob or
 * carol, no password) in a browser and sees each account's own properties.
 */
const DEMO_ARGS = ['--connected'];
/**
 * The MCP Inspector's own minimum (`engines` of @modelcontextprotocol/inspector 2.12.0): npm gives an older Node the
 * newest release whose engines it meets (1.0.3 on 22.13–22.18, 0.15.0 on 20), without views or URL elicitation.
 */
const INSPECTOR_NODE = '22.19';
/** The emulator's stand-in for the operator's Google OAuth client ("Web application"). */
const DEMO_WEB_CLIENT_ID = '000000000000-gscdemoconnectedaccountsemulator.apps.googleusercontent.com';
/** Its app name on the consent screen (Google Auth Platform → Branding), as an operator would set one. */
const DEMO_APP_NAME = 'Search Console MCP (demo)';

async function demo(): Promise<void> {
  const unknown = process.argv.slice(2).filter((arg) => !DEMO_ARGS.includes(arg));
  if (unknown.length > 0) {
    process.stderr.write(
      `${SERVER_NAME}: unknown demo argument ${unknown[0]}; the demo takes ${DEMO_ARGS.join(', ')} (npm run demo -- --connected)\n`,
    );
    process.exit(1);
  }
  const connected = process.argv.includes('--connected');
  const throwAway = process.env.GSC_STATE_DIR?.trim() ? undefined : mkdtempSync(join(tmpdir(), 'gsc-demo-state-'));
  const removeState = () => {
    if (throwAway) {
      rmSync(throwAway, { recursive: true, force: true });
    }
  };
  const emulator = await GoogleEmulator.start({ port: Number(process.env.EMULATOR_PORT ?? 0) });
  const fail = async (error: unknown): Promise<never> => {
    process.stderr.write(
      `${SERVER_NAME}: ${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    await emulator.close();
    removeState();
    process.exit(1);
  };
  const webClientSecret = `GOCSPX-${randomBytes(18).toString('base64url')}`;
  const env = {
    ...process.env,
    ...(throwAway ? { GSC_STATE_DIR: throwAway } : {}),
    GSC_TRANSPORT: 'http',
    GSC_API_ROOT_URL: emulator.url,
    GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
    GSC_SERVICE_ACCOUNT_KEY: connected ? '' : serviceAccount(emulator),
    GSC_SERVICE_ACCOUNT_KEY_FILE: '',
    GSC_CLIENT_ID: '',
    GSC_CLIENT_SECRET: '',
    GSC_REFRESH_TOKEN: '',
    ...(connected
      ? {
          // No shared identity at all: every Google call is made with the caller's own grant.
          GOOGLE_APPLICATION_CREDENTIALS: '',
          GSC_GOOGLE_OAUTH_CLIENT_ID: DEMO_WEB_CLIENT_ID,
          GSC_GOOGLE_OAUTH_CLIENT_SECRET: webClientSecret,
          GSC_OAUTH_AUTHORIZE_URL: `${emulator.url}${AUTHORIZE_PATH}`,
          GSC_OAUTH_REVOKE_URL: `${emulator.url}${REVOKE_PATH}`,
        }
      : {}),
  };
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    return fail(error);
  }
  scrubSecrets(process.env);
  if (!config.elicitation) {
    process.stderr.write(`${ELICITATION_OFF_LINE}\n`);
  }
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  try {
    server = await startHttpServer(config);
  } catch (error) {
    return fail(listenError(error, config.http) ?? error);
  }
  const { app, origin, stop } = server;
  if (connected) {
    // Google accepts only the redirect URIs registered on the OAuth client: the server's own callback, under
    // GSC_PUBLIC_URL or the address it listens on (a wildcard bind is reached, and named, as 127.0.0.1).
    const bases = new Set([origin, origin.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, 'http://127.0.0.1'), config.http.publicUrl]);
    emulator.registerOAuthClient({
      clientId: DEMO_WEB_CLIENT_ID,
      name: DEMO_APP_NAME,
      clientSecret: webClientSecret,
      redirectUris: [...bases].filter((base) => base !== undefined).map((base) => `${base}${CONNECT_PATHS.callback}`),
    });
  }
  await seedIndexingRecord(app.get(IndexingRecord, { strict: false }), emulator);
  const tools = new Set(app.get(ToolRegistry).tools.map((t) => t.spec.name));
  const url = `${origin}/mcp`;
  const auth = config.http.token ? ' --header "Authorization: Bearer $GSC_HTTP_TOKEN"' : '';
  const state = throwAway
    ? `${throwAway} (throw-away, removed on exit; set GSC_STATE_DIR to keep it)`
    : config.state.kind === 'sqlite'
      ? config.state.dir
      : 'Redis (GSC_REDIS_URL)';
  process.stderr.write(
    [
      '',
      connected
        ? 'google-search-console-mcp demo, connected accounts — each person acts at Google as their own account; the built-in emulator plays Google, its sign-in and consent included (no Google account needed)'
        : 'google-search-console-mcp demo — the real server against the built-in Google emulator (no Google account needed)',
      '',
      `  MCP endpoint (Streamable HTTP, 2025-11-25 and 2026-07-28):  ${url}`,
      `  Google emulator:  ${emulator.url}  (seeded properties such as ${SEED_PROPERTIES.owned} and ${SEED_PROPERTIES.domain})`,
      `  Admin:            ${origin}/admin/health, /admin/tools, /admin/config, /admin/audit`,
      `  State:            ${state}`,
      '',
      'Connect a client:',
      `  Claude Code:      claude mcp add --transport http gsc-demo ${url}${auth}`,
      `  MCP Inspector:    npx @modelcontextprotocol/inspector, then Streamable HTTP → ${url}`,
      `                    (it runs on your shell's Node: 2.x, with views and URL elicitation, needs Node.js ${INSPECTOR_NODE}+;`,
      '                    an older Node quietly gets an old Inspector without them — see the README)',
      '  Any client:       point its Streamable HTTP / "remote MCP server" setting at the URL above',
      '',
      ...(connected ? connectedLines(origin, tools, emulator) : []),
      tryLine(tools),
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  exitOnSignals(async () => {
    await stop();
    await emulator.close();
    removeState();
  });
}

/** A service-account key the emulator trusts: the default demo's one shared credential. */
function serviceAccount(emulator: GoogleEmulator): string {
  const clientEmail = 'gsc-demo@demo-project.iam.gserviceaccount.com';
  const { key, publicKeyPem } = generateServiceAccountKey(clientEmail);
  emulator.registerServiceAccount({ clientEmail, publicKeyPem });
  return JSON.stringify(key);
}

const LEVELS: Record<string, string> = {
  siteOwner: 'owner',
  siteFullUser: 'full user',
  siteRestrictedUser: 'restricted user',
  siteUnverifiedUser: 'unverified',
};

/** Connected mode: how a person connects, and which emulator Google accounts there are and what each one sees. */
function connectedLines(origin: string, registered: ReadonlySet<string>, emulator: GoogleEmulator): string[] {
  const first = registered.has('list_sites') ? 'list_sites' : ([...registered][0] ?? 'a tool');
  const accounts = [...emulator.oauth.users.values()].map((user) => {
    const byLevel = new Map<string, string[]>();
    for (const [site, level] of emulator.oauth.visibleSites(user.email, emulator.state.sites)) {
      byLevel.set(LEVELS[level] ?? level, [...(byLevel.get(LEVELS[level] ?? level) ?? []), site]);
    }
    const sees = [...byLevel].map(([level, sites]) => `${level} of ${sites.join(', ')}`).join('; ');
    return `  ${user.email.padEnd(20)} ${sees || 'no properties (list_sites comes back empty)'}`;
  });
  return [
    'Connect a Google account (you are the principal "local", the loopback caller):',
    `  1. Call ${first}. No Google account is connected for you yet, so nothing is sent to Google: the answer is a link`,
    `     ${origin}/connect/google?request=… (a URL elicitation when your client supports one, otherwise in the tool's answer).`,
    `  2. Open it in a browser. The emulator's consent page stands in for Google's: "${DEMO_APP_NAME}" asks; choose an account,`,
    '     untick a permission if you like (the tools that need it then run only through another account you connected that',
    '     allowed it, and leave your tool list when none did), and click Allow; Cancel stores nothing.',
    `  3. The page says "Connected <account> to the Search Console server at ${origin} for you, the local user".`,
    `     Call ${first} again: it now runs as that account.`,
    '',
    "The emulator's Google accounts (no password; each sees only its own properties):",
    ...accounts,
    '',
  ];
}

/** What to try first, among the tools this server actually registered (GSC_READ_ONLY, GSC_ALLOW_TOOLS and GSC_DENY_TOOLS apply). */
function tryLine(registered: ReadonlySet<string>): string {
  const reads: [string, string][] = [
    ['list_sites', 'list_sites'],
    ['query_search_analytics', `query_search_analytics with site_url "${SEED_PROPERTIES.owned}"`],
    ['inspect_url', 'inspect_url'],
    ['get_indexing_status', `get_indexing_status for ${SEED_PROPERTIES.owned}jobs/senior-engineer`],
    ['list_sitemaps', 'list_sitemaps'],
  ];
  const asking = ['delete_sitemap', 'delete_site', 'unverify_site', 'update_site_owners'].find((name) => registered.has(name));
  const picked = [
    ...reads
      .filter(([name]) => registered.has(name))
      .slice(0, 4)
      .map(([, hint]) => hint),
    ...(asking ? [`${asking} (it asks first)`] : []),
  ];
  const shown = picked.length > 0 ? picked : [...registered].slice(0, 3);
  if (shown.length === 0) {
    return 'No tools are registered: check GSC_ALLOW_TOOLS and GSC_DENY_TOOLS.';
  }
  return `Try: ${shown.slice(0, -1).join(', ')}${shown.length > 1 ? ', or ' : ''}${shown[shown.length - 1]}.`;
}

/**
 * The demo world's Indexing history is this server's own: the notifications
 * the emulator is seeded with are recorded as sent by this server (principal
 * "local", the loopback caller), so get_indexing_status shows them beside
 * Google's answer. Google's getMetadata itself keeps "forgetting" them (404),
 * as it is widely reported to do (PRODUCT §9a) — which is exactly why the
 * server keeps a record. Idempotent across restarts on the same state folder.
 */
async function seedIndexingRecord(record: IndexingRecord, emulator: GoogleEmulator): Promise<void> {
  for (const entry of emulator.state.notifications.values()) {
    const sent = (await record.of(entry.url, 50)) ?? [];
    const notes = [entry.latestUpdate, entry.latestRemove]
      .filter((n) => n !== undefined)
      .sort((a, b) => Date.parse(a.notifyTime) - Date.parse(b.notifyTime));
    for (const n of notes) {
      if (sent.some((s) => s.type === n.type && s.google_notify_time === n.notifyTime)) {
        continue;
      }
      await record.add({
        url: n.url,
        type: n.type,
        sent_at: n.notifyTime,
        principal: 'local',
        outcome: 'accepted',
        google_notify_time: n.notifyTime,
      });
    }
  }
}

await demo();
