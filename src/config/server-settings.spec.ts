import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { describeState, loadConfig } from './config.js';
import { defaultStateDir } from './server-settings.js';
import { fromEnvironment } from './setting-source.js';

const base = () => ({ CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')), HOME: '/home/someone' });
const ISSUER = { GSC_AUTH_ISSUER: 'https://login.corp.example/realms/staff', GSC_AUTH_AUDIENCE: 'https://mcp.corp.example/mcp' };

describe('new settings', () => {
  it('reads the Google deadline and the session cap', () => {
    const c = loadConfig({ ...base(), GSC_GOOGLE_TIMEOUT_MS: '5000', GSC_HTTP_MAX_SESSIONS: '25' });
    expect(c.google.timeoutMs).toBe(5000);
    expect(c.http.maxSessions).toBe(25);
  });

  it.each([
    ['GSC_GOOGLE_TIMEOUT_MS', '999'],
    ['GSC_GOOGLE_TIMEOUT_MS', '600001'],
    ['GSC_GOOGLE_TIMEOUT_MS', '30s'],
    ['GSC_HTTP_MAX_SESSIONS', '0'],
    ['GSC_HTTP_MAX_SESSIONS', '-5'],
    ['GSC_HTTP_MAX_SESSIONS', '1.5'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadConfig({ ...base(), [name]: value })).toThrow(new RegExp(`^${name} must be`));
  });

  it('normalises GSC_PUBLIC_URL without a trailing slash', () => {
    expect(loadConfig({ ...base(), GSC_PUBLIC_URL: 'https://MCP.corp.example/' }).http.publicUrl).toBe('https://mcp.corp.example');
    expect(loadConfig({ ...base(), GSC_PUBLIC_URL: 'https://corp.example/search-console//' }).http.publicUrl).toBe(
      'https://corp.example/search-console',
    );
  });

  it.each(['mcp.corp.example', 'ftp://corp.example', 'https://corp.example/?a=1', 'https://corp.example/#x', 'https://u:p@corp.example/'])(
    'refuses GSC_PUBLIC_URL=%s',
    (value) => {
      expect(() => loadConfig({ ...base(), GSC_PUBLIC_URL: value })).toThrow(/^GSC_PUBLIC_URL must/);
    },
  );

  it('puts the embedded store in the XDG state folder, else ~/.local/state', () => {
    expect(loadConfig(base()).state).toEqual({ kind: 'sqlite', dir: '/home/someone/.local/state/google-search-console-mcp' });
    expect(loadConfig({ ...base(), XDG_STATE_HOME: '/var/xdg' }).state).toEqual({
      kind: 'sqlite',
      dir: '/var/xdg/google-search-console-mcp',
    });
    expect(loadConfig({ ...base(), XDG_STATE_HOME: 'relative/ignored' }).state).toMatchObject({
      dir: '/home/someone/.local/state/google-search-console-mcp',
    });
    const dir = mkdtempSync(join(tmpdir(), 'state-'));
    expect(loadConfig({ ...base(), GSC_STATE_DIR: dir }).state).toEqual({ kind: 'sqlite', dir });
  });

  it.each([
    [{ XDG_STATE_HOME: '/xdg/state' }, '/xdg/state/google-search-console-mcp'],
    [{ XDG_STATE_HOME: '  /xdg/state  ' }, '/xdg/state/google-search-console-mcp'],
    [{}, '/home/u/.local/state/google-search-console-mcp'],
    [{ XDG_STATE_HOME: '' }, '/home/u/.local/state/google-search-console-mcp'],
    [{ XDG_STATE_HOME: 'relative/state' }, '/home/u/.local/state/google-search-console-mcp'],
  ])('defaultStateDir: %j → %s', (env, expected) => {
    expect(defaultStateDir(fromEnvironment({ ...env, HOME: '/home/u' }))).toBe(expected);
  });

  it('uses Redis when GSC_REDIS_URL is set, even beside GSC_STATE_DIR, and masks its password in descriptions', () => {
    const c = loadConfig({
      ...base(),
      GSC_REDIS_URL: 'rediss://:s3cret-pass@redis.internal:6380/2',
      GSC_STATE_DIR: mkdtempSync(join(tmpdir(), 'state-')),
    });
    expect(c.state).toEqual({ kind: 'redis', url: 'rediss://:s3cret-pass@redis.internal:6380/2' });
    expect(describeState(c.state)).toBe('Redis at rediss://:***@redis.internal:6380/2');
    expect(describeState({ kind: 'sqlite', dir: '/x' })).toBe('SQLite in /x');
  });

  it.each(['http://:s3cret-pass@redis.internal', 's3cret-pass', 'redis://:s3cret-pass@/', 'redis://:s3cret-pass@h/db'])(
    'refuses GSC_REDIS_URL %s without showing it',
    (value) => {
      expect(() => loadConfig({ ...base(), GSC_REDIS_URL: value })).toThrow(/^GSC_REDIS_URL /);
      try {
        loadConfig({ ...base(), GSC_REDIS_URL: value });
      } catch (error) {
        expect((error as Error).message).not.toContain('s3cret-pass');
      }
    },
  );

  it('refuses a GSC_STATE_DIR that is a file', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'state-')), 'f');
    writeFileSync(file, '');
    expect(() => loadConfig({ ...base(), GSC_STATE_DIR: file })).toThrow(/GSC_STATE_DIR points at .* which is a file/);
  });

  it('reads the policy file and parses its rules before Nest boots', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'policy-')), 'policy.json');
    writeFileSync(file, '{ "rules": [{ "principals": ["alice@corp.example"], "tools": ["essential"] }] }');
    const config = loadConfig({ ...base(), GSC_POLICY_FILE: file });
    expect(config.policy?.rules.map((r) => r.number)).toEqual([1]);
    writeFileSync(file, '{ "rules": [] }');
    expect(() => loadConfig({ ...base(), GSC_POLICY_FILE: file })).toThrow(/GSC_POLICY_FILE/);
    expect(() => loadConfig({ ...base(), GSC_POLICY_FILE: join(file, 'nope') })).toThrow(
      /GSC_POLICY_FILE points at .* cannot be read \(ENOTDIR\)/,
    );
    expect(() => loadConfig({ ...base(), GSC_POLICY_FILE: tmpdir() })).toThrow(/which is not a file/);
  });

  it('keeps GSC_APPROVAL_SECRET when set', () => {
    expect(loadConfig({ ...base(), GSC_APPROVAL_SECRET: 'x'.repeat(32) }).approval).toEqual({
      secret: 'x'.repeat(32),
      secretSource: 'GSC_APPROVAL_SECRET',
    });
  });
});

