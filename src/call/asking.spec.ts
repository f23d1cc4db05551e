import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { CLIENT_CAPABILITIES_META_KEY, inputRequired, type McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { SqliteStateStore } from '../state/sqlite-state-store.js';
import { CallAsking, CallRounds, whyNoDialog, whyNoLink } from './asking.js';
import { ToolCall } from '../tools/tool-call.js';
import type { RegisteredTool } from '../tools/registered-tool.js';

// Which answers count: only those to a question this call's previous round asked.

// Over the real state store (SQLite): every round has a record of its own, so the cases share one.
const db = new SqliteStateStore(mkdtempSync(join(tmpdir(), 'gsc-call-rounds-')));
afterAll(() => db.close());
const store = () => db;

function call(options: { tool?: string; principal?: string; era?: 'legacy' | 'modern'; state?: string } = {}) {
  const tool = { spec: { name: options.tool ?? 'get_site', access: 'read', apis: ['searchconsole'] } } as unknown as RegisteredTool;
  const sdk = { mcpReq: { requestState: () => options.state } } as unknown as ServerContext;
  return new ToolCall(tool, {
    era: options.era ?? 'modern',
    sdk,
    server: {} as McpServer,
    caller: { principal: options.principal ?? 'ann@corp.example', groups: [] },
    access: { rule: undefined, decidedBy: 'server', annotations: 'shared', tools: new Set(['get_site']) },
  });
}

const question = inputRequired({
  inputRequests: { google_account: inputRequired.elicit({ message: 'Which?', requestedSchema: { type: 'object', properties: {} } }) },
});
const args = { site_url: 'https://www.example.com/' };

describe('CallRounds', () => {
  it('a round opens once, for the same principal, tool, arguments and revision only', async () => {
    const rounds = new CallRounds(store());
    const sent = await rounds.remember(call(), args, question, { offered: ['1', '2'] });
    const state = sent.requestState!;
    expect(state).toMatch(/^gsc-round\.[0-9a-f-]{36}$/);
    expect(await rounds.open(call({ state, principal: 'bob@corp.example' }), args)).toBeUndefined();
    expect(await rounds.open(call({ state, tool: 'delete_site' }), args)).toBeUndefined();
    expect(await rounds.open(call({ state, era: 'legacy' }), args)).toBeUndefined();
    expect(await rounds.open(call({ state }), { site_url: 'https://blog.example.net/' })).toBeUndefined();
    // confirm_token aside, the arguments are the call's.
    expect(await rounds.open(call({ state }), { ...args, confirm_token: 'x' })).toEqual({ asked: ['google_account'], offered: ['1', '2'] });
    expect(await rounds.open(call({ state }), args)).toBeUndefined();
  });

  it('no state, an unknown one, or one made up to look like ours opens nothing', async () => {
    const rounds = new CallRounds(store());
    expect(await rounds.open(call(), args)).toBeUndefined();
    expect(await rounds.open(call({ state: 'gsc-round.00000000-0000-0000-0000-000000000000' }), args)).toBeUndefined();
    expect(await rounds.open(call({ state: 'k1234567.sealed' }), args)).toBeUndefined();
  });

  it("a round that already carries a state (the approval guard's seal) is remembered under it, unchanged", async () => {
    const rounds = new CallRounds(store());
    const sealed = { ...question, requestState: 'abcdefgh.sealed-by-the-guard' };
    expect(await rounds.remember(call(), args, sealed, { chosen: '2' })).toBe(sealed);
    expect(await rounds.open(call({ state: sealed.requestState }), args)).toEqual({ asked: ['google_account'], chosen: '2' });
  });

  it('the connect link a round sent comes back with that round only: the next round waits on it', async () => {
    const rounds = new CallRounds(store());
    const connect = inputRequired({
      inputRequests: {
        connect_google: inputRequired.elicitUrl({ message: 'Connect', url: 'http://127.0.0.1:9/connect/google?request=r1' }),
      },
    });
    const state = (await rounds.remember(call(), args, connect, { link: 'r1' })).requestState!;
    expect(await rounds.open(call({ state }), args)).toEqual({ asked: ['connect_google'], link: 'r1' });
    // Another call's round (other arguments) never carries it.
    const other = (await rounds.remember(call(), args, connect, { link: 'r2' })).requestState!;
    expect(await rounds.open(call({ state: other }), { site_url: 'https://blog.example.net/' })).toBeUndefined();
  });
});

describe('CallAsking', () => {
  const withAnswers = (state: string | undefined, inputResponses: Record<string, unknown>) => {
    const c = call({ state });
    (c.sdk.mcpReq as { inputResponses?: unknown }).inputResponses = inputResponses;
    return c;
  };

  it('an answer counts only to the kind its round asked, and the round is opened once per call', async () => {
    const asking = new CallAsking(store());
    const sent = await asking.asked(call(), args, { answer: question, offered: ['1'] });
    const state = (sent as { requestState?: string }).requestState;
    const answered = withAnswers(state, { google_account: { action: 'accept', content: { google_account: 'a@example.com' } } });
    const round = await asking.open(answered, args);
    expect(round?.offered).toEqual(['1']);
    // The second step of the same call reads the same round (a claim is single use: a second open of the state finds none).
    expect(await asking.open(answered, args)).toBe(round);
    expect(asking.roundOf(answered)).toBe(round);
    expect(asking.answerOf(answered, 'account').kind).toBe('elicit');
    expect(asking.answerOf(answered, 'connect').kind).not.toBe('elicit');
  });

  it('an accept nobody asked for is no answer', async () => {
    const asking = new CallAsking(store());
    const unasked = withAnswers(undefined, { connect_google: { action: 'accept' } });
    expect(await asking.open(unasked, args)).toBeUndefined();
    expect(asking.answerOf(unasked, 'connect').kind).not.toBe('elicit');
  });

  it('an answer that asks nothing goes out as it is, with no round remembered', async () => {
    const asking = new CallAsking(store());
    const refusal = { content: [{ type: 'text' as const, text: 'no' }], isError: true };
    expect(await asking.asked(call(), args, { answer: refusal })).toBe(refusal);
  });

  it('says why no dialog or link can reach a person, in one sentence each', () => {
    expect(whyNoDialog(false, { elicitation: { form: {} } })).toContain('ELICITATION=false');
    expect(whyNoDialog(true, {})).toContain('did not declare the MCP elicitation capability');
    expect(whyNoLink(false, call())).toBe('ELICITATION=false is set for this server');
    const modern = call();
    (modern.sdk.mcpReq as { envelope?: unknown }).envelope = { [CLIENT_CAPABILITIES_META_KEY]: { elicitation: { url: {} } } };
    expect(whyNoLink(true, modern)).toBeUndefined();
    expect(whyNoLink(true, call())).toContain('URL-mode elicitation');
  });
});
