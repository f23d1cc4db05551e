// For specs of connected accounts at call time (PRODUCT.md §8d): the emulator
// as Google with an OAuth web client and no shared credential, the server's
// environment for connected mode, real grants saved where the server reads
// them, and the official clients of both revisions declaring URL-mode
// elicitation (what a client that can open a link for a person declares).

import { Client as V2Client, StreamableHTTPClientTransport as V2HttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { GrantStore } from '../../src/accounts/grant-store.js';
import { GoogleEmulator } from '../../src/emulator/google-emulator.js';
import { SCOPES } from '../../src/emulator/emulator-routing.js';
import { loadConfig } from '../../src/config/config.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import type { ToolResult } from './clients.js';
import { isolatedEnv, MAIN } from './env.js';
import { mintGrant, type MintedGrant } from './google-grant.js';

export const OAUTH_CLIENT = {
  clientId: '123456789012-connectedcallsconnectedcalls0123.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-connected-calls-test',
};
/** Where the connect page would send Google's answer; grants minted for a spec are registered for it. */
const REDIRECT = 'http://127.0.0.1:1/connect/google/callback';

/** Every scope the 21 tools need. */
export const ALL_TOOL_SCOPES = [SCOPES.webmasters, SCOPES.indexing, SCOPES.siteverification];

export interface ConnectedGoogle {
  readonly emulator: GoogleEmulator;
  /** Connected mode pointed at the emulator: the OAuth client, Google's endpoints, and no shared credential. */
  readonly env: Record<string, string>;
  /** A real grant for an emulator user (consent answered as a browser would); `untick` leaves scopes out. */
  mint(user: string, scopes?: readonly string[], untick?: readonly string[]): Promise<MintedGrant>;
  /** Revokes a grant at Google (the emulator's /revoke), as a person does at myaccount.google.com/permissions. */
  revoke(grant: MintedGrant): Promise<void>;
  close(): Promise<void>;
}

/** `desktop`: a Desktop OAuth client, which Google lets redirect to any loopback port (stdio's page server); grants are then only made through the connect page. */
export async function startConnectedGoogle(
  type: 'web' | 'desktop' = 'web',
  options: Parameters<typeof GoogleEmulator.start>[0] = {},
): Promise<ConnectedGoogle> {
  const emulator = await GoogleEmulator.start(options);
  emulator.registerOAuthClient({ ...OAUTH_CLIENT, redirectUris: type === 'web' ? [REDIRECT] : [], type });
  return {
    emulator,
    env: {
      GSC_API_ROOT_URL: emulator.url,
      GSC_OAUTH_TOKEN_URL: emulator.tokenUrl,
      GSC_OAUTH_AUTHORIZE_URL: `${emulator.url}/o/oauth2/v2/auth`,
      GSC_OAUTH_REVOKE_URL: `${emulator.url}/revoke`,
      GSC_GOOGLE_OAUTH_CLIENT_ID: OAUTH_CLIENT.clientId,
      GSC_GOOGLE_OAUTH_CLIENT_SECRET: OAUTH_CLIENT.clientSecret,
    },
    mint: (user, scopes = ALL_TOOL_SCOPES, untick = []) =>
      mintGrant(emulator, { ...OAUTH_CLIENT, user, scopes, untick, redirectUri: REDIRECT }),
    revoke: async (grant) => {
      const res = await fetch(`${emulator.url}/revoke`, { method: 'POST', body: new URLSearchParams({ token: grant.refreshToken }) });
      if (!res.ok) {
        throw new Error(`the emulator's /revoke answered ${res.status}`);
      }
    },
    close: () => emulator.close(),
  };
}

/** Saves a minted grant for `principal` with the grant store a server's graph uses (`store`), as the connect callback does. */
export async function saveGrant(store: GrantStore, principal: string, grant: MintedGrant): Promise<void> {
  await store.save({
    principal,
    googleSub: grant.sub,
    googleEmail: grant.email,
    scopes: grant.scopes,
    connectedAt: new Date().toISOString(),
    refreshToken: grant.refreshToken,
  });
}

/** The grant store of a server running in another process (stdio) from this environment: the same state folder and grant key. */
export function grantStoreFor(env: Record<string, string>): GrantStore {
  const config = loadConfig(env);
  return new GrantStore(createStateStore(config.state), config);
}

/** What a client was asked to open, and how it answers. */
export interface UrlElicitation {
  readonly mode?: string;
  readonly message: string;
  readonly url?: string;
  readonly elicitationId?: string;
}
export type AnswerLink = (request: UrlElicitation) => Promise<{ action: 'accept' | 'decline' | 'cancel' }>;

export interface LinkClient {
  readonly revision: '2026-07-28' | '2025-11-25';
  /** Every elicitation the server sent, as received. */
  readonly asked: UrlElicitation[];
  /** Progress messages the call received. */
  readonly progress: string[];
  /** 2025-11-25: the elicitationIds of notifications/elicitation/complete received. */
  readonly completed: string[];
  /** 2025-11-25: how many notifications/tools/list_changed arrived. */
  readonly listChanged: () => number;
  listTools(): Promise<{ name: string }[]>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface LinkClientOptions {
  readonly revision: '2026-07-28' | '2025-11-25';
  /** Declares URL-mode elicitation and answers with this; without it the client declares form mode only. */
  readonly answer?: AnswerLink;
  /** Approval dialogs (form mode): tick the box and accept; otherwise they are cancelled. */
  readonly approve?: boolean;
  /**
   * Which Google account to pick when asked (the form elicitation listing the accounts, each with its permission level
   * on the property: `offered`, read from the form's titled single-select); undefined declines.
   */
  readonly choose?: (offered: readonly OfferedAccount[], request: UrlElicitation & { requestedSchema: unknown }) => string | undefined;
  readonly headers?: Record<string, string>;
}

/** One account the chooser offered: its e-mail (the value to answer with) and what a client shows for it. */
export interface OfferedAccount {
  readonly email: string;
  /** e.g. "alice@example.com (owner)". */
  readonly title: string;
}

/**
 * The accounts a chooser offers, as a client reads its google_account field: a titled single-select (oneOf of
 * const + title, in both revisions' elicitation schema). Anything else is a chooser no client could render as a list.
 */
export function offeredAccounts(requestedSchema: unknown): OfferedAccount[] {
  const field = (requestedSchema as { properties?: { google_account?: { oneOf?: unknown } } }).properties?.google_account;
  if (!Array.isArray(field?.oneOf)) {
    throw new Error(`the account chooser's google_account field is no titled single-select: ${JSON.stringify(field)}`);
  }
  return (field.oneOf as { const: unknown; title: unknown }[]).map((o) => ({ email: String(o.const), title: String(o.title) }));
}

/** The official client of the revision over Streamable HTTP. */
export function linkClientHttp(url: string, options: LinkClientOptions): Promise<LinkClient> {
  const init = { requestInit: { headers: options.headers ?? {} } };
  const transport = options.revision === '2026-07-28' ? new V2HttpTransport(new URL(url), init) : new V1HttpTransport(new URL(url), init);
  return linkClient(transport, options);
}

/** The official client of the revision, spawning the built server over stdio. */
export function linkClientStdio(env: Record<string, string>, options: LinkClientOptions): Promise<LinkClient> {
  return linkClientSpawning({ command: process.execPath, args: [MAIN], env: isolatedEnv(env) }, options);
}

/** The same, spawning what a client's configuration names ("command", "args", "env" of an mcpServers entry). */
export function linkClientSpawning(
  server: { command: string; args: string[]; env: Record<string, string> },
  options: LinkClientOptions,
): Promise<LinkClient> {
  const params = { ...server, stderr: 'pipe' as const };
  const transport = options.revision === '2026-07-28' ? new V2StdioTransport(params) : new V1StdioTransport(params);
  return linkClient(transport, options);
}

async function linkClient(transport: any, options: LinkClientOptions): Promise<LinkClient> {
  const asked: UrlElicitation[] = [];
  const progress: string[] = [];
  const completed: string[] = [];
  let listChanged = 0;
  const capabilities: any = { elicitation: options.answer ? { form: {}, url: {} } : { form: {} } };
  const info = { name: 'gsc-connect-test-client', version: '1.0.0' };
  const handle = async (params: any): Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }> => {
    asked.push(params as UrlElicitation);
    if (params.mode !== 'url' && options.choose && params.requestedSchema?.properties?.google_account) {
      const chosen = options.choose(offeredAccounts(params.requestedSchema), params as UrlElicitation & { requestedSchema: unknown });
      return chosen ? { action: 'accept' as const, content: { google_account: chosen } } : { action: 'decline' as const };
    }
    if (params.mode !== 'url') {
      return options.approve ? { action: 'accept' as const, content: { confirm: true } } : { action: 'cancel' as const };
    }
    if (!options.answer) {
      return { action: 'cancel' as const };
    }
    return options.answer(params as UrlElicitation);
  };
  const onprogress = (p: { message?: string }) => {
    if (p.message) {
      progress.push(p.message);
    }
  };
  let client: any;
  let call: (name: string, args: Record<string, unknown>) => Promise<ToolResult>;
  if (options.revision === '2026-07-28') {
    client = new V2Client(info, { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    client.setRequestHandler('elicitation/create', async (request: any) => handle(request.params));
    call = async (name, args) => (await client.callTool({ name, arguments: args }, { onprogress, timeout: 120_000 })) as ToolResult;
  } else {
    client = new V1Client(info, { capabilities });
    client.setRequestHandler(ElicitRequestSchema, async (request: any) => handle(request.params));
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n: any) => void completed.push(n.params.elicitationId));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
    call = async (name, args) =>
      (await client.callTool({ name, arguments: args }, CallToolResultSchema, { onprogress, timeout: 120_000 })) as ToolResult;
  }
  await client.connect(transport);
  return {
    revision: options.revision,
    asked,
    progress,
    completed,
    listChanged: () => listChanged,
    listTools: async () => (await client.listTools()).tools as { name: string }[],
    call: (name, args = {}) => call(name, args),
    close: () => client.close(),
  };
}
