import type { Config, OtlpProtocol, SamplerName, TelemetryConfig } from './config-types.js';
import { maskUrl } from './quote.js';
import type { SettingSpec } from './setting-spec.js';

// OpenTelemetry's standard variables (PRODUCT.md §8e), as the configuration
// table's rows: the server exports traces and metrics over OTLP only when an
// endpoint is set, and src/telemetry/ is loaded only then. Parsed here, once,
// like every other setting; the exporters are handed the values, so a header's
// secret is removed from process.env like ours.

export const SAMPLERS: readonly SamplerName[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];
export const PROTOCOLS: readonly OtlpProtocol[] = ['http/protobuf', 'http/json'];
export const DEFAULT_SERVICE_NAME = 'google-search-console-mcp';
export const METRIC_INTERVAL = { min: 1000, max: 3_600_000, default: 60_000 } as const;
export const URL_FORMS = 'an http(s) URL of an OTLP/HTTP receiver such as http://127.0.0.1:4318';

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
    more: 'One server span per MCP request (MCP semantic conventions), parented on the `traceparent` a client sends in `_meta`, with a child span per Google request and per state-store operation, and the `mcp.server.operation.duration` histogram. Standalone server only: a Nest host runs its own SDK. The SDK is an optional peer dependency (about 23 MB, so it is not installed with the package): `npm install` the `@opentelemetry/*` peers our package.json lists beside the server (the Docker image carries them); without them the start-up stops saying so. `OTEL_SDK_DISABLED=true` turns it off.',
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
