import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { TelemetryConfig } from '../config/config-types.js';

export interface Exporters {
  readonly traces: SpanExporter;
  readonly metrics?: PushMetricExporter;
}

/**
 * The OTLP/HTTP exporters of the configured protocol: JSON or protobuf. Only the
 * chosen pair is imported (the protobuf one brings protobufjs). URLs and headers
 * come from the parsed configuration, which has already removed the headers'
 * secrets from process.env.
 */
export async function otlpExporters(config: TelemetryConfig): Promise<Exporters> {
  const headers = { ...config.headers };
  if (config.protocol === 'http/json') {
    const [{ OTLPTraceExporter }, { OTLPMetricExporter }] = await Promise.all([
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/exporter-metrics-otlp-http'),
    ]);
    return {
      traces: new OTLPTraceExporter({ url: config.tracesUrl, headers }),
      metrics: config.metricsUrl ? new OTLPMetricExporter({ url: config.metricsUrl, headers }) : undefined,
    };
  }
  const [{ OTLPTraceExporter }, { OTLPMetricExporter }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-proto'),
    import('@opentelemetry/exporter-metrics-otlp-proto'),
  ]);
  return {
    traces: new OTLPTraceExporter({ url: config.tracesUrl, headers }),
    metrics: config.metricsUrl ? new OTLPMetricExporter({ url: config.metricsUrl, headers }) : undefined,
  };
}
