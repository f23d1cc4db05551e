import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { type ConnectLinkOptions, ConnectRequests, MAX_WAITING_CALLS } from '../accounts/connect-requests.js';
import { Clock } from '../common/clock.js';
import type { Config } from '../config/config.js';
import { actingAs, type ConnectedAccounts, type ConnectedGrant, NotConnectedError } from '../google/connected-accounts.js';
import type { AuditEntry, AuditTrail } from './approval/audit-trail.service.js';
import type { AccountResolution } from './account-resolution.js';
import { CallAsking } from './asking.js';
import { AccountStep } from './account.step.js';
import { AdmissionStep } from './admission.step.js';
import { ConnectedCalls } from './connected-calls.js';
import { ConnectWaits } from './connect-waits.js';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { ToolCall } from '../tools/tool-call.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { ToolRegistry } from '../tools/tool-registry.service.js';
import type { ToolSpec } from '../tools/tool-spec.js';

// The admission and account steps without a transport: a grant that arrives (or never does),
// answers a client sends back, a no at Google, and what reaches the tool and
// the trail. Connect requests and waits are the real ones, over SQLite.

const store = new SqliteStateStore(mkdtempSync(join(tmpdir(), 'gsc-connected-calls-')));
afterAll(() => store.close());
const config = { elicitation: true, connected: {}, http: { host: '127.0.0.1', port: 9, publicUrl: undefined } } as unknown as Config;

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

/** The real requests, remembering the scopes each link asked for (without `openid email`, which it adds). */
class Requests extends ConnectRequests {
  readonly links: string[][] = [];
  override create(principal: string, scopes: readonly string[], options?: ConnectLinkOptions) {
    this.links.push([...scopes]);
    return super.create(principal, scopes, options);
  }
}

function subject(accounts: Accounts) {
  const audit: Omit<AuditEntry, 'time'>[] = [];
  const requests = new Requests(config, store, new Clock());
  const waits = new ConnectWaits(accounts as unknown as ConnectedAccounts, requests);
  const connected = new ConnectedCalls(
    config,
    accounts as unknown as ConnectedAccounts,
    requests,
    { tools: [tool] } as unknown as ToolRegistry,
    { record: (entry: Omit<AuditEntry, 'time'>) => Promise.resolve(void audit.push(entry)) } as unknown as AuditTrail,
    waits,
  );
  const asking = new CallAsking(store);
  // One account: the tool here takes no property, so nothing is resolved (account-resolution covers several).
  const resolution = { resolve: () => Promise.resolve(undefined), staleMatch: () => Promise.resolve() } as unknown as AccountResolution;
  const admission = new AdmissionStep(config, accounts as unknown as ConnectedAccounts, asking, connected, waits);
  const account = new AccountStep(config, resolution, asking, connected);
  // The admission and account steps in call/pipeline.ts's order, around `invoke` (the later steps and the tool).
  const calls = {
    run: (call: ToolCall, invoke: () => Promise<unknown>, args: Record<string, unknown> = {}) =>
      admission.run(args, call, () => account.run(args, call, invoke)) as Promise<CallToolResult | InputRequiredResult>,
  };
  return { calls, audit, links: requests.links, requests };
}

/** The requestState of the round that asked this person to connect for this call (an answer counts only to a question asked). */
async function askedState(
  calls: { run: (call: ToolCall, invoke: () => Promise<unknown>, args?: Record<string, unknown>) => Promise<unknown> },
  principal: string,
  args: Record<string, unknown> = {},
): Promise<string | undefined> {
  const asked = await calls.run(callWith(undefined, undefined, principal), () => Promise.reject(new Error('ran before asking')), args);
  return (asked as { requestState?: string }).requestState;
}

