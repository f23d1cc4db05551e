import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from './config.js';

// OpenTelemetry's standard variables as the configuration reads them (PRODUCT.md §8e).
const env = (vars: Record<string, string> = {}) => ({
  CLOUDSDK_CONFIG: mkdtempSync(join(tmpdir(), 'gcloud-')),
  GSC_STATE_DIR: mkdtempSync(join(tmpdir(), 'gsc-state-')),
  ...vars,
});

describe('telemetry settings', () => {
  it('are off without an endpoint, and with OTEL_SDK_DISABLED=true', () => {
    expect(loadConfig(env()).telemetry).toBeUndefined();
    expect(loadConfig(env({ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).telemetry).toBeUndefined();
    expect(loadConfig(env({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'TRUE' })).telemetry).toBeUndefined();
  });

  it('derive each signal’s URL from the base, as the OTLP exporter specification says, and default as it does', () => {
    expect(loadConfig(env({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.corp.example:4318/otlp/' })).telemetry).toEqual({
      tracesUrl: 'https://collector.corp.example:4318/otlp/v1/traces',
      metricsUrl: 'https://collector.corp.example:4318/otlp/v1/metrics',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: 'google-search-console-mcp',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      metricIntervalMs: 60_000,
    });
  });

  it('take a traces endpoint alone as given (no metrics then), and the other standard variables', () => {
    const t = loadConfig(
      env({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/custom/spans',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON',
        OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc%20def, X-Tenant=blue',
        OTEL_SERVICE_NAME: 'gsc-prod',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_METRIC_EXPORT_INTERVAL: '15000',
      }),
    ).telemetry;
    expect(t).toMatchObject({
      tracesUrl: 'http://127.0.0.1:4318/custom/spans',
      protocol: 'http/json',
      headers: { 'api-key': 'abc def', 'x-tenant': 'blue' },
      serviceName: 'gsc-prod',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      metricIntervalMs: 15_000,
    });
    expect(t?.metricsUrl).toBeUndefined();
  });

  it('stop start-up with one line naming the variable and its valid forms, never quoting a header', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(() => loadConfig(env({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }))).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (gRPC is not supported; use OTLP over HTTP) (got "grpc")',
    );
    expect(() => loadConfig(env({ ...base, OTEL_TRACES_SAMPLER: 'sometimes' }))).toThrow(/^OTEL_TRACES_SAMPLER must be always_on, /);
    expect(() => loadConfig(env({ ...base, OTEL_TRACES_SAMPLER_ARG: '1.5' }))).toThrow(
      /^OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/,
    );
    expect(() => loadConfig(env({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }))).toThrow(
      /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
    let message = '';
    try {
      loadConfig(env({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'api-key-without-value-s3cr3t' }));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs/);
    expect(message).not.toContain('s3cr3t');
  });
});
