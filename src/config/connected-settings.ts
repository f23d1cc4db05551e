import { ConfigError } from './config-error.js';
import type { ConnectedConfig, GrantKey } from './connected-config.js';
import { assertClientId } from './credentials.js';
import type { AuthConfig, StateConfig } from './server-settings.js';
import type { SettingSource } from './setting-source.js';
import type { SettingName } from './settings-table.js';
import { GOOGLE_USER_INFO, isLoopback, parseHttpUrl } from './urls.js';
import { assertPlainText } from './values.js';

// Connected accounts (PRODUCT.md §8d): the settings that turn them on and the
// rules that keep them from ever mixing with one shared Google identity.

export const GOOGLE_AUTHORIZE_URL = 'https://accounts.google.com/o/oauth2/v2/auth';
export const GOOGLE_REVOKE_URL = 'https://oauth2.googleapis.com/revoke';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
const GOOGLE_API_ROOT = 'https://www.googleapis.com';
/** The file in the SQLite state folder that keeps the generated grant key when GSC_GRANT_ENCRYPTION_KEYS is unset. */
export const GRANT_KEY_FILE = 'grant-key';

const ON = ['GSC_GOOGLE_OAUTH_CLIENT_ID', 'GSC_GOOGLE_OAUTH_CLIENT_SECRET'] as const;
/** Meaningful with connected accounts only. */
const EXTRAS = [
  'GSC_GRANT_ENCRYPTION_KEYS',
  'GSC_OAUTH_AUTHORIZE_URL',
  'GSC_OAUTH_REVOKE_URL',
  'GSC_AUTH_CLIENT_ID',
  'GSC_AUTH_CLIENT_SECRET',
] as const satisfies readonly SettingName[];
/**
 * Shared credentials of kinds 1–3 (configuration.txt) set explicitly. A gcloud
 * login found on the machine is not in this list: it is simply never probed
 * in connected mode, since nobody asked for it.
 */
const SHARED: readonly (readonly [SettingName, string])[] = [
  ['GSC_SERVICE_ACCOUNT_KEY', 'GSC_SERVICE_ACCOUNT_KEY'],
  ['GSC_SERVICE_ACCOUNT_KEY_FILE', 'GSC_SERVICE_ACCOUNT_KEY_FILE'],
  ['GSC_CLIENT_ID', 'GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN'],
  ['GSC_CLIENT_SECRET', 'GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN'],
  ['GSC_REFRESH_TOKEN', 'GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN'],
  ['GOOGLE_APPLICATION_CREDENTIALS', 'GOOGLE_APPLICATION_CREDENTIALS'],
];

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const KEY_FORMS =
  'comma-separated id:base64 entries, each a 32-byte key (id: 1–32 of A-Z a-z 0-9 _ -), such as k1:$(openssl rand -base64 32)';
const MAX_KEYS = 16;

/**
 * Whether connected accounts are on: GSC_GOOGLE_OAUTH_CLIENT_ID and _SECRET
 * both set (one alone is an error), and no shared credential beside them.
 * Called before the shared credential is resolved, so that connected mode
 * never reads (nor fails on) one.
 */
export function connectedClient(source: SettingSource): { clientId: string; clientSecret: string } | undefined {
  const [clientId, clientSecret] = ON.map((name) => source.get(name));
  if (!clientId && !clientSecret) {
    const stray = EXTRAS.find((name) => source.has(name));
    if (stray) {
      throw new ConfigError(
        `${stray} is set but GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_GOOGLE_OAUTH_CLIENT_SECRET are not; it applies to connected accounts only — set both of them, or unset ${stray}`,
      );
    }
    return undefined;
  }
  if (!clientId || !clientSecret) {
    const [set, missing] = clientId ? ON : [ON[1], ON[0]];
    throw new ConfigError(
      `${set} is set without ${missing}; connected accounts need both (the id and secret of a Google OAuth client of type "Web application", from APIs & Services → Credentials), or neither`,
    );
  }
  assertClientId(clientId, 'GSC_GOOGLE_OAUTH_CLIENT_ID');
  const shared = SHARED.find(([name]) => source.has(name));
  if (shared) {
    throw new ConfigError(
      `GSC_GOOGLE_OAUTH_CLIENT_ID (connected accounts: each person acts at Google as themselves) and ${shared[1]} (one shared Google credential) are both set; ` +
        `there is no fall-back from one to the other — unset ${shared[1]}, or unset GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_GOOGLE_OAUTH_CLIENT_SECRET`,
    );
  }
  if (source.has('GSC_HTTP_TOKEN')) {
    throw new ConfigError(
      'GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_HTTP_TOKEN are both set; connected accounts act for each person, and one shared bearer token cannot tell people apart — ' +
        'use GSC_AUTH_ISSUER with GSC_AUTH_AUDIENCE (OAuth access tokens), or serve loopback (stdio, or HTTP on 127.0.0.1) without GSC_HTTP_TOKEN',
    );
  }
  return { clientId, clientSecret };
}

export interface ConnectedContext {
  readonly transport: 'stdio' | 'http';
  readonly host: string;
  readonly auth?: AuthConfig;
  readonly state: StateConfig;
  /** GSC_API_ROOT_URL as parsed (an origin), if set. */
  readonly apiRootUrl?: string;
  /** GSC_OAUTH_TOKEN_URL as parsed, if set. */
  readonly tokenUrl?: string;
}

