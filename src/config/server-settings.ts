import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { SERVER_NAME } from '../common/product.js';
import { ConfigError } from './config-error.js';
import type { AuthConfig, StateConfig } from './config-types.js';

export type { AuthConfig, StateConfig } from './config-types.js';
export { describeState } from './config-types.js';
import { quote, strongSecretShape } from './quote.js';
import type { SettingSource } from './setting-source.js';
import { parseHttpUrl } from './urls.js';
import { assertPath, assertPlainText } from './values.js';

// The deployment settings beside the core ones: OAuth resource-server mode, the
// public URL, the state store and the policy file.

const AUTH_EXTRAS = ['GSC_AUTH_JWKS_URL', 'GSC_AUTH_PRINCIPAL_CLAIM', 'GSC_AUTH_GROUPS_CLAIM'] as const;
const ISSUER_FORMS = 'an https:// URL such as https://login.corp.example/realms/staff, written exactly as the tokens’ iss claim';
const CLAIM_FORMS = 'a claim name such as email, sub, groups or https://corp.example/claims/groups';
const AUTH_USER_INFO = 'credentials never belong in an issuer or key-set URL';

/** GSC_AUTH_*: both or neither of issuer and audience, never with GSC_HTTP_TOKEN; the rest only with them. */
export function parseAuth(source: SettingSource): AuthConfig | undefined {
  const issuer = source.get('GSC_AUTH_ISSUER');
  const audience = source.get('GSC_AUTH_AUDIENCE');
  if (!issuer && !audience) {
    const stray = AUTH_EXTRAS.find((name) => source.has(name));
    if (stray) {
      throw new ConfigError(
        `${stray} is set but GSC_AUTH_ISSUER and GSC_AUTH_AUDIENCE are not; it applies to OAuth access tokens only — set both of them, or unset ${stray}`,
      );
    }
    return undefined;
  }
  if (!audience) {
    throw new ConfigError(
      'GSC_AUTH_ISSUER is set without GSC_AUTH_AUDIENCE; set both (the audience is what your tokens carry in aud, e.g. https://mcp.corp.example/mcp) or neither',
    );
  }
  if (!issuer) {
    throw new ConfigError(`GSC_AUTH_AUDIENCE is set without GSC_AUTH_ISSUER; set both (the issuer is ${ISSUER_FORMS}) or neither`);
  }
  if (source.has('GSC_HTTP_TOKEN')) {
    throw new ConfigError(
      'GSC_AUTH_ISSUER and GSC_HTTP_TOKEN are both set; choose one way for callers to authenticate: OAuth access tokens from the issuer, or the one shared bearer token',
    );
  }
  parseHttpUrl('GSC_AUTH_ISSUER', issuer, { forms: ISSUER_FORMS, httpsUnlessLoopback: true, userInfo: AUTH_USER_INFO });
  assertPlainText(
    'GSC_AUTH_AUDIENCE',
    audience,
    'the audience your access tokens carry in aud, such as https://mcp.corp.example/mcp or api://search-console',
  );
  const jwksUrl = source.get('GSC_AUTH_JWKS_URL');
  if (jwksUrl) {
    parseHttpUrl('GSC_AUTH_JWKS_URL', jwksUrl, {
      forms: "the issuer's JWKS URL, https:// such as https://login.corp.example/keys",
      httpsUnlessLoopback: true,
      query: true,
      userInfo: AUTH_USER_INFO,
    });
  }
  const principalClaim = source.get('GSC_AUTH_PRINCIPAL_CLAIM');
  const groupsClaim = source.get('GSC_AUTH_GROUPS_CLAIM') ?? 'groups';
  for (const [name, value] of [
    ['GSC_AUTH_PRINCIPAL_CLAIM', principalClaim],
    ['GSC_AUTH_GROUPS_CLAIM', groupsClaim],
  ] as const) {
    // Printable ASCII up to 256 already rules out what else assertPlainText refuses, bar key material.
    if (value !== undefined && (!/^[\x21-\x7e]{1,256}$/.test(value) || strongSecretShape(value))) {
      throw new ConfigError(`${name} must be ${CLAIM_FORMS} (got ${quote(value)})`);
    }
  }
  return { issuer, audience, jwksUrl, principalClaim, groupsClaim };
}

