import type { ConnectedConfig } from './connected-config.js';
import { maskUrl } from './quote.js';
import type { Policy } from './policy-file.js';
import type { ToolPattern } from './tool-patterns.js';

// The parsed configuration's shape, apart from the parsers that build it: the
// settings table (whose rows show fields of Config) and the parsers (which
// read the table's names) would otherwise import each other through it.
// describeState is here for the same reason: the table shows it.

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

export type ServiceAccountKey = { client_email: string; private_key: string; private_key_id?: string; project_id?: string };

export type Credential =
  | { kind: 'service_account'; key: ServiceAccountKey; origin: string }
  | { kind: 'oauth'; clientId: string; clientSecret: string; refreshToken: string; origin: string }
  | { kind: 'none' };

export interface AuthConfig {
  /** Compared with the token's `iss` exactly as written. */
  readonly issuer: string;
  /** Must be among the token's `aud` values (RFC 8707). */
  readonly audience: string;
  /** The issuer's key set when its metadata does not name one. */
  readonly jwksUrl?: string;
  /** The claim naming the person; unset means `email`, falling back to `sub`. */
  readonly principalClaim?: string;
  readonly groupsClaim: string;
}

/** Where state lives (`config.state`); the one shape the state store is opened with too (src/state/). */
export type StateConfig = { readonly kind: 'sqlite'; readonly dir: string } | { readonly kind: 'redis'; readonly url: string };

/** What Search Console counts, as an anomaly names it (METRICS in anomalies-file.ts lists them). */
export type Metric = 'clicks' | 'impressions' | 'ctr' | 'position';

export interface KnownAnomaly {
  /** Stable, lower-case, for citing and de-duplicating. */
  readonly id: string;
  readonly start_date: string;
  /** Inclusive; absent while Google has not announced a fix. */
  readonly end_date?: string;
  /** The end date is a third party's estimate or "about", not Google's own day. */
  readonly end_approximate: boolean;
  readonly affected: readonly Metric[];
  readonly not_affected: readonly Metric[];
  /** Absent: every search type. */
  readonly search_types?: readonly string[];
  /** Whether Google corrected the affected days afterwards; absent when it did not say. */
  readonly backfilled?: boolean;
  readonly source: string;
  readonly more_sources?: readonly string[];
  /** One sentence saying what happened, for the answer and the view. */
  readonly sentence: string;
}

export interface AnomalyCatalog {
  /** What to call it in messages: `GSC_ANOMALIES_FILE`, or the built-in list. */
  readonly source: string;
  readonly version: number;
  readonly updated: string;
  readonly anomalies: readonly KnownAnomaly[];
}

/** The state store for a start-up line or /admin/config: the folder, or the Redis URL with its password masked. */
export function describeState(state: StateConfig): string {
  return state.kind === 'redis' ? `Redis at ${maskUrl(state.url)}` : `SQLite in ${state.dir}`;
}

// OpenTelemetry's settings (telemetry-settings.ts parses them).
export type OtlpProtocol = 'http/protobuf' | 'http/json';
export type SamplerName =
  'always_on' | 'always_off' | 'traceidratio' | 'parentbased_always_on' | 'parentbased_always_off' | 'parentbased_traceidratio';

export interface TelemetryConfig {
  /** Where spans go: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces. */
  readonly tracesUrl: string;
  /** Where metrics go: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + /v1/metrics (none without either). */
  readonly metricsUrl?: string;
  readonly protocol: OtlpProtocol;
  /** OTEL_EXPORTER_OTLP_HEADERS, decoded: sent with every export, never shown. */
  readonly headers: Readonly<Record<string, string>>;
  readonly serviceName: string;
  readonly sampler: SamplerName;
  /** OTEL_TRACES_SAMPLER_ARG: the ratio of the traceidratio samplers (default 1). */
  readonly samplerRatio: number;
  readonly metricIntervalMs: number;
}
