import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import { type InputRequiredResult, inputRequired, inputResponse } from '@modelcontextprotocol/server';
import { from, lastValueFrom, type Observable } from 'rxjs';
import * as z from 'zod';
import { Clock } from '../../common/clock.js';
import { UserFacingError } from '../../common/user-facing-error.js';
import { CONFIG, type Config } from '../../config/config.js';
import { actingAs, NotConnectedError } from '../../google/connected-accounts.js';
import { GoogleApiError } from '../../google/google-error.js';
import { STATE_STORE } from '../../state/state.module.js';
import type { StateStore } from '../../state/state-store.js';
import { isRoundState } from '../asking.js';
import { clientCapabilities } from '../../tools/client-capabilities.js';
import type { ActingAccount } from '../../tools/call-scope.js';
import type { ToolCall } from '../../tools/tool-call.js';
import type { ApprovalDescriber } from '../../tools/tool-spec.js';
import { type ToolOutput, toolOutput } from '../../tools/tool-output.js';
import { dialogMessage } from './approval-dialog.js';
import {
  APPROVED_BY,
  decideDialog,
  decideToken,
  notApprovedText,
  type Question,
  type SealState,
  storeDownText,
  tokenIssuedText,
} from './approval-flow.js';
import { whyNoDialog } from '../asking.js';
import { approvalFingerprint, type ApprovalPlan, effectFingerprint } from '../../tools/approval-plan.js';
import { ApprovalKeyring, type ApprovalKeys, StoreDown, storeStep } from './approval-keys.js';
import { ApprovalSecrets } from './approval-secrets.service.js';
import { TOKEN_TTL_SECONDS, UsedNonces } from './approval-tokens.js';
import { type AuditEntry, type AuditEvent, AuditTrail } from './audit-trail.service.js';

const ANSWER_KEY = 'approval';
const Answer = z.object({
  confirm: z.boolean().default(false).meta({ title: 'Approve this change', description: 'Leave unticked, or decline, to change nothing.' }),
});

type Context = {
  call: ToolCall;
  plan: ApprovalPlan;
  question: Question;
  keys: ApprovalKeys;
  audit: (event: AuditEvent, reason?: string) => Promise<void>;
};

/**
 * Puts the four destructive tools to a person before they reach Google. It
 * runs around every tool whose access is `destructive`, in every transport.
 *
 * Dialog path: the call returns `input_required` (on 2025-11-25 the SDK turns
 * that into an elicitation pushed mid-call); the answer comes back with a
 * sealed requestState bound to tool, exact target and principal. A seal that
 * does not open, has expired, was used, or names another target is no answer:
 * the person is asked again.
 *
 * Token path, when no dialog can be shown: the first call returns a
 * single-use confirm_token and changes nothing; a second call with identical
 * arguments must quote it.
 *
 * What to do at each step is decided by approval-flow.ts (pure); this class
 * does the I/O around it: seals and tokens (approval-keys.ts keeps them per
 * secret and turns an unreachable store into StoreDown), the audit trail,
 * and running the tool. Single use is a claim in the state store,
 * shared by every replica; so is the secret when GSC_APPROVAL_SECRET is unset.
 * When the store cannot be reached the guard fails closed: nothing is asked,
 * issued or executed, and the answer says why. Seals and tokens carry the id
 * of the secret they were made with.
 */
