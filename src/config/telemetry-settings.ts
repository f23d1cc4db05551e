import type { Config } from './config.js';
import { ConfigError } from './config-error.js';
import { maskUrl, quote } from './quote.js';
import type { SettingSource } from './setting-source.js';
import type { SettingSpec } from './settings-table.js';
import { parseHttpUrl } from './urls.js';

// OpenTelemetry's standard variables (PRODUCT.md §8e), as the configuration
// table's rows: the server exports traces and metrics over OTLP only when an
// endpoint is set, and src/telemetry/ is loaded only then. Parsed here, once,
// like every other setting; the exporters are handed the values, so a header's
// secret is removed from process.env like ours.

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

const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];
const PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json'];
export const DEFAULT_SERVICE_NAME = 'google-search-console-mcp';
const METRIC_INTERVAL = { min: 1000, max: 3_600_000, default: 60_000 } as const;
const URL_FORMS = 'an http(s) URL of an OTLP/HTTP receiver such as http://127.0.0.1:4318';

const at = (path: string, value: (config: Config) => unknown) => ({ at: path, value });
const telemetry =
  <T>(read: (t: TelemetryConfig) => T) =>
  (c: Config) =>
    c.telemetry ? read(c.telemetry) : undefined;
const parse = 'parseTelemetry' as const;

export const TELEMETRY_SETTINGS = [
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    kind: 'url',
    help: 'OpenTelemetry: export traces and metrics over OTLP/HTTP to this base URL (…/v1/traces, …/v1/metrics); unset: no telemetry, nothing loaded',
    more: 'One server span per MCP request (MCP semantic conventions), parented on the `traceparent` a client sends in `_meta`, with a child span per Google request and per state-store operation, and the `mcp.server.operation.duration` histogram. Standalone server only: a Nest host runs its own SDK. `OTEL_SDK_DISABLED=true` turns it off.',
    parse,
    show: at(
      'telemetry.traces_url',
      telemetry((t) => maskUrl(t.tracesUrl)),
    ),
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    kind: 'url',
    help: 'OpenTelemetry: the full URL spans are sent to (overrides the base URL for traces; enough on its own to turn tracing on)',
    parse,
    show: at(
      'telemetry.traces_url',
      telemetry((t) => maskUrl(t.tracesUrl)),
    ),
  },
  {
    name: 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
    kind: 'url',
    help: 'OpenTelemetry: the full URL metrics are sent to (overrides the base URL for metrics)',
    parse,
    show: at(
      'telemetry.metrics_url',
      telemetry((t) => (t.metricsUrl ? maskUrl(t.metricsUrl) : null)),
    ),
  },
  {
    name: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    kind: 'text',
    help: 'OpenTelemetry: http/protobuf (default) or http/json',
    parse,
    show: at(
      'telemetry.protocol',
      telemetry((t) => t.protocol),
    ),
  },
  {
    name: 'OTEL_EXPORTER_OTLP_HEADERS',
    kind: 'secret',
    secret: true,
    help: 'OpenTelemetry: headers sent with every export, as key=value pairs separated by commas (values URL-encoded), e.g. an API key',
    parse,
    show: at(
      'telemetry.header_keys',
      telemetry((t) => Object.keys(t.headers)),
    ),
  },
  {
    name: 'OTEL_SERVICE_NAME',
    kind: 'text',
    help: `OpenTelemetry: the service.name of every span and metric (default ${DEFAULT_SERVICE_NAME})`,
    more: 'OTEL_RESOURCE_ATTRIBUTES is honoured as the SDK reads it.',
    parse,
    show: at(
      'telemetry.service_name',
      telemetry((t) => t.serviceName),
    ),
  },
  {
    name: 'OTEL_TRACES_SAMPLER',
    kind: 'text',
    help: `OpenTelemetry: ${SAMPLERS.join(', ')} (default parentbased_always_on)`,
    parse,
    show: at(
      'telemetry.sampler',
      telemetry((t) => (t.sampler.endsWith('traceidratio') ? `${t.sampler} ${t.samplerRatio}` : t.sampler)),
    ),
  },
  {
    name: 'OTEL_TRACES_SAMPLER_ARG',
    kind: 'text',
    help: 'OpenTelemetry: the ratio of the traceidratio samplers, from 0 to 1 (default 1)',
    parse,
    show: at(
      'telemetry.sampler',
      telemetry((t) => (t.sampler.endsWith('traceidratio') ? `${t.sampler} ${t.samplerRatio}` : t.sampler)),
    ),
  },
  {
    name: 'OTEL_METRIC_EXPORT_INTERVAL',
    kind: 'integer',
    help: `OpenTelemetry: milliseconds between metric exports (default ${METRIC_INTERVAL.default})`,
    parse,
    show: at(
      'telemetry.metric_interval_ms',
      telemetry((t) => t.metricIntervalMs),
    ),
  },
  {
    name: 'OTEL_SDK_DISABLED',
    kind: 'boolean',
    help: 'OpenTelemetry: true turns telemetry off although an endpoint is set (default false)',
    parse,
    show: at('telemetry.enabled', (c) => c.telemetry !== undefined),
  },
] as const satisfies readonly SettingSpec[];

