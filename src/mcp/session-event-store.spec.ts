import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { parseEventId, SessionEventStores } from './session-event-store.js';

const POST = '6f1c2d3e-4a5b-4c6d-8e7f-901234567890';
const OTHER_POST = '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d';
const message = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: { n: id } });

async function replay(events: ReturnType<SessionEventStores['forSession']>, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await events.replayEventsAfter(after, { send: async (id, m) => void sent.push([id, m]) });
  return { stream, sent };
}

describe('SessionEventStore on the embedded store', () => {
  let root: string;
  let store: SqliteStateStore;
  let stores: SessionEventStores;
  beforeAll(() => {
    Logger.overrideLogger(false);
    root = mkdtempSync(join(tmpdir(), 'gsc-events-'));
    store = new SqliteStateStore(join(root, 'state'));
    stores = new SessionEventStores(store);
  });
  afterAll(async () => {
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('priming events cost no write and stand for the start of their stream; every message gets an id naming its stream', async () => {
    const events = stores.forSession('session-1');
    expect(await events.storeEvent(POST, {} as JSONRPCMessage)).toBe(`${POST}.0-0`);
    const ids = [
      await events.storeEvent(POST, message(1)),
      await events.storeEvent(OTHER_POST, message(9)),
      await events.storeEvent(POST, message(2)),
    ];
    for (const id of ids) {
      expect(parseEventId(id)).toEqual({ streamId: expect.any(String), entryId: expect.stringMatching(/^\d+-\d+$/) });
    }
    expect(new Set(ids).size).toBe(3);
    expect(await events.getStreamIdForEventId(ids[1])).toBe(OTHER_POST);

    expect(await replay(events, `${POST}.0-0`)).toEqual({
      stream: POST,
      sent: [
        [ids[0], message(1)],
        [ids[2], message(2)],
      ],
    });
    expect(await replay(events, ids[0])).toEqual({ stream: POST, sent: [[ids[2], message(2)]] });
    expect(await replay(events, ids[2])).toEqual({ stream: POST, sent: [] });
    expect(await replay(events, `${OTHER_POST}.0-0`)).toEqual({ stream: OTHER_POST, sent: [[ids[1], message(9)]] });
  });

  it('another session of the same store finds nothing under the same event ids', async () => {
    const mine = stores.forSession('session-a');
    const id = await mine.storeEvent(POST, message(1));
    expect((await replay(stores.forSession('session-b'), id)).sent).toEqual([]);
    expect((await replay(mine, `${POST}.0-0`)).sent).toHaveLength(1);
  });

  it.each([
    ['no separator', 'abc'],
    ['not a stream of the SDK', 'stream.1-0'],
    ['an entry id that is not one', `${POST}.yesterday`],
    ['a line break', `${POST}.1-0\nid: x`],
    ['an empty string', ''],
  ])('refuses %s as Last-Event-ID', async (_name, id) => {
    const events = stores.forSession('session-x');
    expect(parseEventId(id)).toBeUndefined();
    expect(await events.getStreamIdForEventId(id)).toBeUndefined();
    await expect(events.replayEventsAfter(id, { send: async () => undefined })).rejects.toThrow(/not an event id of this server/);
  });
});

describe('SessionEventStore when the store cannot be used', () => {
  it('hands out no ids (nothing is promised) and never throws into the transport', async () => {
    const root = mkdtempSync(join(tmpdir(), 'gsc-events-down-'));
    const blocker = join(root, 'blocker');
    writeFileSync(blocker, 'a file where the folder should be');
    const store = new SqliteStateStore(join(blocker, 'state'));
    const events = new SessionEventStores(store).forSession('s');
    expect(await events.storeEvent(POST, message(1))).toBe('');
    // Within the pause after a failure, not even the priming event claims to be resumable.
    expect(await events.storeEvent(POST, {} as JSONRPCMessage)).toBe('');
    expect(await events.storeEvent(POST, message(2))).toBe('');
    await store.close();
    rmSync(root, { recursive: true, force: true });
  });
});