describe('OAuth resource-server settings', () => {
  it('reads issuer, audience and the claims with their defaults', () => {
    expect(loadConfig({ ...base(), ...ISSUER }).auth).toEqual({
      ...pick(ISSUER),
      jwksUrl: undefined,
      principalClaim: undefined,
      groupsClaim: 'groups',
    });
    const c = loadConfig({
      ...base(),
      ...ISSUER,
      GSC_AUTH_JWKS_URL: 'https://login.corp.example/keys?v=2',
      GSC_AUTH_PRINCIPAL_CLAIM: 'preferred_username',
      GSC_AUTH_GROUPS_CLAIM: 'https://corp.example/claims/groups',
    });
    expect(c.auth).toMatchObject({
      jwksUrl: 'https://login.corp.example/keys?v=2',
      principalClaim: 'preferred_username',
      groupsClaim: 'https://corp.example/claims/groups',
    });
  });

  it('accepts an http issuer on loopback only', () => {
    expect(loadConfig({ ...base(), GSC_AUTH_ISSUER: 'http://127.0.0.1:9000', GSC_AUTH_AUDIENCE: 'a' }).auth?.issuer).toBe(
      'http://127.0.0.1:9000',
    );
    expect(() => loadConfig({ ...base(), GSC_AUTH_ISSUER: 'http://idp.corp.example', GSC_AUTH_AUDIENCE: 'a' })).toThrow(
      /GSC_AUTH_ISSUER must use https:\/\//,
    );
    expect(() => loadConfig({ ...base(), ...ISSUER, GSC_AUTH_JWKS_URL: 'http://idp.corp.example/keys' })).toThrow(
      /GSC_AUTH_JWKS_URL must use https:\/\//,
    );
  });

  it.each([
    [{ GSC_AUTH_ISSUER: ISSUER.GSC_AUTH_ISSUER }, /GSC_AUTH_ISSUER is set without GSC_AUTH_AUDIENCE/],
    [{ GSC_AUTH_AUDIENCE: 'aud' }, /GSC_AUTH_AUDIENCE is set without GSC_AUTH_ISSUER/],
    [{ ...ISSUER, GSC_HTTP_TOKEN: 'a'.repeat(20) }, /GSC_AUTH_ISSUER and GSC_HTTP_TOKEN are both set/],
    [{ GSC_AUTH_JWKS_URL: 'https://x.example/keys' }, /GSC_AUTH_JWKS_URL is set but GSC_AUTH_ISSUER and GSC_AUTH_AUDIENCE are not/],
    [{ GSC_AUTH_GROUPS_CLAIM: 'roles' }, /GSC_AUTH_GROUPS_CLAIM is set but/],
    [{ ...ISSUER, GSC_AUTH_PRINCIPAL_CLAIM: 'e mail' }, /GSC_AUTH_PRINCIPAL_CLAIM must be a claim name/],
    [{ ...ISSUER, GSC_AUTH_ISSUER: 'https://idp.example/?tenant=1' }, /GSC_AUTH_ISSUER must not carry a query/],
  ])('refuses %p', (env, message) => {
    expect(() => loadConfig({ ...base(), ...env })).toThrow(message);
  });

  it('lets a non-loopback bind authenticate with the OAuth pair instead of GSC_HTTP_TOKEN', () => {
    expect(loadConfig({ ...base(), ...ISSUER, GSC_HTTP_HOST: '0.0.0.0' }, { forceHttp: true }).http.host).toBe('0.0.0.0');
    expect(() => loadConfig({ ...base(), GSC_HTTP_HOST: '0.0.0.0' }, { forceHttp: true })).toThrow(
      /set GSC_HTTP_TOKEN, or GSC_AUTH_ISSUER with GSC_AUTH_AUDIENCE/,
    );
  });
});

function pick(o: typeof ISSUER) {
  return { issuer: o.GSC_AUTH_ISSUER, audience: o.GSC_AUTH_AUDIENCE };
}
