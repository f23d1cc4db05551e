import type { Config } from './config-types.js';
import { maskUrl } from './quote.js';
import type { SettingSpec } from './setting-spec.js';

// The configuration table's rows of connected accounts (PRODUCT.md §8d), kept
// apart so the table stays readable; settings-table.ts spreads them in, and
// connected-settings.ts parses them.

const connected =
  <T>(read: (c: NonNullable<Config['connected']>) => T) =>
  (c: Config) =>
    c.connected ? read(c.connected) : undefined;
const at = (path: string, value: (config: Config) => unknown) => ({ at: path, value });
const setOrUnset = (value: unknown) => (value ? 'set' : 'unset');

export const CONNECTED_SETTINGS = [
  {
    name: 'GSC_GOOGLE_OAUTH_CLIENT_ID',
    kind: 'text',
    scrub: true,
    help: 'connected accounts: Google OAuth client id (type Web application); each person acts at Google with their own grant',
    more: 'With GSC_GOOGLE_OAUTH_CLIENT_SECRET; both or neither. Never with a shared credential: GSC_SERVICE_ACCOUNT_KEY*, GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN or an explicit GOOGLE_APPLICATION_CREDENTIALS stop start-up, and a gcloud login on the machine is not used. Refused with GSC_HTTP_TOKEN (it cannot tell people apart); allowed with GSC_AUTH_ISSUER, the Nest module and loopback.',
    parse: 'connectedClient',
    show: at(
      'connected.google_client_id',
      connected((c) => c.clientId),
    ),
  },
  {
    name: 'GSC_GOOGLE_OAUTH_CLIENT_SECRET',
    kind: 'secret',
    secret: true,
    help: "connected accounts: that client's secret",
    parse: 'connectedClient',
    show: at(
      'connected.google_client_secret',
      connected(() => 'set'),
    ),
  },
  {
    name: 'GSC_GRANT_ENCRYPTION_KEYS',
    kind: 'secret',
    secret: true,
    help: 'keys sealing grants at rest: comma-separated id:base64 (32-byte keys); the first encrypts, all decrypt',
    more: 'Required with GSC_REDIS_URL or a non-loopback bind. Otherwise, when unset, one key is generated into `grant-key` (0600) in the state folder and the start-up line says so. Rotate by putting a new key first and keeping the old one until every grant was used once.',
    parse: 'parseConnected',
    show: at(
      'connected.grant_keys',
      connected((c) =>
        c.encryptionKeys
          ? `set (${c.encryptionKeys.map((k) => k.id).join(', ')}; ${c.encryptionKeys[0].id} encrypts)`
          : 'generated file in the state folder',
      ),
    ),
  },
  {
    name: 'GSC_OAUTH_AUTHORIZE_URL',
    kind: 'url',
    help: "Google's authorization endpoint for the connect page (testing, air-gapped use)",
    parse: 'parseConnected',
    show: at(
      'connected.authorize_url',
      connected((c) => maskUrl(c.authorizeUrl)),
    ),
  },
  {
    name: 'GSC_OAUTH_REVOKE_URL',
    kind: 'url',
    help: "Google's revocation endpoint for disconnecting an account (testing, air-gapped use)",
    more: "The Google account's identity is read from `/oauth2/v3/userinfo` under GSC_API_ROOT_URL.",
    parse: 'parseConnected',
    show: at(
      'connected.revoke_url',
      connected((c) => maskUrl(c.revokeUrl)),
    ),
  },
  {
    name: 'GSC_AUTH_CLIENT_ID',
    kind: 'text',
    help: 'connected accounts with GSC_AUTH_ISSUER: the IdP client the connect page logs the browser in with',
    more: 'With GSC_AUTH_CLIENT_SECRET; required when GSC_AUTH_ISSUER and connected accounts are both on, refused otherwise.',
    parse: 'parseConnected',
    show: at(
      'connected.idp_client_id',
      connected((c) => c.idpClient?.clientId ?? null),
    ),
  },
  {
    name: 'GSC_AUTH_CLIENT_SECRET',
    kind: 'secret',
    secret: true,
    help: "that IdP client's secret",
    parse: 'parseConnected',
    show: at(
      'connected.idp_client_secret',
      connected((c) => setOrUnset(c.idpClient)),
    ),
  },
] as const satisfies readonly SettingSpec[];