/** The telemetry settings, or undefined when no OTLP endpoint is set (or OTEL_SDK_DISABLED=true): then nothing is exported or loaded. */
export function parseTelemetry(source: SettingSource): TelemetryConfig | undefined {
  const disabled = source.get('OTEL_SDK_DISABLED');
  if (disabled !== undefined && !/^(true|false)$/i.test(disabled)) {
    throw new ConfigError(`OTEL_SDK_DISABLED must be true or false (got ${quote(disabled)})`);
  }
  const base = otlpUrl(source, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  const traces = otlpUrl(source, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const metrics = otlpUrl(source, 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT');
  if (disabled?.toLowerCase() === 'true' || (!base && !traces)) {
    return undefined;
  }
  return {
    tracesUrl: traces ?? signalUrl(base!, 'traces'),
    metricsUrl: metrics ?? (base ? signalUrl(base, 'metrics') : undefined),
    protocol: oneOf(source, 'OTEL_EXPORTER_OTLP_PROTOCOL', PROTOCOLS, 'http/protobuf'),
    headers: parseHeaders(source.get('OTEL_EXPORTER_OTLP_HEADERS')),
    serviceName: source.get('OTEL_SERVICE_NAME') ?? DEFAULT_SERVICE_NAME,
    sampler: oneOf(source, 'OTEL_TRACES_SAMPLER', SAMPLERS, 'parentbased_always_on'),
    samplerRatio: ratio(source.get('OTEL_TRACES_SAMPLER_ARG')),
    metricIntervalMs: interval(source.get('OTEL_METRIC_EXPORT_INTERVAL')),
  };
}

function otlpUrl(
  source: SettingSource,
  name: 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' | 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
): string | undefined {
  const value = source.get(name);
  return value === undefined
    ? undefined
    : parseHttpUrl(name, value, { forms: URL_FORMS, userInfo: 'put credentials in OTEL_EXPORTER_OTLP_HEADERS' }).href;
}

/** The specification's rule: the base URL with /v1/<signal> appended to its path. */
function signalUrl(base: string, signal: 'traces' | 'metrics'): string {
  return `${base.replace(/\/+$/, '')}/v1/${signal}`;
}

function oneOf<T extends string>(
  source: SettingSource,
  name: 'OTEL_EXPORTER_OTLP_PROTOCOL' | 'OTEL_TRACES_SAMPLER',
  values: readonly T[],
  fallback: T,
): T {
  const value = source.get(name);
  if (value === undefined) {
    return fallback;
  }
  const known = values.find((v) => v === value.toLowerCase());
  if (!known) {
    const grpc =
      name === 'OTEL_EXPORTER_OTLP_PROTOCOL' && value.toLowerCase() === 'grpc' ? ' (gRPC is not supported; use OTLP over HTTP)' : '';
    throw new ConfigError(`${name} must be ${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}${grpc} (got ${quote(value)})`);
  }
  return known;
}

/** W3C-baggage-like `key=value,key2=value2`, values percent-encoded (the OTLP exporter specification). Never quoted in a message. */
function parseHeaders(value: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (value ?? '').split(',')) {
    if (pair.trim() === '') {
      continue;
    }
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq).trim() : '';
    let decoded: string | undefined;
    try {
      decoded = eq > 0 ? decodeURIComponent(pair.slice(eq + 1).trim()) : undefined;
    } catch {
      decoded = undefined;
    }
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(key) || decoded === undefined) {
      throw new ConfigError(
        'OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas, with header names as keys and URL-encoded values, e.g. api-key=abc%20def',
      );
    }
    headers[key.toLowerCase()] = decoded;
  }
  return headers;
}

function ratio(value: string | undefined): number {
  if (value === undefined) {
    return 1;
  }
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) {
    throw new ConfigError(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, such as 0.25 (got ${quote(value)})`);
  }
  return n;
}

function interval(value: string | undefined): number {
  if (value === undefined) {
    return METRIC_INTERVAL.default;
  }
  const n = /^\d{1,9}$/.test(value) ? Number(value) : NaN;
  if (!(n >= METRIC_INTERVAL.min && n <= METRIC_INTERVAL.max)) {
    throw new ConfigError(
      `OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds from ${METRIC_INTERVAL.min} to ${METRIC_INTERVAL.max} (default ${METRIC_INTERVAL.default}) (got ${quote(value)})`,
    );
  }
  return n;
}
