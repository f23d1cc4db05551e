import { type CallHandler, type ExecutionContext, Inject, Injectable, type NestInterceptor } from '@nestjs/common';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  createRequestStateCodec,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { from, lastValueFrom, type Observable } from 'rxjs';
import * as z from 'zod';
import { Clock } from '../../common/clock.js';
import { SERVER_NAME } from '../../common/product.js';
import { UserFacingError } from '../../common/user-facing-error.js';
import { CONFIG, type Config } from '../../config/config.js';
import { GoogleApiError } from '../../google/google-error.js';
import { STATE_STORE } from '../../state/state.module.js';
import { type StateStore, StateUnavailableError } from '../../state/state-store.js';
import { callerOf } from '../../identity/caller.js';
import type { ToolCall } from '../tool-call.js';
import type { ApprovalDescriber } from '../tool.decorator.js';
import { type ToolOutput, toolOutput } from '../tool-output.js';
import { dialogMessage, neutralise } from './approval-dialog.js';
import { approvalFingerprint, type ApprovalPlan, effectFingerprint } from './approval-plan.js';
import { ApprovalSecrets } from './approval-secrets.service.js';
import { ApprovalTokens, TOKEN_TTL_SECONDS, UsedNonces } from './approval-tokens.js';
import { type AuditEntry, type AuditEvent, AuditTrail } from './audit-trail.service.js';

const ANSWER_KEY = 'approval';
const Answer = z.object({ confirm: z.boolean().default(false).meta({ title: 'Approve this change', description: 'Leave unticked, or decline, to change nothing.' }) });

/** What the sealed requestState carries: the question it answers, and when our own clock says it expires. */
type Sealed = { tool: string; fp: string; efp: string; nonce: string; exp: number; era: 'legacy' | 'modern' };
type Context = { call: ToolCall; plan: ApprovalPlan; fp: string; efp: string; keys: Keys; audit: (event: AuditEvent, reason?: string) => Promise<void> };
/** What one secret seals and signs with. */
type Keys = { id: string; codec: RequestStateCodec<Sealed>; tokens: ApprovalTokens };

/**
 * The state store could not be reached before anything was executed. Raised
 * only by this interceptor's own store steps (never by the tool), so the
 * answer "nothing was changed" is always true.
 */
class StoreDown extends Error {
  constructor(unavailable: StateUnavailableError) {
    super(unavailable.message);
  }
}

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
 * Single use is a claim in the state store, shared by every replica; so is the
 * secret when GSC_APPROVAL_SECRET is unset. When the store cannot be reached
 * the guard fails closed: nothing is asked, issued or executed, and the answer
 * says why. Seals and tokens carry the id of the secret they were made with.
 */