@Injectable()
export class ApprovalInterceptor implements NestInterceptor {
  private readonly keyring: ApprovalKeyring;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly trail: AuditTrail,
    private readonly clock: Clock,
    private readonly used: UsedNonces,
    secrets: ApprovalSecrets,
    @Inject(STATE_STORE) store: StateStore,
  ) {
    this.keyring = new ApprovalKeyring(secrets, used, store);
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const [args, call] = context.getArgs<[Record<string, unknown>, ToolCall]>();
    const describe = call.tool.spec.approval;
    if (call.tool.spec.access !== 'destructive' || !describe) {
      return next.handle();
    }
    return from(this.guard(args, call, describe, () => lastValueFrom(next.handle()) as Promise<ToolOutput>));
  }

  private async guard(
    args: Record<string, unknown>,
    call: ToolCall,
    describe: ApprovalDescriber,
    execute: () => Promise<ToolOutput>,
  ): Promise<ToolOutput | InputRequiredResult> {
    // The describer is typed by its tool's input; the guard has resolved exactly that target.
    const plan = describe(args, call.target as never, actingIdentity(this.config, call));
    const question: Question = {
      tool: call.tool.spec.name,
      fp: approvalFingerprint(call.tool.spec.name, plan, call.target.site, args),
      efp: effectFingerprint(plan),
      era: call.era,
      now: this.clock.now().getTime(),
    };
    const noDialog = whyNoDialog(this.config.elicitation, clientCapabilities(call));
    const path = noDialog ? 'token' : 'dialog';
    const audit = (event: AuditEvent, reason?: string) => this.trail.record(this.entry(call, question.fp, path, event, reason));
    const token = typeof args.confirm_token === 'string' ? args.confirm_token : undefined;
    try {
      const ctx: Context = { call, plan, question, audit, keys: await this.keyring.current() };
      return await (noDialog ? this.tokenPath(ctx, token, noDialog, execute) : this.dialogPath(ctx, execute));
    } catch (error) {
      if (!(error instanceof StoreDown)) {
        throw error;
      }
      await audit('store_unavailable', 'state_store');
      throw new UserFacingError(storeDownText(call.tool.spec.name, plan, error.message, token !== undefined));
    }
  }

  private async dialogPath(ctx: Context, execute: () => Promise<ToolOutput>): Promise<ToolOutput | InputRequiredResult> {
    const { call, plan, question } = ctx;
    const raw = call.sdk.mcpReq.requestState<string>();
    // A round the account resolution asked (which account) carries its own state: no seal of ours, so no answer to this question yet.
    const seal = typeof raw === 'string' && !isRoundState(raw) ? await this.open(ctx, raw) : ({ kind: 'none' } as const);
    const step = decideDialog(question, seal, inputResponse(call.sdk.mcpReq.inputResponses, ANSWER_KEY));
    if (step.do === 'ask') {
      if (step.rejected) {
        await ctx.audit('seal_rejected', step.rejected);
      }
      return this.ask(ctx);
    }
    // An answer spends its seal, whatever it says: one question, one answer.
    if (!(await storeStep(() => this.used.claim(step.nonce, step.ttlMs)))) {
      await ctx.audit('seal_rejected', 'used');
      return this.ask(ctx);
    }
    await ctx.audit(step.outcome);
    if (step.outcome === 'approved') {
      return this.run(ctx, execute, APPROVED_BY.dialog);
    }
    return toolOutput({ executed: false, outcome: step.outcome }, notApprovedText(step.outcome, plan));
  }

  private async ask(ctx: Context): Promise<InputRequiredResult> {
    const { call, plan, question, keys } = ctx;
    await ctx.audit('asked');
    const exp = Math.floor(question.now / 1000) + TOKEN_TTL_SECONDS;
    const sealed = await keys.codec.mint(
      { tool: question.tool, fp: question.fp, efp: question.efp, nonce: crypto.randomUUID(), exp, era: question.era },
      call.sdk,
    );
    return inputRequired({
      inputRequests: { [ANSWER_KEY]: inputRequired.elicit({ message: dialogMessage(plan), requestedSchema: Answer }) },
      // The secret's id in front tells "sealed under another secret" apart from "altered".
      requestState: `${keys.id}.${sealed}`,
    });
  }

  /** What a requestState opens to, or why it does not (another secret's id in front, or the codec's refusal). */
  private async open(ctx: Context, raw: string): Promise<SealState> {
    const dot = raw.indexOf('.');
    const secretId = dot > 0 ? raw.slice(0, dot) : '';
    if (secretId !== ctx.keys.id && /^[\w-]{8}$/.test(secretId)) {
      return { kind: 'unopened', reason: 'other_secret' };
    }
    try {
      return { kind: 'opened', sealed: await ctx.keys.codec.verify(secretId === ctx.keys.id ? raw.slice(dot + 1) : raw, ctx.call.sdk) };
    } catch (error) {
      return { kind: 'unopened', reason: (error as Error).message };
    }
  }

  private async tokenPath(
    ctx: Context,
    token: string | undefined,
    noDialog: string,
    execute: () => Promise<ToolOutput>,
  ): Promise<ToolOutput> {
    const { call, question, keys } = ctx;
    // Issued and redeemed under one binding: a token holds only for the tool, target and principal it was issued to.
    const binding = `${question.tool}\0${question.fp}\0${call.principal}`;
    const check = token === undefined ? undefined : await storeStep(() => keys.tokens.redeem(token, binding, question.now, question.efp));
    const step = decideToken(question.tool, check);
    if (check) {
      await ctx.audit(check.ok ? 'token_redeemed' : 'token_refused', check.ok ? undefined : check.reason);
    }
    if (step.do === 'run') {
      return this.run(ctx, execute, APPROVED_BY.token);
    }
    if (step.do === 'refuse') {
      return { ...toolOutput({ executed: false, outcome: 'token_rejected' }, step.text), isError: true };
    }
    const { token: issued, expiresAt } = keys.tokens.issue(binding, question.now, question.efp);
    await ctx.audit('token_issued');
    return toolOutput(
      { executed: false, outcome: 'token_issued', confirm_token: issued, expires_at: expiresAt.toISOString() },
      tokenIssuedText(question.tool, ctx.plan, issued, expiresAt, noDialog, step.preface),
    );
  }

  private async run(ctx: Context, execute: () => Promise<ToolOutput>, how: string): Promise<ToolOutput> {
    try {
      const output = await execute();
      await ctx.audit('executed');
      return toolOutput({ ...output.structured, executed: true, outcome: 'executed' }, `${output.text} ${how}`);
    } catch (error) {
      const reason =
        error instanceof GoogleApiError
          ? String(error.status ?? 'network')
          : error instanceof NotConnectedError
            ? 'not_connected' // the grant was revoked when its token was refreshed: nothing was sent
            : 'internal';
      await ctx.audit('google_error', reason);
      throw error;
    }
  }

  private entry(call: ToolCall, fp: string, path: 'dialog' | 'token', event: AuditEvent, reason?: string): Omit<AuditEntry, 'time'> {
    // Connected mode: the Google account the call acted as (GoogleService names it once a request went out), else the one it acts with.
    const used = actingAs.getStore()?.used;
    const googleAccount = used?.size ? [...used].join(', ') : actedAs(call.scope.account);
    return {
      event,
      tool: call.tool.spec.name,
      target_fingerprint: fp,
      path,
      era: call.era === 'modern' ? '2026-07-28' : '2025-11-25',
      principal: call.principal,
      ...(googleAccount ? { google_account: googleAccount } : {}),
      ...(reason ? { reason } : {}),
    };
  }
}

/**
 * The Google identity a guarded change acts as, when the server knows it: the
 * connected Google account the call resolved to, or the service account (the
 * user it impersonates, with GSC_IMPERSONATE); an OAuth refresh token names no
 * e-mail. The dialog quotes it, and the approval binds it.
 */
function actingIdentity(config: Config, call: ToolCall): string | undefined {
  if (config.connected) {
    return actedAs(call.scope.account);
  }
  const credential = config.credential;
  return credential.kind === 'service_account' ? (config.impersonate ?? credential.key.client_email) : undefined;
}

/** The Google account the account step settled, when the call acts as one. */
function actedAs(account: ActingAccount | undefined): string | undefined {
  return account && account.kind !== 'none' ? account.googleEmail : undefined;
}
