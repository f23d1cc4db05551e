import { createHash, randomUUID } from 'node:crypto';
import type { InputRequiredResult } from '@modelcontextprotocol/server';
import type { StateStore } from '../state/state-store.js';
import { fingerprint } from '../common/fingerprint.js';
import type { ToolCall } from '../tools/tool-call.js';

/** What a round of a call asked, remembered until the call comes back with the answers (10 minutes, as a connect link and an approval live). */
export const ROUND_TTL_MS = 10 * 60_000;
/** The requestState of a round this module asked (the approval guard's own seals carry a secret id and a dot instead). */
export const ROUND_STATE_PREFIX = 'gsc-round.';
const KEY_PREFIX = 'call-round:';
const ROUND_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * What the previous round of this very call asked, as the state store
 * remembers it: an answer counts only to a question that was asked there
 * (PRODUCT.md §8d "an answer to a question counts only in the round it was
 * asked").
 */
export interface Round {
  /** The inputRequests keys the previous round carried: only their answers count. */
  readonly asked: readonly string[];
  /** The Google accounts (userinfo `sub`) the account chooser offered. */
  readonly offered?: readonly string[];
  /** The Google account the person chose in an earlier round of this call (a guarded tool's approval follows). */
  readonly chosen?: string;
  /** The connect request whose link the round sent (URL elicitation): the call waits on that link's outcome (ConnectWaits). */
  readonly link?: string;
}

interface Stored extends Round {
  readonly principal: string;
  readonly tool: string;
  readonly args: string;
  readonly era: 'legacy' | 'modern';
}

/**
 * Ties the answers a call brings back (`inputResponses`) to the question its
 * previous round asked. MCP carries nothing else from one round to the next
 * but `requestState`: a question this server asks (connect your Google
 * account, which account) goes out with a random requestState naming a
 * record in the state store, which says who was asked what, for which tool
 * and arguments; a round that already has a requestState (the approval
 * guard's seal) gets a record under that state's hash. A call that comes back
 * with an answer but no such record — an `accept` nobody asked for, another
 * principal's or another call's state, a state used once already — brings no
 * answer: the question is asked afresh. Records are single use (an atomic
 * claim), so a replayed round counts as no answer either. In the store, not
 * in memory: rounds of one call may reach different replicas, or a restarted
 * process.
 */
export class CallRounds {
  constructor(private readonly store: Pick<StateStore, 'get' | 'put' | 'claim'>) {}

  /** The round this call answers, when its requestState names one asked of this principal for this tool and these arguments; claimed once. */
  async open(call: ToolCall, args: Record<string, unknown>): Promise<Round | undefined> {
    const raw = stateOf(call);
    if (raw === undefined || (isRoundState(raw) && !ROUND_ID.test(raw.slice(ROUND_STATE_PREFIX.length)))) {
      return undefined;
    }
    const key = keyOf(raw);
    const text = await this.store.get(key);
    if (text === undefined) {
      return undefined;
    }
    let stored: Stored;
    try {
      stored = JSON.parse(text) as Stored;
    } catch {
      return undefined;
    }
    if (
      stored.principal !== call.principal ||
      stored.tool !== call.tool.spec.name ||
      stored.era !== call.era ||
      stored.args !== argsOf(args)
    ) {
      return undefined;
    }
    if (!(await this.store.claim(`${key}:used`, ROUND_TTL_MS))) {
      return undefined;
    }
    return { asked: stored.asked, ...extraOf(stored) };
  }

  /**
   * Remembers what this round asks, so that the next round's answers count:
   * under a requestState of its own when the round has none, else under the
   * hash of the one it has. Returns the result to send.
   */
  async remember(
    call: ToolCall,
    args: Record<string, unknown>,
    result: InputRequiredResult,
    extra: Omit<Round, 'asked'> = {},
  ): Promise<InputRequiredResult> {
    const own = typeof result.requestState === 'string' ? undefined : `${ROUND_STATE_PREFIX}${randomUUID()}`;
    const state = own ?? String(result.requestState);
    const stored: Stored = {
      principal: call.principal,
      tool: call.tool.spec.name,
      args: argsOf(args),
      era: call.era,
      asked: Object.keys(result.inputRequests ?? {}),
      ...extraOf(extra),
    };
    await this.store.put(keyOf(state), JSON.stringify(stored), ROUND_TTL_MS);
    return own ? { ...result, requestState: own } : result;
  }
}

/** What a round carries besides its questions, without the fields it leaves unset. */
function extraOf(round: Omit<Round, 'asked'>): Omit<Round, 'asked'> {
  return {
    ...(round.offered ? { offered: round.offered } : {}),
    ...(round.chosen ? { chosen: round.chosen } : {}),
    ...(round.link ? { link: round.link } : {}),
  };
}

/** Whether a requestState is one this module made (the approval guard leaves those alone: they are not its seals). */
export function isRoundState(state: string): boolean {
  return state.startsWith(ROUND_STATE_PREFIX);
}

function stateOf(call: ToolCall): string | undefined {
  const raw: unknown = call.sdk.mcpReq.requestState?.();
  return typeof raw === 'string' && raw.length > 0 && raw.length <= 4096 ? raw : undefined;
}

function keyOf(state: string): string {
  return isRoundState(state)
    ? `${KEY_PREFIX}${state.slice(ROUND_STATE_PREFIX.length)}`
    : `${KEY_PREFIX}h:${createHash('sha256').update(state).digest('base64url')}`;
}

/** The call's arguments as a round binds them (confirm_token aside, which changes between the approval's rounds on no path that reaches here). */
function argsOf(args: Record<string, unknown>): string {
  const { confirm_token: _token, ...rest } = args;
  return fingerprint(rest);
}