/** GSC_PUBLIC_URL: an absolute http(s) URL without query or fragment, returned without a trailing slash. */
export function parsePublicUrl(source: SettingSource): string | undefined {
  const value = source.get('GSC_PUBLIC_URL');
  if (!value) {
    return undefined;
  }
  const url = parseHttpUrl('GSC_PUBLIC_URL', value, {
    forms: 'the absolute http(s) URL clients reach this server at, such as https://mcp.corp.example or https://corp.example/search-console',
    userInfo: 'clients are told this URL, so it must not hold credentials',
  });
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * GSC_REDIS_URL replaces the embedded store; otherwise SQLite in GSC_STATE_DIR or
 * the user's state folder. Setting both is accepted (replicas on one Redis may
 * keep separate folders) and Redis is used.
 */
export function parseState(source: SettingSource): StateConfig {
  const dir = source.get('GSC_STATE_DIR');
  if (dir) {
    checkStateDir(dir);
  }
  const redis = source.get('GSC_REDIS_URL');
  if (redis) {
    return { kind: 'redis', url: parseRedisUrl(redis) };
  }
  return { kind: 'sqlite', dir: dir ? resolve(dir) : defaultStateDir(source) };
}

export function defaultStateDir(source: SettingSource): string {
  const xdg = source.ambient.XDG_STATE_HOME;
  // The XDG spec says a relative value is invalid and to be ignored.
  const base = xdg && isAbsolute(xdg) ? xdg : join(source.ambient.HOME ?? homedir(), '.local', 'state');
  return join(base, SERVER_NAME);
}

function checkStateDir(dir: string): void {
  assertPath('GSC_STATE_DIR', dir);
  try {
    if (!statSync(dir).isDirectory()) {
      throw new ConfigError(
        `GSC_STATE_DIR points at ${quote(dir)}, which is a file, not a folder; point it at a folder (created when missing)`,
      );
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      throw error;
    }
    // Missing is fine (the store creates it); unwritable is the store's to report, fail-closed, at run time.
  }
}

const REDIS_FORMS =
  "a redis:// or rediss:// URL such as redis://127.0.0.1:6379 or rediss://redis.internal:6380/0, with any password in the URL's user info";

function parseRedisUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // The value may be a password, or hold one: only its scheme is ever named.
  const got = url
    ? ` (got a URL with the scheme ${quote(url.protocol)} — the value is not shown, it may hold a password)`
    : ' (the value is not shown: it may hold a password)';
  if (!url || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) {
    throw new ConfigError(`GSC_REDIS_URL must be ${REDIS_FORMS}${got}`);
  }
  if (!url.hostname) {
    throw new ConfigError(`GSC_REDIS_URL has no host; it must be ${REDIS_FORMS} (the value is not shown: it may hold a password)`);
  }
  if (!/^\/?(\d{1,2})?$/.test(url.pathname)) {
    throw new ConfigError(
      `GSC_REDIS_URL has a path that is not a database number; it must be ${REDIS_FORMS} (the value is not shown: it may hold a password)`,
    );
  }
  return value;
}

/** A policy file is a handful of rules; anything larger is not one. */
export const POLICY_FILE_MAX_BYTES = 1024 * 1024;

/** GSC_POLICY_FILE: its text. The rules themselves are parsed by the policy module. */
export function readPolicyFile(source: SettingSource): string | undefined {
  const path = source.get('GSC_POLICY_FILE');
  if (!path) {
    return undefined;
  }
  assertPath('GSC_POLICY_FILE', path);
  let text: string;
  try {
    const stat = statSync(path);
    const size = stat.size;
    if (!stat.isFile()) {
      throw new ConfigError(`GSC_POLICY_FILE points at ${quote(path)}, which is not a file; point it at the JSON file of rules`);
    }
    if (size > POLICY_FILE_MAX_BYTES) {
      throw new ConfigError(
        `GSC_POLICY_FILE ${quote(path)} is ${size} bytes; a policy file is at most ${POLICY_FILE_MAX_BYTES} bytes of JSON rules`,
      );
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) {
      throw error;
    }
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`GSC_POLICY_FILE points at ${quote(path)}, which cannot be read (${code}); fix the path or unset it`);
  }
  return text;
}
