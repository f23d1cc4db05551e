import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One OTLP/HTTP export as it arrived: the path (/v1/traces, /v1/metrics), its headers and body. */
export interface Export {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The decoded request for http/json; undefined for protobuf. */
  readonly json?: any;
}

export interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly traceState?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
  readonly status?: { code?: number };
}

/**
 * A real OTLP/HTTP receiver on 127.0.0.1 (what a collector's otlphttp receiver
 * does): takes POSTs on /v1/traces and /v1/metrics, answers 200 with an empty
 * export response, keeps every export and wakes whoever waits for one.
 */
export class OtlpReceiver {
  readonly exports: Export[] = [];
  private waiters: (() => void)[] = [];
  private readonly server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const json = String(request.headers['content-type']).startsWith('application/json') ? JSON.parse(body.toString('utf8')) : undefined;
      this.exports.push({ path: request.url ?? '', headers: request.headers, body, json });
      const isJson = json !== undefined;
      response.writeHead(200, { 'content-type': isJson ? 'application/json' : 'application/x-protobuf' });
      response.end(isJson ? '{}' : Buffer.alloc(0));
      for (const wake of this.waiters.splice(0)) {
        wake();
      }
    });
  });

  url = '';

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    receiver.server.listen(0, '127.0.0.1');
    await once(receiver.server, 'listening');
    receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    return receiver;
  }

  /** Resolves once `done` holds of what arrived (checked after every export); rejects after timeoutMs. */
  async until(done: () => boolean, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) {
        throw new Error(`the OTLP receiver did not get what was expected within ${timeoutMs} ms (${this.exports.length} exports)`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Every span of the http/json trace exports, attributes flattened to plain values. */
  spans(): OtlpSpan[] {
    return this.exports
      .filter((e) => e.path === '/v1/traces' && e.json)
      .flatMap((e) => e.json.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans)))
      .map((s: any) => ({ ...s, attributes: flatten(s.attributes) }));
  }

  /** Every metric of the http/json metric exports. */
  metrics(): any[] {
    return this.exports
      .filter((e) => e.path === '/v1/metrics' && e.json)
      .flatMap((e) => e.json.resourceMetrics.flatMap((rm: any) => rm.scopeMetrics.flatMap((sm: any) => sm.metrics)));
  }

  /** The resource attributes of the first trace export. */
  resource(): Record<string, unknown> {
    const first = this.exports.find((e) => e.path === '/v1/traces' && e.json);
    return flatten(first?.json.resourceSpans[0].resource.attributes ?? []);
  }

  clear(): void {
    this.exports.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }
}

/** OTLP/JSON key-values ({key, value: {stringValue|intValue|…}}) as a plain object. */
export function flatten(attributes: { key: string; value: Record<string, unknown> }[]): Record<string, unknown> {
  return Object.fromEntries(attributes.map(({ key, value }) => [key, anyValue(value)]));
}

function anyValue(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) {
    return value.stringValue;
  }
  if ('intValue' in value) {
    return Number(value.intValue);
  }
  if ('doubleValue' in value) {
    return value.doubleValue;
  }
  if ('boolValue' in value) {
    return value.boolValue;
  }
  if ('arrayValue' in value) {
    return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(anyValue);
  }
  return value;
}
