import { expect } from '@jest/globals';
import { accept, modernToolCall } from './modern-wire.js';

// Guarded calls on the 2026-07-28 wire, by hand: the two-call token and the
// sealed dialog answer, as a client (or an attacker replaying one) sends them.

/** First call of the two-call token: nothing happens, a token comes back. */
export async function issueToken(url: string, site: string): Promise<string> {
  const { body } = await modernToolCall(url, 'delete_site', { site_url: site }, { elicitation: false });
  expect(body.result?.structuredContent).toMatchObject({ executed: false, outcome: 'token_issued' });
  return body.result.structuredContent.confirm_token as string;
}

/** Second call, quoting the token. */
export async function redeemToken(url: string, site: string, token: string): Promise<any> {
  return (await modernToolCall(url, 'delete_site', { site_url: site, confirm_token: token }, { elicitation: false })).body.result;
}

/** Asks the question; returns the sealed requestState. */
export async function askDialog(url: string, site: string): Promise<string> {
  const { body } = await modernToolCall(url, 'delete_site', { site_url: site });
  expect(body.result?.resultType).toBe('input_required');
  return body.result.requestState as string;
}

/** Retries with the sealed state and an accepted dialog. */
export async function acceptDialog(url: string, site: string, state: string): Promise<any> {
  return (await modernToolCall(url, 'delete_site', { site_url: site }, { requestState: state, inputResponses: accept })).body.result;
}

export function textOf(result: { content?: { text?: string }[] }): string {
  return (result.content ?? []).map((c) => c.text ?? '').join('\n');
}
