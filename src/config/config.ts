import { closeSync, openSync } from 'node:fs';
import { normalizeProperty, PropertyError } from '../property/property.js';
import { isPropertyAllowed } from '../property/site-allowlist.js';
import { ConfigError, rememberSecrets } from './config-error.js';
import { conformanceFixtures } from './conformance-fixtures.js';
import type { ConnectedConfig } from './connected-config.js';
import { connectedClient, parseConnected } from './connected-settings.js';
import { type Credential, resolveCredential } from './credentials.js';
import {
  EXPORT_MAX_BYTES_PER_PRINCIPAL,
  EXPORT_MAX_PER_PRINCIPAL,
  GOOGLE_TIMEOUT_MS,
  HTTP_MAX_SESSIONS,
  validateScalars,
} from './environment.js';
import { quote, strongSecretShape, notShown } from './quote.js';
import { type AuthConfig, parseAuth, parsePublicUrl, parseState, readPolicyFile, type StateConfig } from './server-settings.js';
import { fromEnvironment, fromSettingsObject, type SettingSource } from './setting-source.js';
import { SCRUBBED_SETTINGS, type SettingName } from './settings-table.js';
import { checkStatePermissions } from './state-permissions.js';
import { parseToolPatterns, type ToolPattern } from './tool-patterns.js';
import { GOOGLE_USER_INFO, isLoopback, parseHttpUrl } from './urls.js';
import { assertPath } from './values.js';
import { parseTelemetry, type TelemetryConfig } from './telemetry-settings.js';
import { checkPolicySites, parsePolicy, type Policy } from './policy-file.js';
import { type AnomalyCatalog, parseAnomalies, readAnomaliesFile } from './anomalies-file.js';

export { isLoopback } from './urls.js';
export { maskUrl } from './quote.js';
export { describeState, type AuthConfig, type StateConfig } from './server-settings.js';

export const CONFIG = Symbol('CONFIG');

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
    /** Cap on open 2025-11-25 sessions. */
    readonly maxSessions: number;
    /** Public base URL without a trailing slash (GSC_PUBLIC_URL). */
    readonly publicUrl?: string;
  };
  /** OAuth resource-server mode (GSC_AUTH_ISSUER + GSC_AUTH_AUDIENCE). */
  readonly auth?: AuthConfig;
  /** Connected accounts: each principal's own Google grant (PRODUCT.md §8d); undefined with a shared credential. */
  readonly connected?: ConnectedConfig;
  /** With no GSC_APPROVAL_SECRET, the state store creates one and keeps it. */
  readonly approval:
    | { readonly secret: string; readonly secretSource: 'GSC_APPROVAL_SECRET' }
    | { readonly secret?: undefined; readonly secretSource: 'store' };
  readonly auditLog?: string;
  readonly state: StateConfig;
  /** Per-principal rules (GSC_POLICY_FILE or the embedded module's `policy`), parsed and checked for shape; tool names are checked at bootstrap. */
  readonly policy?: Policy;
  /** GSC_ANOMALIES_FILE, parsed: replaces the list of Google's known data anomalies shipped with the package. */
  readonly knownAnomalies?: AnomalyCatalog;
  /** The bound on each principal's all_rows exports in the state store; the oldest goes first. */
  readonly exports: {
    readonly maxPerPrincipal: number;
    readonly maxBytesPerPrincipal: number;
  };
  readonly google: {
    readonly apiRootUrl?: string;
    readonly oauthTokenUrl?: string;
    /** Deadline for one Google or token request. */
    readonly timeoutMs: number;
  };
  /** GSC_CONFORMANCE_FIXTURES: the conformance suite's fixtures are served too (emulator only; src/conformance/). */
  readonly conformanceFixtures: boolean;
  /** OpenTelemetry over OTLP (OTEL_EXPORTER_OTLP_*); undefined: off, and src/telemetry/ is never loaded. */
  readonly telemetry?: TelemetryConfig;
}

