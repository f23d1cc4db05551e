import { describe, expect, it } from '@jest/globals';
import { CLIENT_CAPABILITIES_META_KEY, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import type { ConnectRequests } from '../accounts/connect-requests.js';
import type { Config } from '../config/config.js';
import { actingAs, type ConnectedAccounts, type ConnectedGrant, NotConnectedError } from '../google/connected-accounts.js';
import type { AuditEntry, AuditTrail } from './approval/audit-trail.service.js';
import type { AccountResolution } from './account-resolution.js';
import { ConnectedCalls } from './connected-calls.js';
import { ToolCall } from './tool-call.js';
import type { RegisteredTool, ToolRegistry } from './tool-registry.service.js';
import type { ToolSpec } from './tool.decorator.js';

// ConnectedCalls without a transport: a grant that arrives (or never does),
// answers a client sends back, and what reaches the tool and the trail.

const WEBMASTERS = 'https://www.googleapis.com/auth/webmasters';
const spec = { name: 'list_sites', access: 'read', apis: ['searchconsole'] } as unknown as ToolSpec;
const tool = { spec } as RegisteredTool;
const GRANT: ConnectedGrant = {
  principal: 'ann@corp.example',
  googleSub: '1',
  googleEmail: 'alice@example.com',
  scopes: [WEBMASTERS],
  connectedAt: '2026-12-01T00:00:00.000Z',
};

class Accounts {
  grant?: ConnectedGrant;
  asked = 0;
  requireGrant(principal: string): Promise<ConnectedGrant> {
    this.asked++;
    return this.grant ? Promise.resolve(this.grant) : Promise.reject(new NotConnectedError(principal, 'none'));
  }
  grantOf(): Promise<ConnectedGrant | undefined> {
    return Promise.resolve(this.grant);
  }
  grantsOf(): Promise<ConnectedGrant[]> {
    return Promise.resolve(this.grant ? [this.grant] : []);
  }
}

function subject(accounts: Accounts) {
  const audit: Omit<AuditEntry, 'time'>[] = [];
  const links: string[][] = [];
  const calls = new ConnectedCalls(
    { elicitation: true, connected: {} } as unknown as Config,
    accounts as unknown as ConnectedAccounts,
    {
      create: (_principal: string, scopes: readonly string[]) => {
        links.push([...scopes]);
        return Promise.resolve({ url: 'http://127.0.0.1:9/connect/google?request=abc', expiresAt: new Date('2026-12-03T10:00:00Z') });
      },
    } as unknown as ConnectRequests,
    { tools: [tool] } as unknown as ToolRegistry,
    { record: (entry: Omit<AuditEntry, 'time'>) => Promise.resolve(void audit.push(entry)) } as unknown as AuditTrail,
    // One account: the tool here takes no property, so nothing is resolved (account-resolution covers several).
    {
      resolve: () => Promise.resolve(undefined),
      staleMatch: () => Promise.resolve(),
    } as unknown as AccountResolution,
  );
  return { calls, audit, links };
}

function callWith(inputResponses: Record<string, unknown> | undefined, signal = new AbortController().signal) {
  const sdk = {
    mcpReq: {
      inputResponses,
      envelope: { [CLIENT_CAPABILITIES_META_KEY]: { elicitation: { url: {} } } },
      signal,
      _meta: {},
      notify: () => Promise.resolve(),
    },
  } as unknown as ServerContext;
  return new ToolCall(tool, {
    era: 'modern',
    sdk,
    server: {} as McpServer,
    caller: { principal: 'ann@corp.example', groups: [] },
    access: { rule: undefined, decidedBy: 'server', annotations: 'shared', tools: new Set(['list_sites']) },
  });
}

const ok = { content: [{ type: 'text' as const, text: 'done' }] };

describe('ConnectedCalls', () => {
  it('runs the tool as its principal, and audits the Google account GoogleService names', async () => {
    const accounts = new Accounts();
    accounts.grant = GRANT;
    const { calls, audit } = subject(accounts);
    const call = callWith(undefined);
    const result = await calls.run(call, () => {
      const acting = actingAs.getStore()!;
      expect(acting.principal).toBe('ann@corp.example');
      acting.googleEmail = 'alice@example.com';
      return Promise.resolve(ok);
    });
    expect(result).toBe(ok);
    expect(call.grant).toBe(GRANT);
    expect(audit).toEqual([
      expect.objectContaining({ event: 'google_call', principal: 'ann@corp.example', google_account: 'alice@example.com' }),
    ]);
  });

  it('asks for the scopes of every tool the caller may use, by URL elicitation, and runs nothing', async () => {
    const { calls, links, audit } = subject(new Accounts());
    let ran = false;
    const result = await calls.run(callWith(undefined), () => {
      ran = true;
      return Promise.resolve(ok);
    });
    expect(ran).toBe(false);
    expect(result).toMatchObject({
      resultType: 'input_required',
      inputRequests: {
        connect_google: { method: 'elicitation/create', params: { mode: 'url', url: 'http://127.0.0.1:9/connect/google?request=abc' } },
      },
    });
    expect(links).toEqual([['https://www.googleapis.com/auth/webmasters.readonly']]);
    expect(audit).toEqual([expect.objectContaining({ event: 'connect_asked', path: 'dialog', reason: 'none' })]);
  });

  it('after an accepted link, waits for the grant and then runs the call', async () => {
    const accounts = new Accounts();
    const { calls } = subject(accounts);
    setTimeout(() => (accounts.grant = GRANT), 700);
    const result = await calls.run(callWith({ connect_google: { action: 'accept' } }), () => Promise.resolve(ok));
    expect(result).toBe(ok);
    expect(accounts.asked).toBeGreaterThan(2); // it looked more than once
  });

  it('stops waiting when the call is cancelled, and runs nothing', async () => {
    const accounts = new Accounts();
    const { calls } = subject(accounts);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    let ran = false;
    const result = await calls.run(callWith({ connect_google: { action: 'accept' } }, abort.signal), () => {
      ran = true;
      return Promise.resolve(ok);
    });
    expect(ran).toBe(false);
    expect(result).toMatchObject({ isError: true });
    expect(JSON.stringify(result)).toMatch(/The call was cancelled while it waited for a Google account to be connected/);
  });

  it('a NotConnectedError raised inside the call (revoked at refresh) asks to connect again', async () => {
    const accounts = new Accounts();
    accounts.grant = GRANT;
    const { calls } = subject(accounts);
    const result = await calls.run(callWith(undefined), () => Promise.reject(new NotConnectedError('ann@corp.example', 'revoked')));
    expect(JSON.stringify(result)).toMatch(/again: the Google account connected for you no longer accepts this server/);
  });
});
