import type { TelemetryConfig } from './config-types.js';
import { ConfigError } from './config-error.js';
import { quote } from './quote.js';
import type { SettingSource } from './setting-source.js';
import { DEFAULT_SERVICE_NAME, METRIC_INTERVAL, PROTOCOLS, SAMPLERS, URL_FORMS } from './telemetry-settings.js';
import { parseHttpUrl } from './urls.js';

// Parses OpenTelemetry's standard variables (the rows of telemetry-settings.ts) into
// TelemetryConfig; apart from the rows so the settings table does not import the
// setting source through them.

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
