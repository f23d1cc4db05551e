import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';
import { SSE_RETRY_MS } from './session-event-store.js';

/** The SDK's id of a 2025-11-25 session's one GET stream (its event ids start with it). */
export const STANDALONE_STREAM = '_GET_stream';
/** As often as the SDK's own keep-alive comment on an SSE stream. */
export const KEEP_ALIVE_MS = 15_000;

/**
 * A 2025-11-25 session's standalone GET stream, held by us rather than by the
 * SDK's transport: a v1 client opens it right after `initialized` and keeps it
 * open for the session's whole life, and through the SDK it would keep a whole
 * McpServer, its transport, a web Request/Response pair and a keep-alive timer
 * alive per idle session. Here it is the Node response alone: headers, a
 * priming event with `retry` (SEP-1699), a replay after Last-Event-ID from the
 * state store, then whatever the session's server sends outside a request
 * (notifications/tools/list_changed). Keep-alive comments go out from one
 * shared timer (LegacySessions).
 */
export async function openStandaloneStream(
  req: IncomingMessage,
  res: ServerResponse,
  sessionId: string,
  events: EventStore,
): Promise<boolean> {
  const lastEventId = req.headers['last-event-id'];
  res.writeHead(200, {
    'Content-Type': 'text/event-stream',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'mcp-session-id': sessionId,
  });
  if (typeof lastEventId === 'string' && lastEventId) {
    await events.replayEventsAfter(lastEventId, { send: async (id, message) => void writeEvent(res, message, id) });
  } else {
    const primingId = await events.storeEvent(STANDALONE_STREAM, {} as JSONRPCMessage);
    res.write(primingId ? `id: ${primingId}\nretry: ${SSE_RETRY_MS}\ndata: \n\n` : `retry: ${SSE_RETRY_MS}\ndata: \n\n`);
  }
  return !res.writableEnded && !res.destroyed;
}

/** One SSE event, spelled as the SDK's transport spells it. */
export function writeEvent(res: ServerResponse, message: JSONRPCMessage, eventId?: string): void {
  if (res.writableEnded || res.destroyed) {
    return;
  }
  res.write(`event: message\n${eventId ? `id: ${eventId}\n` : ''}data: ${JSON.stringify(message)}\n\n`);
}

/** Whether Last-Event-ID names the standalone stream (resumed here) rather than a request's (resumed by the SDK's transport). */
export function resumesStandalone(req: IncomingMessage): boolean {
  const lastEventId = req.headers['last-event-id'];
  return typeof lastEventId !== 'string' || !lastEventId || lastEventId.startsWith(`${STANDALONE_STREAM}.`);
}