export interface LoadOptions {
  /** `--http` on the command line. */
  readonly forceHttp?: boolean;
}

export interface SettingsOptions extends LoadOptions {
  /** The embedded module's `policy` option: the same object GSC_POLICY_FILE holds. */
  readonly policy?: unknown;
  /**
   * Where machine lookups (CLOUDSDK_CONFIG, XDG_STATE_HOME, HOME) come from.
   * Without it nothing is read from the environment and no gcloud login is probed.
   */
  readonly env?: NodeJS.ProcessEnv;
}

/** Parses and validates every setting from environment variables, once, before Nest boots. Throws ConfigError. */
export function loadConfig(env: NodeJS.ProcessEnv, options: LoadOptions = {}): Config {
  return buildConfig(fromEnvironment(env), options);
}

/**
 * The same from a settings object (the embedded module's `settings`), by the
 * same rules and messages; unknown names are an error. Throws ConfigError,
 * never exits, and reads process.env only when given as `options.env`.
 */
export function loadSettings(settings: Record<string, unknown>, options: SettingsOptions = {}): Config {
  return buildConfig(fromSettingsObject(settings, options.env), options);
}

/** Removes secret values (and the OAuth client id) from the process environment once they have been read. */
export function scrubSecrets(env: NodeJS.ProcessEnv): void {
  for (const name of SCRUBBED_SETTINGS) {
    delete env[name];
  }
}

