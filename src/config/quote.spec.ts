import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, rememberSecrets } from './config-error.js';
import { maskUrl, maskUrlsIn, QUOTE_MAX, quote, safeLine, secretShape, strongSecretShape } from './quote.js';

const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const keyJson = JSON.stringify({ type: 'service_account', client_email: 'a@b.iam.gserviceaccount.com', private_key: pem });
// A distinctive chunk from the middle of the key, not its header.
const middle = pem.split('\n')[5];

describe('quote', () => {
  it.each([
    ['a PEM private key', pem, 'a private key'],
    ['the PEM body without its header', pem.split('\n').slice(1, -2).join(''), 'a long base64 string'],
    ['a whole key file', keyJson, 'a private key'],
    ['a base64 key file', Buffer.from(keyJson).toString('base64'), 'base64-encoded JSON'],
    ['OAuth client secrets', JSON.stringify({ installed: { client_secret: 'x' } }), 'an OAuth client secret'],
    ['any JSON object', '{"a": 1}', 'JSON'],
    ['a client secret', 'GOCSPX-abcdefghijklmnopqrstuvwxyz12', 'an OAuth client secret'],
    ['a refresh token', '1//0gabcdefghijklmnopqrstuvwxyzABCDEF', 'an OAuth refresh token'],
    ['an access token', 'ya29.a0AfH6SMBabcdefghijklmnop', 'an OAuth token'],
    ['a JWT', 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl', 'a JWT'],
    ['a hex token', 'a'.repeat(4) + '0123456789abcdef0123456789abcdef', 'a long hex string'],
    ['an API key', 'AIzaSyA-abcdefghijklmnopqrstuvwxyz12345', 'a Google API key'],
  ])('withholds %s', (_name, value, looksLike) => {
    const shown = quote(value);
    expect(shown).toMatch(/^\[looks like .* — not shown\]$/);
    expect(shown).toContain(looksLike);
    expect(shown).not.toContain(middle);
  });

  it('shows a short value in quotes, escaped', () => {
    expect(quote('list_sites')).toBe('"list_sites"');
    expect(quote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quote('red\u001b[31m\nline\u202e')).toBe('"red\\u001b[31m\\u000aline\\u202e"');
  });

  it('caps a long value and says how long it was', () => {
    const shown = quote('x'.repeat(120_000));
    expect(shown).toBe(`"${'x'.repeat(QUOTE_MAX)}…" (120000 characters)`);
  });

  it('masks URL user info before quoting', () => {
    expect(quote('http://user:hunter2@127.0.0.1:4000/x')).toBe('"http://***@127.0.0.1:4000/x"');
  });

  it('leaves ordinary paths, hosts and properties alone', () => {
    for (const value of [
      '/home/alice/.config/gsc/service-account.json',
      'sc-domain:example.com',
      'https://www.example.com/shop/',
      '0.0.0.0',
      'list_*',
    ]) {
      expect(secretShape(value)).toBeUndefined();
    }
  });

  it('keeps weak shapes out of messages but refuses only strong ones', () => {
    const hex = '0123456789abcdef0123456789abcdef';
    expect(secretShape(hex)).toBeDefined();
    expect(strongSecretShape(hex)).toBeUndefined();
    expect(strongSecretShape(pem)).toBe('a private key');
  });
});

describe('maskUrl', () => {
  it.each([
    ['redis://:pw@h:6379/0', 'redis://:***@h:6379/0'],
    ['rediss://default:pw@h:6380', 'rediss://default:***@h:6380'],
    ['https://tok@example.com/', 'https://***@example.com/'],
    ['https://example.com/', 'https://example.com/'],
  ])('%s → %s', (input, masked) => {
    expect(maskUrl(input)).toBe(masked);
  });

  it('masks an unencoded @ in a password up to the last @', () => {
    expect(maskUrlsIn('see redis://:p@ss@host:1 now')).toBe('see redis://***@host:1 now');
  });
});

describe('safeLine and ConfigError', () => {
  it('makes one line of anything', () => {
    expect(safeLine('a\nb\r\nc')).toBe('a\\u000ab\\u000d\\u000ac');
  });

  it('replaces the value of a secret read in this load', () => {
    rememberSecrets(['the-http-token-value-1234']);
    try {
      expect(new ConfigError('x the-http-token-value-1234 y').message).toBe('x [a secret — not shown] y');
    } finally {
      rememberSecrets([]);
    }
  });

  it('bounds the length', () => {
    expect(new ConfigError('y'.repeat(10_000)).message.length).toBeLessThan(2100);
  });
});
