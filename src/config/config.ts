import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { normalizeProperty, PropertyError } from '../property/property.js';
import { ConfigError } from './config-error.js';
import { type Credential, resolveCredential } from './credentials.js';
import { readVar, SECRET_VARIABLES, validateEnvironment } from './environment.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import { parseToolPatterns, type ToolPattern } from './tool-patterns.js';

export const CONFIG = Symbol('CONFIG');

/** GSC_GOOGLE_TIMEOUT_MS default. */
export const DEFAULT_GOOGLE_TIMEOUT_MS = 30_000;

export interface Config {
  readonly credential: Credential;
  /** Domain-wide delegation subject for a service account. */
  readonly impersonate?: string;
  /** The default property, normalised; never used by add_site. */
  readonly siteUrl?: string;
  /** Normalised allowed properties; undefined means every property the credential can see. */
  readonly allowedSites?: readonly string[];
  readonly readOnly: boolean;
  readonly allowTools?: readonly ToolPattern[];
  readonly denyTools: readonly ToolPattern[];
  readonly elicitation: boolean;
  readonly transport: 'stdio' | 'http';
  readonly http: {
    readonly host: string;
    readonly port: number;
    readonly token?: string;
    readonly adminToken?: string;
    readonly allowedOrigins: readonly string[];
  };
  readonly approval: { readonly secret: string; readonly secretSource: 'GSC_APPROVAL_SECRET' | 'random' };
  readonly auditLog?: string;
  readonly google: {
    readonly apiRootUrl?: string;
    readonly oauthTokenUrl?: string;
    /** GSC_GOOGLE_TIMEOUT_MS: deadline for one Google API or token request. */
    readonly timeoutMs: number;
  };
}

export interface LoadOptions {
  /** `--http` on the command line. */
  readonly forceHttp?: boolean;
}

/** Parses and validates every setting once, before Nest boots. Throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv, options: LoadOptions = {}): Config {
  const vars = validateEnvironment(env);
  const credential = resolveCredential(env);

  const impersonate = readVar(env, 'GSC_IMPERSONATE');
  if (impersonate) {
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(impersonate)) {
      throw new ConfigError(`GSC_IMPERSONATE must be the e-mail address of the Workspace user to act as (got "${impersonate}")`);
    }
    if (credential.kind !== 'service_account') {
      throw new ConfigError('GSC_IMPERSONATE applies to service account credentials only (domain-wide delegation); unset it or use a service account key');
    }
  }

  const allowedSites = parseSiteList(readVar(env, 'GSC_ALLOWED_SITES'));
  const siteUrl = parseProperty('GSC_SITE_URL', readVar(env, 'GSC_SITE_URL'));
  if (siteUrl && allowedSites && !isPropertyAllowed(siteUrl, allowedSites)) {
    throw new ConfigError(`GSC_SITE_URL ${siteUrl} is outside GSC_ALLOWED_SITES (${allowedSites.join(', ')}); add it to the list or choose an allowed property`);
  }

  const transport = options.forceHttp ? 'http' : (vars.GSC_TRANSPORT ?? 'stdio');
  const host = vars.GSC_HTTP_HOST ?? '127.0.0.1';
  const token = vars.GSC_HTTP_TOKEN;
  if (transport === 'http' && !isLoopback(host) && !readVar(env, 'GSC_HTTP_TOKEN')) {
    throw new ConfigError(`GSC_HTTP_HOST ${host} is not a loopback address, so GSC_HTTP_TOKEN must be set; bind 127.0.0.1 or set a bearer token`);
  }

  const auditLog = readVar(env, 'GSC_AUDIT_LOG');
  if (auditLog) assertAppendable(auditLog);

  const secret = readVar(env, 'GSC_APPROVAL_SECRET');
  return deepFreeze({
    credential,
    impersonate,
    siteUrl,
    allowedSites,
    readOnly: vars.GSC_READ_ONLY === 'true',
    allowTools: parseToolPatterns('GSC_ALLOW_TOOLS', readVar(env, 'GSC_ALLOW_TOOLS')),
    denyTools: parseToolPatterns('GSC_DENY_TOOLS', readVar(env, 'GSC_DENY_TOOLS')) ?? [],
    elicitation: vars.ELICITATION !== 'false',
    transport,
    http: {
      host,
      port: vars.GSC_HTTP_PORT ?? 3000,
      token: token ? readVar(env, 'GSC_HTTP_TOKEN') : undefined,
      adminToken: vars.GSC_ADMIN_TOKEN ? readVar(env, 'GSC_ADMIN_TOKEN') : undefined,
      allowedOrigins: parseOrigins(readVar(env, 'GSC_ALLOWED_ORIGINS')),
    },
    approval: secret ? { secret, secretSource: 'GSC_APPROVAL_SECRET' } : { secret: randomBytes(32).toString('hex'), secretSource: 'random' },
    auditLog,
    google: { apiRootUrl: originOf(vars.GSC_API_ROOT_URL), oauthTokenUrl: vars.GSC_OAUTH_TOKEN_URL, timeoutMs: DEFAULT_GOOGLE_TIMEOUT_MS },
  } satisfies Config);
}

/** Removes secret values from the process environment once they have been read. */
export function scrubSecrets(env: NodeJS.ProcessEnv): void {
  for (const name of [...SECRET_VARIABLES, 'GSC_CLIENT_ID']) delete env[name];
}

export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

function parseProperty(variable: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    return normalizeProperty(value);
  } catch (error) {
    if (error instanceof PropertyError) throw new ConfigError(`${variable}: ${error.message}`);
    throw error;
  }
}

function parseSiteList(value: string | undefined): string[] | undefined {
  if (!value) return undefined;
  const entries = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (entries.length === 0) return undefined;
  return [...new Set(entries.map((entry) => parseProperty('GSC_ALLOWED_SITES', entry)!))];
}

function parseOrigins(value: string | undefined): string[] {
  if (!value) return [];
  return value.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError(`GSC_ALLOWED_ORIGINS entry "${entry}" is not an origin; write scheme://host[:port], e.g. https://app.example.com`);
    }
    return url.origin;
  });
}

function originOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const url = new URL(value);
  if (url.pathname !== '/' || url.search) {
    throw new ConfigError(`GSC_API_ROOT_URL must be an origin without a path, such as http://127.0.0.1:4000 (Google's clients drop any path) (got "${value}")`);
  }
  return url.origin;
}

function assertAppendable(path: string): void {
  try {
    closeSync(openSync(path, 'a'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'not writable';
    throw new ConfigError(`GSC_AUDIT_LOG points at ${path}, which cannot be opened for appending (${code}); fix the path or unset it`);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
