// PRODUCT §5a end to end: notifications/progress and cancellation for
// inspect_urls and submit_sitemaps, through the official clients of both
// protocol revisions, over stdio (the built binary) and HTTP (the real app),
// against the emulator. Cancellation is witnessed by the emulator's request
// log and the quota ledger, never by time: the emulator holds every inspection
// for 500 ms and leaves five of the first ten unanswered, so when the client
// cancels after five answers, exactly the ten in flight (five hung, five
// launched by the lanes that were answered) have been sent, and nothing else
// may follow.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { CONFIG, loadConfig } from '../src/config/config.js';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { ToolDispatcher } from '../src/call/tool-dispatcher.service.js';
import { GOOGLE_QUOTA_LIMITS } from '../src/quota/quota-limits.js';
import { QuotaLedger } from '../src/quota/quota-ledger.service.js';
import { Clock } from '../src/common/clock.js';
import { createStateStore } from '../src/state/create-state-store.js';
import { connectHttp, connectStdio, type TestClient, type ToolResult } from './support/clients.js';
import { isolatedEnv } from './support/env.js';
import { startGoogle, type TestGoogle } from './support/google.js';
import { type InProcessServer, startInProcess } from './support/server.js';
import { HttpTraffic } from '../src/http/http-traffic.service.js';

const OWNED = SEED_PROPERTIES.owned;
const TWENTY = Array.from({ length: 20 }, (_, i) => `${OWNED}articles/post-${i + 1}`);
const TIMEOUT_MS = 1500;

type Progress = { progress: number; total?: number; message?: string };
type Revision = '2026-07-28' | '2025-11-25';

/** tools/call with the SDK's own progress and cancellation options (the v1 client takes a result schema first). */
function callTool(
  client: TestClient,
  name: string,
  args: Record<string, unknown>,
  options: { onprogress?: (p: Progress) => void; signal?: AbortSignal },
): Promise<ToolResult> {
  const params = { name, arguments: args };
  return client.revision === '2026-07-28' ? client.raw.callTool(params, options) : client.raw.callTool(params, undefined, options);
}

async function waitUntil(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) {
      return;
    }
    await sleep(20);
  }
  throw new Error(`timed out waiting until ${what}`);
}

interface Harness {
  /** A client on a fresh server; its state store is `dir`. */
  connect(revision: Revision, dir: string): Promise<TestClient>;
  /** Resolves once the server has no tool call running (for stdio: the client closed and the process drained and exited). */
  settle(client: TestClient): Promise<void>;
  close(): Promise<void>;
}

let google: TestGoogle;
beforeAll(async () => {
  google = await startGoogle();
});
afterAll(() => google.emulator.close());
beforeEach(() => google.emulator.reset());

const inspections = () => google.emulator.apiRequests().filter((r) => r.route === 'urlInspection.index.inspect');
const submissions = () => google.emulator.apiRequests().filter((r) => r.route === 'sitemaps.submit');

function httpHarness(): Harness {
  const servers: InProcessServer[] = [];
  return {
    async connect(revision, dir) {
      const env = { ...google.env, GSC_STATE_DIR: dir };
      const config = loadConfig(isolatedEnv({ GSC_HTTP_PORT: '0', ...env }), { forceHttp: true });
      const server = await startInProcess(env, [[CONFIG, { ...config, google: { ...config.google, timeoutMs: TIMEOUT_MS } }]]);
      servers.push(server);
      return connectHttp(server.url, { revision });
    },
    async settle() {
      const { app } = servers.at(-1)!;
      const dispatcher = app.get(ToolDispatcher);
      await waitUntil(() => dispatcher.running === 0, 'no tool call runs');
      // A cancelled call leaves no response open (on 2025 sessions the SDK would keep its stream open for good).
      const traffic = app.get(HttpTraffic);
      await waitUntil(() => traffic.openResponses === 0, 'every response of the MCP endpoint is closed');
    },
    async close() {
      for (const server of servers.splice(0)) {
        const closing = server.close();
        // A cancelled call can leave a connection the client opened and never sent a request on; the server's
        // close waits for it until the client's pool drops it (undici: after 4 s idle). The calls are settled: cut it.
        server.app.getHttpServer().closeAllConnections();
        await closing;
      }
    },
  };
}

