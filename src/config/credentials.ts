import { createPrivateKey } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';
import type { Credential, ServiceAccountKey } from './config-types.js';

export type { Credential, ServiceAccountKey } from './config-types.js';
import { quote } from './quote.js';
import type { SettingSource } from './setting-source.js';
import { assertPath } from './values.js';

const OAUTH_VARS = ['GSC_CLIENT_ID', 'GSC_CLIENT_SECRET', 'GSC_REFRESH_TOKEN'] as const;

// Google's OAuth client ids: the project number, a dash, 32 characters, and the
// fixed domain (e.g. 123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com).
const CLIENT_ID = /^\d{1,20}-[a-z0-9_]{32}\.apps\.googleusercontent\.com$/i;

/**
 * Resolves the credential in the documented order — explicit beats ambient:
 * a service account key, then the OAuth triple, then GOOGLE_APPLICATION_CREDENTIALS
 * or a gcloud login. A partial triple is an error rather than a fall-through,
 * and no metadata server is ever probed.
 */
export function resolveCredential(source: SettingSource): Credential {
  const rawKey = source.get('GSC_SERVICE_ACCOUNT_KEY');
  const keyFile = source.get('GSC_SERVICE_ACCOUNT_KEY_FILE');
  const oauth = OAUTH_VARS.map((name) => source.get(name));
  const oauthSet = oauth.filter(Boolean).length;

  if (oauthSet > 0 && oauthSet < 3) {
    const missing = OAUTH_VARS.filter((_, i) => !oauth[i]).join(', ');
    throw new ConfigError(
      `GSC_CLIENT_ID, GSC_CLIENT_SECRET and GSC_REFRESH_TOKEN must be set together (missing: ${missing}); ` +
        'a partial OAuth credential never falls back to the ambient credentials of this machine',
    );
  }
  if (oauth[0]) {
    assertClientId(oauth[0], 'GSC_CLIENT_ID');
  }
  if (rawKey && keyFile) {
    throw new ConfigError('GSC_SERVICE_ACCOUNT_KEY and GSC_SERVICE_ACCOUNT_KEY_FILE are both set; set exactly one of them');
  }
  if ((rawKey || keyFile) && oauthSet === 3) {
    throw new ConfigError(
      'both a service account key (GSC_SERVICE_ACCOUNT_KEY*) and an OAuth credential (GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN) are set; keep exactly one kind',
    );
  }
  if (rawKey) {
    return { kind: 'service_account', key: parseKey(decodeKey(rawKey), 'GSC_SERVICE_ACCOUNT_KEY'), origin: 'GSC_SERVICE_ACCOUNT_KEY' };
  }
  if (keyFile) {
    return {
      kind: 'service_account',
      key: parseKey(readFile(keyFile, 'GSC_SERVICE_ACCOUNT_KEY_FILE'), 'GSC_SERVICE_ACCOUNT_KEY_FILE'),
      origin: 'GSC_SERVICE_ACCOUNT_KEY_FILE',
    };
  }
  if (oauthSet === 3) {
    const [clientId, clientSecret, refreshToken] = oauth as [string, string, string];
    return { kind: 'oauth', clientId, clientSecret, refreshToken, origin: 'GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN' };
  }
  return ambientCredential(source);
}

/** An OAuth client id must be shaped like Google's, so that a key pasted there is refused rather than shown as the principal. */
export function assertClientId(value: string, origin: string): void {
  if (CLIENT_ID.test(value)) {
    return;
  }
  throw new ConfigError(
    `${origin} is not an OAuth client id (got ${quote(value)}); Google's look like 123456789012-<32 letters and digits>.apps.googleusercontent.com — ` +
      'copy "Client ID" from APIs & Services → Credentials',
  );
}

function ambientCredential(source: SettingSource): Credential {
  const explicitPath = source.get('GOOGLE_APPLICATION_CREDENTIALS');
  if (explicitPath) {
    return parseAdcFile(readFile(explicitPath, 'GOOGLE_APPLICATION_CREDENTIALS'), 'GOOGLE_APPLICATION_CREDENTIALS');
  }
  const { ambient } = source;
  if (!ambient.gcloud) {
    return { kind: 'none' };
  }
  const gcloudDir =
    ambient.CLOUDSDK_CONFIG ??
    (process.platform === 'win32' && ambient.APPDATA
      ? join(ambient.APPDATA, 'gcloud')
      : join(ambient.HOME ?? homedir(), '.config', 'gcloud'));
  const wellKnown = join(gcloudDir, 'application_default_credentials.json');
  if (existsSync(wellKnown)) {
    return parseAdcFile(readFile(wellKnown, 'the gcloud application-default login'), 'gcloud application-default login');
  }
  return { kind: 'none' };
}

