import type * as z from 'zod';
import type { Config } from './config.js';
import { CONNECTED_SETTINGS } from './connected-setting-rows.js';
import { TELEMETRY_SETTINGS } from './telemetry-settings.js';
import { maskUrl } from './quote.js';
import { describeState } from './server-settings.js';
import {
  bool,
  choice,
  EXPORT_MAX_BYTES_PER_PRINCIPAL,
  EXPORT_MAX_PER_PRINCIPAL,
  GOOGLE_TIMEOUT_MS,
  host,
  HTTP_MAX_SESSIONS,
  integer,
  minBytes,
  token,
} from './setting-parsers.js';

// The configuration table: every setting the server reads, once, and all the
// rest of the code needs to know about it. The loader reads values only by
// these names and parses a scalar one with its row's schema; `--help`,
// /admin/config and the README's configuration table (`npm run docs`) are
// generated from the rows; the settings object of the embedded module is
// checked against them; the secret flag decides what is never quoted and what
// is removed from process.env.
//
// A new setting is its row here, its field in Config and the line of
// buildConfig (config.ts) that fills it (plus its parser, when it is not a
// scalar one).

export type SettingKind =
  /** free text */
  | 'text'
  /** a file or folder path */
  | 'path'
  /** an http(s) URL */
  | 'url'
  /** comma-separated entries; an array in a settings object */
  | 'list'
  /** exactly true or false */
  | 'boolean'
  /** a decimal integer */
  | 'integer'
  /** a secret string */
  | 'secret'
  /** the service account key: a secret string, or the parsed key object in a settings object */
  | 'key';

/** Composite settings: parsed together with their neighbours by this function of src/config/. */
export type ParsedBy =
  | 'resolveCredential'
  | 'parseProperty'
  | 'parseSiteList'
  | 'parseToolPatterns'
  | 'parseOrigins'
  | 'parseAuth'
  | 'parsePublicUrl'
  | 'parseState'
  | 'readPolicyFile'
  | 'readAnomaliesFile'
  | 'assertAppendable'
  | 'parseHttpUrl'
  | 'connectedClient'
  | 'parseConnected'
  | 'parseTelemetry';

/**
 * How /admin/config shows a setting: `credential` folds it into the credential
 * summary (kind, principal, origin, subject) the Google credential service
 * gives; otherwise a dotted path in the /admin/config object and the value put
 * there (undefined leaves it out). Never a secret's value.
 */
export type Shown = 'credential' | { readonly at: string; readonly value: (config: Config) => unknown };

export interface SettingSpec {
  readonly name: string;
  readonly kind: SettingKind;
  /** Never quoted in a message, removed from process.env once read. */
  readonly secret?: boolean;
  /** Removed from process.env once read although not secret itself. */
  readonly scrub?: boolean;
  /** One line, for `--help` and the README's table. */
  readonly help: string;
  /** More, for the README's table only. */
  readonly more?: string;
  /** A scalar setting's zod schema (its message is the operator's one line), or the function that parses a composite one. */
  readonly parse: z.ZodType<unknown, string> | ParsedBy;
  readonly show: Shown;
}

const at = (path: string, value: (config: Config) => unknown): Shown => ({ at: path, value });
const setOrUnset = (value: unknown) => (value ? 'set' : 'unset');
const masked = (url: string | undefined, otherwise: string | null) => (url ? maskUrl(url) : otherwise);
const auth =
  <T>(read: (a: NonNullable<Config['auth']>) => T) =>
  (c: Config) =>
    c.auth ? read(c.auth) : undefined;
const credential = { parse: 'resolveCredential', show: 'credential' } as const;