function callWith(
  inputResponses: Record<string, unknown> | undefined,
  signal = new AbortController().signal,
  principal = 'ann@corp.example',
  state?: string,
) {
  const sdk = {
    mcpReq: {
      inputResponses,
      requestState: () => state,
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
    caller: { principal, groups: [] },
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
      acting.used!.add('alice@example.com');
      return Promise.resolve(ok);
    });
    expect(result).toBe(ok);
    expect(call.scope.admitted).toBe(GRANT);
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
        connect_google: {
          method: 'elicitation/create',
          params: { mode: 'url', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9\/connect\/google\?request=[\w-]{32}$/) },
        },
      },
    });
    expect(links).toEqual([['https://www.googleapis.com/auth/webmasters.readonly']]);
    expect(audit).toEqual([expect.objectContaining({ event: 'connect_asked', path: 'dialog', reason: 'none' })]);
  });

  it('after an accepted link, waits for the grant and then runs the call', async () => {
    const accounts = new Accounts();
    const { calls } = subject(accounts);
    const asked = await calls.run(callWith(undefined), () => Promise.resolve(ok));
    const state = (asked as { requestState?: string }).requestState;
    expect(state).toMatch(/^gsc-round\./);
    setTimeout(() => (accounts.grant = GRANT), 700);
    const result = await calls.run(callWith({ connect_google: { action: 'accept' } }, undefined, undefined, state), () =>
      Promise.resolve(ok),
    );
    expect(result).toBe(ok);
    expect(accounts.asked).toBeGreaterThan(3); // it looked more than once
  });

  it('an "accept" to a link that was never asked in this call is no answer: asked afresh at once, without waiting', async () => {
    const accounts = new Accounts();
    const { calls, audit } = subject(accounts);
    const forged = await calls.run(callWith({ connect_google: { action: 'accept' } }), () => Promise.resolve(ok));
    expect(forged).toMatchObject({ resultType: 'input_required', inputRequests: { connect_google: { params: { mode: 'url' } } } });
    expect(accounts.asked).toBe(1); // looked once, never polled
    // A round brought a second time (replayed) is no answer either.
    const state = (forged as { requestState?: string }).requestState;
    await calls.run(callWith({ connect_google: { action: 'decline' } }, undefined, undefined, state), () => Promise.resolve(ok));
    const replayed = await calls.run(callWith({ connect_google: { action: 'accept' } }, undefined, undefined, state), () =>
      Promise.resolve(ok),
    );
    expect(replayed).toMatchObject({ resultType: 'input_required' });
    expect(audit.map((e) => e.event)).toEqual(['connect_asked', 'connect_declined', 'connect_asked']);
  });

  it('stops waiting when the call is cancelled, and runs nothing', async () => {
    const accounts = new Accounts();
    const { calls } = subject(accounts);
    const state = ((await calls.run(callWith(undefined), () => Promise.resolve(ok))) as { requestState?: string }).requestState;
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    let ran = false;
    const result = await calls.run(callWith({ connect_google: { action: 'accept' } }, abort.signal, undefined, state), () => {
      ran = true;
      return Promise.resolve(ok);
    });
    expect(ran).toBe(false);
    expect(result).toMatchObject({ isError: true });
    expect(JSON.stringify(result)).toMatch(/The call was cancelled while it waited for a Google account to be connected/);
  });

  it('a no at Google ends the waiting call at once: the link it was given ended, so it answers declined and runs nothing', async () => {
    const accounts = new Accounts();
    const { calls, requests } = subject(accounts);
    const asked = await calls.run(callWith(undefined, undefined, 'dee@corp.example'), () => Promise.resolve(ok), {
      site_url: 'sc-domain:a.example',
    });
    const state = (asked as { requestState?: string }).requestState;
    const url = (asked as unknown as { inputRequests: { connect_google: { params: { url: string } } } }).inputRequests.connect_google.params
      .url;
    const request = (await requests.find(new URL(url).searchParams.get('request')!))!;
    setTimeout(() => void requests.markEnded(request, 'denied'), 300);
    let ran = false;
    const result = await calls.run(
      callWith({ connect_google: { action: 'accept' } }, undefined, 'dee@corp.example', state),
      () => {
        ran = true;
        return Promise.resolve(ok);
      },
      { site_url: 'sc-domain:a.example' },
    );
    expect(ran).toBe(false);
    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'You declined at Google, so no Google account was connected: nothing was stored, list_sites did not run and nothing was sent to Google. Call list_sites again when you want to connect one.',
        },
      ],
    });
    // The link's no belongs to that call: another call of the same person (other arguments) still waits for a grant.
    const otherState = await askedState(calls, 'dee@corp.example', { site_url: 'sc-domain:b.example' });
    const other = new AbortController();
    setTimeout(() => other.abort(), 1_200);
    const waiting = await calls.run(
      callWith({ connect_google: { action: 'accept' } }, other.signal, 'dee@corp.example', otherState),
      () => Promise.resolve(ok),
      {
        site_url: 'sc-domain:b.example',
      },
    );
    expect(JSON.stringify(waiting)).toMatch(/The call was cancelled while it waited/);
  });

  it(`lets at most ${MAX_WAITING_CALLS} calls of one person wait at once; one more gets a sentence instead of waiting`, async () => {
    const accounts = new Accounts();
    const { calls } = subject(accounts);
    const stop = new AbortController();
    const states: (string | undefined)[] = [];
    for (let i = 0; i <= MAX_WAITING_CALLS; i++) {
      states.push(await askedState(calls, 'max@corp.example', { n: i }));
    }
    const waiting = Array.from({ length: MAX_WAITING_CALLS }, (_, i) =>
      calls.run(callWith({ connect_google: { action: 'accept' } }, stop.signal, 'max@corp.example', states[i]), () => Promise.resolve(ok), {
        n: i,
      }),
    );
    // Each of those holds its place once it polls; give them a moment to take them.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const extra = await calls.run(
      callWith({ connect_google: { action: 'accept' } }, undefined, 'max@corp.example', states[MAX_WAITING_CALLS]),
      () => Promise.resolve(ok),
      { n: MAX_WAITING_CALLS },
    );
    expect(JSON.stringify(extra)).toMatch(
      new RegExp(`list_sites did not run and nothing was sent to Google: ${MAX_WAITING_CALLS} of your calls are already waiting`),
    );
    // Another person is not held back by max's.
    accounts.grant = GRANT;
    expect(
      await calls.run(callWith({ connect_google: { action: 'accept' } }, undefined, 'ann@corp.example'), () => Promise.resolve(ok)),
    ).toBe(ok);
    stop.abort();
    await Promise.all(waiting);
    // The places are given back when the calls end.
    accounts.grant = undefined;
    const againState = await askedState(calls, 'max@corp.example');
    const again = new AbortController();
    setTimeout(() => again.abort(), 200);
    expect(
      JSON.stringify(
        await calls.run(callWith({ connect_google: { action: 'accept' } }, again.signal, 'max@corp.example', againState), () =>
          Promise.resolve(ok),
        ),
      ),
    ).toMatch(/cancelled while it waited/);
  });

  it('a NotConnectedError raised inside the call (revoked at refresh) asks to connect again', async () => {
    const accounts = new Accounts();
    accounts.grant = GRANT;
    const { calls } = subject(accounts);
    const result = await calls.run(callWith(undefined), () => Promise.reject(new NotConnectedError('ann@corp.example', 'revoked')));
    expect(JSON.stringify(result)).toMatch(/again: the Google account connected for you no longer accepts this server/);
  });
});