function parseAdcFile(text: string, origin: string): Credential {
  const json = parseJson(text, origin);
  if (json.type === 'authorized_user') {
    const { client_id, client_secret, refresh_token } = json;
    if (typeof client_id !== 'string' || typeof client_secret !== 'string' || typeof refresh_token !== 'string') {
      throw new ConfigError(
        `${origin} is an authorized_user credential without client_id, client_secret and refresh_token; run gcloud auth application-default login again`,
      );
    }
    if (!CLIENT_ID.test(client_id)) {
      throw new ConfigError(
        `${origin} holds an authorized_user credential whose client_id is not an OAuth client id (got ${quote(client_id)}); run gcloud auth application-default login again`,
      );
    }
    return { kind: 'oauth', clientId: client_id, clientSecret: client_secret, refreshToken: refresh_token, origin };
  }
  if (json.type === 'service_account') {
    return { kind: 'service_account', key: parseKey(text, origin), origin };
  }
  throw new ConfigError(
    `${origin} holds a credential of type ${typeof json.type === 'string' ? quote(json.type) : 'unknown'}; this server accepts service_account keys and authorized_user logins — ` +
      'use GSC_SERVICE_ACCOUNT_KEY or GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN instead',
  );
}

function decodeKey(value: string): string {
  if (value.startsWith('{')) {
    return value;
  }
  if (value.includes('PRIVATE KEY-----')) {
    throw new ConfigError(
      'GSC_SERVICE_ACCOUNT_KEY holds a bare PEM private key; paste the whole JSON key file instead (it carries client_email too), raw or base64-encoded',
    );
  }
  const decoded = Buffer.from(value, 'base64').toString('utf8').trim();
  if (decoded.startsWith('{')) {
    return decoded;
  }
  throw new ConfigError(
    'GSC_SERVICE_ACCOUNT_KEY is neither JSON nor base64-encoded JSON; paste the key file’s contents, raw or base64-encoded',
  );
}

function parseKey(text: string, origin: string): ServiceAccountKey {
  const json = parseJson(text, origin);
  if (json.installed || json.web) {
    throw new ConfigError(
      `${origin} holds an OAuth client secrets file ("${json.installed ? 'installed' : 'web'}" client), not a service account key; ` +
        'create a key under IAM & Admin → Service accounts → Keys, or use that client with GSC_CLIENT_ID, GSC_CLIENT_SECRET and GSC_REFRESH_TOKEN',
    );
  }
  if (json.type === 'authorized_user') {
    throw new ConfigError(
      `${origin} holds a user login (authorized_user), not a service account key; pass its fields as GSC_CLIENT_ID, GSC_CLIENT_SECRET and GSC_REFRESH_TOKEN, or point GOOGLE_APPLICATION_CREDENTIALS at the file`,
    );
  }
  if (json.type !== 'service_account' || typeof json.client_email !== 'string' || typeof json.private_key !== 'string') {
    throw new ConfigError(`${origin} is not a service account key: it needs "type": "service_account", "client_email" and "private_key"`);
  }
  // Shown as the principal in the start-up line and /admin/config, so it must be what it says.
  if (!/^[^@\s]{1,64}@[a-z0-9.-]+\.[a-z]{2,}$/i.test(json.client_email)) {
    throw new ConfigError(
      `${origin} has a client_email that is not an e-mail address (got ${quote(json.client_email)}); download a fresh JSON key`,
    );
  }
  try {
    createPrivateKey(json.private_key);
  } catch {
    throw new ConfigError(
      `${origin} has a private_key that is not a PEM private key; download a fresh JSON key for ${quote(json.client_email)}`,
    );
  }
  return {
    client_email: json.client_email,
    private_key: json.private_key,
    private_key_id: typeof json.private_key_id === 'string' ? json.private_key_id : undefined,
    project_id: typeof json.project_id === 'string' ? json.project_id : undefined,
  };
}

function parseJson(text: string, origin: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // fall through to the one message below; the parser's text could quote the secret
  }
  throw new ConfigError(`${origin} is not a JSON object; expected the JSON key file Google gave you`);
}

function readFile(path: string, origin: string): string {
  assertPath(origin, path);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`${origin} points at ${quote(path)}, which cannot be read (${code}); fix the path or unset the variable`);
  }
}
