import { mkdtempSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigModule } from './config.module.js';
import { loadConfig, loadSettings } from './config.js';
import { ConfigError } from './config-error.js';

const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const key = JSON.stringify({ type: 'service_account', client_email: 'bot@p.iam.gserviceaccount.com', private_key: pem });
const base = () => ({ CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')), GSC_SERVICE_ACCOUNT_KEY: key });
const emulator = { GSC_API_ROOT_URL: 'http://127.0.0.1:4000', GSC_OAUTH_TOKEN_URL: 'http://127.0.0.1:4000/token' };

describe('GSC_CONFORMANCE_FIXTURES', () => {
  it('is off unless set to true', () => {
    expect(loadConfig(base()).conformanceFixtures).toBe(false);
    expect(loadConfig({ ...base(), ...emulator, GSC_CONFORMANCE_FIXTURES: 'false' }).conformanceFixtures).toBe(false);
  });

  it('is honoured with both Google endpoints on loopback (the emulator)', () => {
    expect(loadConfig({ ...base(), ...emulator, GSC_CONFORMANCE_FIXTURES: 'true' }).conformanceFixtures).toBe(true);
    const localhost = { GSC_API_ROOT_URL: 'http://localhost:9', GSC_OAUTH_TOKEN_URL: 'http://[::1]:9/token' };
    expect(loadConfig({ ...base(), ...localhost, GSC_CONFORMANCE_FIXTURES: 'TRUE' }).conformanceFixtures).toBe(true);
  });

  it.each([
    ['Google itself', {}, /but GSC_API_ROOT_URL and GSC_OAUTH_TOKEN_URL are not on a loopback address/],
    [
      'the token endpoint at Google',
      { GSC_API_ROOT_URL: emulator.GSC_API_ROOT_URL },
      /but GSC_OAUTH_TOKEN_URL is not on a loopback address/,
    ],
    [
      'an API root off this machine',
      { ...emulator, GSC_API_ROOT_URL: 'http://10.0.0.5:4000' },
      /but GSC_API_ROOT_URL is not on a loopback address/,
    ],
  ])('stops start-up against %s, naming the variable', (_name, urls: Record<string, string>, says) => {
    const load = () => loadConfig({ ...base(), ...urls, GSC_CONFORMANCE_FIXTURES: 'true' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/^GSC_CONFORMANCE_FIXTURES=true is honoured only against the Google emulator/);
    expect(load).toThrow(says);
  });

  it('refuses anything but true or false', () => {
    expect(() => loadConfig({ ...base(), ...emulator, GSC_CONFORMANCE_FIXTURES: 'yes' })).toThrow(
      /GSC_CONFORMANCE_FIXTURES must be true or false/,
    );
  });

  it('is refused inside a host Nest app, where the fixtures cannot be loaded', () => {
    const settings = { GSC_SERVICE_ACCOUNT_KEY: key, ...emulator, GSC_CONFORMANCE_FIXTURES: true };
    expect(loadSettings(settings).conformanceFixtures).toBe(true);
    const module = ConfigModule.forRootAsync({ useFactory: () => ({ settings }) });
    const factory = (module.providers as { provide: unknown; useFactory?: (options: unknown) => unknown }[]).find(
      (p) => typeof p.provide === 'symbol' && p.provide.description === 'CONFIG',
    )!.useFactory!;
    expect(() => factory({ settings })).toThrow(/GSC_CONFORMANCE_FIXTURES is honoured by the standalone server only/);
  });
});
