import { describe, expect, it } from '@jest/globals';
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { UserFacingError } from '../common/user-facing-error.js';
import type { Config } from '../config/config.js';
import { actingAs, type ConnectedGrant, NotConnectedError } from '../google/connected-accounts.js';
import type { RegisteredTool } from '../tools/registered-tool.js';
import { ToolCall } from '../tools/tool-call.js';
import { toolOutput } from '../tools/tool-output.js';
import type { AccountResolution, Resolution } from './account-resolution.js';
import { AccountStep } from './account.step.js';
import type { CallAsking } from './asking.js';
import type { ConnectedCalls } from './connected-calls.js';

// The account step alone: what it settles, the context Google calls act in, and what it does around the rest of the call.

const WEBMASTERS = 'https://www.googleapis.com/auth/webmasters';
const grant = (sub: string, email: string): ConnectedGrant => ({
  principal: 'ann@corp.example',
  googleSub: sub,
  googleEmail: email,
  scopes: [WEBMASTERS],
  connectedAt: '2026-12-01T00:00:00.000Z',
});
const ALICE = grant('1', 'alice@example.com');
const BOB = grant('2', 'bob@example.com');
const tool = { spec: { name: 'get_site', access: 'read', apis: ['searchconsole'], target: ['site'] } } as unknown as RegisteredTool;

function subject(resolved: Resolution | undefined) {
  const audit: { event: string; google_account?: string; reason?: string }[] = [];
  const connected = {
    scopesOf: () => [WEBMASTERS],
    audit: (_call: unknown, event: string, extra: object = {}) => Promise.resolve(void audit.push({ event, ...extra })),
    permissionMissing: () => Promise.resolve({ content: [{ type: 'text', text: 'missing' }], isError: true }),
  } as unknown as ConnectedCalls;
  const asking = {
    roundOf: () => undefined,
    asked: (_c: unknown, _a: unknown, { answer }: { answer: unknown }) => answer,
  } as unknown as CallAsking;
  const stale: string[] = [];
  const resolution = {
    resolve: () => Promise.resolve(resolved),
    staleMatch: (g: ConnectedGrant) => Promise.resolve(void stale.push(g.googleEmail)),
  } as unknown as AccountResolution;
  const step = new AccountStep({ connected: {} } as Config, resolution, asking, connected);
  const call = new ToolCall(tool, {
    era: 'modern',
    sdk: { mcpReq: {} } as ServerContext,
    server: {} as McpServer,
    caller: { principal: 'ann@corp.example', groups: [] },
    access: { rule: undefined, decidedBy: 'server', annotations: 'shared', tools: new Set(['get_site']) },
  });
  call.settle({ admitted: ALICE });
  return { step, call, audit, stale };
}

describe('AccountStep', () => {
  it('acts as the account the property resolved to, settled once and frozen; the answer and the trail name it', async () => {
    const { step, call, audit } = subject({ grant: BOB, property: 'sc-domain:example.com', cached: false });
    const out = await step.run({}, call, () => {
      const acting = actingAs.getStore()!;
      expect(acting.googleSub).toBe('2');
      expect(Object.isFrozen(acting)).toBe(true);
      expect(() => ((acting as { googleSub?: string }).googleSub = '1')).toThrow();
      acting.used!.add('bob@example.com');
      return Promise.resolve(toolOutput({ ok: true }, 'done'));
    });
    expect(call.scope.account).toEqual({
      kind: 'resolved',
      googleSub: '2',
      googleEmail: 'bob@example.com',
      property: 'sc-domain:example.com',
    });
    expect(out).toEqual({
      structured: { ok: true, google_account: 'bob@example.com', site_url: 'sc-domain:example.com' },
      text: 'As bob@example.com on sc-domain:example.com:\ndone',
      heading: 'As bob@example.com on sc-domain:example.com:',
    });
    expect(audit).toEqual([{ event: 'google_call', google_account: 'bob@example.com' }]);
    expect(() => call.settle({ account: { kind: 'none' } })).toThrow('settled once');
  });

  it('arguments the site-access step refuses choose no account: a Google request there is a bug, not a question', async () => {
    const { step, call, audit } = subject({ refused: true });
    const error = await step
      .run({}, call, () => Promise.reject(new NotConnectedError('ann@corp.example', 'none')))
      .catch((e: unknown) => e);
    expect(call.scope.account).toEqual({ kind: 'none' });
    expect((error as Error).message).toContain('reached Google although no Google account was resolved');
    expect(audit).toEqual([]);
  });

  it('a failure Google answered names the account; a 403 on a cached match looks the account up again next time', async () => {
    const { step, call, stale } = subject({ grant: BOB, property: 'sc-domain:example.com', cached: true });
    const { GoogleApiError } = await import('../google/google-error.js');
    const failed = new GoogleApiError('forbidden', { status: 403 } as never);
    const error = await step
      .run({}, call, () => {
        actingAs.getStore()!.used!.add('bob@example.com');
        return Promise.reject(failed);
      })
      .catch((e: unknown) => e);
    expect(stale).toEqual(['bob@example.com']);
    expect(error).toBeInstanceOf(UserFacingError);
    expect((error as Error).message).toBe('As bob@example.com on sc-domain:example.com:\nforbidden');
  });

  it('a tool over every account acts with the admitted grant and is not renamed', async () => {
    const { step, call } = subject(undefined);
    const out = await step.run({}, call, () => Promise.resolve(toolOutput({ n: 1 }, 'listed')));
    expect(call.scope.account).toEqual({ kind: 'admitted', googleSub: '1', googleEmail: 'alice@example.com' });
    expect(out).toEqual(toolOutput({ n: 1 }, 'listed'));
  });
});
