import type { ServerResponse } from 'node:http';
import type { AuthInfo, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { STANDALONE_STREAM, writeEvent } from './legacy-standalone-stream.js';
import type { McpServerFactory } from './mcp-server.factory.js';
import { type SessionEventStores, SSE_RETRY_MS } from './session-event-store.js';

/** A 2025-11-25 session's McpServer and its transport: alive while one of its requests is in flight (and a moment after). */
export type Live = { server: McpServer; transport: NodeStreamableHTTPServerTransport; events: { muted: boolean } };

export interface LiveOptions {
  id: string;
  authInfo: AuthInfo | undefined;
  /** The session's GET stream, when this process holds it: where the server's messages outside any request go. */
  standaloneStream: () => ServerResponse | undefined;
  /** Called when the session's initialize request is served (a new session only). */
  initialized?: (id: string) => Promise<void>;
  /** Called when the client ends the session (DELETE). */
  closed: () => void;
}

/** A server and transport for one session, its SSE events kept in the state store (SEP-1699). */
export function buildLive(factory: McpServerFactory, eventStores: SessionEventStores, options: LiveOptions): Live {
  const { id, authInfo, standaloneStream } = options;
  const server = factory.create({ era: 'legacy', authInfo });
  const events = eventStores.forSession(id);
  // Muted while a revived server is shown its session's initialize again: that answer goes to no one.
  const gate = { muted: false };
  const transport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: () => id,
    // SEP-1699: event ids, a priming event with `retry`, replay after Last-Event-ID (from the state store).
    eventStore: {
      storeEvent: async (streamId, message) => (gate.muted ? '' : events.storeEvent(streamId, message)),
      replayEventsAfter: (lastEventId, sink) => events.replayEventsAfter(lastEventId, sink),
      getStreamIdForEventId: (eventId) => events.getStreamIdForEventId(eventId),
    },
    retryInterval: SSE_RETRY_MS,
    onsessioninitialized: options.initialized,
    onsessionclosed: options.closed,
  });
  // What the server sends outside any request (tools/list_changed) goes to the GET stream this process holds.
  const sendOnTransport = transport.send.bind(transport);
  transport.send = async (message, sendOptions) => {
    const stream = standaloneStream();
    if (sendOptions?.relatedRequestId !== undefined || 'result' in message || 'error' in message || !stream) {
      return sendOnTransport(message, sendOptions);
    }
    writeEvent(stream, message, await events.storeEvent(STANDALONE_STREAM, message));
  };
  return { server, transport, events: gate };
}

/** Shows a connected server its session's initialize request again, so it is as it was after it; the answer goes to no one. */
export async function replayInitialize(live: Live, init: Record<string, unknown>, authInfo: AuthInfo | undefined): Promise<void> {
  live.events.muted = true;
  const web = (live.transport as unknown as { _webStandardTransport: WebStandardStreamableHTTPServerTransport })._webStandardTransport;
  const replay = await web.handleRequest(
    new Request('http://localhost/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    }),
    { authInfo, parsedBody: { jsonrpc: '2.0', id: 0, method: 'initialize', params: init } },
  );
  await replay.text();
  live.events.muted = false;
}
