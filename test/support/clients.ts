import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { isolatedEnv, MAIN } from './env.js';

/** The answer a test's "person" gives to an approval dialog. */
export type Elicit = (params: { message: string; requestedSchema: unknown }) => {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
};

export interface ClientOptions {
  /** v2 pinned to 2026-07-28, or the v1 client (2025-11-25). */
  readonly revision: '2026-07-28' | '2025-11-25';
  /** Declares the elicitation capability and answers dialogs with this. */
  readonly elicit?: Elicit;
  /** HTTP: the SDK's auth provider for the transport (v2: AuthProvider or OAuthClientProvider; v1: OAuthClientProvider). */
  readonly authProvider?: unknown;
}

export interface ToolResult {
  readonly isError?: boolean;
  readonly content: { type: string; text?: string }[];
  readonly structuredContent?: Record<string, any>;
}

export interface TestClient {
  readonly revision: ClientOptions['revision'];
  readonly dialogs: string[];
  listTools(): Promise<any[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  /** The raw client, for protocol-level assertions. */
  readonly raw: any;
  close(): Promise<void>;
}

export async function connectStdio(
  env: Record<string, string>,
  options: ClientOptions,
  args: string[] = [],
): Promise<TestClient & { stderr: () => string }> {
  let stderr = '';
  const params = { command: process.execPath, args: [MAIN, ...args], env: isolatedEnv(env), stderr: 'pipe' as const };
  const transport = options.revision === '2026-07-28' ? new V2StdioTransport(params) : new V1StdioTransport(params);
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = await connect(transport, options);
  return { ...client, stderr: () => stderr };
}

export async function connectHttp(url: string, options: ClientOptions, headers: Record<string, string> = {}): Promise<TestClient> {
  const transportOptions = { requestInit: { headers }, ...(options.authProvider ? { authProvider: options.authProvider as never } : {}) };
  const transport =
    options.revision === '2026-07-28'
      ? new V2HttpTransport(new URL(url), transportOptions)
      : new V1HttpTransport(new URL(url), transportOptions);
  return connect(transport, options);
}

async function connect(transport: any, options: ClientOptions): Promise<TestClient> {
  const dialogs: string[] = [];
  const capabilities = options.elicit ? { elicitation: { form: {} } } : {};
  const info = { name: 'gsc-test-client', version: '1.0.0' };
  const answer = (params: any) => {
    dialogs.push(params.message);
    return options.elicit!({ message: params.message, requestedSchema: params.requestedSchema });
  };
  let client: any;
  if (options.revision === '2026-07-28') {
    client = new V2Client(info, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    if (options.elicit) {
      client.setRequestHandler('elicitation/create', async (request: any) => answer(request.params));
    }
  } else {
    client = new V1Client(info, { capabilities });
    if (options.elicit) {
      client.setRequestHandler(ElicitRequestSchema, async (request: any) => answer(request.params));
    }
  }
  await client.connect(transport);
  return {
    revision: options.revision,
    dialogs,
    raw: client,
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as ToolResult,
    close: () => client.close(),
  };
}

export function text(result: ToolResult): string {
  return result.content.map((c) => c.text ?? '').join('\n');
}
