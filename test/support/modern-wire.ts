let nextId = 1;

export interface WireOptions {
  readonly elicitation?: boolean;
  /** Declares URL-mode elicitation too (a client that can open a link for a person). */
  readonly urlElicitation?: boolean;
  readonly inputResponses?: Record<string, unknown>;
  readonly requestState?: unknown;
  readonly headers?: Record<string, string>;
}

/**
 * One 2026-07-28 tools/call on the wire, by hand: for asserting exactly what
 * the server answers to a given requestState / inputResponses, which a client
 * library would otherwise handle for us.
 */
export async function modernToolCall(
  url: string,
  name: string,
  args: Record<string, unknown>,
  options: WireOptions = {},
): Promise<{ status: number; body: any }> {
  const params: Record<string, unknown> = {
    name,
    arguments: args,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'wire-test', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities':
        options.elicitation === false ? {} : { elicitation: options.urlElicitation ? { form: {}, url: {} } : { form: {} } },
    },
  };
  if (options.inputResponses) {
    params.inputResponses = options.inputResponses;
  }
  if (options.requestState !== undefined) {
    params.requestState = options.requestState;
  }
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...options.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params }),
  });
  const raw = await res.text();
  const json = raw.startsWith('{') ? JSON.parse(raw) : JSON.parse(/data: (.*)\n/.exec(raw)?.[1] ?? 'null');
  return { status: res.status, body: json };
}

export const accept = { approval: { action: 'accept', content: { confirm: true } } };
export const decline = { approval: { action: 'decline' } };
export const cancel = { approval: { action: 'cancel' } };
