import { CLIENT_CAPABILITIES_META_KEY, type ClientCapabilities } from '@modelcontextprotocol/server';
import type { ToolCall } from './tool-call.js';

/**
 * The client's capabilities in the revision actually in use: on 2026-07-28 the
 * request's own envelope, on 2025-11-25 what the client declared when the
 * session began (a per-request envelope there is a gateway's, and the SDK
 * would refuse to push on it).
 */
export function clientCapabilities(call: ToolCall): ClientCapabilities | undefined {
  return call.era === 'modern'
    ? (((call.sdk.mcpReq.envelope ?? {}) as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
    : call.server.server.getClientCapabilities();
}

/** Whether the client can open a link for a person (URL-mode elicitation), in the revision in use. */
export function opensLinks(call: ToolCall): boolean {
  const elicitation = clientCapabilities(call)?.elicitation as { url?: object } | undefined;
  return elicitation?.url !== undefined;
}
