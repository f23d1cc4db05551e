import { mkdtempSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadConfig, scrubSecrets } from './config.js';

const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const key = { type: 'service_account', client_email: 'bot@p.iam.gserviceaccount.com', private_key: pem, private_key_id: 'k1' };
const CLIENT_ID = '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com';
const noGcloud = () => ({ CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')) });

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig(noGcloud());
    expect(c.transport).toBe('stdio');
    expect(c.http).toMatchObject({ host: '127.0.0.1', port: 3000, allowedOrigins: [] });
    expect(c.elicitation).toBe(true);
    expect(c.readOnly).toBe(false);
    expect(c.credential.kind).toBe('none');
    expect(c.approval).toEqual({ secretSource: 'store' });
    expect(c.http.maxSessions).toBe(1000);
    expect(c.google.timeoutMs).toBe(30000);
    expect(c.auth).toBeUndefined();
    expect(c.policy).toBeUndefined();
  });

  it('is deeply frozen', () => {
    const c = loadConfig({ ...noGcloud(), GSC_ALLOWED_SITES: 'sc-domain:example.com' });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.http)).toBe(true);
    expect(() => (c.allowedSites as string[]).push('x')).toThrow();
  });

  it('treats empty and whitespace-only values as unset', () => {
    const c = loadConfig({ ...noGcloud(), ELICITATION: '   ', GSC_SITE_URL: '', GSC_HTTP_PORT: ' ' });
    expect(c.elicitation).toBe(true);
    expect(c.siteUrl).toBeUndefined();
    expect(c.http.port).toBe(3000);
  });

  it('parses booleans strictly but case-insensitively and trimmed', () => {
    expect(loadConfig({ ...noGcloud(), ELICITATION: ' FALSE ' }).elicitation).toBe(false);
    expect(loadConfig({ ...noGcloud(), GSC_READ_ONLY: 'True' }).readOnly).toBe(true);
    expect(() => loadConfig({ ...noGcloud(), GSC_READ_ONLY: 'on' })).toThrow(/GSC_READ_ONLY must be true or false/);
  });

  it('normalises GSC_SITE_URL and the allowlist entries like Search Console', () => {
    const c = loadConfig({
      ...noGcloud(),
      GSC_SITE_URL: 'https://Example.com/shop',
      GSC_ALLOWED_SITES: ' https://example.com/shop , SC-DOMAIN:Example.ORG,',
    });
    expect(c.siteUrl).toBe('https://example.com/shop/');
    expect(c.allowedSites).toEqual(['https://example.com/shop/', 'sc-domain:example.org']);
  });

  it('accepts a default property covered by a domain entry of the allowlist', () => {
    expect(
      loadConfig({ ...noGcloud(), GSC_SITE_URL: 'https://www.example.com/', GSC_ALLOWED_SITES: 'sc-domain:example.com' }).siteUrl,
    ).toBe('https://www.example.com/');
  });

  it('reads a service account key as raw JSON, base64 JSON or a file', () => {
    const raw = loadConfig({ ...noGcloud(), GSC_SERVICE_ACCOUNT_KEY: JSON.stringify(key) });
    const b64 = loadConfig({ ...noGcloud(), GSC_SERVICE_ACCOUNT_KEY: Buffer.from(JSON.stringify(key)).toString('base64') });
    const file = join(mkdtempSync(join(tmpdir(), 'key-')), 'key.json');
    writeFileSync(file, JSON.stringify(key));
    const fromFile = loadConfig({ ...noGcloud(), GSC_SERVICE_ACCOUNT_KEY_FILE: file });
    for (const c of [raw, b64, fromFile]) {
      expect(c.credential).toMatchObject({ kind: 'service_account', key: { client_email: key.client_email } });
    }
    expect(fromFile.credential).toMatchObject({ origin: 'GSC_SERVICE_ACCOUNT_KEY_FILE' });
  });

  it('takes the OAuth triple when complete', () => {
    const c = loadConfig({ ...noGcloud(), GSC_CLIENT_ID: CLIENT_ID, GSC_CLIENT_SECRET: 'secret', GSC_REFRESH_TOKEN: 'rt' });
    expect(c.credential).toMatchObject({ kind: 'oauth', clientId: CLIENT_ID, refreshToken: 'rt' });
  });

  it('falls back to GOOGLE_APPLICATION_CREDENTIALS only when nothing explicit is set', () => {
    const dir = mkdtempSync(join(tmpdir(), 'adc-'));
    const adc = join(dir, 'adc.json');
    writeFileSync(adc, JSON.stringify({ type: 'authorized_user', client_id: CLIENT_ID, client_secret: 'cs', refresh_token: 'r' }));
    expect(loadConfig({ ...noGcloud(), GOOGLE_APPLICATION_CREDENTIALS: adc }).credential).toMatchObject({
      kind: 'oauth',
      clientId: CLIENT_ID,
    });
    expect(
      loadConfig({ ...noGcloud(), GOOGLE_APPLICATION_CREDENTIALS: adc, GSC_SERVICE_ACCOUNT_KEY: JSON.stringify(key) }).credential.kind,
    ).toBe('service_account');
  });

  it('uses a gcloud application-default login when present', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gcloud-'));
    writeFileSync(
      join(dir, 'application_default_credentials.json'),
      JSON.stringify({ type: 'authorized_user', client_id: CLIENT_ID, client_secret: 's', refresh_token: 'r' }),
    );
    expect(loadConfig({ CLOUDSDK_CONFIG: dir }).credential).toMatchObject({
      kind: 'oauth',
      clientId: CLIENT_ID,
      origin: 'gcloud application-default login',
    });
  });

  it('names the key file type when an authorized_user login is pasted as the key', () => {
    expect(() => loadConfig({ ...noGcloud(), GSC_SERVICE_ACCOUNT_KEY: JSON.stringify({ type: 'authorized_user' }) })).toThrow(
      /user login \(authorized_user\)/,
    );
  });
});

describe('scrubSecrets', () => {
  it('removes secret values from the environment once read', () => {
    const env: NodeJS.ProcessEnv = {
      GSC_SERVICE_ACCOUNT_KEY: 'k',
      GSC_CLIENT_ID: 'c',
      GSC_CLIENT_SECRET: 's',
      GSC_REFRESH_TOKEN: 'r',
      GSC_HTTP_TOKEN: 't',
      GSC_ADMIN_TOKEN: 'a',
      GSC_APPROVAL_SECRET: 'x',
      GSC_REDIS_URL: 'redis://:pw@h',
      GSC_SITE_URL: 'keep',
    };
    scrubSecrets(env);
    expect(env).toEqual({ GSC_SITE_URL: 'keep' });
  });
});
