import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { isolatedEnv, MAIN } from './support/env.js';

const SECRET = 'S3CR3T-value-that-must-never-be-printed';
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
const clientSecrets = JSON.stringify({ installed: { client_id: 'x.apps.googleusercontent.com', client_secret: SECRET, redirect_uris: ['http://localhost'] } });
const goodKey = JSON.stringify({ type: 'service_account', client_email: 'a@b.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) });

type Case = { name: string; env: Record<string, string>; args?: string[]; says: RegExp[]; secret?: string };

const cases: Case[] = [
  { name: 'ELICITATION not a boolean', env: { ELICITATION: 'maybe' }, says: [/ELICITATION must be true or false/] },
  { name: 'ELICITATION=1 is not accepted either', env: { ELICITATION: '1' }, says: [/ELICITATION/, /true or false/] },
  { name: 'GSC_READ_ONLY typo', env: { GSC_READ_ONLY: 'yes' }, says: [/GSC_READ_ONLY must be true or false/] },
  {
    name: 'partial OAuth triple',
    env: { GSC_CLIENT_ID: 'id.apps.googleusercontent.com', GSC_CLIENT_SECRET: SECRET },
    says: [/GSC_CLIENT_ID, GSC_CLIENT_SECRET and GSC_REFRESH_TOKEN must be set together/, /missing: GSC_REFRESH_TOKEN/],
    secret: SECRET,
  },
  { name: 'key and key file both set', env: { GSC_SERVICE_ACCOUNT_KEY: goodKey, GSC_SERVICE_ACCOUNT_KEY_FILE: '/tmp/key.json' }, says: [/both set/] },
  { name: 'key neither JSON nor base64 JSON', env: { GSC_SERVICE_ACCOUNT_KEY: SECRET }, says: [/GSC_SERVICE_ACCOUNT_KEY is neither JSON nor base64/], secret: SECRET },
  { name: 'broken JSON key', env: { GSC_SERVICE_ACCOUNT_KEY: `{"private_key": "${SECRET}"` }, says: [/GSC_SERVICE_ACCOUNT_KEY is not a JSON object/], secret: SECRET },
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
  { name: 'key file that does not exist', env: { GSC_SERVICE_ACCOUNT_KEY_FILE: '/nonexistent/key.json' }, says: [/GSC_SERVICE_ACCOUNT_KEY_FILE points at \/nonexistent\/key.json/, /ENOENT/] },
  { name: 'GOOGLE_APPLICATION_CREDENTIALS that does not exist', env: { GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent/adc.json' }, says: [/GOOGLE_APPLICATION_CREDENTIALS points at/] },
  { name: 'GSC_SITE_URL bare hostname', env: { GSC_SITE_URL: 'example.com' }, says: [/GSC_SITE_URL/, /sc-domain:example\.com/, /https:\/\/example\.com\//] },
  {
    name: 'GSC_SITE_URL outside the allowlist',
    env: { GSC_SITE_URL: 'https://other.example/', GSC_ALLOWED_SITES: 'sc-domain:example.com' },
    says: [/GSC_SITE_URL https:\/\/other\.example\/ is outside GSC_ALLOWED_SITES/],
  },
  { name: 'GSC_ALLOWED_SITES entry that is not a property', env: { GSC_ALLOWED_SITES: 'sc-domain:example.com,ftp://example.com/' }, says: [/GSC_ALLOWED_SITES/, /only http and https/] },
  { name: 'pattern with a leading *', env: { GSC_ALLOW_TOOLS: '*_sites' }, says: [/GSC_ALLOW_TOOLS entry "\*_sites" is not a valid pattern/, /list_\*/] },
  { name: 'pattern with an inner *', env: { GSC_DENY_TOOLS: 'list_*_x' }, says: [/GSC_DENY_TOOLS entry "list_\*_x" is not a valid pattern/] },
  { name: 'allow entry that matches no tool', env: { GSC_ALLOW_TOOLS: 'list_sites,lst_sitemaps' }, says: [/GSC_ALLOW_TOOLS entry "lst_sitemaps" matches no tool/, /the tools are: .*list_sites/] },
  { name: 'deny entry that matches no tool', env: { GSC_DENY_TOOLS: 'nothing_*' }, says: [/GSC_DENY_TOOLS entry "nothing_\*" matches no tool/] },
  {
    name: 'write tool named under read-only',
    env: { GSC_READ_ONLY: 'true', GSC_ALLOW_TOOLS: 'list_sites,add_site' },
    says: [/GSC_ALLOW_TOOLS names add_site, a write tool/, /GSC_READ_ONLY=true/],
  },
  { name: 'GSC_HTTP_PORT out of range', env: { GSC_HTTP_PORT: '70000' }, says: [/GSC_HTTP_PORT must be an integer from 0 to 65535/] },
  { name: 'GSC_TRANSPORT unknown', env: { GSC_TRANSPORT: 'websocket' }, says: [/GSC_TRANSPORT must be stdio or http/] },
  { name: 'non-loopback bind without a token', env: { GSC_TRANSPORT: 'http', GSC_HTTP_HOST: '0.0.0.0' }, says: [/GSC_HTTP_HOST 0\.0\.0\.0 is not a loopback address, so GSC_HTTP_TOKEN must be set/] },
  { name: 'non-loopback bind without a token, via --http', env: { GSC_HTTP_HOST: '0.0.0.0' }, args: ['--http'], says: [/GSC_HTTP_TOKEN must be set/] },
  { name: 'short approval secret', env: { GSC_APPROVAL_SECRET: 'short-secret-value' }, says: [/GSC_APPROVAL_SECRET must be at least 32 bytes/], secret: 'short-secret-value' },
  { name: 'short HTTP token', env: { GSC_HTTP_TOKEN: 'tiny-token' }, says: [/GSC_HTTP_TOKEN must be at least 16 characters/], secret: 'tiny-token' },
  {
    name: 'impersonation without a service account',
    env: { GSC_CLIENT_ID: 'id', GSC_CLIENT_SECRET: SECRET, GSC_REFRESH_TOKEN: SECRET, GSC_IMPERSONATE: 'boss@example.com' },
    says: [/GSC_IMPERSONATE applies to service account credentials only/],
    secret: SECRET,
  },
  { name: 'API root with a path', env: { GSC_API_ROOT_URL: 'http://127.0.0.1:1/prefix/' }, says: [/GSC_API_ROOT_URL must be an origin without a path/] },
  { name: 'audit log in a missing directory', env: { GSC_AUDIT_LOG: '/nonexistent/dir/audit.jsonl' }, says: [/GSC_AUDIT_LOG points at \/nonexistent\/dir\/audit.jsonl/] },
];

describe('configuration errors stop start-up with exit code 1 and one stderr line', () => {
  it.each(cases)('$name', ({ env, args = [], says, secret }) => {
    const run = spawnSync(process.execPath, [MAIN, ...args], { env: isolatedEnv(env), input: '', encoding: 'utf8', timeout: 20000 });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^google-search-console-mcp: /);
    for (const pattern of says) expect(lines[0]).toMatch(pattern);
    if (secret) expect(run.stderr).not.toContain(secret);
    expect(run.stderr).not.toMatch(/\n\s+at /); // never a stack trace
  });
});
