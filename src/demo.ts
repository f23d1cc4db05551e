#!/usr/bin/env node
import 'reflect-metadata';
import { ELICITATION_OFF_LINE } from './common/product.js';
import { ConfigError } from './config/config-error.js';
import { loadConfig, scrubSecrets } from './config/config.js';
import { SEED_PROPERTIES } from './emulator/emulator-seed.js';
import { generateServiceAccountKey, GoogleEmulator } from './emulator/google-emulator.js';
import { startHttpServer } from './http-server.js';
import { IndexingRecord } from './indexing/indexing-record.service.js';
import { exitOnSignals } from './server-lifecycle.js';

/**
 * `npm run demo`: the HTTP server against the built-in Google emulator, with a
 * freshly generated service-account key, so every tool can be tried without a
 * Google account. Honours GSC_HTTP_HOST / GSC_HTTP_PORT and every other setting
 * (GSC_READ_ONLY, GSC_ALLOW_TOOLS, ELICITATION, …); only the credential and the
 * Google endpoints are the emulator's.
 */
async function demo(): Promise<void> {
  const emulator = await GoogleEmulator.start({ port: Number(process.env.EMULATOR_PORT ?? 0) });
  const clientEmail = 'gsc-demo@demo-project.iam.gserviceaccount.com';
  const { key, publicKeyPem } = generateServiceAccountKey(clientEmail);
  emulator.registerServiceAccount({ clientEmail, publicKeyPem });

  const env = {
    ...process.env,
    GSC_TRANSPORT: 'http',
    GSC_API_ROOT_URL: emulator.url,
    GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
    GSC_SERVICE_ACCOUNT_KEY: JSON.stringify(key),
    GSC_SERVICE_ACCOUNT_KEY_FILE: '',
    GSC_CLIENT_ID: '',
    GSC_CLIENT_SECRET: '',
    GSC_REFRESH_TOKEN: '',
  };
  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    process.stderr.write(`google-search-console-mcp demo: ${error instanceof ConfigError ? error.message : String(error)}\n`);
    await emulator.close();
    process.exit(1);
  }
  scrubSecrets(process.env);
  if (!config.elicitation) process.stderr.write(`${ELICITATION_OFF_LINE}\n`);
  const { app, origin, stop } = await startHttpServer(config);
  await seedIndexingRecord(app.get(IndexingRecord, { strict: false }), emulator);
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
      '',
      'Connect a client:',
      `  Claude Code:      claude mcp add --transport http gsc-demo ${url}${auth}`,
      `  MCP Inspector:    npx @modelcontextprotocol/inspector, then Streamable HTTP → ${url}`,
      '  Any client:       point its Streamable HTTP / "remote MCP server" setting at the URL above',
      '',
      `Try: list_sites, then query_search_analytics with site_url "${SEED_PROPERTIES.owned}", inspect_url, get_indexing_status for ${SEED_PROPERTIES.owned}jobs/senior-engineer, or delete_sitemap (it asks first).`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  exitOnSignals(async () => {
    await stop();
    await emulator.close();
  });
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
      if (sent.some((s) => s.type === n.type && s.google_notify_time === n.notifyTime)) continue;
      await record.add({ url: n.url, type: n.type, sent_at: n.notifyTime, principal: 'local', outcome: 'accepted', google_notify_time: n.notifyTime });
    }
  }
}

void demo();