function buildConfig(source: SettingSource, options: LoadOptions | SettingsOptions): Config {
  rememberSecrets(source.secretValues());
  const vars = validateScalars(source);
  // Connected accounts never resolve (nor fail on) a shared credential: there is none to fall back to.
  const connectedOn = connectedClient(source);
  const credential: Credential = connectedOn ? { kind: 'none' } : resolveCredential(source);

  const impersonate = source.get('GSC_IMPERSONATE');
  if (impersonate) {
    if (!/^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/.test(impersonate) || impersonate.length > 254) {
      throw new ConfigError(
        `GSC_IMPERSONATE must be the e-mail address of the Workspace user to act as, such as admin@corp.example (got ${quote(impersonate)})`,
      );
    }
    if (credential.kind !== 'service_account') {
      throw new ConfigError(
        'GSC_IMPERSONATE applies to service account credentials only (domain-wide delegation); unset it or use a service account key',
      );
    }
  }

  const allowedSites = parseSiteList(source.get('GSC_ALLOWED_SITES'));
  const siteUrl = parseProperty('GSC_SITE_URL', source.get('GSC_SITE_URL'));
  if (siteUrl && allowedSites && !isPropertyAllowed(siteUrl, allowedSites)) {
    const shown = allowedSites.slice(0, 5).map(quote).join(', ') + (allowedSites.length > 5 ? ` and ${allowedSites.length - 5} more` : '');
    throw new ConfigError(
      `GSC_SITE_URL ${quote(siteUrl)} is outside GSC_ALLOWED_SITES (${shown}); add it to the list or choose an allowed property`,
    );
  }

  const transport = options.forceHttp ? 'http' : (vars.GSC_TRANSPORT ?? 'stdio');
  const host = vars.GSC_HTTP_HOST ?? '127.0.0.1';
  const auth = parseAuth(source);
  if (transport === 'http' && !isLoopback(host) && !vars.GSC_HTTP_TOKEN && !auth) {
    throw new ConfigError(
      // host passed validation as an IP address or host name, so it is shown as it is.
      `GSC_HTTP_HOST ${host} is not a loopback address, so callers must authenticate: set GSC_HTTP_TOKEN, or GSC_AUTH_ISSUER with GSC_AUTH_AUDIENCE; or bind 127.0.0.1`,
    );
  }

  const auditLog = source.get('GSC_AUDIT_LOG');
  if (auditLog) {
    assertAppendable(auditLog);
  }

  const secret = vars.GSC_APPROVAL_SECRET;
  const policyText = readPolicyFile(source);
  const policySource = (options as SettingsOptions).policy;
  if (policySource !== undefined && policyText !== undefined) {
    throw new ConfigError('GSC_POLICY_FILE and the module option policy are both set; give the rules in one place');
  }
  const policy =
    policySource !== undefined
      ? parsePolicy(policySource, 'policy')
      : policyText !== undefined
        ? parsePolicy(policyText, 'GSC_POLICY_FILE')
        : undefined;
  if (policy) {
    checkPolicySites(policy, allowedSites);
  }
  const anomaliesText = readAnomaliesFile(source);
  const knownAnomalies = anomaliesText === undefined ? undefined : parseAnomalies(anomaliesText, 'GSC_ANOMALIES_FILE');
  const state = parseState(source);
  const google = {
    apiRootUrl: apiRoot(source.get('GSC_API_ROOT_URL')),
    oauthTokenUrl: tokenUrl(source.get('GSC_OAUTH_TOKEN_URL')),
    timeoutMs: vars.GSC_GOOGLE_TIMEOUT_MS ?? GOOGLE_TIMEOUT_MS.default,
  };
  const connected = connectedOn
    ? parseConnected(source, connectedOn, { transport, host, auth, state, apiRootUrl: google.apiRootUrl, tokenUrl: google.oauthTokenUrl })
    : undefined;
  if (state.kind === 'sqlite') {
    checkStatePermissions(state.dir, {
      named: source.get('GSC_STATE_DIR') !== undefined,
      secretFile: !secret,
      grantKeyFile: connected !== undefined && !connected.encryptionKeys,
    });
  }
  return deepFreeze({
    credential,
    impersonate,
    siteUrl,
    allowedSites,
    readOnly: vars.GSC_READ_ONLY === 'true',
    allowTools: parseToolList('GSC_ALLOW_TOOLS', source),
    denyTools: parseToolList('GSC_DENY_TOOLS', source) ?? [],
    elicitation: vars.ELICITATION !== 'false',
    transport,
    http: {
      host,
      port: vars.GSC_HTTP_PORT ?? 3000,
      token: vars.GSC_HTTP_TOKEN,
      adminToken: vars.GSC_ADMIN_TOKEN,
      allowedOrigins: parseOrigins(source.get('GSC_ALLOWED_ORIGINS')),
      maxSessions: vars.GSC_HTTP_MAX_SESSIONS ?? HTTP_MAX_SESSIONS.default,
      publicUrl: parsePublicUrl(source),
    },
    auth,
    connected,
    approval: secret ? { secret, secretSource: 'GSC_APPROVAL_SECRET' } : { secretSource: 'store' },
    auditLog,
    state,
    policy,
    knownAnomalies,
    exports: {
      maxPerPrincipal: vars.GSC_EXPORT_MAX_PER_PRINCIPAL ?? EXPORT_MAX_PER_PRINCIPAL.default,
      maxBytesPerPrincipal: vars.GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL ?? EXPORT_MAX_BYTES_PER_PRINCIPAL.default,
    },
    google,
    conformanceFixtures: conformanceFixtures(vars.GSC_CONFORMANCE_FIXTURES, google),
    telemetry: parseTelemetry(source),
  } satisfies Config);
}

const PROPERTY_FORMS = 'write sc-domain:example.com (a Domain property) or https://www.example.com/ (a URL-prefix property)';
/** Longer than any property Search Console shows; keeps messages about one bounded. */
const PROPERTY_MAX = 512;

