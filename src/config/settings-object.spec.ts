import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from './config-error.js';
import { loadConfig, loadSettings } from './config.js';

const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const key = { type: 'service_account', client_email: 'bot@p.iam.gserviceaccount.com', private_key: pem };
const middle = pem.split('\n')[4];

function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadSettings', () => {
  it('takes the table’s names with lists as arrays, booleans and numbers as themselves', () => {
    const c = loadSettings({
      GSC_ALLOWED_SITES: ['sc-domain:corp.example', ' https://blog.corp.example '],
      GSC_READ_ONLY: true,
      ELICITATION: false,
      GSC_HTTP_PORT: 0,
      GSC_GOOGLE_TIMEOUT_MS: 2500,
      GSC_ALLOW_TOOLS: ['essential'],
      GSC_DENY_TOOLS: [],
    });
    expect(c.allowedSites).toEqual(['sc-domain:corp.example', 'https://blog.corp.example/']);
    expect(c).toMatchObject({ readOnly: true, elicitation: false, http: { port: 0 }, google: { timeoutMs: 2500 }, denyTools: [] });
    expect(c.allowTools?.map((p) => p.text)).toEqual(['essential']);
  });

  it('gives the same result as the environment for the same strings', () => {
    const strings = {
      GSC_ALLOWED_SITES: 'sc-domain:corp.example',
      GSC_READ_ONLY: 'TRUE',
      GSC_HTTP_PORT: '8080',
      GSC_SITE_URL: 'https://corp.example',
    };
    const home = mkdtempSync(join(tmpdir(), 'home-'));
    const fromEnv = loadConfig({ ...strings, HOME: home, CLOUDSDK_CONFIG: home });
    const fromSettings = loadSettings(strings, { env: { HOME: home, CLOUDSDK_CONFIG: home } });
    expect(fromSettings).toEqual(fromEnv);
  });

  it('accepts the key as an object, as JSON text, or as a file path', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'key-')), 'key.json');
    writeFileSync(file, JSON.stringify(key));
    for (const settings of [
      { GSC_SERVICE_ACCOUNT_KEY: key },
      { GSC_SERVICE_ACCOUNT_KEY: JSON.stringify(key) },
      { GSC_SERVICE_ACCOUNT_KEY_FILE: file },
    ]) {
      expect(loadSettings(settings).credential).toMatchObject({ kind: 'service_account', key: { client_email: key.client_email } });
    }
  });

  it('treats undefined, null and blank strings as unset', () => {
    const c = loadSettings({ GSC_SITE_URL: undefined, GSC_ALLOWED_SITES: null, GSC_READ_ONLY: '  ' });
    expect(c.siteUrl).toBeUndefined();
    expect(c.allowedSites).toBeUndefined();
    expect(c.readOnly).toBe(false);
  });

  it('reads nothing from the machine unless env is passed: no gcloud login is probed', () => {
    const gcloud = mkdtempSync(join(tmpdir(), 'gcloud-'));
    writeFileSync(
      join(gcloud, 'application_default_credentials.json'),
      JSON.stringify({
        type: 'authorized_user',
        client_id: '1-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com',
        client_secret: 's',
        refresh_token: 'r',
      }),
    );
    expect(loadSettings({}).credential.kind).toBe('none');
    expect(loadSettings({}, { env: { CLOUDSDK_CONFIG: gcloud } }).credential.kind).toBe('oauth');
  });

  it.each([
    [
      { GSC_ALOWED_SITES: ['x'] },
      /^unknown setting "GSC_ALOWED_SITES" — did you mean GSC_ALLOWED_SITES\?; the settings are .*GSC_READ_ONLY/,
    ],
    [{ gsc_read_only: true }, /did you mean GSC_READ_ONLY\?/],
    [{ siteUrl: 'x' }, /^unknown setting "siteUrl"; the settings are/],
    [{ GSC_READ_ONLY: 'yes' }, /^GSC_READ_ONLY must be true or false \(got "yes"\)/],
    [{ GSC_READ_ONLY: 1 }, /^GSC_READ_ONLY must be true or false .*got a number/],
    [{ GSC_HTTP_PORT: 3000.5 }, /^GSC_HTTP_PORT must be an integer from 0 to 65535/],
    [{ GSC_HTTP_PORT: Number.NaN }, /^GSC_HTTP_PORT must be an integer .*got a number/],
    [{ GSC_HTTP_PORT: [3000] }, /^GSC_HTTP_PORT must be an integer .*got an array/],
    [{ GSC_SITE_URL: ['https://a.example/'] }, /^GSC_SITE_URL must be a string, got an array/],
    [{ GSC_ALLOWED_SITES: [] }, /^GSC_ALLOWED_SITES is an empty list, which would mean "no restriction"/],
    [{ GSC_ALLOW_TOOLS: [''] }, /^GSC_ALLOW_TOOLS is an empty list/],
    [{ GSC_ALLOWED_SITES: ['sc-domain:a.example,sc-domain:b.example'] }, /^GSC_ALLOWED_SITES\[0\] .* contains a comma/],
    [{ GSC_ALLOWED_SITES: ['sc-domain:a.example', 7] }, /^GSC_ALLOWED_SITES\[1\] must be a string, got a number/],
    [{ GSC_ALLOWED_SITES: 'example.com' }, /^GSC_ALLOWED_SITES entry "example.com" is a bare hostname/],
    [{ GSC_SERVICE_ACCOUNT_KEY: 42 }, /^GSC_SERVICE_ACCOUNT_KEY must be the key file's JSON text.*got a number/],
  ])('refuses %p naming the setting', (settings, message) => {
    expect(() => loadSettings(settings)).toThrow(message);
  });

  it('refuses a settings value that is not an object', () => {
    expect(() => loadSettings([] as unknown as Record<string, unknown>)).toThrow(/^settings must be an object/);
  });

  it.each([
    ['GSC_SITE_URL', pem],
    ['GSC_HTTP_HOST', pem],
    ['GSC_ALLOWED_SITES', [pem]],
    ['GSC_ALLOW_TOOLS', [JSON.stringify(key)]],
    ['GSC_CLIENT_ID', JSON.stringify(key)],
    ['GSC_AUTH_AUDIENCE', pem],
  ])('never shows a key given as %s', (name, value) => {
    const error = thrown(() =>
      loadSettings({
        GSC_AUTH_ISSUER: 'https://idp.example',
        ...(name === 'GSC_AUTH_AUDIENCE' ? {} : { GSC_AUTH_AUDIENCE: 'a' }),
        [name]: value,
      }),
    );
    expect(error.message).toContain(name);
    expect(error.message).not.toContain(middle);
    expect(error.message).not.toContain('BEGIN');
  });

  it('never shows a secret setting, whatever is wrong with it', () => {
    const secret = 'short-but-secret';
    for (const settings of [
      { GSC_APPROVAL_SECRET: secret },
      { GSC_HTTP_TOKEN: 'tiny' },
      { GSC_CLIENT_SECRET: secret },
      { GSC_REDIS_URL: `http://:${secret}@h` },
    ]) {
      const error = thrown(() => loadSettings(settings));
      expect(error.message).not.toContain(secret);
      expect(error.message).not.toContain('tiny');
    }
  });
});
