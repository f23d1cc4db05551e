// What the 2025-11-25 session layer reads of a request's JSON-RPC body before the SDK's transport sees it.

type Message = { method?: unknown; params?: Record<string, unknown> } | undefined;

/** The request a `notifications/cancelled` names, if the body is one. */
export function cancelledRequestId(body: unknown): string | number | undefined {
  const message = body as Message;
  const id = message?.method === 'notifications/cancelled' ? message.params?.requestId : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** Removes a tools/call's 2026-07-28 retry fields (`requestState`, `inputResponses`), which mean nothing on this revision. */
export function dropRetryFields(body: unknown): void {
  const message = body as Message;
  if (message?.method !== 'tools/call' || !message.params) {
    return;
  }
  delete message.params.requestState;
  delete message.params.inputResponses;
}

/** A JSON-RPC notification: a method and no id. */
export function isNotification(body: unknown): boolean {
  const message = body as { method?: unknown; id?: unknown } | undefined;
  return typeof message?.method === 'string' && message.id === undefined;
}
