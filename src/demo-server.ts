import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ELICITATION_OFF_LINE, SERVER_NAME } from './common/product.js';
import { ConfigError } from './config/config-error.js';
import { type Config, loadConfig, scrubSecrets } from './config/config.js';
import { listenError } from './config/listen-error.js';
import { SEED_PROPERTIES } from './emulator/emulator-seed.js';
import { generateServiceAccountKey, GoogleEmulator } from './emulator/google-emulator.js';
import { startHttpServer } from './http-server.js';
import { IndexingRecord } from './indexing/indexing-record.service.js';
import { ToolRegistry } from './mcp/tool-registry.service.js';
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
 */
async function demo(): Promise<void> {
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
  const clientEmail = 'gsc-demo@demo-project.iam.gserviceaccount.com';
  const { key, publicKeyPem } = generateServiceAccountKey(clientEmail);
  emulator.registerServiceAccount({ clientEmail, publicKeyPem });

  const env = {
    ...process.env,
    ...(throwAway ? { GSC_STATE_DIR: throwAway } : {}),
    GSC_TRANSPORT: 'http',
    GSC_API_ROOT_URL: emulator.url,
    GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
    GSC_SERVICE_ACCOUNT_KEY: JSON.stringify(key),
    GSC_SERVICE_ACCOUNT_KEY_FILE: '',
    GSC_CLIENT_ID: '',
    GSC_CLIENT_SECRET: '',
    GSC_REFRESH_TOKEN: '',
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
  await seedIndexingRecord(app.get(IndexingRecord, { strict: false }), emulator);
  const tools = new Set(app.get(ToolRegistry).tools.map((t) => t.spec.name));
  const url = `${origin}/mcp`;
  const auth = config.http.token ? ' --header "Authorization: Bearer $GSC_HTTP_TOKEN"' : '';
  process.stderr.write(
    [
      '',
      'google-search-console-mcp demo — the real server against the built-in Google emulator (no Google account needed)',
      '',
      `  MCP endpoint (Streamable HTTP, 2025-11-25 and 2026-07-28):  ${url}`,
      `  Google emulator:  ${emulator.url}  (seeded properties such as ${SEED_PROPERTIES.owned} and ${SEED_PROPERTIES.domain})`,
      `  Admin:            ${origin}/admin/health, /admin/tools, /admin/config, /admin/audit`,
      `  State:            ${throwAway ? `${throwAway} (throw-away, removed on exit; set GSC_STATE_DIR to keep it)` : config.state.kind === 'sqlite' ? config.state.dir : 'Redis (GSC_REDIS_URL)'}`,
      '',
      'Connect a client:',
      `  Claude Code:      claude mcp add --transport http gsc-demo ${url}${auth}`,
      `  MCP Inspector:    npx @modelcontextprotocol/inspector, then Streamable HTTP → ${url}`,
      '  Any client:       point its Streamable HTTP / "remote MCP server" setting at the URL above',
      '',
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