function parseProperty(variable: string, value: string | undefined, what = variable): string | undefined {
  if (!value) {
    return undefined;
  }
  const looksLike = strongSecretShape(value);
  if (looksLike) {
    throw new ConfigError(`${what} ${notShown(looksLike)} is not a Search Console property; ${PROPERTY_FORMS}`);
  }
  if (value.length > PROPERTY_MAX) {
    throw new ConfigError(`${what} ${quote(value)} is too long for a Search Console property; ${PROPERTY_FORMS}`);
  }
  try {
    return normalizeProperty(value);
  } catch (error) {
    if (!(error instanceof PropertyError)) {
      throw error;
    }
    // The configuration's quote() stands in for property.ts's own quoting, so every config message quotes alike.
    throw new ConfigError(`${what} ${quote(value)} ${error.reason ?? error.message}`);
  }
}

function parseSiteList(value: string | undefined): string[] | undefined {
  if (!value) {
    return undefined;
  }
  refuseKeyMaterial('GSC_ALLOWED_SITES', value, `a comma-separated list of properties; ${PROPERTY_FORMS}`);
  const entries = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) {
    throw new ConfigError(
      'GSC_ALLOWED_SITES has no entries; leave it unset to allow every property the credential can see, or name at least one',
    );
  }
  return [...new Set(entries.map((entry) => parseProperty('GSC_ALLOWED_SITES', entry, 'GSC_ALLOWED_SITES entry')!))];
}

function parseToolList(variable: SettingName, source: SettingSource): ToolPattern[] | undefined {
  const value = source.get(variable);
  if (value) {
    refuseKeyMaterial(variable, value, 'a comma-separated list of exact tool names, prefixes with one trailing * (list_*), or essential');
  }
  return parseToolPatterns(variable, value);
}

function parseOrigins(value: string | undefined): string[] {
  if (!value) {
    return [];
  }
  refuseKeyMaterial('GSC_ALLOWED_ORIGINS', value, 'a comma-separated list of origins such as https://app.example.com');
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      let url: URL | undefined;
      try {
        url = new URL(entry);
      } catch {
        url = undefined;
      }
      if (!url || !/^https?:$/.test(url.protocol) || url.origin !== entry.replace(/\/$/, '')) {
        throw new ConfigError(
          `GSC_ALLOWED_ORIGINS entry ${quote(entry)} is not an origin; write scheme://host[:port], e.g. https://app.example.com`,
        );
      }
      return url.origin;
    });
}

// A whole list that is a key would otherwise be split at its commas, and a harmless-looking piece quoted.
function refuseKeyMaterial(variable: string, value: string, forms: string): void {
  const looksLike = strongSecretShape(value);
  if (looksLike) {
    throw new ConfigError(`${variable} ${notShown(looksLike)} is not ${forms}`);
  }
}

function apiRoot(value: string | undefined): string | undefined {
  if (!value) {
    return undefined;
  }
  const url = parseHttpUrl('GSC_API_ROOT_URL', value, {
    forms: 'an http(s) URL such as http://127.0.0.1:4000',
    userInfo: GOOGLE_USER_INFO,
  });
  if (url.pathname !== '/') {
    throw new ConfigError(
      `GSC_API_ROOT_URL must be an origin without a path, such as http://127.0.0.1:4000 (Google's clients drop any path) (got ${quote(value)})`,
    );
  }
  return url.origin;
}

function tokenUrl(value: string | undefined): string | undefined {
  if (!value) {
    return undefined;
  }
  parseHttpUrl('GSC_OAUTH_TOKEN_URL', value, {
    forms: 'an http(s) URL such as http://127.0.0.1:4000/token',
    query: true,
    userInfo: GOOGLE_USER_INFO,
  });
  return value;
}

function assertAppendable(path: string): void {
  assertPath('GSC_AUDIT_LOG', path);
  try {
    closeSync(openSync(path, 'a'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'not writable';
    throw new ConfigError(
      `GSC_AUDIT_LOG points at ${quote(path)}, which cannot be opened for appending (${code}); fix the path or unset it`,
    );
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) {
      deepFreeze(child);
    }
  }
  return value;
}
