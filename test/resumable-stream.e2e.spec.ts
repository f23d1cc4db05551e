import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SEED_PROPERTIES } from '../src/emulator/emulator-seed.js';
import { connectHttp } from './support/clients.js';
import { type CuttingProxy, startCuttingProxy } from './support/cutting-proxy.js';
import { type HttpBinary, spawnHttpBinary } from './support/http-binary.js';
import { useGoogleAndRedis } from './support/stack.js';

// Resumable 2025-11-25 streams (SEP-1699): the official v1 client, its SSE
// stream cut by a proxy mid-dialog, reconnects with Last-Event-ID on its own.

const SITE = SEED_PROPERTIES.blog;
const PRIMING = /^id: ([0-9a-f-]{36})\.0-0\nretry: 1000\ndata: \n\n$/;
const isDeleteCall = (body: string) => body.includes('"tools/call"') && body.includes('"delete_site"');

const { google, redis, deletes } = useGoogleAndRedis();

describe.each([
  ['SQLite', () => ({})],
  ['Redis', () => ({ GSC_REDIS_URL: redis.url })],
])('a 2025-11-25 session whose SSE stream is cut mid-dialog (events in %s)', (_store, storeEnv) => {
  let server: HttpBinary;
  let proxy: CuttingProxy;
  beforeAll(async () => {
    server = await spawnHttpBinary({ ...google.env, ...storeEnv() });
    proxy = await startCuttingProxy(server.url);
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.stop();
  });

  const connect = () =>
    connectHttp(proxy.url, { revision: '2025-11-25', elicit: () => ({ action: 'accept', content: { confirm: true } }) });

  it('cut right after the priming event, before the dialog: the client resumes and still receives the dialog', async () => {
    const client = await connect();
    try {
      proxy.cutNext(isDeleteCall, 1);
      const result = await client.call('delete_site', { site_url: SITE });
      expect(result.structuredContent).toMatchObject({ executed: true, outcome: 'executed' });
      expect(client.dialogs).toHaveLength(1);
      expect(client.dialogs[0]).toContain(`This will remove ${SITE}`);
      expect(deletes()).toHaveLength(1);

      const cut = proxy.requests.find((r) => r.cut)!;
      expect(cut.forwarded).toMatch(PRIMING);
      const streamId = PRIMING.exec(cut.forwarded)![1];
      const resumed = proxy.requests.filter((r) => r.method === 'GET' && r.headers['last-event-id']);
      expect(resumed.map((r) => r.headers['last-event-id'])).toEqual([`${streamId}.0-0`]);
    } finally {
      await client.close();
    }
  });

  it('cut right after the dialog reached the client: the answer goes through, and the result is replayed on reconnection', async () => {
    const before = proxy.requests.length;
    const client = await connect();
    try {
      proxy.cutNext(isDeleteCall, 2);
      const result = await client.call('delete_site', { site_url: SITE });
      expect(result.structuredContent).toMatchObject({ executed: true, outcome: 'executed' });
      expect(client.dialogs).toHaveLength(1);
      expect(deletes()).toHaveLength(1);

      const cut = proxy.requests.slice(before).find((r) => r.cut)!;
      const [priming, dialog] = cut.forwarded.split(/(?<=\n\n)/);
      expect(priming).toMatch(PRIMING);
      const dialogId = /^event: message\nid: ([0-9a-f-]{36}\.\d+-\d+)\ndata: (.*)\n\n$/.exec(dialog)!;
      expect(JSON.parse(dialogId[2])).toMatchObject({ method: 'elicitation/create' });
      const resumed = proxy.requests.slice(before).filter((r) => r.method === 'GET' && r.headers['last-event-id']);
      expect(resumed.map((r) => r.headers['last-event-id'])).toEqual([dialogId[1]]);
    } finally {
      await client.close();
    }
  });
});

describe('Last-Event-ID on the wire', () => {
  let server: HttpBinary;
  beforeAll(async () => {
    server = await spawnHttpBinary(google.env);
  });
  afterAll(() => server?.stop());

  async function session(): Promise<Record<string, string>> {
    const init = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'wire', version: '1' } },
      }),
    });
    await init.text();
    const headers = { 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
    await fetch(server.url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    return headers;
  }

  const resume = (headers: Record<string, string>, lastEventId: string) =>
    fetch(server.url, { headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId } });

  it('every POST stream opens with a priming event (id, retry, empty data); a completed stream replays its answer, and only its own', async () => {
    const headers = await session();
    const post = async (id: number) => {
      const res = await fetch(server.url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
      });
      expect(res.headers.get('content-type')).toBe('text/event-stream');
      return res.text();
    };
    const [one, two] = [await post(2), await post(3)];
    for (const stream of [one, two]) {
      expect(stream.split(/(?<=\n\n)/)[0]).toMatch(PRIMING);
    }
    const primingOfOne = PRIMING.exec(one.split(/(?<=\n\n)/)[0])![0].match(/^id: (\S+)/)![1];

    const replay = await resume(headers, primingOfOne);
    expect(replay.status).toBe(200);
    const events = (await replay.text()).split(/(?<=\n\n)/).filter((e) => e.includes('data: {'));
    expect(events).toHaveLength(1);
    expect(JSON.parse(/data: (.*)\n/.exec(events[0])![1])).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });
  });

  it('refuses an event id that is not one of ours, and one from another session finds nothing there', async () => {
    const mine = await session();
    const theirs = await session();
    expect((await resume(mine, 'not-an-event-id')).status).toBe(400);
    const res = await fetch(server.url, {
      method: 'POST',
      headers: { ...theirs, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    const theirPriming = /^id: (\S+)/.exec(await res.text())![1];
    const stolen = await resume(mine, theirPriming);
    expect(stolen.status).toBe(200);
    expect(await stolen.text()).not.toContain('"tools"');
  });
});
