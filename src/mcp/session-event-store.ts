import { settle } from '../common/settle.js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { EventId, EventStore, JSONRPCMessage, StreamId } from '@modelcontextprotocol/server';
import { STATE_STORE } from '../state/state.module.js';
import { isEntryId, type StateStore } from '../state/state-store.js';
import { stateKey } from '../state/keys.js';

/** The SSE `retry` field of priming events: how long a 2025-11-25 client waits before it reconnects with Last-Event-ID. */
export const SSE_RETRY_MS = 1000;
/** How long a stream's events stay replayable after its latest event. */
const EVENT_TTL_MS = 10 * 60_000;
/** Newest events kept per stream. */
const EVENTS_PER_STREAM = 1000;
/** After the store fails, events are not stored (and not offered for resumption) for this long, so messages never wait on a store that is down. */
const RETRY_STORE_AFTER_MS = 5000;

/** The SDK's stream ids: a random UUID per POST, and one fixed id for the GET stream. */
const STREAM_ID = /^(?:_GET_stream|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
/** A priming event opens its stream: nothing is stored for it, and replay after it starts at the beginning. */
const STREAM_START = '0-0';

/**
 * Event ids are `<stream id>.<entry id>`: unique within the session, and they
 * name the stream they belong to, as the 2025-11-25 transport asks. Anything
 * else a client sends as Last-Event-ID is not ours.
 */
export function parseEventId(eventId: string): { streamId: StreamId; entryId: string } | undefined {
  const dot = eventId.lastIndexOf('.');
  if (dot < 0) {
    return undefined;
  }
  const streamId = eventId.slice(0, dot);
  const entryId = eventId.slice(dot + 1);
  return STREAM_ID.test(streamId) && isEntryId(entryId) ? { streamId, entryId } : undefined;
}

/** Creates one session's event store; injected where 2025-11-25 sessions are opened. */
@Injectable()
export class SessionEventStores {
  private readonly health = new StoreHealth(new Logger('SessionEvents'));

  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  forSession(sessionId: string): SessionEventStore {
    return new SessionEventStore(this.store, sessionId, this.health);
  }
}

/**
 * Resumable 2025-11-25 streams (SEP-1699), backed by the state store: each SSE
 * message is appended to the state stream `mcp-events:v1:<session>:<stream>`
 * (bounded, expiring EVENT_TTL_MS after its latest event) before it is written
 * to the connection, so a client that lost the connection reconnects with
 * Last-Event-ID and gets what followed on that stream — and only that stream,
 * of its own session.
 *
 * The store is a help here, never a gate: when it cannot be reached, messages
 * go out without an id (so no client is promised a resumption that cannot
 * happen) and nothing waits for it.
 */
export class SessionEventStore implements EventStore {
  constructor(
    private readonly store: StateStore,
    private readonly sessionId: string,
    private readonly health: StoreHealth,
  ) {}

  async storeEvent(streamId: StreamId, message: JSONRPCMessage): Promise<EventId> {
    if (!this.health.usable()) {
      return '';
    }
    if (Object.keys(message).length === 0) {
      return `${streamId}.${STREAM_START}`;
    }
    try {
      const entryId = await this.store.append(this.key(streamId), JSON.stringify(message), {
        maxLength: EVENTS_PER_STREAM,
        ttlMs: EVENT_TTL_MS,
        // A help, never a gate: a power cut that loses the latest events loses the connections they were for too.
        // A synced commit would stall the whole process on the disk for every SSE message (PRODUCT §10's HTTP bar).
        synced: false,
      });
      this.health.succeeded();
      return `${streamId}.${entryId}`;
    } catch (error) {
      this.health.failed(error);
      return '';
    }
  }

  getStreamIdForEventId(eventId: EventId): Promise<StreamId | undefined> {
    return settle(() => parseEventId(eventId)?.streamId);
  }

  async replayEventsAfter(
    lastEventId: EventId,
    { send }: { send: (eventId: EventId, message: JSONRPCMessage) => Promise<void> },
  ): Promise<StreamId> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) {
      throw new Error('Last-Event-ID is not an event id of this server');
    }
    const after = parsed.entryId === STREAM_START ? undefined : parsed.entryId;
    for (const entry of await this.store.read(this.key(parsed.streamId), { after })) {
      await send(`${parsed.streamId}.${entry.id}`, JSON.parse(entry.value) as JSONRPCMessage);
    }
    return parsed.streamId;
  }

  private key(streamId: StreamId): string {
    return stateKey('sessionEvents', this.sessionId, streamId);
  }
}

/** Shared by every session of a process: one warning per outage, and no store calls for a while after a failure. */
class StoreHealth {
  private downUntil = 0;
  private down = false;

  constructor(private readonly logger: Logger) {}

  usable(): boolean {
    return Date.now() >= this.downUntil;
  }

  succeeded(): void {
    if (!this.down) {
      return;
    }
    this.down = false;
    this.logger.log('the state store is back: 2025-11-25 streams are resumable again');
  }

  failed(error: unknown): void {
    this.downUntil = Date.now() + RETRY_STORE_AFTER_MS;
    if (this.down) {
      return;
    }
    this.down = true;
    this.logger.warn(
      `2025-11-25 stream events are not stored, so a dropped connection cannot resume: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