@Injectable()
export class ApprovalInterceptor implements NestInterceptor {
  private readonly keys = new Map<string, Keys>();

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly trail: AuditTrail,
    private readonly clock: Clock,
    private readonly used: UsedNonces,
    private readonly secrets: ApprovalSecrets,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const [args, call] = context.getArgs<[Record<string, unknown>, ToolCall]>();
    const describe = call.tool.spec.approval;
    if (call.tool.spec.access !== 'destructive' || !describe) return next.handle();
    return from(this.guard(args, call, describe, () => lastValueFrom(next.handle()) as Promise<ToolOutput>));
  }

  private async guard(
    args: Record<string, unknown>,
    call: ToolCall,
    describe: ApprovalDescriber,
    execute: () => Promise<ToolOutput>,
  ): Promise<ToolOutput | InputRequiredResult> {
    // The describer is typed by its tool's input; the guard has resolved exactly that target.
    const plan = describe(args, call.target as never);
    const fp = approvalFingerprint(call.tool.spec.name, plan, call.target.site, args);
    const efp = effectFingerprint(plan);
    const whyNoDialog = this.whyNoDialog(call);
    const path = whyNoDialog ? 'token' : 'dialog';
    const audit = (event: AuditEvent, reason?: string) => this.trail.record(this.entry(call, fp, path, event, reason));
    const token = typeof args.confirm_token === 'string' ? args.confirm_token : undefined;
    try {
      const ctx: Context = { call, plan, fp, efp, audit, keys: await this.currentKeys() };
      return await (whyNoDialog ? this.tokenPath(ctx, token, whyNoDialog, execute) : this.dialogPath(ctx, execute));
    } catch (error) {
      if (!(error instanceof StoreDown)) throw error;
      await audit('store_unavailable', 'state_store');
      const again = token === undefined ? '' : ' without confirm_token (the token may already count as used)';
      throw new UserFacingError(
        `Nothing was changed: ${SERVER_NAME} did not ${plan.action}, because it records every approval in its state store so that each is used only once, ` +
          `and ${error.message}. Read tools still work. Call ${call.tool.spec.name} again${again} once the state store is back.`,
      );
    }
  }

  /**
   * Before anything is asked or issued: the store must answer (a question whose
   * answer could not be spent would be wasted on the person), and the secret is
   * the one it keeps now.
   */
  private async currentKeys(): Promise<Keys> {
    const key = await this.storeStep(async () => {
      const loaded = await this.secrets.load();
      await this.store.ping();
      return loaded;
    });
    let keys = this.keys.get(key.id);
    if (!keys) {
      keys = {
        id: key.id,
        codec: createRequestStateCodec<Sealed>({ key: key.secret, ttlSeconds: TOKEN_TTL_SECONDS, bind: (ctx) => principalOf(ctx) }),
        tokens: new ApprovalTokens(key.secret, this.used),
      };
      this.keys.set(key.id, keys);
    }
    return keys;
  }

  /**
   * One of this interceptor's own store steps (loading the secret, spending a
   * nonce): a store that does not answer becomes StoreDown. A claim the store
   * could not answer is not won (and the nonce may be burned).
   */
  private async storeStep<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof StateUnavailableError) throw new StoreDown(error);
      throw error;
    }
  }

  private async dialogPath(ctx: Context, execute: () => Promise<ToolOutput>): Promise<ToolOutput | InputRequiredResult> {
    const { call, plan, fp, keys } = ctx;
    const now = this.clock.now().getTime();
    const raw = call.sdk.mcpReq.requestState<string>();
    if (typeof raw === 'string') {
      const sealed = await this.open(ctx, raw);
      if (sealed && (sealed.tool !== call.tool.spec.name || sealed.fp !== fp)) await ctx.audit('seal_rejected', 'other_target');
      // An answer sealed for the other revision is no answer: a 2025 caller is asked by push, never by a 2026 state it brings along.
      else if (sealed && sealed.era !== call.era) await ctx.audit('seal_rejected', 'other_revision');
      // What the person was shown is no longer what would happen (an owner was added meanwhile): ask about what is true now.
      else if (sealed && sealed.efp !== ctx.efp) await ctx.audit('seal_rejected', 'effect_changed');
      else if (sealed && sealed.exp * 1000 < now) await ctx.audit('seal_rejected', 'expired');
      else if (sealed) {
        const answer = inputResponse(call.sdk.mcpReq.inputResponses, ANSWER_KEY);
        if (answer.kind === 'elicit') {
          // An answer spends its seal, whatever it says: one question, one answer.
          if (!(await this.storeStep(() => this.used.claim(sealed.nonce, sealed.exp * 1000 - now)))) await ctx.audit('seal_rejected', 'used');
          else if (answer.action === 'accept' && answer.content?.confirm === true) {
            await ctx.audit('approved');
            return this.run(ctx, execute, 'A person approved it in the client’s dialog.');
          } else {
            const outcome = answer.action === 'cancel' ? 'cancelled' : 'declined';
            await ctx.audit(outcome);
            const how = outcome === 'cancelled' ? 'The dialog was dismissed without an answer' : 'The person declined';
            return toolOutput({ executed: false, outcome }, `${how}, so nothing was changed: ${SERVER_NAME} did not ${plan.action}.`);
          }
        }
      }
    }
    await ctx.audit('asked');
    const exp = Math.floor(now / 1000) + TOKEN_TTL_SECONDS;
    const sealed = await keys.codec.mint({ tool: call.tool.spec.name, fp, efp: ctx.efp, nonce: crypto.randomUUID(), exp, era: call.era }, call.sdk);
    return inputRequired({
      inputRequests: { [ANSWER_KEY]: inputRequired.elicit({ message: dialogMessage(plan), requestedSchema: Answer }) },
      // The secret's id in front tells "sealed under another secret" apart from "altered".
      requestState: `${keys.id}.${sealed}`,
    });
  }

  /** The sealed payload of a requestState, or undefined (audited) when it does not open. */
  private async open(ctx: Context, raw: string): Promise<Sealed | undefined> {
    const dot = raw.indexOf('.');
    const secretId = dot > 0 ? raw.slice(0, dot) : '';
    if (secretId !== ctx.keys.id && /^[\w-]{8}$/.test(secretId)) {
      await ctx.audit('seal_rejected', 'other_secret');
      return undefined;
    }
    try {
      return await ctx.keys.codec.verify(secretId === ctx.keys.id ? raw.slice(dot + 1) : raw, ctx.call.sdk);
    } catch (error) {
      await ctx.audit('seal_rejected', (error as Error).message);
      return undefined;
    }
  }

  private async tokenPath(ctx: Context, token: string | undefined, whyNoDialog: string, execute: () => Promise<ToolOutput>): Promise<ToolOutput> {
    const { call, fp, keys } = ctx;
    const name = call.tool.spec.name;
    // Issued and redeemed under one binding: a token holds only for the tool, target and principal it was issued to.
    const binding = `${name}\0${fp}\0${call.principal}`;
    if (token !== undefined) {
      const check = await this.storeStep(() => keys.tokens.redeem(token, binding, this.clock.now().getTime(), ctx.efp));
      if (check.ok) {
        await ctx.audit('token_redeemed');
        return this.run(ctx, execute, 'It was confirmed with the two-call token; no person was asked.');
      }
      await ctx.audit('token_refused', check.reason);
      if (check.reason === 'effect_changed') return this.issueToken(ctx, binding, whyNoDialog, 'The change that token was issued for is no longer the change this call would make (what Google reports changed since), so it was not used. ');
      const why = {
        malformed: 'it is not a token this server issued',
        other_secret:
          'it was issued under a different approval secret than the one this server uses now (another server or replica with its own GSC_APPROVAL_SECRET or state store, or this store before its secret was replaced), so it cannot be checked here',
        mismatch: 'it was issued for a different tool, target or arguments',
        expired: 'it has expired',
        used: 'it has already been used',
      }[check.reason];
      const text = `The confirm_token was refused because ${why}. Nothing was changed. Call ${name} again without confirm_token to get a new one.`;
      return { ...toolOutput({ executed: false, outcome: 'token_rejected' }, text), isError: true };
    }
    return this.issueToken(ctx, binding, whyNoDialog);
  }

  private async issueToken(ctx: Context, binding: string, whyNoDialog: string, preface = ''): Promise<ToolOutput> {
    const { call, plan, keys } = ctx;
    const name = call.tool.spec.name;
    const { token: issued, expiresAt } = keys.tokens.issue(binding, this.clock.now().getTime(), ctx.efp);
    await ctx.audit('token_issued');
    const text =
      `${preface}Nothing was changed yet. ${SERVER_NAME} did not ask a person ${whyNoDialog}. ` +
      `To ${plan.action}, call ${name} again with identical arguments plus confirm_token "${issued}" before ${expiresAt.toISOString()}. ` +
      `This token proves only that the call was made twice with the same arguments — it does not show that a person approved it. ` +
      `${plan.summary} ${plan.cost}${effectLine(plan)} If a person should decide, ask them before calling again.`;
    return toolOutput({ executed: false, outcome: 'token_issued', confirm_token: issued, expires_at: expiresAt.toISOString() }, text);
  }

  private async run(ctx: Context, execute: () => Promise<ToolOutput>, how: string): Promise<ToolOutput> {
    try {
      const output = await execute();
      await ctx.audit('executed');
      return toolOutput({ ...output.structured, executed: true, outcome: 'executed' }, `${output.text} ${how}`);
    } catch (error) {
      await ctx.audit('google_error', error instanceof GoogleApiError ? String(error.status ?? 'network') : 'internal');
      throw error;
    }
  }

  /**
   * Whether a dialog can reach a person, from the capabilities of the revision
   * actually in use: on 2026-07-28 the request's own envelope, on 2025-11-25 what
   * the client declared when the session began (a per-request envelope there is
   * a gateway's, and the SDK would refuse to push on it).
   */
  private whyNoDialog(call: ToolCall): string | undefined {
    if (!this.config.elicitation) return 'because ELICITATION=false is set for this server';
    const caps =
      call.era === 'modern'
        ? (((call.sdk.mcpReq.envelope ?? {}) as Record<string, unknown>)[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined)
        : call.server.server.getClientCapabilities();
    const elicitation = caps?.elicitation as { form?: object; url?: object } | undefined;
    const form = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
    return form
      ? undefined
      : 'because the client (or a gateway between it and this server) did not declare the MCP elicitation capability (form mode), so there is no way to show a person a dialog';
  }

  private entry(call: ToolCall, fp: string, path: 'dialog' | 'token', event: AuditEvent, reason?: string): Omit<AuditEntry, 'time'> {
    return {
      event,
      tool: call.tool.spec.name,
      target_fingerprint: fp,
      path,
      era: call.era === 'modern' ? '2026-07-28' : '2025-11-25',
      principal: call.principal,
      ...(reason ? { reason } : {}),
    };
  }
}

function principalOf(ctx: ServerContext): string {
  return callerOf(ctx.http?.authInfo).principal;
}

/** On the token path nobody sees a dialog, so the supplied facts the dialog would quote (who loses ownership) go into the text, quoted. */
function effectLine(plan: ApprovalPlan): string {
  const quoted = plan.supplied
    .filter((s) => s.values.length > 0 && s.effect)
    .map((s) => `${s.label}: ${s.values.map((v) => `"${neutralise(v)}"`).join(', ')}.`);
  return quoted.length ? ` ${quoted.join(' ')}` : '';
}
