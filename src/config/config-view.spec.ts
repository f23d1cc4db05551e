import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from './config.js';
import { configView } from './config-view.js';
import { type SettingSpec, SETTINGS } from './settings-table.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'gsc-view-'));
const HTTP_TOKEN = 'http-token-0123456789abcdef';
const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const APPROVAL = 'approval-secret-0123456789abcdef0123456789';
const REDIS_PASSWORD = 's3cret-redis-pass';
const GOOGLE_SECRET = 'GOCSPX-connected-client-secret';
const IDP_SECRET = 'idp-client-secret-0123456789';
const OTLP_KEY = 'otlp-api-key-0123456789';
const GRANT_KEY = Buffer.alloc(32, 7).toString('base64');

const rows = SETTINGS as readonly SettingSpec[];
const valueAt = (view: object, path: string) =>
  path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], view);

describe('configView (/admin/config, from the configuration table)', () => {
  it('shows every non-credential setting where its row says, and its secrets only as set', () => {
    const config = loadConfig({
      CLOUDSDK_CONFIG: scratch(),
      GSC_SITE_URL: 'sc-domain:example.com',
      GSC_ALLOWED_SITES: 'sc-domain:example.com',
      GSC_READ_ONLY: 'true',
      GSC_DENY_TOOLS: 'inspect_urls',
      GSC_TRANSPORT: 'http',
      GSC_HTTP_PORT: '3999',
      GSC_ADMIN_TOKEN: ADMIN_TOKEN,
      GSC_APPROVAL_SECRET: APPROVAL,
      GSC_REDIS_URL: `redis://default:${REDIS_PASSWORD}@127.0.0.1:6379/0`,
      GSC_AUTH_ISSUER: 'https://login.corp.example/realms/staff',
      GSC_AUTH_AUDIENCE: 'https://mcp.corp.example/mcp',
      GSC_GOOGLE_TIMEOUT_MS: '5000',
      GSC_GOOGLE_OAUTH_CLIENT_ID: '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com',
      GSC_GOOGLE_OAUTH_CLIENT_SECRET: GOOGLE_SECRET,
      GSC_GRANT_ENCRYPTION_KEYS: `k2:${GRANT_KEY},k1:${Buffer.alloc(32, 1).toString('base64')}`,
      GSC_OAUTH_AUTHORIZE_URL: 'http://127.0.0.1:4000/o/oauth2/v2/auth',
      GSC_OAUTH_REVOKE_URL: 'http://127.0.0.1:4000/revoke',
      GSC_AUTH_CLIENT_ID: 'search-console-mcp',
      GSC_AUTH_CLIENT_SECRET: IDP_SECRET,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_EXPORTER_OTLP_HEADERS: `api-key=${OTLP_KEY}`,
    });
    const view = configView(config);
    for (const spec of rows) {
      if (spec.show === 'credential') {
        continue;
      }
      expect([spec.name, valueAt(view, spec.show.at)]).toEqual([spec.name, spec.show.value(config)]);
      expect([spec.name, valueAt(view, spec.show.at)]).not.toEqual([spec.name, undefined]);
    }
    expect(view).toMatchObject({
      read_only: true,
      deny_tools: ['inspect_urls'],
      approval_secret: 'set',
      http: { port: 3999, admin_token: 'set', token: 'unset' },
      google: { timeout_ms: 5000 },
      connected: {
        google_client_secret: 'set',
        grant_keys: 'set (k2, k1; k2 encrypts)',
        idp_client_id: 'search-console-mcp',
        idp_client_secret: 'set',
      },
    });
    const text = JSON.stringify(view);
    for (const secret of [ADMIN_TOKEN, APPROVAL, REDIS_PASSWORD, GOOGLE_SECRET, IDP_SECRET, GRANT_KEY, OTLP_KEY]) {
      expect(text).not.toContain(secret);
    }
  });

  it('leaves the OAuth resource-server fields out when that mode is off, and shows the token as set', () => {
    const view = configView(loadConfig({ CLOUDSDK_CONFIG: scratch(), GSC_STATE_DIR: scratch(), GSC_HTTP_TOKEN: HTTP_TOKEN }));
    expect(view.auth).toBeUndefined();
    expect(view.connected).toBeUndefined();
    expect(valueAt(view, 'http.token')).toBe('set');
    expect(JSON.stringify(view)).not.toContain(HTTP_TOKEN);
  });

  it('every row says how it is parsed and shown, and secrets are never shown by value', () => {
    for (const spec of rows) {
      expect([spec.name, typeof spec.parse === 'string' || typeof spec.parse.safeParse === 'function']).toEqual([spec.name, true]);
      if (spec.secret && spec.show !== 'credential') {
        expect([spec.name, /token|secret|state|keys/.test(spec.show.at)]).toEqual([spec.name, true]);
      }
    }
  });
});
