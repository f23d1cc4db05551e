import type { InputResponseView } from '@modelcontextprotocol/server';
import { SERVER_NAME } from '../../common/product.js';
import { neutralise } from './approval-dialog.js';
import type { ApprovalPlan } from '../../tools/approval-plan.js';
import type { TokenCheck } from './approval-tokens.js';

// The decisions of the approval guard, as pure functions of what the
// interceptor gathered: no store, no audit, no clock, no crypto. The
// interceptor (approval.interceptor.ts) does the I/O — loading the secret,
// opening and minting seals, spending nonces, recording the trail, running the
// tool — and asks these functions what to do next.

/** What the sealed requestState carries: the question it answers, and when our own clock says it expires. */
export interface Sealed {
  readonly tool: string;
  readonly fp: string;
  readonly efp: string;
  readonly nonce: string;
  readonly exp: number;
  readonly era: 'legacy' | 'modern';
}

/** The question this call would ask now: a seal answers it only when it was made for exactly this. */
export interface Question {
  readonly tool: string;
  /** approvalFingerprint: tool, exact target, every other argument. */
  readonly fp: string;
  /** effectFingerprint: what the change would do now (owners gained and lost). */
  readonly efp: string;
  readonly era: 'legacy' | 'modern';
  /** Epoch milliseconds. */
  readonly now: number;
}

/** The seal the client sent back: none, one that did not open (and why), or the payload it opened to. */
export type SealState =
  { readonly kind: 'none' } | { readonly kind: 'unopened'; readonly reason: string } | { readonly kind: 'opened'; readonly sealed: Sealed };

export type DialogOutcome = 'approved' | 'declined' | 'cancelled';

/**
 * The next step of the dialog path.
 * - `ask`: ask the person (again); `rejected` is the audit reason when a seal was brought and is no answer.
 * - `spend`: claim the seal's nonce for ttlMs; when the claim is won the outcome stands (approved → run),
 *   when it is lost the seal was used: ask again (reason `used`).
 */
export type DialogStep =
  | { readonly do: 'ask'; readonly rejected?: string }
  | { readonly do: 'spend'; readonly nonce: string; readonly ttlMs: number; readonly outcome: DialogOutcome };

/**
 * A seal that does not open, was made for another target or revision, whose
 * effect drifted, or that expired, is no answer: the person is asked again.
 * An answer spends its seal whatever it says (one question, one answer); only
 * a ticked box in an accepted form approves.
 */
export function decideDialog(question: Question, seal: SealState, answer: InputResponseView): DialogStep {
  if (seal.kind === 'none') {
    return { do: 'ask' };
  }
  if (seal.kind === 'unopened') {
    return { do: 'ask', rejected: seal.reason };
  }
  const { sealed } = seal;
  if (sealed.tool !== question.tool || sealed.fp !== question.fp) {
    return { do: 'ask', rejected: 'other_target' };
  }
  // An answer sealed for the other revision is no answer: a 2025 caller is asked by push, never by a 2026 state it brings along.
  if (sealed.era !== question.era) {
    return { do: 'ask', rejected: 'other_revision' };
  }
  // What the person was shown is no longer what would happen (an owner was added meanwhile): ask about what is true now.
  if (sealed.efp !== question.efp) {
    return { do: 'ask', rejected: 'effect_changed' };
  }
  if (sealed.exp * 1000 < question.now) {
    return { do: 'ask', rejected: 'expired' };
  }
  if (answer.kind !== 'elicit') {
    return { do: 'ask' };
  }
  const outcome: DialogOutcome =
    answer.action === 'accept' && answer.content?.confirm === true ? 'approved' : answer.action === 'cancel' ? 'cancelled' : 'declined';
  return { do: 'spend', nonce: sealed.nonce, ttlMs: sealed.exp * 1000 - question.now, outcome };
}

/**
 * The next step of the token path, from the check of the token the call
 * quoted (undefined: it quoted none). A token whose effect drifted gets a
 * fresh one, with a preface saying why; any other refusal is an isError
 * answer that changes nothing.
 */
export type TokenStep =
  | { readonly do: 'issue'; readonly preface?: string }
  | { readonly do: 'run' }
  | { readonly do: 'refuse'; readonly reason: Exclude<TokenCheck, { ok: true }>['reason']; readonly text: string };

export function decideToken(tool: string, check: TokenCheck | undefined): TokenStep {
  if (!check) {
    return { do: 'issue' };
  }
  if (check.ok) {
    return { do: 'run' };
  }
  if (check.reason === 'effect_changed') {
    return {
      do: 'issue',
      preface:
        'The change that token was issued for is no longer the change this call would make (what Google reports changed since), so it was not used. ',
    };
  }
  const why = {
    malformed: 'it is not a token this server issued',
    other_secret:
      'it was issued under a different approval secret than the one this server uses now (another server or replica with its own GSC_APPROVAL_SECRET or state store, or this store before its secret was replaced), so it cannot be checked here',
    mismatch: 'it was issued for a different tool, target or arguments',
    expired: 'it has expired',
    used: 'it has already been used',
  }[check.reason];
  return {
    do: 'refuse',
    reason: check.reason,
    text: `The confirm_token was refused because ${why}. Nothing was changed. Call ${tool} again without confirm_token to get a new one.`,
  };
}

/** The answer when the person declined or dismissed the dialog. */
export function notApprovedText(outcome: 'declined' | 'cancelled', plan: ApprovalPlan): string {
  const how = outcome === 'cancelled' ? 'The dialog was dismissed without an answer' : 'The person declined';
  return `${how}, so nothing was changed: ${SERVER_NAME} did not ${plan.action}.`;
}

/** The answer that hands out a confirm token. */
export function tokenIssuedText(
  tool: string,
  plan: ApprovalPlan,
  token: string,
  expiresAt: Date,
  whyNoDialogText: string,
  preface = '',
): string {
  return (
    `${preface}Nothing was changed yet. ${SERVER_NAME} did not ask a person ${whyNoDialogText}. ` +
    `To ${plan.action}, call ${tool} again with identical arguments plus confirm_token "${token}" before ${expiresAt.toISOString()}. ` +
    `This token proves only that the call was made twice with the same arguments — it does not show that a person approved it. ` +
    `${plan.summary} ${plan.cost}${effectLine(plan)} If a person should decide, ask them before calling again.`
  );
}

/** The answer when the state store could not be reached before anything ran. */
export function storeDownText(tool: string, plan: ApprovalPlan, why: string, quotedToken: boolean): string {
  const again = quotedToken ? ' without confirm_token (the token may already count as used)' : '';
  return (
    `Nothing was changed: ${SERVER_NAME} did not ${plan.action}, because it records every approval in its state store so that each is used only once, ` +
    `and ${why}. Read tools still work. Call ${tool} again${again} once the state store is back.`
  );
}

/** How an executed change was approved, appended to the tool's own answer. */
export const APPROVED_BY = {
  dialog: 'A person approved it in the client’s dialog.',
  token: 'It was confirmed with the two-call token; no person was asked.',
} as const;

/** On the token path nobody sees a dialog, so the supplied facts the dialog would quote (who loses ownership) go into the text, quoted. */
function effectLine(plan: ApprovalPlan): string {
  const quoted = plan.supplied
    .filter((s) => s.values.length > 0 && s.effect)
    .map((s) => `${s.label}: ${s.values.map((v) => `"${neutralise(v)}"`).join(', ')}.`);
  return quoted.length ? ` ${quoted.join(' ')}` : '';
}