export const SETTINGS = [
  { name: 'GSC_SERVICE_ACCOUNT_KEY', kind: 'key', secret: true, help: 'service account key, raw JSON or base64 JSON', ...credential },
  {
    name: 'GSC_SERVICE_ACCOUNT_KEY_FILE',
    kind: 'path',
    help: 'path to a service account key file (not together with GSC_SERVICE_ACCOUNT_KEY)',
    ...credential,
  },
  {
    name: 'GSC_CLIENT_ID',
    kind: 'text',
    scrub: true,
    help: 'OAuth client id (…-….apps.googleusercontent.com); with GSC_CLIENT_SECRET and GSC_REFRESH_TOKEN, all three or none',
    more: 'A partial set stops start-up rather than falling through to the ambient credentials.',
    ...credential,
  },
  { name: 'GSC_CLIENT_SECRET', kind: 'secret', secret: true, help: 'OAuth client secret', ...credential },
  { name: 'GSC_REFRESH_TOKEN', kind: 'secret', secret: true, help: 'OAuth refresh token', ...credential },
  {
    name: 'GOOGLE_APPLICATION_CREDENTIALS',
    kind: 'path',
    help: 'ambient credential file, tried last (then a gcloud login) when nothing explicit is set',
    ...credential,
  },
  { name: 'GSC_IMPERSONATE', kind: 'text', help: 'Workspace user a service account acts as (domain-wide delegation)', ...credential },
  {
    name: 'GSC_SITE_URL',
    kind: 'text',
    help: 'default property; makes site_url optional everywhere except add_site',
    parse: 'parseProperty',
    show: at('site_url', (c) => c.siteUrl ?? null),
  },
  {
    name: 'GSC_ALLOWED_SITES',
    kind: 'list',
    help: 'comma-separated properties this server may touch; everything else is refused',
    more: 'Refused before a request goes out. An entry covers what Search Console scopes inside it (`sc-domain:example.com` covers `https://shop.example.com/`).',
    parse: 'parseSiteList',
    show: at('allowed_sites', (c) => c.allowedSites ?? null),
  },
  {
    name: 'GSC_READ_ONLY',
    kind: 'boolean',
    help: 'true/false: write tools never registered, webmasters.readonly requested',
    parse: bool('GSC_READ_ONLY'),
    show: at('read_only', (c) => c.readOnly),
  },
  {
    name: 'GSC_ALLOW_TOOLS',
    kind: 'list',
    help: 'tools to load: exact names, a prefix with one trailing *, or essential',
    more: '`essential` is list_sites, get_site, list_sitemaps, query_search_analytics and inspect_url.',
    parse: 'parseToolPatterns',
    show: at('allow_tools', (c) => c.allowTools?.map((p) => p.text) ?? null),
  },
  {
    name: 'GSC_DENY_TOOLS',
    kind: 'list',
    help: 'same forms, subtracted from what GSC_ALLOW_TOOLS left',
    parse: 'parseToolPatterns',
    show: at('deny_tools', (c) => c.denyTools.map((p) => p.text)),
  },
  {
    name: 'ELICITATION',
    kind: 'boolean',
    help: 'true (default) / false: ask in a dialog, or fall back to the two-call token',
    more: 'Deliberately unprefixed. `false` keeps the guard and prints one start-up line saying so.',
    parse: bool('ELICITATION', ' — anything else is refused so that a typo never leaves the approval dialog in a state you did not choose'),
    show: at('elicitation', (c) => c.elicitation),
  },
  {
    name: 'GSC_TRANSPORT',
    kind: 'text',
    help: 'stdio (default) or http',
    parse: choice('GSC_TRANSPORT', ['stdio', 'http']),
    show: at('transport', (c) => c.transport),
  },
  {
    name: 'GSC_HTTP_HOST',
    kind: 'text',
    help: 'HTTP bind address (default 127.0.0.1)',
    parse: host(),
    show: at('http.host', (c) => c.http.host),
  },
  {
    name: 'GSC_HTTP_PORT',
    kind: 'integer',
    help: 'HTTP port (default 3000; 0 picks a free one)',
    parse: integer('GSC_HTTP_PORT must be an integer from 0 to 65535 (0 picks a free port)', 0, 65535),
    show: at('http.port', (c) => c.http.port),
  },
  {
    name: 'GSC_HTTP_TOKEN',
    kind: 'secret',
    secret: true,
    help: 'bearer token required on /mcp (at least 16 characters)',
    more: 'A non-loopback bind needs it, or GSC_AUTH_ISSUER with GSC_AUTH_AUDIENCE.',
    parse: token('GSC_HTTP_TOKEN'),
    show: at('http.token', (c) => setOrUnset(c.http.token)),
  },
  {
    name: 'GSC_ADMIN_TOKEN',
    kind: 'secret',
    secret: true,
    help: 'bearer token for /admin/*; without it admin answers loopback callers only',
    parse: token('GSC_ADMIN_TOKEN'),
    show: at('http.admin_token', (c) => setOrUnset(c.http.adminToken)),
  },
  {
    name: 'GSC_ALLOWED_ORIGINS',
    kind: 'list',
    help: 'extra Origin values accepted (DNS-rebinding protection)',
    more: 'Localhost origins are always accepted.',
    parse: 'parseOrigins',
    show: at('http.allowed_origins', (c) => c.http.allowedOrigins),
  },
  {
    name: 'GSC_APPROVAL_SECRET',
    kind: 'secret',
    secret: true,
    help: 'HMAC key (at least 32 bytes) sealing approvals; unset: one kept in the state store',
    more: 'Every process on that store shares it.',
    parse: minBytes('GSC_APPROVAL_SECRET', 32),
    show: at('approval_secret', (c) => (c.approval.secretSource === 'store' ? 'kept in the state store' : 'set')),
  },
  {
    name: 'GSC_AUDIT_LOG',
    kind: 'path',
    help: 'append-only JSON-lines file of guarded decisions',
    parse: 'assertAppendable',
    show: at('audit_log', (c) => c.auditLog ?? null),
  },
  {
    name: 'GSC_API_ROOT_URL',
    kind: 'url',
    help: 'send every Google API request to this origin (testing, air-gapped use)',
    parse: 'parseHttpUrl',
    show: at('google.api_root_url', (c) => masked(c.google.apiRootUrl, 'Google')),
  },
  {
    name: 'GSC_OAUTH_TOKEN_URL',
    kind: 'url',
    help: 'send every token request to this URL (testing, air-gapped use)',
    parse: 'parseHttpUrl',
    show: at('google.oauth_token_url', (c) => masked(c.google.oauthTokenUrl, 'Google')),
  },
  {
    name: 'GSC_GOOGLE_TIMEOUT_MS',
    kind: 'integer',
    help: `deadline for one Google request in milliseconds (default ${GOOGLE_TIMEOUT_MS.default})`,
    more: 'A read that times out is retried within the usual bounds; a write says its outcome is unknown.',
    parse: integer(
      `GSC_GOOGLE_TIMEOUT_MS must be a whole number of milliseconds from ${GOOGLE_TIMEOUT_MS.min} to ${GOOGLE_TIMEOUT_MS.max} (default ${GOOGLE_TIMEOUT_MS.default})`,
      GOOGLE_TIMEOUT_MS.min,
      GOOGLE_TIMEOUT_MS.max,
    ),
    show: at('google.timeout_ms', (c) => c.google.timeoutMs),
  },
  {
    name: 'GSC_STATE_DIR',
    kind: 'path',
    help: 'folder of the embedded state store (default $XDG_STATE_HOME/google-search-console-mcp, else ~/.local/state/…)',
    more: 'It holds used approvals and tokens, the audit trail, the quota ledger and exports.',
    parse: 'parseState',
    show: at('state', (c) => describeState(c.state)),
  },
  {
    name: 'GSC_REDIS_URL',
    kind: 'secret',
    secret: true,
    help: 'redis:// or rediss:// URL of a shared state store for several replicas; replaces the embedded one',
    more: 'Shown with its password masked.',
    parse: 'parseState',
    show: at('state', (c) => describeState(c.state)),
  },
  {
    name: 'GSC_AUTH_ISSUER',
    kind: 'url',
    help: 'HTTP: accept OAuth access tokens (JWT) from this issuer; with GSC_AUTH_AUDIENCE',
    more: 'Both or neither; never with GSC_HTTP_TOKEN.',
    parse: 'parseAuth',
    show: at(
      'auth.issuer',
      auth((a) => maskUrl(a.issuer)),
    ),
  },
  {
    name: 'GSC_AUTH_AUDIENCE',
    kind: 'text',
    help: 'the audience those tokens must carry; with GSC_AUTH_ISSUER',
    parse: 'parseAuth',
    show: at(
      'auth.audience',
      auth((a) => a.audience),
    ),
  },
  {
    name: 'GSC_AUTH_JWKS_URL',
    kind: 'url',
    help: "the issuer's key set, when its metadata does not name one",
    parse: 'parseAuth',
    show: at(
      'auth.jwks_url',
      auth((a) => masked(a.jwksUrl, 'discovered')),
    ),
  },
  {
    name: 'GSC_AUTH_PRINCIPAL_CLAIM',
    kind: 'text',
    help: 'claim naming the person (default email, falling back to sub)',
    parse: 'parseAuth',
    show: at(
      'auth.principal_claim',
      auth((a) => a.principalClaim ?? 'email, else sub'),
    ),
  },
  {
    name: 'GSC_AUTH_GROUPS_CLAIM',
    kind: 'text',
    help: 'claim listing their groups (default groups)',
    parse: 'parseAuth',
    show: at(
      'auth.groups_claim',
      auth((a) => a.groupsClaim),
    ),
  },
  {
    name: 'GSC_PUBLIC_URL',
    kind: 'url',
    help: "the server's public base URL behind a proxy (protected-resource metadata, accepted Host)",
    parse: 'parsePublicUrl',
    show: at('http.public_url', (c) => masked(c.http.publicUrl, null)),
  },
  {
    name: 'GSC_POLICY_FILE',
    kind: 'path',
    help: 'JSON file of per-principal rules: which tools and properties each person or group may use',
    more: 'See "Who is calling".',
    parse: 'readPolicyFile',
    show: at('policy', (c) =>
      c.policy
        ? {
            source: c.policy.source,
            rules: c.policy.rules.map((r) => ({
              rule: r.number,
              principals: r.principals?.map((p) => p.text) ?? [],
              groups: r.groups ?? [],
              tools: r.tools.map((p) => p.text),
              deny_tools: r.denyTools.map((p) => p.text),
              sites: r.sites ?? null,
              annotations: r.annotations ?? 'shared',
            })),
          }
        : null,
    ),
  },
  {
    name: 'GSC_ANOMALIES_FILE',
    kind: 'path',
    help: "JSON list of Google's known data anomalies, replacing the one shipped with the package",
    more: 'Checked strictly at start-up. See "Search performance you can trust".',
    parse: 'readAnomaliesFile',
    show: at('known_anomalies', (c) =>
      c.knownAnomalies
        ? {
            source: c.knownAnomalies.source,
            version: c.knownAnomalies.version,
            updated: c.knownAnomalies.updated,
            ids: c.knownAnomalies.anomalies.map((a) => a.id),
          }
        : 'built-in',
    ),
  },
  {
    name: 'GSC_HTTP_MAX_SESSIONS',
    kind: 'integer',
    help: `cap on open 2025-11-25 sessions (default ${HTTP_MAX_SESSIONS.default}); least recently used idle one closed first`,
    parse: integer(
      `GSC_HTTP_MAX_SESSIONS must be an integer from ${HTTP_MAX_SESSIONS.min} to ${HTTP_MAX_SESSIONS.max} (default ${HTTP_MAX_SESSIONS.default})`,
      HTTP_MAX_SESSIONS.min,
      HTTP_MAX_SESSIONS.max,
    ),
    show: at('http.max_sessions', (c) => c.http.maxSessions),
  },
  {
    name: 'GSC_EXPORT_MAX_PER_PRINCIPAL',
    kind: 'integer',
    help: `all_rows exports kept per principal (default ${EXPORT_MAX_PER_PRINCIPAL.default}); the oldest is removed first`,
    parse: integer(
      `GSC_EXPORT_MAX_PER_PRINCIPAL must be an integer from ${EXPORT_MAX_PER_PRINCIPAL.min} to ${EXPORT_MAX_PER_PRINCIPAL.max} (default ${EXPORT_MAX_PER_PRINCIPAL.default})`,
      EXPORT_MAX_PER_PRINCIPAL.min,
      EXPORT_MAX_PER_PRINCIPAL.max,
    ),
    show: at('exports.max_per_principal', (c) => c.exports.maxPerPrincipal),
  },
  {
    name: 'GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL',
    kind: 'integer',
    help: 'bytes of export rows kept per principal (default 67108864, 64 MiB); the oldest is removed first',
    parse: integer(
      `GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL must be a whole number of bytes from ${EXPORT_MAX_BYTES_PER_PRINCIPAL.min} to ${EXPORT_MAX_BYTES_PER_PRINCIPAL.max} (default ${EXPORT_MAX_BYTES_PER_PRINCIPAL.default}, 64 MiB)`,
      EXPORT_MAX_BYTES_PER_PRINCIPAL.min,
      EXPORT_MAX_BYTES_PER_PRINCIPAL.max,
    ),
    show: at('exports.max_bytes_per_principal', (c) => c.exports.maxBytesPerPrincipal),
  },
  ...CONNECTED_SETTINGS,
  {
    name: 'GSC_CONFORMANCE_FIXTURES',
    kind: 'boolean',
    help: "true: also serve the official MCP conformance suite's fixture tools, resources and prompts (emulator only; default false)",
    more: 'For `npm run conformance`. Honoured only against the Google emulator (`npm run demo`, or GSC_API_ROOT_URL and GSC_OAUTH_TOKEN_URL on a loopback address) and only by the standalone server; anywhere else start-up stops naming it.',
    parse: bool('GSC_CONFORMANCE_FIXTURES'),
    show: at('conformance_fixtures', (c) => c.conformanceFixtures),
  },
  ...TELEMETRY_SETTINGS,
] as const satisfies readonly SettingSpec[];

