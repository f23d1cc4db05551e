import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  inputResponse,
  type InputResponseView,
  isInputRequiredResult,
} from '@modelcontextprotocol/server';
import { stateKey } from '../state/keys.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import { fingerprint } from '../common/fingerprint.js';
import { clientCapabilities, opensLinks } from '../tools/client-capabilities.js';
import type { ToolCall } from '../tools/tool-call.js';

/**
 * What a call asks a person, by the inputRequests key it goes under: connect
 * a Google account (a URL elicitation), choose one of their accounts (a
 * form), approve a destructive change (a form, whose round the approval
 * step seals itself).
 */
export const ASK_KEYS = { connect: 'connect_google', account: 'google_account', approve: 'approval' } as const;
export type AskKind = keyof typeof ASK_KEYS;

/** An answer instead of the tool's, and what its round carries for the next one (the accounts offered, the connect link sent). */
export interface Asking {
  readonly answer: CallToolResult | InputRequiredResult;
  readonly offered?: readonly string[];
  readonly link?: string;
}

/** What a round of a call asked, remembered until the call comes back with the answers (10 minutes, as a connect link and an approval live). */
export const ROUND_TTL_MS = 10 * 60_000;
/** The requestState of a round this module asked (the approval guard's own seals carry a secret id and a dot instead). */
export const ROUND_STATE_PREFIX = 'gsc-round.';
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
    ? stateKey('callRound', state.slice(ROUND_STATE_PREFIX.length))
    : stateKey('callRound', 'h', createHash('sha256').update(state).digest('base64url'));
}

/** The call's arguments as a round binds them (confirm_token aside, which changes between the approval's rounds on no path that reaches here). */
function argsOf(args: Record<string, unknown>): string {
  const { confirm_token: _token, ...rest } = args;
  return fingerprint(rest);
}

/**
 * Why no dialog can reach a person, or undefined when one can. `capabilities`
 * are those of the revision actually in use: on 2026-07-28 the request's own
 * envelope, on 2025-11-25 what the client declared when the session began.
 */
export function whyNoDialog(elicitationEnabled: boolean, capabilities: ClientCapabilities | undefined): string | undefined {
  if (!elicitationEnabled) {
    return 'because ELICITATION=false is set for this server';
  }
  const elicitation = capabilities?.elicitation as { form?: object; url?: object } | undefined;
  const form = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
  return form
    ? undefined
    : 'because the client (or a gateway between it and this server) did not declare the MCP elicitation capability (form mode), so there is no way to show a person a dialog';
}

/**
 * The same for a link (URL-mode elicitation: connect a Google account), as the
 * connect sentence words it; undefined when the client can open one.
 */
export function whyNoLink(elicitationEnabled: boolean, call: ToolCall): string | undefined {
  if (!elicitationEnabled) {
    return 'ELICITATION=false is set for this server';
  }
  return opensLinks(call) ? undefined : 'this client cannot open a link for you (it did not declare URL-mode elicitation)';
}

/**
 * The one way a call asks a person (PRODUCT.md §8d): what the previous round
 * of this call asked is opened once per call (`open`, before any step reads an
 * answer) and kept for the call's steps (`roundOf`); an answer counts only
 * when that round asked its kind (`answerOf`); a question goes out with the
 * round remembered, so that the next round's answers count (`asked`). The
 * approval step's own sealed requestState is its round check; a round that
 * carries it is remembered under its hash when it must carry more (the
 * account chosen in it).
 */
@Injectable()
export class CallAsking {
  readonly rounds: CallRounds;
  private readonly opened = new WeakMap<ToolCall, Round | undefined>();

  constructor(@Inject(STATE_STORE) store: StateStore) {
    this.rounds = new CallRounds(store);
  }

  /** The round this call answers (claimed once, kept for the call's later steps). */
  async open(call: ToolCall, args: Record<string, unknown>): Promise<Round | undefined> {
    if (this.opened.has(call)) {
      return this.opened.get(call);
    }
    const round = await this.rounds.open(call, args);
    this.opened.set(call, round);
    return round;
  }

  /** The round `open` found for this call; undefined when it answers none (or none was opened). */
  roundOf(call: ToolCall): Round | undefined {
    return this.opened.get(call);
  }

  /** The answer to `kind`, when the previous round of this call asked it; else no answer. */
  answerOf(call: ToolCall, kind: Exclude<AskKind, 'approve'>): InputResponseView {
    const key = ASK_KEYS[kind];
    return inputResponse(this.roundOf(call)?.asked.includes(key) ? call.sdk.mcpReq.inputResponses : undefined, key);
  }

  /** An answer that asks the person something goes out with its round remembered; any other answer as it is. */
  async asked(
    call: ToolCall,
    args: Record<string, unknown>,
    { answer, offered, link }: Asking,
    extra: Omit<Round, 'asked'> = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    return isInputRequiredResult(answer) ? this.rounds.remember(call, args, answer, { offered, link, ...extra }) : answer;
  }

  /** Why no dialog (form) can reach the person this call is for. */
  whyNoDialog(elicitationEnabled: boolean, call: ToolCall): string | undefined {
    return whyNoDialog(elicitationEnabled, clientCapabilities(call));
  }
}