function stdioHarness(): Harness {
  return {
    connect: (revision, dir) =>
      connectStdio({ ...google.env, GSC_STATE_DIR: dir, GSC_GOOGLE_TIMEOUT_MS: String(TIMEOUT_MS) }, { revision }),
    // Closing stdin makes the binary drain its running calls and exit; the client waits for the exit.
    settle: (client) => client.close(),
    close: async () => undefined,
  };
}

/**
 * What the quota ledger in a state folder counted for the property, read as another process would: on the
 * Pacific day the call began and, when the run crossed Pacific midnight since (08:00 UTC in winter), on the new
 * day too — a reservation stays on the day it was taken.
 */
async function ledgerCount(dir: string, since: Date): Promise<number> {
  const store = createStateStore({ kind: 'sqlite', dir });
  try {
    const days = new Map<number, number>();
    for (const at of [since, new Date()]) {
      const clock = new (class extends Clock {
        override now(): Date {
          return at;
        }
      })();
      const { day } = (await new QuotaLedger(store, clock, GOOGLE_QUOTA_LIMITS).snapshot({ kind: 'inspection', property: OWNED }))!;
      days.set(day.resetsAt.getTime(), day.used);
    }
    return [...days.values()].reduce((a, b) => a + b, 0);
  } finally {
    await store.close();
  }
}

describe.each([
  ['HTTP', '2026-07-28', httpHarness],
  ['HTTP', '2025-11-25', httpHarness],
  ['stdio', '2026-07-28', stdioHarness],
  ['stdio', '2025-11-25', stdioHarness],
] as const)('long jobs over %s, client speaking %s', (_transport, revision, makeHarness) => {
  let harness: Harness;
  let client: TestClient | undefined;
  beforeEach(() => {
    harness = makeHarness();
  });
  afterEach(async () => {
    await client?.close().catch(() => undefined);
    client = undefined;
    await harness.close();
  });

  it('inspect_urls sends progress after each of 20 URLs: done/total and the verdict in a few words', async () => {
    client = await harness.connect(revision, mkdtempSync(join(tmpdir(), 'gsc-state-')));
    google.emulator.setLatency('urlInspection.index.inspect', 50);
    const notes: Progress[] = [];
    const result = await callTool(client, 'inspect_urls', { site_url: OWNED, urls: TWENTY }, { onprogress: (p) => notes.push(p) });
    expect(result.isError).toBeFalsy();
    expect(notes.map((n) => n.progress)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(notes.every((n) => n.total === 20)).toBe(true);
    for (const note of notes) {
      expect(note.message).toMatch(
        /^https:\/\/www\.example\.com\/articles\/post-\d+: (PASS \(on Google\)|NEUTRAL \(excluded\)|FAIL \(error\))$/,
      );
    }
    expect(new Set(notes.map((n) => n.message!.split(': ')[0]))).toEqual(new Set(TWENTY));
    // Each note says what the result says about that URL.
    const verdicts = new Map<string, string>(
      result.structuredContent!.results.map((r: { url: string; verdict: string }) => [r.url, r.verdict]),
    );
    for (const note of notes) {
      expect(note.message).toContain(`: ${verdicts.get(note.message!.split(': ')[0]) ?? '?'}`);
    }
  });

  it('submit_sitemaps sends progress after each sitemap', async () => {
    client = await harness.connect(revision, mkdtempSync(join(tmpdir(), 'gsc-state-')));
    const sitemaps = [1, 2, 3, 4, 5, 6].map((i) => `${OWNED}sitemap-${i}.xml`);
    const notes: Progress[] = [];
    const result = await callTool(
      client,
      'submit_sitemaps',
      { site_url: OWNED, sitemap_urls: sitemaps },
      { onprogress: (p) => notes.push(p) },
    );
    expect(result.structuredContent).toMatchObject({ submitted_count: 6, failed_count: 0 });
    expect(notes.map((n) => n.progress)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(notes.map((n) => n.message).sort()).toEqual(sitemaps.map((s) => `${s}: accepted`).sort());
  });

  it('cancelling inspect_urls after 5 URLs: only the calls in flight were sent, none is retried, and each answered one is counted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gsc-state-'));
    client = await harness.connect(revision, dir);
    google.emulator.setLatency('urlInspection.index.inspect', 500);
    google.emulator.injectFault({ route: 'urlInspection.index.inspect', kind: 'hang', times: 5 });
    const controller = new AbortController();
    const notes: Progress[] = [];
    const since = new Date();
    const call = callTool(
      client,
      'inspect_urls',
      { site_url: OWNED, urls: TWENTY },
      {
        signal: controller.signal,
        onprogress: (p) => {
          notes.push(p);
          if (notes.length === 5) {
            controller.abort('enough');
          }
        },
      },
    );
    await expect(call).rejects.toThrow();
    expect(notes).toHaveLength(5);
    await harness.settle(client);
    client = undefined;

    const sent = inspections();
    // Ten were in flight when the client cancelled (five hung, five launched after the first five answers).
    expect(sent.length).toBeLessThanOrEqual(15);
    expect(sent.length).toBeLessThan(TWENTY.length);
    // Nothing was sent twice: the hung ones timed out after the cancellation and were not retried.
    const urls = sent.map((r) => (r.body as { inspectionUrl: string }).inspectionUrl);
    expect(new Set(urls).size).toBe(urls.length);
    // The calls already sent finished and were recorded: the ledger counts exactly those Google answered.
    const answered = sent.filter((r) => r.status === 200).length;
    expect(answered).toBeGreaterThanOrEqual(5);
    expect(await ledgerCount(dir, since)).toBe(answered);
  });
});