export type SettingName = (typeof SETTINGS)[number]['name'];

const BY_NAME: ReadonlyMap<string, SettingSpec> = new Map(SETTINGS.map((s) => [s.name, s]));

export function settingSpec(name: string): SettingSpec | undefined {
  return BY_NAME.get(name);
}

export const SETTING_NAMES: readonly SettingName[] = SETTINGS.map((s) => s.name);

/** Settings whose values are never quoted. */
export const SECRET_SETTINGS: ReadonlySet<string> = new Set(SETTINGS.filter((s: SettingSpec) => s.secret).map((s) => s.name));

/** Settings removed from process.env once read. */
export const SCRUBBED_SETTINGS: readonly string[] = SETTINGS.filter((s: SettingSpec) => s.secret || s.scrub).map((s) => s.name);

/** The closest known name (same spelling in another case, or a few edits away). */
export function closestSetting(name: string): SettingName | undefined {
  const upper = name.toUpperCase();
  let best: { name: SettingName; distance: number } | undefined;
  for (const known of SETTING_NAMES) {
    const distance = known === upper ? 0 : editDistance(upper, known);
    if (distance <= Math.max(2, Math.floor(known.length / 6)) && (!best || distance < best.distance)) {
      best = { name: known, distance };
    }
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 4) {
    return Infinity;
  }
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
