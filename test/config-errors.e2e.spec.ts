import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isolatedEnv, MAIN } from './support/env.js';

const SECRET = 'S3CR3T-value-that-must-never-be-printed';
const CLIENT_ID = '123456789012-abcdefghijklmnopqrstuvwxyz012345.apps.googleusercontent.com';
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const clientSecrets = JSON.stringify({
  installed: { client_id: 'x.apps.googleusercontent.com', client_secret: SECRET, redirect_uris: ['http://localhost'] },
});
const goodKey = JSON.stringify({ type: 'service_account', client_email: 'a@b.iam.gserviceaccount.com', private_key: PEM });

type Case = { name: string; env: Record<string, string>; args?: string[]; says: RegExp[]; secret?: string };

function run(env: Record<string, string>, args: string[] = []) {
  return spawnSync(process.execPath, [MAIN, ...args], { env: isolatedEnv(env), input: '', encoding: 'utf8', timeout: 20000 });
}

/** Exit 1, nothing on stdout, exactly one stderr line, never a stack. */
function oneLineFailure(env: Record<string, string>, args: string[] = []): string {
  const result = run(env, args);
  expect(result.status).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^google-search-console-mcp: /);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return lines[0];
}

const cases: Case[] = [
  { name: 'ELICITATION not a boolean', env: { ELICITATION: 'maybe' }, says: [/ELICITATION must be true or false/] },
  { name: 'ELICITATION=1 is not accepted either', env: { ELICITATION: '1' }, says: [/ELICITATION/, /true or false/] },
  { name: 'GSC_READ_ONLY typo', env: { GSC_READ_ONLY: 'yes' }, says: [/GSC_READ_ONLY must be true or false/] },
  {
    name: 'conformance fixtures with a real credential against Google',
    env: { GSC_SERVICE_ACCOUNT_KEY: goodKey, GSC_CONFORMANCE_FIXTURES: 'true' },
    says: [/GSC_CONFORMANCE_FIXTURES=true is honoured only against the Google emulator/, /unset GSC_CONFORMANCE_FIXTURES/],
  },
  {
    name: 'partial OAuth triple',
    env: { GSC_CLIENT_ID: CLIENT_ID, GSC_CLIENT_SECRET: SECRET },
    says: [/GSC_CLIENT_ID, GSC_CLIENT_SECRET and GSC_REFRESH_TOKEN must be set together/, /missing: GSC_REFRESH_TOKEN/],
    secret: SECRET,
  },
  {
    name: 'key and key file both set',
    env: { GSC_SERVICE_ACCOUNT_KEY: goodKey, GSC_SERVICE_ACCOUNT_KEY_FILE: '/tmp/key.json' },
    says: [/both set/],
  },
  {
    name: 'key neither JSON nor base64 JSON',
    env: { GSC_SERVICE_ACCOUNT_KEY: SECRET },
    says: [/GSC_SERVICE_ACCOUNT_KEY is neither JSON nor base64/],
    secret: SECRET,
  },
  {
    name: 'broken JSON key',
    env: { GSC_SERVICE_ACCOUNT_KEY: `{"private_key": "${SECRET}"` },
    says: [/GSC_SERVICE_ACCOUNT_KEY is not a JSON object/],
    secret: SECRET,
  },
  { name: 'bare PEM as the key', env: { GSC_SERVICE_ACCOUNT_KEY: PEM }, says: [/GSC_SERVICE_ACCOUNT_KEY holds a bare PEM private key/] },
  {
    name: 'OAuth client secrets pasted as the key (raw)',
    env: { GSC_SERVICE_ACCOUNT_KEY: clientSecrets },
    says: [/OAuth client secrets file/, /not a service account key/],
    secret: SECRET,
  },
  {
    name: 'OAuth client secrets pasted as the key (base64)',
    env: { GSC_SERVICE_ACCOUNT_KEY: Buffer.from(clientSecrets).toString('base64') },
    says: [/OAuth client secrets file/],
    secret: SECRET,
  },
  {
    name: 'key file that does not exist',
    env: { GSC_SERVICE_ACCOUNT_KEY_FILE: '/nonexistent/key.json' },
    says: [/GSC_SERVICE_ACCOUNT_KEY_FILE points at "\/nonexistent\/key.json"/, /ENOENT/],
  },
  {
    name: 'GOOGLE_APPLICATION_CREDENTIALS that does not exist',
    env: { GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent/adc.json' },
    says: [/GOOGLE_APPLICATION_CREDENTIALS points at/],
  },
  {
    name: 'GSC_SITE_URL bare hostname',
    env: { GSC_SITE_URL: 'example.com' },
    says: [/GSC_SITE_URL "example.com" is a bare hostname/, /sc-domain:example\.com/, /https:\/\/example\.com\//],
  },
  {
    name: 'GSC_SITE_URL outside the allowlist',
    env: { GSC_SITE_URL: 'https://other.example/', GSC_ALLOWED_SITES: 'sc-domain:example.com' },
    says: [/GSC_SITE_URL "https:\/\/other\.example\/" is outside GSC_ALLOWED_SITES \("sc-domain:example.com"\)/],
  },
  {
    name: 'GSC_ALLOWED_SITES entry that is not a property',
    env: { GSC_ALLOWED_SITES: 'sc-domain:example.com,ftp://example.com/' },
    says: [/GSC_ALLOWED_SITES entry "ftp:\/\/example.com\/"/, /only http and https/],
  },
  { name: 'GSC_ALLOWED_SITES with no entries', env: { GSC_ALLOWED_SITES: ' , ,' }, says: [/GSC_ALLOWED_SITES has no entries/] },
  {
    name: 'pattern with a leading *',
    env: { GSC_ALLOW_TOOLS: '*_sites' },
    says: [/GSC_ALLOW_TOOLS entry "\*_sites" is not a valid pattern/, /list_\*/],
  },
  {
    name: 'pattern with an inner *',
    env: { GSC_DENY_TOOLS: 'list_*_x' },
    says: [/GSC_DENY_TOOLS entry "list_\*_x" is not a valid pattern/],
  },
  {
    name: 'allow entry that matches no tool',
    env: { GSC_ALLOW_TOOLS: 'list_sites,lst_sitemaps' },
    says: [/GSC_ALLOW_TOOLS entry "lst_sitemaps" matches no tool/, /the tools are: .*list_sites/],
  },
  {
    name: 'deny entry that matches no tool',
    env: { GSC_DENY_TOOLS: 'nothing_*' },
    says: [/GSC_DENY_TOOLS entry "nothing_\*" matches no tool/],
  },
  {
    name: 'write tool named under read-only',
    env: { GSC_READ_ONLY: 'true', GSC_ALLOW_TOOLS: 'list_sites,add_site' },
    says: [/GSC_ALLOW_TOOLS names add_site, a write tool/, /GSC_READ_ONLY=true/],
  },
  { name: 'GSC_HTTP_PORT out of range', env: { GSC_HTTP_PORT: '70000' }, says: [/GSC_HTTP_PORT must be an integer from 0 to 65535/] },
  { name: 'GSC_HTTP_HOST not a host', env: { GSC_HTTP_HOST: 'my host' }, says: [/GSC_HTTP_HOST must be a host name or IP address/] },
  { name: 'GSC_TRANSPORT unknown', env: { GSC_TRANSPORT: 'websocket' }, says: [/GSC_TRANSPORT must be stdio or http/] },
  {
    name: 'non-loopback bind without a token',
    env: { GSC_TRANSPORT: 'http', GSC_HTTP_HOST: '0.0.0.0' },
    says: [/GSC_HTTP_HOST 0\.0\.0\.0 is not a loopback address/, /set GSC_HTTP_TOKEN, or GSC_AUTH_ISSUER with GSC_AUTH_AUDIENCE/],
  },
  { name: 'non-loopback bind without a token, via --http', env: { GSC_HTTP_HOST: '0.0.0.0' }, args: ['--http'], says: [/GSC_HTTP_TOKEN/] },
  {
    name: 'short approval secret',
    env: { GSC_APPROVAL_SECRET: 'short-secret-value' },
    says: [/GSC_APPROVAL_SECRET must be at least 32 bytes/],
    secret: 'short-secret-value',
  },
  {
    name: 'short HTTP token',
    env: { GSC_HTTP_TOKEN: 'tiny-token' },
    says: [/GSC_HTTP_TOKEN must be at least 16 characters/],
    secret: 'tiny-token',
  },
  {
    name: 'HTTP token with a space',
    env: { GSC_HTTP_TOKEN: 'two words for one token' },
    says: [/GSC_HTTP_TOKEN must be printable ASCII without spaces/],
    secret: 'two words',
  },
  {
    name: 'short admin token',
    env: { GSC_ADMIN_TOKEN: 'tiny-admin' },
    says: [/GSC_ADMIN_TOKEN must be at least 16 characters/],
    secret: 'tiny-admin',
  },
  {
    name: 'impersonation without a service account',
    env: { GSC_CLIENT_ID: CLIENT_ID, GSC_CLIENT_SECRET: SECRET, GSC_REFRESH_TOKEN: SECRET, GSC_IMPERSONATE: 'boss@example.com' },
    says: [/GSC_IMPERSONATE applies to service account credentials only/],
    secret: SECRET,
  },
  {
    name: 'impersonation subject that is not an address',
    env: { GSC_SERVICE_ACCOUNT_KEY: goodKey, GSC_IMPERSONATE: 'boss' },
    says: [/GSC_IMPERSONATE must be the e-mail address .* \(got "boss"\)/],
  },
  {
    name: 'OAuth client id of the wrong shape',
    env: { GSC_CLIENT_ID: 'my-client', GSC_CLIENT_SECRET: SECRET, GSC_REFRESH_TOKEN: SECRET },
    says: [/GSC_CLIENT_ID is not an OAuth client id \(got "my-client"\)/, /apps\.googleusercontent\.com/],
    secret: SECRET,
  },
  {
    name: 'API root with a path',
    env: { GSC_API_ROOT_URL: 'http://127.0.0.1:1/prefix/' },
    says: [/GSC_API_ROOT_URL must be an origin without a path/],
  },
  {
    name: 'token URL that is not a URL',
    env: { GSC_OAUTH_TOKEN_URL: 'token-endpoint' },
    says: [/GSC_OAUTH_TOKEN_URL must be an http\(s\) URL/],
  },
  {
    name: 'audit log in a missing directory',
    env: { GSC_AUDIT_LOG: '/nonexistent/dir/audit.jsonl' },
    says: [/GSC_AUDIT_LOG points at "\/nonexistent\/dir\/audit.jsonl"/],
  },
];

describe('configuration errors stop start-up with exit code 1 and one stderr line', () => {
  it.each(cases)('$name', ({ env, args = [], says, secret }) => {
    const line = oneLineFailure(env, args);
    for (const pattern of says) {
      expect(line).toMatch(pattern);
    }
    if (secret) {
      expect(line).not.toContain(secret);
    }
  });
});

// ---- The new settings ------------------------------------------------------

const stateFile = join(mkdtempSync(join(tmpdir(), 'gsc-state-')), 'a-file');
writeFileSync(stateFile, '');
const ISSUER = { GSC_AUTH_ISSUER: 'https://login.corp.example', GSC_AUTH_AUDIENCE: 'https://mcp.corp.example/mcp' };

const anomaliesFolder = mkdtempSync(join(tmpdir(), 'gsc-anomalies-'));
function anomaliesFile(content: unknown): string {
  const path = join(anomaliesFolder, `anomalies-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}
const anomaly = {
  id: 'image-clicks-2026',
  start_date: '2026-11-14',
  end_date: '2026-11-19',
  affected: ['clicks'],
  source: 'https://support.google.com/webmasters/answer/6211453',
  sentence: 'Some image click data was dropped.',
};

const newSettings: Case[] = [
  {
    name: 'GSC_GOOGLE_TIMEOUT_MS too small',
    env: { GSC_GOOGLE_TIMEOUT_MS: '10' },
    says: [/GSC_GOOGLE_TIMEOUT_MS must be a whole number of milliseconds from 1000 to 600000/, /\(got "10"\)/],
  },
  { name: 'GSC_GOOGLE_TIMEOUT_MS with a unit', env: { GSC_GOOGLE_TIMEOUT_MS: '30s' }, says: [/GSC_GOOGLE_TIMEOUT_MS must be/] },
  {
    name: 'GSC_HTTP_MAX_SESSIONS zero',
    env: { GSC_HTTP_MAX_SESSIONS: '0' },
    says: [/GSC_HTTP_MAX_SESSIONS must be an integer from 1 to 100000 \(default 1000\)/],
  },
  {
    name: 'GSC_EXPORT_MAX_PER_PRINCIPAL zero',
    env: { GSC_EXPORT_MAX_PER_PRINCIPAL: '0' },
    says: [/GSC_EXPORT_MAX_PER_PRINCIPAL must be an integer from 1 to 100 \(default 10\)/],
  },
  {
    name: 'GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL with a unit',
    env: { GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL: '64MB' },
    says: [/GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL must be a whole number of bytes from 1000000 to 999999999 \(default 67108864, 64 MiB\)/],
  },
  {
    name: 'GSC_PUBLIC_URL without a scheme',
    env: { GSC_PUBLIC_URL: 'mcp.corp.example' },
    says: [/GSC_PUBLIC_URL must be the absolute http\(s\) URL/],
  },
  {
    name: 'GSC_PUBLIC_URL with a query',
    env: { GSC_PUBLIC_URL: 'https://mcp.corp.example/?x=1' },
    says: [/GSC_PUBLIC_URL must not carry a query or fragment/],
  },
  {
    name: 'GSC_STATE_DIR that is a file',
    env: { GSC_STATE_DIR: stateFile },
    says: [/GSC_STATE_DIR points at .*, which is a file, not a folder/],
  },
  {
    name: 'GSC_REDIS_URL with another scheme',
    env: { GSC_REDIS_URL: `https://:${SECRET}@redis.internal` },
    says: [/GSC_REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/],
    secret: SECRET,
  },
  {
    name: 'GSC_REDIS_URL that is only a password',
    env: { GSC_REDIS_URL: SECRET },
    says: [/GSC_REDIS_URL must be/, /not shown/],
    secret: SECRET,
  },
  {
    name: 'GSC_REDIS_URL with a path',
    env: { GSC_REDIS_URL: `redis://:${SECRET}@h:6379/queue` },
    says: [/GSC_REDIS_URL has a path that is not a database number/],
    secret: SECRET,
  },
  {
    name: 'GSC_AUTH_ISSUER without an audience',
    env: { GSC_AUTH_ISSUER: ISSUER.GSC_AUTH_ISSUER },
    says: [/GSC_AUTH_ISSUER is set without GSC_AUTH_AUDIENCE/],
  },
  {
    name: 'GSC_AUTH_AUDIENCE without an issuer',
    env: { GSC_AUTH_AUDIENCE: 'aud' },
    says: [/GSC_AUTH_AUDIENCE is set without GSC_AUTH_ISSUER/],
  },
  {
    name: 'issuer together with GSC_HTTP_TOKEN',
    env: { ...ISSUER, GSC_HTTP_TOKEN: SECRET },
    says: [/GSC_AUTH_ISSUER and GSC_HTTP_TOKEN are both set/],
    secret: SECRET,
  },
  {
    name: 'plain-http issuer off loopback',
    env: { ...ISSUER, GSC_AUTH_ISSUER: 'http://login.corp.example' },
    says: [/GSC_AUTH_ISSUER must use https:\/\//],
  },
  {
    name: 'plain-http key set off loopback',
    env: { ...ISSUER, GSC_AUTH_JWKS_URL: 'http://login.corp.example/keys' },
    says: [/GSC_AUTH_JWKS_URL must use https:\/\//],
  },
  {
    name: 'issuer that is not a URL',
    env: { ...ISSUER, GSC_AUTH_ISSUER: 'login.corp.example' },
    says: [/GSC_AUTH_ISSUER must be an https:\/\/ URL/, /exactly as the tokens’ iss claim/],
  },
  {
    name: 'issuer with a query',
    env: { ...ISSUER, GSC_AUTH_ISSUER: 'https://login.corp.example/?tenant=staff' },
    says: [/GSC_AUTH_ISSUER must not carry a query or fragment/],
  },
  {
    name: 'issuer with a password in it',
    env: { ...ISSUER, GSC_AUTH_ISSUER: `https://admin:${SECRET}@login.corp.example` },
    says: [/GSC_AUTH_ISSUER must not carry a user name or password/],
    secret: SECRET,
  },
  {
    name: 'audience of whitespace only counts as unset',
    env: { ...ISSUER, GSC_AUTH_AUDIENCE: '   ' },
    says: [/GSC_AUTH_ISSUER is set without GSC_AUTH_AUDIENCE/],
  },
  {
    name: 'key set that is not http(s)',
    env: { ...ISSUER, GSC_AUTH_JWKS_URL: 'ftp://login.corp.example/keys' },
    says: [/GSC_AUTH_JWKS_URL must be the issuer's JWKS URL/],
  },
  {
    name: 'claim setting without the OAuth pair',
    env: { GSC_AUTH_PRINCIPAL_CLAIM: 'upn' },
    says: [/GSC_AUTH_PRINCIPAL_CLAIM is set but GSC_AUTH_ISSUER and GSC_AUTH_AUDIENCE are not/],
  },
  {
    name: 'groups claim with a space',
    env: { ...ISSUER, GSC_AUTH_GROUPS_CLAIM: 'my groups' },
    says: [/GSC_AUTH_GROUPS_CLAIM must be a claim name/],
  },
  {
    name: 'GSC_POLICY_FILE missing',
    env: { GSC_POLICY_FILE: '/nonexistent/policy.json' },
    says: [/GSC_POLICY_FILE points at "\/nonexistent\/policy.json", which cannot be read \(ENOENT\)/],
  },
  {
    name: 'GSC_POLICY_FILE that is a folder',
    env: { GSC_POLICY_FILE: tmpdir() },
    says: [/GSC_POLICY_FILE points at .*, which is not a file/],
  },
  {
    name: 'GSC_ANOMALIES_FILE missing',
    env: { GSC_ANOMALIES_FILE: '/nonexistent/anomalies.json' },
    says: [/GSC_ANOMALIES_FILE points at "\/nonexistent\/anomalies.json", which cannot be read \(ENOENT\)/],
  },
  {
    name: 'GSC_ANOMALIES_FILE that is not JSON',
    env: { GSC_ANOMALIES_FILE: anomaliesFile('{"version": 1,') },
    says: [/GSC_ANOMALIES_FILE is not valid JSON/, /"anomalies"/],
  },
  {
    name: 'GSC_ANOMALIES_FILE with an entry Google never announced that way',
    env: { GSC_ANOMALIES_FILE: anomaliesFile({ version: 1, updated: '2026-12-05', anomalies: [{ ...anomaly, affected: ['sessions'] }] }) },
    says: [/GSC_ANOMALIES_FILE anomaly 1 \(image-clicks-2026\): "affected" must be a non-empty list of clicks, impressions, ctr, position/],
  },
  {
    name: 'GSC_ANOMALIES_FILE without a version',
    env: { GSC_ANOMALIES_FILE: anomaliesFile({ updated: '2026-12-05', anomalies: [anomaly] }) },
    says: [/GSC_ANOMALIES_FILE "version" must be a whole number from 1/],
  },
];

describe('the new settings are checked as strictly', () => {
  it.each(newSettings)('$name', ({ env, says, secret }) => {
    const line = oneLineFailure(env);
    for (const pattern of says) {
      expect(line).toMatch(pattern);
    }
    if (secret) {
      expect(line).not.toContain(secret);
    }
  });
});

// ---- Connected accounts (PRODUCT.md §8d) ------------------------------------

const CONNECTED = { GSC_GOOGLE_OAUTH_CLIENT_ID: CLIENT_ID, GSC_GOOGLE_OAUTH_CLIENT_SECRET: SECRET };
const brokenGrantKey = mkdtempSync(join(tmpdir(), 'gsc-grant-key-'));
writeFileSync(join(brokenGrantKey, 'grant-key'), `k1:${SECRET}\n`, { mode: 0o600 });
const connectedCases: Case[] = [
  {
    name: 'connected accounts with half the Google client',
    env: { GSC_GOOGLE_OAUTH_CLIENT_SECRET: SECRET },
    says: [/GSC_GOOGLE_OAUTH_CLIENT_SECRET is set without GSC_GOOGLE_OAUTH_CLIENT_ID/],
    secret: SECRET,
  },
  {
    name: 'connected accounts beside a service account key',
    env: { ...CONNECTED, GSC_SERVICE_ACCOUNT_KEY: goodKey },
    says: [/GSC_GOOGLE_OAUTH_CLIENT_ID .* and GSC_SERVICE_ACCOUNT_KEY \(one shared Google credential\) are both set/],
    secret: SECRET,
  },
  {
    name: 'connected accounts beside an explicit GOOGLE_APPLICATION_CREDENTIALS',
    env: { ...CONNECTED, GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent/adc.json' },
    says: [/GSC_GOOGLE_OAUTH_CLIENT_ID .* and GOOGLE_APPLICATION_CREDENTIALS .* are both set/],
    secret: SECRET,
  },
  {
    name: 'connected accounts with the shared bearer token',
    env: { ...CONNECTED, GSC_TRANSPORT: 'http', GSC_HTTP_TOKEN: 'http-token-0123456789abcdef' },
    says: [/GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_HTTP_TOKEN are both set/],
    secret: 'http-token-0123456789abcdef',
  },
  {
    name: 'a grant key of the wrong length',
    env: { ...CONNECTED, GSC_GRANT_ENCRYPTION_KEYS: `k1:${randomBytes(16).toString('base64')}` },
    says: [/GSC_GRANT_ENCRYPTION_KEYS entry 1 \(id k1\) is not 32 bytes but 16/],
    secret: SECRET,
  },
  {
    name: 'a damaged generated grant key file',
    env: { ...CONNECTED, GSC_STATE_DIR: brokenGrantKey },
    says: [
      /^google-search-console-mcp: The grant key file .*grant-key is not one id:base64 line of a 32-byte key; restore it from a backup, or delete it/,
    ],
    secret: SECRET,
  },
  {
    name: 'connected accounts on Redis without grant keys',
    env: { ...CONNECTED, GSC_REDIS_URL: 'redis://127.0.0.1:1' },
    says: [/GSC_GRANT_ENCRYPTION_KEYS is required with GSC_REDIS_URL/],
  },
  {
    name: 'the IdP client without connected accounts',
    env: { ...ISSUER, GSC_TRANSPORT: 'http', GSC_AUTH_CLIENT_ID: 'search-console-mcp', GSC_AUTH_CLIENT_SECRET: SECRET },
    says: [/GSC_AUTH_CLIENT_ID is set but GSC_GOOGLE_OAUTH_CLIENT_ID and GSC_GOOGLE_OAUTH_CLIENT_SECRET are not/],
    secret: SECRET,
  },
  {
    name: 'connected accounts with an issuer but no IdP client',
    env: { ...CONNECTED, ...ISSUER, GSC_TRANSPORT: 'http' },
    says: [/connected accounts with GSC_AUTH_ISSUER need GSC_AUTH_CLIENT_ID and GSC_AUTH_CLIENT_SECRET/],
    secret: SECRET,
  },
];

describe('connected accounts settings are checked as strictly', () => {
  it.each(connectedCases)('$name', ({ env, says, secret }) => {
    const line = oneLineFailure(env);
    for (const pattern of says) {
      expect(line).toMatch(pattern);
    }
    if (secret) {
      expect(line).not.toContain(secret);
    }
  });
});

// ---- Secrets in the wrong place --------------------------------------------

const KEY_JSON = JSON.stringify({
  type: 'service_account',
  project_id: 'p',
  private_key_id: randomBytes(20).toString('hex'),
  private_key: PEM,
  client_email: 'bot@p.iam.gserviceaccount.com',
});
const KEY_B64 = Buffer.from(KEY_JSON).toString('base64');
const CLIENT_SECRET_VALUE = `GOCSPX-${randomBytes(21).toString('base64url')}`;
const CLIENT_SECRETS = JSON.stringify({
  web: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET_VALUE, redirect_uris: ['https://x.example/cb'] },
});
const b64url = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const JWT = `${b64url({ alg: 'RS256', kid: 'k1' })}.${b64url({ sub: randomBytes(12).toString('hex'), email: 'alice@corp.example', exp: 2e9 })}.${randomBytes(64).toString('base64url')}`;
const REFRESH_TOKEN = `1//0g${randomBytes(40).toString('base64url')}`;
const PASSWORD = `pw-${randomBytes(9).toString('hex')}`;
const PASSWORD_URL = `https://admin:${PASSWORD}@127.0.0.1:4000/x`;
const BIG = randomBytes(90_000).toString('base64'); // 120 kB
const BIG_PLAIN = 'x'.repeat(120_000);
const ANSI = '\u001b[2J\u001b[31mPWNED\u001b[0m';
const NEWLINES = 'first\nsecond\r\nthird';

/** Chunks that must not appear: the middle of the key, not only its header. */
const pemChunk = PEM.split('\n')[6];
const FRAGMENTS: Record<string, string[]> = {
  PEM: [pemChunk, 'BEGIN PRIVATE'],
  KEY_JSON: [pemChunk, JSON.parse(KEY_JSON).private_key_id],
  KEY_B64: [KEY_B64.slice(800, 840), KEY_B64.slice(0, 24)],
  CLIENT_SECRETS: [CLIENT_SECRET_VALUE.slice(7)],
  JWT: [JWT.split('.')[1].slice(10, 40), JWT.split('.')[2].slice(0, 30)],
  REFRESH_TOKEN: [REFRESH_TOKEN.slice(10, 40)],
  PASSWORD_URL: [PASSWORD],
  BIG: [BIG.slice(60_000, 60_040), BIG.slice(0, 40)],
  BIG_PLAIN: ['x'.repeat(200)],
  ANSI: ['\u001b'],
  NEWLINES: ['\n', '\r'],
};
const VALUES: Record<string, string> = {
  PEM,
  KEY_JSON,
  KEY_B64,
  CLIENT_SECRETS,
  JWT,
  REFRESH_TOKEN,
  PASSWORD_URL,
  BIG,
  BIG_PLAIN,
  ANSI,
  NEWLINES,
};

type Leak = { variable: string; value: keyof typeof VALUES; extra?: Record<string, string> };
const oauthPair = { GSC_CLIENT_SECRET: 'client-secret-1', GSC_REFRESH_TOKEN: 'refresh-token-1' };

const leaks: Leak[] = [
  { variable: 'GSC_HTTP_PORT', value: 'PEM' },
  { variable: 'GSC_HTTP_PORT', value: 'BIG' },
  { variable: 'GSC_HTTP_PORT', value: 'ANSI' },
  { variable: 'GSC_TRANSPORT', value: 'KEY_JSON' },
  { variable: 'GSC_TRANSPORT', value: 'NEWLINES' },
  { variable: 'GSC_READ_ONLY', value: 'PEM' },
  { variable: 'GSC_READ_ONLY', value: 'JWT' },
  { variable: 'ELICITATION', value: 'KEY_B64' },
  { variable: 'ELICITATION', value: 'BIG_PLAIN' },
  { variable: 'GSC_ALLOW_TOOLS', value: 'KEY_JSON' },
  { variable: 'GSC_ALLOW_TOOLS', value: 'PEM' },
  { variable: 'GSC_ALLOW_TOOLS', value: 'REFRESH_TOKEN' },
  { variable: 'GSC_DENY_TOOLS', value: 'CLIENT_SECRETS' },
  { variable: 'GSC_DENY_TOOLS', value: 'ANSI' },
  { variable: 'GSC_SITE_URL', value: 'PEM' },
  { variable: 'GSC_SITE_URL', value: 'KEY_B64' },
  { variable: 'GSC_SITE_URL', value: 'PASSWORD_URL' },
  { variable: 'GSC_SITE_URL', value: 'ANSI' },
  { variable: 'GSC_SITE_URL', value: 'BIG_PLAIN' },
  { variable: 'GSC_ALLOWED_SITES', value: 'KEY_JSON' },
  { variable: 'GSC_ALLOWED_SITES', value: 'NEWLINES' },
  { variable: 'GSC_ALLOWED_ORIGINS', value: 'PASSWORD_URL' },
  { variable: 'GSC_ALLOWED_ORIGINS', value: 'JWT' },
  { variable: 'GSC_API_ROOT_URL', value: 'PASSWORD_URL' },
  { variable: 'GSC_API_ROOT_URL', value: 'KEY_JSON' },
  { variable: 'GSC_OAUTH_TOKEN_URL', value: 'PASSWORD_URL' },
  { variable: 'GSC_OAUTH_TOKEN_URL', value: 'BIG' },
  { variable: 'GSC_IMPERSONATE', value: 'PASSWORD_URL', extra: { GSC_SERVICE_ACCOUNT_KEY: goodKey } },
  { variable: 'GSC_IMPERSONATE', value: 'JWT', extra: { GSC_SERVICE_ACCOUNT_KEY: goodKey } },
  { variable: 'GSC_SERVICE_ACCOUNT_KEY_FILE', value: 'KEY_JSON' },
  { variable: 'GSC_SERVICE_ACCOUNT_KEY_FILE', value: 'PEM' },
  { variable: 'GOOGLE_APPLICATION_CREDENTIALS', value: 'KEY_B64' },
  { variable: 'GOOGLE_APPLICATION_CREDENTIALS', value: 'CLIENT_SECRETS' },
  { variable: 'GSC_AUDIT_LOG', value: 'PEM' },
  { variable: 'GSC_AUDIT_LOG', value: 'NEWLINES' },
  { variable: 'GSC_HTTP_HOST', value: 'KEY_JSON' },
  { variable: 'GSC_HTTP_HOST', value: 'JWT' },
  { variable: 'GSC_CLIENT_ID', value: 'KEY_JSON', extra: oauthPair },
  { variable: 'GSC_CLIENT_ID', value: 'CLIENT_SECRETS', extra: oauthPair },
  { variable: 'GSC_CLIENT_ID', value: 'JWT', extra: oauthPair },
  { variable: 'GSC_GOOGLE_TIMEOUT_MS', value: 'PEM' },
  { variable: 'GSC_HTTP_MAX_SESSIONS', value: 'KEY_B64' },
  { variable: 'GSC_PUBLIC_URL', value: 'PASSWORD_URL' },
  { variable: 'GSC_PUBLIC_URL', value: 'KEY_JSON' },
  { variable: 'GSC_STATE_DIR', value: 'PEM' },
  { variable: 'GSC_STATE_DIR', value: 'ANSI' },
  { variable: 'GSC_POLICY_FILE', value: 'KEY_JSON' },
  { variable: 'GSC_POLICY_FILE', value: 'BIG' },
  { variable: 'GSC_ANOMALIES_FILE', value: 'KEY_JSON' },
  { variable: 'GSC_REDIS_URL', value: 'PEM' },
  { variable: 'GSC_REDIS_URL', value: 'PASSWORD_URL' },
  { variable: 'GSC_AUTH_ISSUER', value: 'PASSWORD_URL', extra: { GSC_AUTH_AUDIENCE: 'aud' } },
  { variable: 'GSC_AUTH_ISSUER', value: 'JWT', extra: { GSC_AUTH_AUDIENCE: 'aud' } },
  { variable: 'GSC_AUTH_AUDIENCE', value: 'PEM', extra: { GSC_AUTH_ISSUER: 'https://login.corp.example' } },
  { variable: 'GSC_AUTH_AUDIENCE', value: 'JWT', extra: { GSC_AUTH_ISSUER: 'https://login.corp.example' } },
  { variable: 'GSC_AUTH_JWKS_URL', value: 'PASSWORD_URL', extra: ISSUER },
  { variable: 'GSC_AUTH_PRINCIPAL_CLAIM', value: 'JWT', extra: ISSUER },
  { variable: 'GSC_AUTH_GROUPS_CLAIM', value: 'KEY_JSON', extra: ISSUER },
  { variable: 'GSC_CLIENT_SECRET', value: 'PEM' },
  { variable: 'GSC_REFRESH_TOKEN', value: 'KEY_JSON' },
  { variable: 'GSC_APPROVAL_SECRET', value: 'ANSI' },
  { variable: 'GSC_HTTP_TOKEN', value: 'NEWLINES' },
  { variable: 'GSC_SERVICE_ACCOUNT_KEY', value: 'PEM' },
  { variable: 'GSC_SERVICE_ACCOUNT_KEY', value: 'JWT' },
  { variable: 'GSC_SERVICE_ACCOUNT_KEY', value: 'CLIENT_SECRETS' },
];

describe('no secret is ever echoed: a value in the wrong variable', () => {
  it.each(leaks.map((leak) => ({ ...leak, label: `${leak.value} in ${leak.variable}` })))('$label', ({ variable, value, extra }) => {
    const line = oneLineFailure({ ...extra, [variable]: VALUES[value] });
    expect(line).toContain(variable);
    for (const fragment of FRAGMENTS[value]) {
      expect(line).not.toContain(fragment);
    }
    expect(line.length).toBeLessThan(1000);
  });

  it('a key given as an unknown command-line argument is not shown either', () => {
    const line = oneLineFailure({}, [PEM]);
    expect(line).toMatch(/(unknown option|unexpected argument) \[looks like a private key — not shown\]/);
    expect(line).not.toContain(pemChunk);
  });
});

// ---- The command line --------------------------------------------------------

describe('command line', () => {
  it('--help prints the usage and every configuration variable, and exits 0', () => {
    const result = run({}, ['--help']);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: google-search-console-mcp/);
    // The variables of PRODUCT §4, listed here independently of the server's table.
    const documented = [
      'GSC_SERVICE_ACCOUNT_KEY',
      'GSC_SERVICE_ACCOUNT_KEY_FILE',
      'GSC_CLIENT_ID',
      'GSC_CLIENT_SECRET',
      'GSC_REFRESH_TOKEN',
      'GOOGLE_APPLICATION_CREDENTIALS',
      'GSC_IMPERSONATE',
      'GSC_SITE_URL',
      'GSC_ALLOWED_SITES',
      'GSC_READ_ONLY',
      'GSC_ALLOW_TOOLS',
      'GSC_DENY_TOOLS',
      'ELICITATION',
      'GSC_TRANSPORT',
      'GSC_HTTP_HOST',
      'GSC_HTTP_PORT',
      'GSC_HTTP_TOKEN',
      'GSC_ADMIN_TOKEN',
      'GSC_ALLOWED_ORIGINS',
      'GSC_APPROVAL_SECRET',
      'GSC_AUDIT_LOG',
      'GSC_API_ROOT_URL',
      'GSC_OAUTH_TOKEN_URL',
      'GSC_STATE_DIR',
      'GSC_REDIS_URL',
      'GSC_AUTH_ISSUER',
      'GSC_AUTH_AUDIENCE',
      'GSC_AUTH_JWKS_URL',
      'GSC_AUTH_PRINCIPAL_CLAIM',
      'GSC_AUTH_GROUPS_CLAIM',
      'GSC_PUBLIC_URL',
      'GSC_POLICY_FILE',
      'GSC_ANOMALIES_FILE',
      'GSC_HTTP_MAX_SESSIONS',
      'GSC_GOOGLE_TIMEOUT_MS',
      'GSC_EXPORT_MAX_PER_PRINCIPAL',
      'GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL',
    ];
    for (const name of documented) {
      expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
    expect(result.stdout).toContain('--http');
  });

  it('--help does not need a valid configuration', () => {
    expect(run({ GSC_READ_ONLY: 'maybe' }, ['--help']).status).toBe(0);
  });

  it('--version prints the version from package.json and exits 0', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    const result = run({}, ['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
    expect(result.stderr).toBe('');
  });

  it.each(['--verbose', '--port=3000', '-x'])('an unknown flag %s exits 1 naming it and pointing at --help', (flag) => {
    const line = oneLineFailure({}, [flag]);
    expect(line).toContain(`unknown option "${flag}"`);
    expect(line).toMatch(/--help/);
  });

  it('--http still selects HTTP (its bind rules apply)', () => {
    expect(oneLineFailure({ GSC_HTTP_HOST: '0.0.0.0' }, ['--http'])).toMatch(/GSC_HTTP_HOST 0\.0\.0\.0 is not a loopback address/);
  });
});

describe('a port already in use', () => {
  let blocker: Server;
  let port: number;
  beforeAll(async () => {
    blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    port = (blocker.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => blocker.close(() => resolve())));

  it('is one line naming GSC_HTTP_PORT, exit 1, no stack', () => {
    // The port stays bound in the kernel while spawnSync blocks this process.
    const line = oneLineFailure({ GSC_TRANSPORT: 'http', GSC_HTTP_PORT: String(port) });
    expect(line).toBe(
      `google-search-console-mcp: GSC_HTTP_PORT ${port} on 127.0.0.1 is already in use; stop the other server or choose another port (GSC_HTTP_PORT=0 picks a free one)`,
    );
  });
});
