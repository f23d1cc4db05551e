import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadConfig, loadSettings, scrubSecrets } from './config.js';
import { configView } from './config-view.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'gsc-connected-'));
const CLIENT_ID = '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com';
const SECRET = 'GOCSPX-connected-secret-value';
const KEY_A = Buffer.alloc(32, 0xa1).toString('base64');
const KEY_B = Buffer.alloc(32, 0xb2).toString('base64');
const ISSUER = { GSC_AUTH_ISSUER: 'https://login.corp.example/realms/staff', GSC_AUTH_AUDIENCE: 'https://mcp.corp.example/mcp' };
const IDP = { GSC_AUTH_CLIENT_ID: 'search-console-mcp', GSC_AUTH_CLIENT_SECRET: 'idp-secret-0123456789abcdef' };

const base = (): NodeJS.ProcessEnv => ({ CLOUDSDK_CONFIG: scratch(), GSC_STATE_DIR: scratch() });
const on = (): NodeJS.ProcessEnv => ({ ...base(), GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT_ID, GSC_GOOGLE_OAUTH_CLIENT_SECRET: SECRET });

/** The one-line message of a load that must fail. */
function failure(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a configuration error');
}

describe('connected accounts settings', () => {
  it('are off by default, and on with both client settings: Google endpoints by default, no shared credential', () => {
    expect(loadConfig(base()).connected).toBeUndefined();
    const c = loadConfig(on());
    expect(c.credential).toEqual({ kind: 'none' });
    expect(c.connected).toEqual({
      clientId: CLIENT_ID,
      clientSecret: SECRET,
      authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      revokeUrl: 'https://oauth2.googleapis.com/revoke',
      userinfoUrl: 'https://www.googleapis.com/oauth2/v3/userinfo',
      encryptionKeys: undefined,
      idpClient: undefined,
    });
  });

  it('point every Google endpoint at the emulator for tests: userinfo under GSC_API_ROOT_URL, the token URL shared', () => {
    const c = loadConfig({
      ...on(),
      GSC_API_ROOT_URL: 'http://127.0.0.1:4000',
      GSC_OAUTH_TOKEN_URL: 'http://127.0.0.1:4000/token',
      GSC_OAUTH_AUTHORIZE_URL: 'http://127.0.0.1:4000/o/oauth2/v2/auth',
      GSC_OAUTH_REVOKE_URL: 'http://127.0.0.1:4000/revoke',
    }).connected!;
    expect(c).toMatchObject({
      authorizeUrl: 'http://127.0.0.1:4000/o/oauth2/v2/auth',
      tokenUrl: 'http://127.0.0.1:4000/token',
      revokeUrl: 'http://127.0.0.1:4000/revoke',
      userinfoUrl: 'http://127.0.0.1:4000/oauth2/v3/userinfo',
    });
    expect(failure({ ...on(), GSC_OAUTH_AUTHORIZE_URL: 'accounts.google.com' })).toMatch(
      /^GSC_OAUTH_AUTHORIZE_URL must be an http\(s\) URL/,
    );
    expect(failure({ ...on(), GSC_OAUTH_REVOKE_URL: 'http://u:pw@127.0.0.1/revoke' })).toMatch(
      /^GSC_OAUTH_REVOKE_URL must not carry a user name/,
    );
  });

  it('need both client settings, a Google-shaped client id, and never echo the secret', () => {
    expect(failure({ ...base(), GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT_ID })).toMatch(
      /^GSC_GOOGLE_OAUTH_CLIENT_ID is set without GSC_GOOGLE_OAUTH_CLIENT_SECRET; .*both .*or neither$/,
    );
    const message = failure({ ...base(), GSC_GOOGLE_OAUTH_CLIENT_SECRET: SECRET });
    expect(message).toMatch(/^GSC_GOOGLE_OAUTH_CLIENT_SECRET is set without GSC_GOOGLE_OAUTH_CLIENT_ID/);
    expect(message).not.toContain(SECRET);
    expect(failure({ ...on(), GSC_GOOGLE_OAUTH_CLIENT_ID: 'my-client' })).toMatch(
      /^GSC_GOOGLE_OAUTH_CLIENT_ID is not an OAuth client id \(got "my-client"\); Google's look like/,
    );
  });

  it.each([
    ['GSC_SERVICE_ACCOUNT_KEY', { GSC_SERVICE_ACCOUNT_KEY: '{"type":"service_account"}' }],
    ['GSC_SERVICE_ACCOUNT_KEY_FILE', { GSC_SERVICE_ACCOUNT_KEY_FILE: '/nowhere/key.json' }],
    [
      'GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN',
      { GSC_CLIENT_ID: CLIENT_ID, GSC_CLIENT_SECRET: 'GOCSPX-other', GSC_REFRESH_TOKEN: '1//0refresh-token-value' },
    ],
    ['GSC_CLIENT_ID/GSC_CLIENT_SECRET/GSC_REFRESH_TOKEN', { GSC_REFRESH_TOKEN: '1//0refresh-token-value' }],
    ['GOOGLE_APPLICATION_CREDENTIALS', { GOOGLE_APPLICATION_CREDENTIALS: '/nowhere/adc.json' }],
  ])('are refused beside a shared credential (%s), naming both', (named, shared) => {
    const message = failure({ ...on(), ...shared });
    expect(message).toContain('GSC_GOOGLE_OAUTH_CLIENT_ID');
    expect(message).toContain(`${named} (one shared Google credential) are both set`);
    expect(message).not.toContain('1//0refresh-token-value');
    expect(message).not.toContain(SECRET);
  });

  it('leave a gcloud login found on the machine unused (even a broken one is not read)', () => {
    const gcloud = scratch();
    writeFileSync(join(gcloud, 'application_default_credentials.json'), 'not json');
    expect(() => loadConfig({ ...base(), CLOUDSDK_CONFIG: gcloud })).toThrow(/gcloud application-default login is not a JSON object/);
    const c = loadConfig({ ...on(), CLOUDSDK_CONFIG: gcloud });
    expect(c.credential.kind).toBe('none');
    expect(c.connected).toBeDefined();
  });

  it('are refused with GSC_HTTP_TOKEN, which cannot tell people apart', () => {
    expect(failure({ ...on(), GSC_HTTP_TOKEN: 'http-token-0123456789abcdef' })).toMatch(
      /^GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_HTTP_TOKEN are both set; .*cannot tell people apart/,
    );
  });

  it('allow resource-server mode on any bind (with the IdP client and keys), loopback HTTP and the Nest module', () => {
    const rs = loadConfig({
      ...on(),
      ...ISSUER,
      ...IDP,
      GSC_TRANSPORT: 'http',
      GSC_HTTP_HOST: '0.0.0.0',
      GSC_GRANT_ENCRYPTION_KEYS: `k1:${KEY_A}`,
    });
    expect(rs.connected?.idpClient).toEqual({ clientId: 'search-console-mcp', clientSecret: IDP.GSC_AUTH_CLIENT_SECRET });
    expect(loadConfig({ ...on(), GSC_TRANSPORT: 'http' }).connected?.encryptionKeys).toBeUndefined();
    const embedded = loadSettings({
      GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT_ID,
      GSC_GOOGLE_OAUTH_CLIENT_SECRET: SECRET,
      GSC_STATE_DIR: scratch(),
    });
    expect(embedded.connected?.clientId).toBe(CLIENT_ID);
  });

  it('refuse the other connected settings without connected accounts', () => {
    for (const [name, value] of [
      ['GSC_GRANT_ENCRYPTION_KEYS', `k1:${KEY_A}`],
      ['GSC_OAUTH_AUTHORIZE_URL', 'http://127.0.0.1:4000/o/oauth2/v2/auth'],
      ['GSC_OAUTH_REVOKE_URL', 'http://127.0.0.1:4000/revoke'],
      ['GSC_AUTH_CLIENT_ID', 'search-console-mcp'],
      ['GSC_AUTH_CLIENT_SECRET', 'idp-secret-0123456789abcdef'],
    ]) {
      const message = failure({ ...base(), [name]: value });
      expect(message).toBe(
        `${name} is set but GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_GOOGLE_OAUTH_CLIENT_SECRET are not; it applies to connected accounts only — set both of them, or unset ${name}`,
      );
    }
  });

  it('need the IdP client exactly when GSC_AUTH_ISSUER is on, both of it', () => {
    expect(failure({ ...on(), ...ISSUER })).toMatch(
      /^connected accounts with GSC_AUTH_ISSUER need GSC_AUTH_CLIENT_ID and GSC_AUTH_CLIENT_SECRET \(missing: GSC_AUTH_CLIENT_ID, GSC_AUTH_CLIENT_SECRET\)/,
    );
    const half = failure({ ...on(), ...ISSUER, GSC_AUTH_CLIENT_SECRET: IDP.GSC_AUTH_CLIENT_SECRET });
    expect(half).toMatch(/\(missing: GSC_AUTH_CLIENT_ID\)/);
    expect(half).not.toContain(IDP.GSC_AUTH_CLIENT_SECRET);
    expect(failure({ ...on(), ...IDP })).toMatch(/^GSC_AUTH_CLIENT_ID is set but GSC_AUTH_ISSUER is not; /);
    expect(failure({ ...on(), GSC_AUTH_CLIENT_SECRET: IDP.GSC_AUTH_CLIENT_SECRET })).toMatch(
      /^GSC_AUTH_CLIENT_SECRET is set but GSC_AUTH_ISSUER/,
    );
  });
});

