// `npm run emulator`: a standalone Google emulator for manual runs of the
// server. A dev tool, so it reports on stdout what to paste into `npm start`
// or into an MCP client's configuration.

import { lstatSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GoogleEmulator, generateServiceAccountKey } from './google-emulator.js';
import { SCOPES } from './emulator-routing.js';
import { SEED_OWNER_EMAIL } from './emulator-seed.js';
import { AUTHORIZE_PATH, REVOKE_PATH } from './oauth.routes.js';

const ALL_SCOPES = Object.values(SCOPES);

/**
 * The emulator's "Desktop app" OAuth client, for connected mode over stdio: Google lets a Desktop client redirect to
 * http://127.0.0.1 on any port (the stdio server's connect page listens on one the system picks). Fixed, so a client
 * configuration keeps working across runs; Google itself says a Desktop client's secret is not treated as a secret
 * (src/emulator/README.md, "npm run emulator").
 */
export const DESKTOP_CLIENT = {
  clientId: '000000000000-gscdesktopstdioemulatorloopback0.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-emulator-desktop-client',
  name: 'google-search-console-mcp (stdio, emulator)',
} as const;

/**
 * This user's folder for the emulator's files: the service-account key of this run and the state folder the stdio
 * recipe points the server at. A fixed name under the temp folder, so the printed client configuration stays the same
 * across runs; when someone else owns it or others may enter it, a fresh private one instead.
 */
function workFolder(): string {
  const uid = process.getuid?.() ?? 0;
  const fixed = join(tmpdir(), `gsc-emulator-${uid}`);
  try {
    mkdirSync(fixed, { recursive: true, mode: 0o700 });
    const stat = lstatSync(fixed);
    if (stat.isDirectory() && (process.getuid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0) {
      return fixed;
    }
  } catch {
    // fall through to a folder of its own
  }
  return mkdtempSync(join(tmpdir(), 'gsc-emulator-'));
}

async function main(): Promise<void> {
  const port = Number(process.env.EMULATOR_PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`EMULATOR_PORT must be a port number (0-65535), got "${process.env.EMULATOR_PORT}"`);
    process.exit(1);
  }
  const emulator = await GoogleEmulator.start({ host: '127.0.0.1', port });

  const { key, publicKeyPem } = generateServiceAccountKey('gsc-demo@emulator-project.iam.gserviceaccount.com');
  emulator.registerServiceAccount({
    clientEmail: key.client_email,
    publicKeyPem,
    delegation: { [SEED_OWNER_EMAIL]: ALL_SCOPES },
  });
  const refresh = {
    clientId: '123456789012-emulatoremulatoremulatoremulator.apps.googleusercontent.com',
    clientSecret: 'emulator-secret',
    refreshToken: '1//emulator-refresh-token',
    user: SEED_OWNER_EMAIL,
    scopes: ALL_SCOPES,
  };
  emulator.registerRefreshToken(refresh);
  emulator.registerOAuthClient({ ...DESKTOP_CLIENT, redirectUris: [], type: 'desktop' });

  // The key is printed nowhere: a file only this user reads, valid for this run, removed when the emulator stops.
  const folder = workFolder();
  const keyFile = join(folder, 'service-account.json');
  rmSync(keyFile, { force: true });
  writeFileSync(keyFile, `${JSON.stringify(key, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  const google = `GSC_API_ROOT_URL=${emulator.url}/ GSC_OAUTH_TOKEN_URL=${emulator.tokenUrl}`;

  const lines = [
    `Google emulator listening on ${emulator.url}`,
    `  token endpoint:   ${emulator.tokenUrl}`,
    `  control:          ${emulator.url}/__emulator/requests (also /token-grants, /state, /reset, /faults, /latency, /place-token,
                    /services, /indexing, /project-number, /analytics/anonymized-share, /analytics/rows-available; see src/emulator/README.md)`,
    '',
    `Service account:    ${key.client_email} (may impersonate ${SEED_OWNER_EMAIL})`,
    `  key file:         ${keyFile} (0600, this run only; removed when the emulator stops)`,
    '',
    'Run the server against it with the service account:',
    `  ${google} GSC_SERVICE_ACCOUNT_KEY_FILE=${keyFile} npm start`,
    '',
    'or with the OAuth user credential:',
    `  ${google} GSC_CLIENT_ID=${refresh.clientId} GSC_CLIENT_SECRET=${refresh.clientSecret} GSC_REFRESH_TOKEN=${refresh.refreshToken} npm start`,
    '',
    ...connectedLines(emulator, join(folder, 'state')),
    'Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  const stop = () => {
    rmSync(keyFile, { force: true });
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Connected mode over stdio: the Desktop client, and an MCP client configuration that starts the server with it. */
function connectedLines(emulator: GoogleEmulator, stateDir: string): string[] {
  const main = resolve(dirname(fileURLToPath(import.meta.url)), '../main.js');
  const config = {
    mcpServers: {
      'search-console-connected': {
        // The Node running this (the repository's pinned one under `npm run`), so an older Node on PATH does not matter.
        command: process.execPath,
        args: [main],
        env: {
          GSC_API_ROOT_URL: `${emulator.url}/`,
          GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
          GSC_OAUTH_AUTHORIZE_URL: `${emulator.url}${AUTHORIZE_PATH}`,
          GSC_OAUTH_REVOKE_URL: `${emulator.url}${REVOKE_PATH}`,
          GSC_GOOGLE_OAUTH_CLIENT_ID: DESKTOP_CLIENT.clientId,
          GSC_GOOGLE_OAUTH_CLIENT_SECRET: DESKTOP_CLIENT.clientSecret,
          // Its own state folder: grants of the emulator's accounts never mix with real ones.
          GSC_STATE_DIR: stateDir,
        },
      },
    },
  };
  const emails = [...emulator.oauth.users.keys()];
  const users = emails.length > 1 ? `${emails.slice(0, -1).join(', ')} or ${emails[emails.length - 1]}` : emails.join('');
  return [
    "or in connected mode over stdio, each person as their own Google account (the emulator plays Google's consent too):",
    `  OAuth client:     "${DESKTOP_CLIENT.name}", type Desktop app (any http://127.0.0.1:<port> redirect)`,
    `                    id ${DESKTOP_CLIENT.clientId}, secret ${DESKTOP_CLIENT.clientSecret}`,
    '  Your MCP client\'s configuration ("mcpServers", e.g. claude_desktop_config.json):',
    ...JSON.stringify(config, null, 2)
      .split('\n')
      .map((line) => `  ${line}`),
    "  Then call list_sites: the answer (or a URL elicitation) links to the server's connect page on http://127.0.0.1:<port>;",
    `  open it, choose ${users} (no password) and click Allow, and the call runs as that account.`,
    '',
  ];
}

main().catch((err: unknown) => {
  console.error(`emulator: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
