import { Inject, Injectable } from '@nestjs/common';
import { isInputRequiredResult } from '@modelcontextprotocol/server';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import { type ActingAs, actingAs, type ConnectedGrant, NotConnectedError } from '../google/connected-accounts.js';
import { GoogleApiError } from '../google/google-error.js';
import type { ActingAccount } from '../tools/call-scope.js';
import type { ToolCall } from '../tools/tool-call.js';
import { isToolOutput } from '../tools/tool-output.js';
import { AccountResolution, type Resolution } from './account-resolution.js';
import { namingAccountIn, namingOutput } from './acting-account.js';
import { CallAsking } from './asking.js';
import { CallStep, type Next } from './call-step.js';
import { ConnectedCalls } from './connected-calls.js';
import { missingScopes } from './granted-scopes.js';

/** The googleSub of a call that may act as no account: GoogleService finds no grant for it. */
const NO_ACCOUNT = '\u0000no-account';

/**
 * Step 3 (call/pipeline.ts), connected mode: which of the principal's Google
 * accounts the call acts as (AccountResolution: never a guess, never a
 * default; the person is asked, or told how to name one), settled once in the
 * call's scope and entered, frozen, as the context GoogleService acts in.
 * Nothing below writes who acts: Google calls only append the accounts they
 * used. Around the rest of the call: each call that reached Google is in the
 * audit trail with the account it used, the answer names that account and
 * the property (PRODUCT.md §8d "Never the wrong account, never silently"), and
 * a 403 on a property matched from a cached list looks it up again next time.
 */
@Injectable()
export class AccountStep extends CallStep {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly resolution: AccountResolution,
    private readonly asking: CallAsking,
    private readonly connected: ConnectedCalls,
  ) {
    super();
  }

  /** Connected mode only. */
  get active(): boolean {
    return this.config.connected !== undefined;
  }

  protected applies(call: ToolCall): boolean {
    return this.active && call.tool.spec.apis.length > 0;
  }

  async run(args: Record<string, unknown>, call: ToolCall, next: Next): Promise<unknown> {
    const admitted = call.scope.admitted;
    if (!admitted) {
      throw new Error(`${call.tool.spec.name}: the account step ran before the admission step`);
    }
    // Several accounts per person: the one whose properties include the call's (or the one the person names or chooses).
    const resolved = await this.resolution.resolve(call, args, this.connected.scopesOf(call), this.asking.roundOf(call));
    if (resolved !== undefined && 'answer' in resolved) {
      return this.asking.asked(call, args, resolved);
    }
    if (resolved !== undefined && !('refused' in resolved) && missingScopes(call.tool.spec, resolved.grant.scopes).length > 0) {
      return this.connected.permissionMissing(call, resolved.grant);
    }
    const account = actingAccount(admitted, resolved);
    call.settle({ account });
    const acting: ActingAs = Object.freeze({
      principal: call.principal,
      sites: call.sites,
      used: new Set<string>(),
      ...(account.kind === 'none'
        ? { googleSub: NO_ACCOUNT }
        : {
            account: account.googleEmail,
            // A tool over every account (list_sites) runs over those that granted its permission.
            covers: (scopes: readonly string[]) => missingScopes(call.tool.spec, scopes).length === 0,
            // The account the property resolved to: GoogleService acts as it, and as no other.
            ...(account.kind === 'resolved' ? { googleSub: account.googleSub } : {}),
          }),
    });
    return actingAs.run(acting, () => this.acting(call, args, account, resolved, acting, next));
  }

  private async acting(
    call: ToolCall,
    args: Record<string, unknown>,
    account: ActingAccount,
    resolved: Resolution | undefined,
    acting: ActingAs,
    next: Next,
  ): Promise<unknown> {
    let result: unknown;
    try {
      result = await next();
    } catch (error) {
      if (account.kind === 'none') {
        // The site-access step refuses the arguments before Google hears of them: no account may be used.
        if (error instanceof NotConnectedError) {
          throw new Error(`${call.tool.spec.name} reached Google although no Google account was resolved for its arguments`, {
            cause: error,
          });
        }
        throw error;
      }
      // Requests that went out before the tool failed (a tool of several requests) are on the trail too.
      await this.record(call, acting, true);
      if (error instanceof NotConnectedError) {
        throw error;
      }
      const cached = resolved !== undefined && 'grant' in resolved && resolved.cached;
      if (cached && error instanceof GoogleApiError && error.status === 403) {
        // Matched from a cached sites.list that may be out of date (access removed at Google): look it up again next call.
        await this.resolution.staleMatch(resolved.grant);
      }
      // A failure Google answered for names the account the call acted as, as every other answer does.
      if (account.kind === 'resolved' && error instanceof UserFacingError && acting.used?.size) {
        throw namingAccountIn(error, account.googleEmail, account.property);
      }
      throw error;
    }
    if (account.kind === 'none') {
      return result;
    }
    if (isInputRequiredResult(result)) {
      // The approval dialog of a guarded tool: its answer comes back in the next round, which acts as the account chosen in this one.
      const chosen = resolved !== undefined && 'grant' in resolved ? resolved.chosen : undefined;
      return chosen ? this.asking.asked(call, args, { answer: result }, { chosen }) : result;
    }
    await this.record(call, acting, isToolOutput(result) && result.isError === true);
    return account.kind === 'resolved' && isToolOutput(result) ? namingOutput(result, account.googleEmail, account.property) : result;
  }

  /** A call that reached Google (GoogleService appended the account it acted as): the principal and that account, in the audit trail. */
  private async record(call: ToolCall, acting: ActingAs, failed: boolean): Promise<void> {
    if (acting.used?.size) {
      await this.connected.audit(call, 'google_call', {
        google_account: [...acting.used].join(', '),
        ...(failed ? { reason: 'error' } : {}),
      });
    }
  }
}

function actingAccount(admitted: ConnectedGrant, resolved: Resolution | undefined): ActingAccount {
  if (resolved === undefined) {
    return { kind: 'admitted', googleSub: admitted.googleSub, googleEmail: admitted.googleEmail };
  }
  if ('refused' in resolved) {
    return { kind: 'none' };
  }
  if ('answer' in resolved) {
    throw new Error('an answer is no account');
  }
  const { grant, property } = resolved;
  return { kind: 'resolved', googleSub: grant.googleSub, googleEmail: grant.googleEmail, ...(property ? { property } : {}) };
}