describe('GSC_GRANT_ENCRYPTION_KEYS', () => {
  it('parses id:base64 entries in order (the first encrypts), standard or url-safe base64', () => {
    const urlSafe = Buffer.alloc(32, 0xfb).toString('base64url');
    const c = loadConfig({ ...on(), GSC_GRANT_ENCRYPTION_KEYS: ` new:${KEY_B} , old_1:${KEY_A}, u-3:${urlSafe}` });
    expect(c.connected?.encryptionKeys).toEqual([
      { id: 'new', key: KEY_B },
      { id: 'old_1', key: KEY_A },
      { id: 'u-3', key: Buffer.alloc(32, 0xfb).toString('base64') },
    ]);
  });

  it.each([
    ['no id', `${KEY_A}`, /^GSC_GRANT_ENCRYPTION_KEYS entry 1 has no usable id before a colon/],
    ['a bad id', `k 1:${KEY_A}`, /^GSC_GRANT_ENCRYPTION_KEYS entry 1 has no usable id/],
    ['a long id', `${'k'.repeat(33)}:${KEY_A}`, /^GSC_GRANT_ENCRYPTION_KEYS entry 1 has no usable id/],
    ['a duplicate id', `k1:${KEY_A},k1:${KEY_B}`, /^GSC_GRANT_ENCRYPTION_KEYS names the key id k1 twice/],
    [
      'a short key',
      `k1:${KEY_A},k2:${Buffer.alloc(16, 1).toString('base64')}`,
      /^GSC_GRANT_ENCRYPTION_KEYS entry 2 \(id k2\) is not 32 bytes but 16/,
    ],
    ['a hex key', `k1:${'ab'.repeat(32)}`, /is not 32 bytes but 48/],
    ['not base64', 'k1:this is not base64!', /^GSC_GRANT_ENCRYPTION_KEYS entry 1 \(id k1\) is not base64/],
  ])('refuses %s without echoing a key', (_case, value, expected) => {
    const message = failure({ ...on(), GSC_GRANT_ENCRYPTION_KEYS: value });
    expect(message).toMatch(expected);
    for (const secret of [KEY_A, KEY_B, 'ab'.repeat(32), 'this is not base64']) {
      expect(message).not.toContain(secret);
    }
  });

  it('is required with Redis and with a non-loopback bind, not on loopback with SQLite', () => {
    expect(failure({ ...on(), GSC_REDIS_URL: 'redis://127.0.0.1:6379' })).toMatch(
      /^GSC_GRANT_ENCRYPTION_KEYS is required with GSC_REDIS_URL/,
    );
    expect(failure({ ...on(), ...ISSUER, ...IDP, GSC_TRANSPORT: 'http', GSC_HTTP_HOST: '0.0.0.0' })).toMatch(
      /^GSC_GRANT_ENCRYPTION_KEYS is required when serving HTTP on 0.0.0.0 \(not loopback\)/,
    );
    expect(
      loadConfig({ ...on(), GSC_REDIS_URL: 'redis://127.0.0.1:6379', GSC_GRANT_ENCRYPTION_KEYS: `k1:${KEY_A}` }).connected,
    ).toBeDefined();
  });

  it('refuses a generated grant-key file others may read', () => {
    const dir = scratch();
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dir, 'grant-key'), 'k1:x\n', { mode: 0o644 });
    chmodSync(join(dir, 'grant-key'), 0o644);
    expect(failure({ ...on(), GSC_STATE_DIR: dir })).toMatch(
      /^The grant key ".*grant-key" is readable by every user of this machine \(mode 0644\)/,
    );
    // With explicit keys the file is not read, so its mode does not matter.
    expect(loadConfig({ ...on(), GSC_STATE_DIR: dir, GSC_GRANT_ENCRYPTION_KEYS: `k1:${KEY_A}` }).connected).toBeDefined();
  });
});

