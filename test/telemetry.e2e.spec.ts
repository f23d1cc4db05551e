import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp, connectStdio, type TestClient } from './support/clients.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { spawnHttpBinary } from './support/http-binary.js';
import { OtlpReceiver, type OtlpSpan } from './support/otlp-receiver.js';

// OpenTelemetry (issue 33, item 2; PRODUCT.md §8e): with an OTLP endpoint set,
// the built server exports one trace per MCP request to a real OTLP/HTTP
// receiver — the server span joined to the caller's traceparent, a child span
// per Google request and per state-store operation — and the
// mcp.server.operation.duration histogram; without one, no @opentelemetry
// module is even loaded.

const SITE = SEED_PROPERTIES.owned;
const OTLP_SECRET = `otlp-key-${randomBytes(12).toString('hex')}`;
const PRELOAD = resolve(import.meta.dirname, 'support/loaded-packages.mjs');
const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

let google: TestGoogle;
let receiver: OtlpReceiver;

beforeAll(async () => {
  [google, receiver] = await Promise.all([startGoogle(), OtlpReceiver.start()]);
});

afterAll(async () => {
  await Promise.all([google?.emulator.close(), receiver?.close()]);
});

/** A W3C trace context as a caller's own span would send it. */
function callerContext() {
  const traceId = randomBytes(16).toString('hex');
  const spanId = randomBytes(8).toString('hex');
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01`, tracestate: 'caller=t61rcWkgMzE' };
}

const otel = (extra: Record<string, string> = {}) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_EXPORTER_OTLP_HEADERS: `x-otlp-key=${OTLP_SECRET}`,
  OTEL_SERVICE_NAME: 'gsc-under-test',
  OTEL_METRIC_EXPORT_INTERVAL: '1000',
  ...extra,
});

function watchModules() {
  const report = join(mkdtempSync(join(tmpdir(), 'gsc-loaded-')), 'modules.txt');
  return {
    report,
    env: { NODE_OPTIONS: `--import ${PRELOAD}`, LOADED_MODULES_REPORT: report, LOADED_MODULES_PATTERN: '/node_modules/@opentelemetry/' },
    /** The report, once the process has exited and written it (polled: the exit is not an event this process can await). */
    read: async () => {
      for (let i = 0; i < 200 && !existsSync(report); i++) {
        await sleep(50);
      }
      return readFileSync(report, 'utf8').split('\n').filter(Boolean);
    },
  };
}

/** Calls a tool with the caller's trace context in params._meta, as the MCP semantic conventions carry it. */
async function tracedCall(client: TestClient, name: string, args: Record<string, unknown>, caller: ReturnType<typeof callerContext>) {
  return client.raw.callTool({ name, arguments: args, _meta: { traceparent: caller.traceparent, tracestate: caller.tracestate } });
}

/** The duration histogram's data point of a tools/call, from whichever metric export carried one. */
function toolPoint(): { unit: string; point: any } | undefined {
  for (const metric of receiver.metrics().filter((m) => m.name === 'mcp.server.operation.duration')) {
    const point = metric.histogram.dataPoints.find((p: any) => p.attributes.some((a: any) => a.key === 'gen_ai.tool.name'));
    if (point) {
      return { unit: metric.unit, point };
    }
  }
  return undefined;
}

const inTrace = (traceId: string) => receiver.spans().filter((s) => s.traceId === traceId);

/** True when `span` descends from `ancestor` within `spans`. */
function descends(span: OtlpSpan, ancestor: OtlpSpan, spans: OtlpSpan[]): boolean {
  for (let at: OtlpSpan | undefined = span; at; at = spans.find((s) => s.spanId === at.parentSpanId)) {
    if (at.parentSpanId === ancestor.spanId) {
      return true;
    }
  }
  return false;
}

/** Every string an export carries in an attribute, resource included, so that none may hold a secret or a query's text. */
function exportedStrings(): string[] {
  const strings: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') {
      strings.push(value);
    } else if (Array.isArray(value)) {
      value.forEach(walk);
    } else if (value && typeof value === 'object') {
      Object.values(value).forEach(walk);
    }
  };
  for (const e of receiver.exports.filter((x) => x.json)) {
    walk(e.json);
  }
  return strings;
}

describe('with OTEL_EXPORTER_OTLP_ENDPOINT (http/json), over stdio with the v2 client (2026-07-28)', () => {
  const caller = callerContext();
  let result: any;
  let modules: string[] | undefined;

  beforeAll(async () => {
    receiver.clear();
    const watch = watchModules();
    const client = await connectStdio({ ...google.env, ...otel(), ...watch.env }, { revision: '2026-07-28' });
    result = await tracedCall(client, 'query_search_analytics', { site_url: SITE, dimensions: ['query'], period: 'last7days' }, caller);
    await receiver.until(
      () => inTrace(caller.traceId).some((s) => s.name === 'tools/call query_search_analytics') && toolPoint() !== undefined,
    );
    await client.close();
    modules = await watch.read();
  });

  it('the tool call is one server span in the caller’s trace, named and attributed per the MCP semantic conventions', () => {
    expect(result.isError).toBeFalsy();
    const server = inTrace(caller.traceId).filter((s) => s.kind === SERVER);
    expect(server.map((s) => s.name)).toEqual(['tools/call query_search_analytics']);
    const [span] = server;
    expect(span.parentSpanId).toBe(caller.spanId);
    expect(span.traceState).toBe(caller.tracestate);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'query_search_analytics',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'pipe',
    });
    expect(typeof span.attributes['jsonrpc.request.id']).toBe('string');
    expect(span.attributes).not.toHaveProperty('error.type');
    expect(receiver.resource()['service.name']).toBe('gsc-under-test');
  });

  it('each Google request is a client span below it: API, method, HTTP status, outcome', () => {
    const spans = inTrace(caller.traceId);
    const [server] = spans.filter((s) => s.kind === SERVER);
    const google = spans.filter((s) => s.attributes['gsc.google.api'] !== undefined);
    expect(google.length).toBeGreaterThanOrEqual(1);
    for (const span of google) {
      expect(span.kind).toBe(CLIENT);
      expect(descends(span, server, spans)).toBe(true);
    }
    const query = google.find((s) => s.attributes['gsc.google.method'] === 'searchanalytics.query');
    expect(query).toMatchObject({
      name: 'searchconsole searchanalytics.query',
      attributes: {
        'gsc.google.api': 'searchconsole',
        'http.request.method': 'POST',
        'http.response.status_code': 200,
        'gsc.google.outcome': 'ok',
        'server.address': '127.0.0.1',
        'gsc.google.attempt': 1,
      },
    });
  });

  it('state-store operations are client spans below it', () => {
    const spans = inTrace(caller.traceId);
    const [server] = spans.filter((s) => s.kind === SERVER);
    const state = spans.filter((s) => s.attributes['db.system.name'] === 'sqlite');
    expect(state.length).toBeGreaterThanOrEqual(1);
    for (const span of state) {
      expect(span.kind).toBe(CLIENT);
      expect(descends(span, server, spans)).toBe(true);
      expect(typeof span.attributes['db.operation.name']).toBe('string');
    }
  });

  it('exports the mcp.server.operation.duration histogram in seconds, with the conventions’ attributes', () => {
    const { unit, point: call } = toolPoint()!;
    expect(unit).toBe('s');
    const attributes = Object.fromEntries(call.attributes.map((a: any) => [a.key, a.value.stringValue]));
    expect(attributes).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'query_search_analytics' });
    // Low cardinality only: no session or request id on a metric.
    expect(attributes).not.toHaveProperty('jsonrpc.request.id');
    expect(Number(call.count)).toBeGreaterThanOrEqual(1);
  });

  it('sends the configured headers, and no exported attribute carries a token, a secret or a query’s text', () => {
    expect(receiver.exports.every((e) => e.headers['x-otlp-key'] === OTLP_SECRET)).toBe(true);
    const rows: { keys: string[] }[] = result.structuredContent.rows;
    const queries = rows.map((r) => r.keys[0]).filter((q) => q.length >= 4);
    expect(queries.length).toBeGreaterThan(0);
    const tokens = [...google.emulator.credentials.accessTokens.keys()];
    expect(tokens.length).toBeGreaterThan(0);
    const key = JSON.parse(google.env.GSC_SERVICE_ACCOUNT_KEY).private_key as string;
    const forbidden = [...queries, ...tokens, OTLP_SECRET, key.split('\n')[1]];
    const leaks = exportedStrings().filter((s) => forbidden.some((f) => s.includes(f)));
    expect(leaks).toEqual([]);
  });

  it('loads OpenTelemetry (the same watch that sees none without the variable)', () => {
    expect(modules!.some((url) => url.includes('/@opentelemetry/sdk-trace/'))).toBe(true);
  });
});

describe('with OTEL_EXPORTER_OTLP_ENDPOINT, over Streamable HTTP with the v1 client (2025-11-25)', () => {
  it('joins the caller’s trace the same way, with the session and the TCP transport', async () => {
    receiver.clear();
    const caller = callerContext();
    const server = await spawnHttpBinary({ ...google.env, ...otel() });
    try {
      const client = await connectHttp(server.url, { revision: '2025-11-25' });
      const answer = await tracedCall(client, 'list_sites', {}, caller);
      expect(answer.isError).toBeFalsy();
      const unknown = await tracedCall(client, 'no_such_tool', {}, callerContext()).catch((error: unknown) => error);
      expect(unknown).toBeInstanceOf(Error);
      await client.close();
    } finally {
      await server.stop();
    }
    await receiver.until(() => inTrace(caller.traceId).some((s) => s.kind === SERVER));
    const spans = inTrace(caller.traceId);
    const [span] = spans.filter((s) => s.kind === SERVER);
    expect(span).toMatchObject({ name: 'tools/call list_sites', parentSpanId: caller.spanId });
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'list_sites',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    });
    expect(typeof span.attributes['mcp.session.id']).toBe('string');
    const sitesList = spans.find((s) => s.name === 'searchconsole sites.list');
    expect(sitesList && descends(sitesList, span, spans)).toBe(true);
    // The initialize of the session is a span too; an unknown tool is a JSON-RPC error with its code as error.type.
    const all = receiver.spans().filter((s) => s.kind === SERVER);
    expect(all.some((s) => s.name === 'initialize')).toBe(true);
    const refused = all.find((s) => s.name === 'tools/call no_such_tool');
    expect(refused?.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(refused?.status?.code).toBe(ERROR);
  });
});

describe('with OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf', () => {
  it('exports the trace as protobuf to /v1/traces', async () => {
    receiver.clear();
    const caller = callerContext();
    const client = await connectStdio(
      { ...google.env, ...otel({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }) },
      { revision: '2026-07-28' },
    );
    await tracedCall(client, 'list_sites', {}, caller);
    const id = Buffer.from(caller.traceId, 'hex');
    const carries = () =>
      receiver.exports.some(
        (e) => e.path === '/v1/traces' && e.headers['content-type'] === 'application/x-protobuf' && e.body.includes(id),
      );
    // Closing stdin stops the server, whose shutdown exports what its batch still holds.
    await client.close();
    await receiver.until(carries);
    expect(carries()).toBe(true);
  });
});

describe('without an OTLP endpoint', () => {
  it('a server answers a tool call without loading any @opentelemetry module', async () => {
    const watch = watchModules();
    const client = await connectStdio({ ...google.env, ...watch.env }, { revision: '2026-07-28' });
    expect((await client.call('list_sites')).isError).toBeFalsy();
    await client.close();
    expect(await watch.read()).toEqual([]);
  });
});