/** The rest of the connected settings, once connectedClient() said they are on. */
export function parseConnected(
  source: SettingSource,
  client: { clientId: string; clientSecret: string },
  context: ConnectedContext,
): ConnectedConfig {
  const encryptionKeys = parseGrantKeys(source.get('GSC_GRANT_ENCRYPTION_KEYS'));
  if (!encryptionKeys) {
    if (context.state.kind === 'redis') {
      throw new ConfigError(
        `GSC_GRANT_ENCRYPTION_KEYS is required with GSC_REDIS_URL: every replica must open the grants kept there, so the key cannot be a file of one machine; set ${KEY_FORMS}`,
      );
    }
    if (context.transport === 'http' && !isLoopback(context.host)) {
      throw new ConfigError(
        `GSC_GRANT_ENCRYPTION_KEYS is required when serving HTTP on ${context.host} (not loopback): set ${KEY_FORMS}, kept apart from the state folder`,
      );
    }
  }
  return {
    ...client,
    authorizeUrl: endpoint('GSC_OAUTH_AUTHORIZE_URL', source.get('GSC_OAUTH_AUTHORIZE_URL')) ?? GOOGLE_AUTHORIZE_URL,
    tokenUrl: context.tokenUrl ?? GOOGLE_TOKEN_URL,
    revokeUrl: endpoint('GSC_OAUTH_REVOKE_URL', source.get('GSC_OAUTH_REVOKE_URL')) ?? GOOGLE_REVOKE_URL,
    userinfoUrl: `${context.apiRootUrl ?? GOOGLE_API_ROOT}/oauth2/v3/userinfo`,
    encryptionKeys,
    idpClient: parseIdpClient(source, context.auth),
  };
}

/** GSC_GRANT_ENCRYPTION_KEYS: never quoted; an entry is named by its position (and its id once that is known to be one). */
export function parseGrantKeys(value: string | undefined): GrantKey[] | undefined {
  if (!value) {
    return undefined;
  }
  const entries = value.split(',').map((s) => s.trim());
  if (entries.length > MAX_KEYS) {
    throw new ConfigError(
      `GSC_GRANT_ENCRYPTION_KEYS has ${entries.length} entries; keep at most ${MAX_KEYS} (the current key and the old ones still in use)`,
    );
  }
  const seen = new Set<string>();
  return entries.map((entry, i) => {
    const at = `GSC_GRANT_ENCRYPTION_KEYS entry ${i + 1}`;
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    if (!KEY_ID.test(id)) {
      throw new ConfigError(`${at} has no usable id before a colon (the value is not shown: it holds keys); write ${KEY_FORMS}`);
    }
    if (seen.has(id)) {
      throw new ConfigError(
        `GSC_GRANT_ENCRYPTION_KEYS names the key id ${id} twice; each id must be unique, since it is stored beside each record to find its key`,
      );
    }
    seen.add(id);
    const text = entry.slice(colon + 1).trim();
    const bytes = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text)
      ? Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64')
      : undefined;
    if (!bytes || bytes.length !== 32) {
      throw new ConfigError(
        `${at} (id ${id}) is not ${bytes ? `32 bytes but ${bytes.length}` : 'base64'} (the value is not shown); each key is 32 random bytes in base64: openssl rand -base64 32`,
      );
    }
    return { id, key: bytes.toString('base64') };
  });
}

function endpoint(name: 'GSC_OAUTH_AUTHORIZE_URL' | 'GSC_OAUTH_REVOKE_URL', value: string | undefined): string | undefined {
  if (!value) {
    return undefined;
  }
  const example = name === 'GSC_OAUTH_AUTHORIZE_URL' ? 'http://127.0.0.1:4000/o/oauth2/v2/auth' : 'http://127.0.0.1:4000/revoke';
  parseHttpUrl(name, value, { forms: `an http(s) URL such as ${example}`, query: true, userInfo: GOOGLE_USER_INFO });
  return value;
}

/** GSC_AUTH_CLIENT_ID + _SECRET: the company IdP client of the connect page; exactly when GSC_AUTH_ISSUER is set. */
function parseIdpClient(source: SettingSource, auth: AuthConfig | undefined): ConnectedConfig['idpClient'] {
  const clientId = source.get('GSC_AUTH_CLIENT_ID');
  const clientSecret = source.get('GSC_AUTH_CLIENT_SECRET');
  if (!auth) {
    const stray = clientId ? 'GSC_AUTH_CLIENT_ID' : clientSecret ? 'GSC_AUTH_CLIENT_SECRET' : undefined;
    if (stray) {
      throw new ConfigError(
        `${stray} is set but GSC_AUTH_ISSUER is not; it is the client the connect page logs browsers in with at your identity provider — set GSC_AUTH_ISSUER and GSC_AUTH_AUDIENCE, or unset ${stray}`,
      );
    }
    return undefined;
  }
  if (!clientId || !clientSecret) {
    throw new ConfigError(
      `connected accounts with GSC_AUTH_ISSUER need GSC_AUTH_CLIENT_ID and GSC_AUTH_CLIENT_SECRET (missing: ${[
        clientId ? undefined : 'GSC_AUTH_CLIENT_ID',
        clientSecret ? undefined : 'GSC_AUTH_CLIENT_SECRET',
      ]
        .filter(Boolean)
        .join(
          ', ',
        )}): the connect page logs the browser in at the issuer with that client to check that whoever opens a link is the person it was made for`,
    );
  }
  assertPlainText(
    'GSC_AUTH_CLIENT_ID',
    clientId,
    "your identity provider's client id for this server's connect page, such as search-console-mcp",
    256,
  );
  return { clientId, clientSecret };
}