describe('secrets of connected accounts', () => {
  it('are scrubbed from the environment and shown only as set in /admin/config', () => {
    const env: NodeJS.ProcessEnv = { ...on(), GSC_GRANT_ENCRYPTION_KEYS: `k1:${KEY_A}` };
    const view = JSON.stringify(configView(loadConfig(env)));
    expect(view).toContain('"google_client_secret":"set"');
    expect(view).toContain(CLIENT_ID);
    for (const secret of [SECRET, KEY_A]) {
      expect(view).not.toContain(secret);
    }
    scrubSecrets(env);
    expect(env.GSC_GOOGLE_OAUTH_CLIENT_SECRET).toBeUndefined();
    expect(env.GSC_GRANT_ENCRYPTION_KEYS).toBeUndefined();
    expect(env.GSC_GOOGLE_OAUTH_CLIENT_ID).toBeUndefined();
  });

  it('never appear in a message even when a key lands in the wrong variable', () => {
    const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const message = failure({ ...on(), GSC_AUTH_CLIENT_ID: pem, GSC_AUTH_CLIENT_SECRET: 'x'.repeat(20), ...ISSUER });
    expect(message).toMatch(/^GSC_AUTH_CLIENT_ID must be/);
    expect(message).not.toContain('PRIVATE KEY-----\n');
  });
});
