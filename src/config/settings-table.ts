// The configuration table: every setting the server reads, once. The loader
// reads values only by these names, `--help` prints them, the settings object
// of the embedded module is checked against them, and the secret flag decides
// what is never quoted and what is removed from process.env.

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

export interface SettingSpec {
  readonly name: string;
  readonly kind: SettingKind;
  /** Never quoted in a message, removed from process.env once read. */
  readonly secret?: boolean;
  /** Removed from process.env once read although not secret itself. */
  readonly scrub?: boolean;
  readonly help: string;
}

export const SETTINGS = [
  { name: 'GSC_SERVICE_ACCOUNT_KEY', kind: 'key', secret: true, help: 'service account key, raw JSON or base64 JSON' },
  { name: 'GSC_SERVICE_ACCOUNT_KEY_FILE', kind: 'path', help: 'path to a service account key file (not together with GSC_SERVICE_ACCOUNT_KEY)' },
  { name: 'GSC_CLIENT_ID', kind: 'text', scrub: true, help: 'OAuth client id (…-….apps.googleusercontent.com); with GSC_CLIENT_SECRET and GSC_REFRESH_TOKEN, all three or none' },
  { name: 'GSC_CLIENT_SECRET', kind: 'secret', secret: true, help: 'OAuth client secret' },
  { name: 'GSC_REFRESH_TOKEN', kind: 'secret', secret: true, help: 'OAuth refresh token' },
  { name: 'GOOGLE_APPLICATION_CREDENTIALS', kind: 'path', help: 'ambient credential file, tried last (then a gcloud login) when nothing explicit is set' },
  { name: 'GSC_IMPERSONATE', kind: 'text', help: 'Workspace user a service account acts as (domain-wide delegation)' },
  { name: 'GSC_SITE_URL', kind: 'text', help: 'default property; makes site_url optional everywhere except add_site' },
  { name: 'GSC_ALLOWED_SITES', kind: 'list', help: 'comma-separated properties this server may touch; everything else is refused' },
  { name: 'GSC_READ_ONLY', kind: 'boolean', help: 'true/false: write tools never registered, webmasters.readonly requested' },
  { name: 'GSC_ALLOW_TOOLS', kind: 'list', help: 'tools to load: exact names, a prefix with one trailing *, or essential' },
  { name: 'GSC_DENY_TOOLS', kind: 'list', help: 'same forms, subtracted from what GSC_ALLOW_TOOLS left' },
  { name: 'ELICITATION', kind: 'boolean', help: 'true (default) / false: ask in a dialog, or fall back to the two-call token' },
  { name: 'GSC_TRANSPORT', kind: 'text', help: 'stdio (default) or http' },
  { name: 'GSC_HTTP_HOST', kind: 'text', help: 'HTTP bind address (default 127.0.0.1)' },
  { name: 'GSC_HTTP_PORT', kind: 'integer', help: 'HTTP port (default 3000; 0 picks a free one)' },
  { name: 'GSC_HTTP_TOKEN', kind: 'secret', secret: true, help: 'bearer token required on /mcp (at least 16 characters)' },
  { name: 'GSC_ADMIN_TOKEN', kind: 'secret', secret: true, help: 'bearer token for /admin/*; without it admin answers loopback callers only' },
  { name: 'GSC_ALLOWED_ORIGINS', kind: 'list', help: 'extra Origin values accepted (DNS-rebinding protection)' },
  { name: 'GSC_APPROVAL_SECRET', kind: 'secret', secret: true, help: 'HMAC key (at least 32 bytes) sealing approvals; unset: one kept in the state store' },
  { name: 'GSC_AUDIT_LOG', kind: 'path', help: 'append-only JSON-lines file of guarded decisions' },
  { name: 'GSC_API_ROOT_URL', kind: 'url', help: 'send every Google API request to this origin (testing, air-gapped use)' },
  { name: 'GSC_OAUTH_TOKEN_URL', kind: 'url', help: 'send every token request to this URL (testing, air-gapped use)' },
  { name: 'GSC_GOOGLE_TIMEOUT_MS', kind: 'integer', help: 'deadline for one Google request in milliseconds (default 30000)' },
  { name: 'GSC_STATE_DIR', kind: 'path', help: 'folder of the embedded state store (default $XDG_STATE_HOME/google-search-console-mcp, else ~/.local/state/…)' },
  { name: 'GSC_REDIS_URL', kind: 'secret', secret: true, help: 'redis:// or rediss:// URL of a shared state store for several replicas; replaces the embedded one' },
  { name: 'GSC_AUTH_ISSUER', kind: 'url', help: 'HTTP: accept OAuth access tokens (JWT) from this issuer; with GSC_AUTH_AUDIENCE' },
  { name: 'GSC_AUTH_AUDIENCE', kind: 'text', help: 'the audience those tokens must carry; with GSC_AUTH_ISSUER' },
  { name: 'GSC_AUTH_JWKS_URL', kind: 'url', help: "the issuer's key set, when its metadata does not name one" },
  { name: 'GSC_AUTH_PRINCIPAL_CLAIM', kind: 'text', help: 'claim naming the person (default email, falling back to sub)' },
  { name: 'GSC_AUTH_GROUPS_CLAIM', kind: 'text', help: 'claim listing their groups (default groups)' },
  { name: 'GSC_PUBLIC_URL', kind: 'url', help: "the server's public base URL behind a proxy (protected-resource metadata, accepted Host)" },
  { name: 'GSC_POLICY_FILE', kind: 'path', help: 'JSON file of per-principal rules: which tools and properties each person or group may use' },
  { name: 'GSC_HTTP_MAX_SESSIONS', kind: 'integer', help: 'cap on open 2025-11-25 sessions (default 1000); least recently used idle one closed first' },
  { name: 'GSC_EXPORT_MAX_PER_PRINCIPAL', kind: 'integer', help: 'all_rows exports kept per principal (default 10); the oldest is removed first' },
  { name: 'GSC_EXPORT_MAX_BYTES_PER_PRINCIPAL', kind: 'integer', help: 'bytes of export rows kept per principal (default 67108864, 64 MiB); the oldest is removed first' },
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
    if (distance <= Math.max(2, Math.floor(known.length / 6)) && (!best || distance < best.distance)) best = { name: known, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 4) return Infinity;
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