describe('cancelling submit_sitemaps (HTTP, 2026-07-28)', () => {
  const harness = httpHarness();
  afterAll(() => harness.close());

  it('stops sending after the cancellation; each sitemap is sent at most once', async () => {
    const client = await harness.connect('2026-07-28', mkdtempSync(join(tmpdir(), 'gsc-state-')));
    google.emulator.setLatency('sitemaps.submit', 500);
    google.emulator.injectFault({ route: 'sitemaps.submit', kind: 'hang', times: 2 });
    const sitemaps = Array.from({ length: 12 }, (_, i) => `${OWNED}feeds/sitemap-${i + 1}.xml`);
    const controller = new AbortController();
    const notes: Progress[] = [];
    const call = callTool(
      client,
      'submit_sitemaps',
      { site_url: OWNED, sitemap_urls: sitemaps },
      {
        signal: controller.signal,
        onprogress: (p) => {
          notes.push(p);
          if (notes.length === 2) {
            controller.abort('enough');
          }
        },
      },
    );
    await expect(call).rejects.toThrow();
    await harness.settle(client);
    await client.close();
    const sent = submissions().map((r) => r.rawPath);
    // Four in flight at a time: two hung, two answered, then two more launched before the cancellation arrived.
    expect(sent.length).toBeLessThanOrEqual(6);
    expect(new Set(sent).size).toBe(sent.length);
  });
});

describe('a stateless 2026-07-28 request on the wire', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startInProcess({ ...google.env });
  });
  afterAll(() => server.close());

  const post = (meta: Record<string, unknown>) =>
    fetch(server.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'inspect_urls',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'inspect_urls',
          arguments: { site_url: OWNED, urls: TWENTY.slice(0, 3) },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'wire-test', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': {},
            ...meta,
          },
        },
      }),
    });

  it('with a progressToken the answer becomes an SSE stream: the progress events, then the result', async () => {
    const res = await post({ progressToken: 'p-1' });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)));
    expect(events.slice(0, 3).map((e) => [e.method, e.params.progressToken, e.params.progress, e.params.total])).toEqual([
      ['notifications/progress', 'p-1', 1, 3],
      ['notifications/progress', 'p-1', 2, 3],
      ['notifications/progress', 'p-1', 3, 3],
    ]);
    expect(events[3]).toMatchObject({ id: 7, result: { structuredContent: { site_url: OWNED } } });
  });

  it('without one it is a plain JSON answer: no notification is sent', async () => {
    const res = await post({});
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ id: 7, result: { structuredContent: { site_url: OWNED } } });
  });
});
