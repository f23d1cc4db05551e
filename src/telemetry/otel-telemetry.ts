import {
  type Attributes as OtelAttributes,
  context,
  type Context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { detectResources, resourceAttributesEnvDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Attributes, TelemetryHooks } from '../common/telemetry.js';
import type { TelemetryConfig } from '../config/config-types.js';
import { otlpExporters } from './otlp-exporters.js';
import { samplerFor } from './sampler.js';

const SCOPE = 'google-search-console-mcp';
/** How long shutdown waits for the last exports. */
const SHUTDOWN_MS = 5000;
/** The MCP semantic conventions' advice for mcp.server.operation.duration (seconds). */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
/** The span attributes the duration histogram keeps: low-cardinality ones only (no session, request id or resource URI). */
const METRIC_ATTRIBUTES = [
  'mcp.method.name',
  'gen_ai.tool.name',
  'gen_ai.prompt.name',
  'gen_ai.operation.name',
  'mcp.protocol.version',
  'network.transport',
  'network.protocol.name',
  'error.type',
  'rpc.response.status_code',
] as const;

/** Reads trace context out of a request's params._meta, as the MCP semantic conventions carry it. */
const META: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/**
 * Starts the OpenTelemetry SDK — traces and metrics over OTLP/HTTP, as the
 * standard variables configure it — and returns the hooks the server's three
 * call sites run through (src/common/telemetry.ts). Loaded by the CLI only when
 * an endpoint is set.
 */
export async function startTelemetry(config: TelemetryConfig, version: string): Promise<TelemetryHooks> {
  const resource = resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version })
    .merge(detectResources({ detectors: [resourceAttributesEnvDetector] }))
    // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES (the SDK specification).
    .merge(process.env.OTEL_SERVICE_NAME ? resourceFromAttributes({ 'service.name': config.serviceName }) : null);
  const exporters = await otlpExporters(config);
  const tracing = new TracerProvider({
    resource,
    sampler: samplerFor(config),
    spanProcessors: [new BatchSpanProcessor({ exporter: exporters.traces })],
  });
  const metering = new MeterProvider({
    resource,
    readers: exporters.metrics
      ? [new PeriodicExportingMetricReader({ exporter: exporters.metrics, exportIntervalMillis: config.metricIntervalMs })]
      : [],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(tracing);

  const tracer = tracing.getTracer(SCOPE, version);
  const duration = metering.getMeter(SCOPE, version).createHistogram('mcp.server.operation.duration', {
    unit: 's',
    description: 'MCP request duration as observed on the receiver from the time it was received until the result or ack is sent.',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  });

  /** Runs `work` as the active span `span`, ending it with its outcome; `onEnd` sees the span's final attributes. */
  const within = async <T>(span: Span, parent: Context, work: () => Promise<T>, noted: Record<string, unknown>): Promise<T> => {
    try {
      return await context.with(trace.setSpan(parent, span), work);
    } catch (error) {
      // The error's type only: its message may quote arguments or Google's text.
      noted['error.type'] ??= error instanceof Error ? error.name : '_OTHER';
      span.setAttribute('error.type', noted['error.type']);
      throw error;
    } finally {
      if (noted['error.type'] !== undefined) {
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  };

  return {
    async request(facts, run) {
      const parent = facts.meta ? propagation.extract(ROOT_CONTEXT, facts.meta, META) : ROOT_CONTEXT;
      const noted: Record<string, unknown> = { ...facts.attributes };
      const span = tracer.startSpan(
        facts.target ? `${facts.method} ${facts.target}` : facts.method,
        { kind: SpanKind.SERVER, attributes: defined(facts.attributes) },
        parent,
      );
      const started = performance.now();
      try {
        return await within(span, parent, () => run(note(span, noted)), noted);
      } finally {
        duration.record((performance.now() - started) / 1000, pick(noted, METRIC_ATTRIBUTES));
      }
    },
    google(facts, run) {
      const parent = context.active();
      const noted: Record<string, unknown> = {};
      const span = tracer.startSpan(
        `${facts.api} ${facts.method}`,
        {
          kind: SpanKind.CLIENT,
          attributes: { 'gsc.google.api': facts.api, 'gsc.google.method': facts.method, 'gsc.google.attempt': facts.attempt },
        },
        parent,
      );
      return within(span, parent, () => run(note(span, noted)), noted);
    },
    state(facts, run) {
      const parent = context.active();
      const span = tracer.startSpan(
        facts.namespace ? `${facts.operation} ${facts.namespace}` : facts.operation,
        {
          kind: SpanKind.CLIENT,
          attributes: defined({
            'db.system.name': facts.system,
            'db.operation.name': facts.operation,
            'db.collection.name': facts.namespace,
          }),
        },
        parent,
      );
      return within(span, parent, run, {});
    },
    async shutdown() {
      const stopped = Promise.allSettled([tracing.shutdown(), metering.shutdown()]);
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, SHUTDOWN_MS).unref())]);
    },
  };
}

function note(span: Span, noted: Record<string, unknown>) {
  return {
    set(attributes: Attributes) {
      const kept = defined(attributes);
      Object.assign(noted, kept);
      span.setAttributes(kept);
    },
  };
}

/** OpenTelemetry drops undefined values with a warning; the hooks' callers leave out what they do not know that way. */
function defined(attributes: Attributes): OtelAttributes {
  const kept: OtelAttributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined) {
      kept[key] = value;
    }
  }
  return kept;
}

function pick(noted: Record<string, unknown>, keys: readonly string[]): OtelAttributes {
  const kept: OtelAttributes = {};
  for (const key of keys) {
    const value = noted[key];
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      kept[key] = value;
    }
  }
  return kept;
}
