import { afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { NO_DIALOG, textOf, ToolCallKit } from '../../../test/support/tool-call-kit.js';

// ApprovalInterceptor around the real delete_sitemap and update_site_owners,
// behind the real SiteAccessGuard: a real SQLite store keeps the secret, the
// spent nonces and the audit trail; the shared Google fake records what was
// sent; one manual clock stands for the time.

const SITE = 'https://www.example.com/';
const SITEMAP = 'https://www.example.com/sitemap.xml';
const RESOURCE_ID = 'https%3A%2F%2Fwww.example.com%2F';
const delete_args = { site_url: SITE, sitemap_url: SITEMAP };

type Answer = { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> };
const answer = (a: Answer) => ({ approval: a });
const APPROVE: Answer = { action: 'accept', content: { confirm: true } };

function requestStateOf(result: CallToolResult | InputRequiredResult): string {
  if (!('requestState' in result) || typeof result.requestState !== 'string') {
    throw new Error(`expected input_required, got ${JSON.stringify(result)}`);
  }
  return result.requestState;
}
const structured = (result: CallToolResult | InputRequiredResult) =>
  (result as CallToolResult).structuredContent as Record<string, unknown>;

let kit: ToolCallKit;
beforeAll(() => Logger.overrideLogger(false));
beforeEach(() => {
  kit = new ToolCallKit();
});
afterEach(() => kit.dispose());

describe('ApprovalInterceptor: the dialog path', () => {
  it('asks first and sends nothing; an approved answer runs the change once and the trail says so', async () => {
    const asked = await kit.call('delete_sitemap', delete_args);
    expect(asked).toMatchObject({ resultType: 'input_required' });
    expect(kit.google.calls).toHaveLength(0);

    const done = await kit.call('delete_sitemap', delete_args, { requestState: requestStateOf(asked), inputResponses: answer(APPROVE) });
    expect(structured(done)).toMatchObject({ executed: true, outcome: 'executed', deleted: true });
    expect(textOf(done)).toContain('A person approved it');
    expect(kit.google.ops.map((op) => op.method)).toEqual(['sitemaps.delete']);
    expect(await kit.events()).toEqual(['asked', 'approved', 'executed']);
  });

  it.each<[string, Answer, string]>([
    ['declined', { action: 'decline' }, 'The person declined'],
    ['declined', { action: 'accept', content: { confirm: false } }, 'The person declined'],
    ['cancelled', { action: 'cancel' }, 'dismissed without an answer'],
  ])('%s (%j): nothing is sent, and the answer says so', async (outcome, reply, says) => {
    const asked = await kit.call('delete_sitemap', delete_args);
    const result = await kit.call('delete_sitemap', delete_args, { requestState: requestStateOf(asked), inputResponses: answer(reply) });
    expect(structured(result)).toEqual({ executed: false, outcome });
    expect(textOf(result)).toContain(says);
    expect(kit.google.calls).toHaveLength(0);
    expect(await kit.events()).toEqual(['asked', outcome]);
  });

  it('an approved answer replayed is no answer: a fresh question, nothing sent again', async () => {
    const state = requestStateOf(await kit.call('delete_sitemap', delete_args));
    await kit.call('delete_sitemap', delete_args, { requestState: state, inputResponses: answer(APPROVE) });
    const replay = await kit.call('delete_sitemap', delete_args, { requestState: state, inputResponses: answer(APPROVE) });
    expect(replay).toMatchObject({ resultType: 'input_required' });
    expect(kit.google.calls).toHaveLength(1);
    expect(await kit.reasons()).toEqual(['asked', 'approved', 'executed', 'seal_rejected:used', 'asked']);
  });

  it('a seal from another target asks a fresh question about this one, sending nothing', async () => {
    const other = requestStateOf(await kit.call('delete_sitemap', { site_url: SITE, sitemap_url: 'https://www.example.com/other.xml' }));
    const result = await kit.call('delete_sitemap', delete_args, { requestState: other, inputResponses: answer(APPROVE) });
    expect(result).toMatchObject({ resultType: 'input_required' });
    expect(requestStateOf(result)).not.toBe(other);
    expect(kit.google.calls).toHaveLength(0);
    expect(await kit.reasons()).toEqual(['asked', 'seal_rejected:other_target', 'asked']);
  });

  it('a seal another principal was asked is no answer for this one', async () => {
    const alices = requestStateOf(await kit.call('delete_sitemap', delete_args, { principal: 'alice@corp.example' }));
    const result = await kit.call('delete_sitemap', delete_args, {
      principal: 'mallory@corp.example',
      requestState: alices,
      inputResponses: answer(APPROVE),
    });
    expect(result).toMatchObject({ resultType: 'input_required' });
    expect(kit.google.calls).toHaveLength(0);
    expect(await kit.reasons()).toEqual(['asked', 'seal_rejected:bind', 'asked']);
  });
});

describe('ApprovalInterceptor: the token path (no dialog can be shown)', () => {
  const noDialog = { capabilities: NO_DIALOG };

  async function issue(args: Record<string, unknown> = delete_args, tool = 'delete_sitemap'): Promise<string> {
    const issued = await kit.call(tool, args, noDialog);
    const token = structured(issued).confirm_token;
    if (typeof token !== 'string') {
      throw new Error(`no token: ${textOf(issued)}`);
    }
    return token;
  }

  it('issues a token and sends nothing; the same call quoting it runs once; quoting it again is refused', async () => {
    const issued = await kit.call('delete_sitemap', delete_args, noDialog);
    expect(structured(issued)).toMatchObject({ executed: false, outcome: 'token_issued', expires_at: '2026-03-02T09:10:00.000Z' });
    expect(textOf(issued)).toContain('does not show that a person approved it');
    expect(kit.google.calls).toHaveLength(0);
    const token = structured(issued).confirm_token as string;

    const redeemed = await kit.call('delete_sitemap', { ...delete_args, confirm_token: token }, noDialog);
    expect(structured(redeemed)).toMatchObject({ executed: true, outcome: 'executed' });
    expect(kit.google.ops.map((op) => op.method)).toEqual(['sitemaps.delete']);

    const replayed = await kit.call('delete_sitemap', { ...delete_args, confirm_token: token }, noDialog);
    expect(replayed).toMatchObject({ isError: true, structuredContent: { executed: false, outcome: 'token_rejected' } });
    expect(textOf(replayed)).toContain('already been used');
    expect(kit.google.calls).toHaveLength(1);
    expect(await kit.reasons()).toEqual(['token_issued', 'token_redeemed', 'executed', 'token_refused:used']);
  });

  it('a token for another target, an altered token and an expired one are refused, each saying why, nothing sent', async () => {
    const token = await issue();
    const other = await kit.call(
      'delete_sitemap',
      { site_url: SITE, sitemap_url: 'https://www.example.com/other.xml', confirm_token: token },
      noDialog,
    );
    expect(textOf(other)).toContain('issued for a different tool, target or arguments');
    const parts = token.split('.');
    parts[3] = `${parts[3][0] === 'A' ? 'B' : 'A'}${parts[3].slice(1)}`;
    const altered = await kit.call('delete_sitemap', { ...delete_args, confirm_token: parts.join('.') }, noDialog);
    expect(textOf(altered)).toContain('issued for a different tool, target or arguments');
    const garbage = await kit.call('delete_sitemap', { ...delete_args, confirm_token: 'not-a-token' }, noDialog);
    expect(textOf(garbage)).toContain('not a token this server issued');
    kit.clock.advance(11 * 60_000);
    const late = await kit.call('delete_sitemap', { ...delete_args, confirm_token: token }, noDialog);
    expect(textOf(late)).toContain('has expired');
    expect(kit.google.calls).toHaveLength(0);
  });

  it('a token for one owner list does not carry a widened list: refused, and nothing is written', async () => {
    kit.google.on('webResource.get', {
      id: RESOURCE_ID,
      site: { type: 'SITE', identifier: SITE },
      owners: ['a@corp.example', 'b@corp.example'],
    });
    const token = await issue({ id: RESOURCE_ID, owners: ['a@corp.example'] }, 'update_site_owners');
    const widened = await kit.call(
      'update_site_owners',
      { id: RESOURCE_ID, owners: ['a@corp.example', 'eve@evil.example'], confirm_token: token },
      noDialog,
    );
    expect(widened).toMatchObject({ isError: true, structuredContent: { outcome: 'token_rejected' } });
    expect(textOf(widened)).toContain('different tool, target or arguments');
    // Only the guard's lookups of the resource went out: no update.
    expect(kit.google.ops.map((op) => op.method)).toEqual(['webResource.get', 'webResource.get']);
  });

  it('a token whose effect drifted (an owner was added since) is replaced by a fresh one, not used', async () => {
    const owners = ['a@corp.example', 'b@corp.example'];
    kit.google.on('webResource.get', () => ({ id: RESOURCE_ID, site: { type: 'SITE', identifier: SITE }, owners }));
    const token = await issue({ id: RESOURCE_ID, owners: ['a@corp.example'] }, 'update_site_owners');
    owners.push('c@corp.example');
    const drifted = await kit.call('update_site_owners', { id: RESOURCE_ID, owners: ['a@corp.example'], confirm_token: token }, noDialog);
    expect(structured(drifted)).toMatchObject({ executed: false, outcome: 'token_issued' });
    expect(structured(drifted).confirm_token).not.toBe(token);
    expect(textOf(drifted)).toContain('no longer the change this call would make');
    expect(textOf(drifted)).toContain('Losing ownership: "b@corp.example", "c@corp.example".');
    expect(kit.google.ops.map((op) => op.method)).not.toContain('webResource.update');
  });
});
