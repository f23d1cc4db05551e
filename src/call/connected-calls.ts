import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  isInputRequiredResult,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { type ConnectLink, ConnectRequests } from '../accounts/connect-requests.js';
import { SERVER_NAME } from '../common/product.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { CONFIG, type Config } from '../config/config.js';
import {
  type ActingAs,
  actingAs,
  ConnectedAccounts,
  type ConnectedGrant,
  NotConnectedError,
  type NotConnectedReason,
} from '../google/connected-accounts.js';
import { GoogleApiError } from '../google/google-error.js';
import { scopesFor } from '../policy/tool-selection.js';
import { AccountResolution } from './account-resolution.js';
import { namingAccount, namingAccountIn } from './acting-account.js';
import type { Round } from './call-rounds.js';
import { type AuditEvent, AuditTrail } from './approval/audit-trail.service.js';
import { opensLinks } from '../tools/client-capabilities.js';
import { ConnectWaits, type Waited } from './connect-waits.js';
import { missingScopes, permissionName } from './granted-scopes.js';
import { SERVER_EVENTS } from '../tools/server-features.js';
import type { ToolCall } from '../tools/tool-call.js';
import { ToolRegistry } from '../tools/tool-registry.service.js';
import { errorResult } from '../tools/tool-output.js';

/** The inputRequests key of the URL elicitation that asks a person to connect their Google account. */
export const CONNECT_KEY = 'connect_google';

/** Either the grant the call may act with, or the answer the call gets instead (asked to connect, declined, a permission missing). */
export type Admission =
  | {
      readonly grant: ConnectedGrant;
      readonly refused?: undefined;
      /** The account the call's property resolved to (GoogleService acts as it and no other), and that property. */
      readonly resolved?: boolean;
      readonly property?: string;
      readonly cached?: boolean;
      /** The person chose the account in this round: a later round of the call keeps it. */
      readonly chosen?: string;
    }
  /** The guard refuses the call's arguments before anything is sent: no account is chosen. */
  | { readonly refused: true }
  | Asking;

/** An answer instead of the tool's, and what its round carries for the next one (the accounts offered, the connect link sent). */
export interface Asking {
  readonly answer: CallToolResult | InputRequiredResult;
  readonly offered?: readonly string[];
  readonly link?: string;
}

/** The googleSub of a call that may act as no account: GoogleService finds no grant for it. */
const NO_ACCOUNT = '\u0000no-account';

/**
 * Connected accounts at call time (PRODUCT.md §8d "Asking to connect",
 * "Using a grant"). In connected mode every tool call runs as its principal
 * (`actingAs`, which GoogleService reads), and before a tool that talks to
 * Google runs, the principal must have a usable grant that covers the tool's
 * scope. Each call that reached Google is in the audit trail with the Google
 * account it used.
 *
 * No grant (none, revoked, a record that does not open): a client that can
 * open links gets a URL elicitation to a single-use connect link (2025-11-25:
 * the SDK's shim pushes `elicitation/create` mode `url`; 2026-07-28:
 * `input_required`); when the person accepts, the call waits for the grant
 * and goes on, or answers at once when the person says no at Google
 * (ConnectWaits). Any other client gets an isError sentence with the link. An
 * answer counts only when the previous round of this call asked the question
 * (CallRounds: a requestState naming a single-use record in the state store;
 * a round whose requestState is the approval guard's seal is recorded under
 * its hash, which the guard's own check never sees).
 */
@Injectable()
export class ConnectedCalls {
  /** The scopes a connect link asks for, per caller tool set (AccessPolicy hands a caller the same set each time). */
  private readonly scopesByTools = new WeakMap<ReadonlySet<string>, string[]>();

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly accounts: ConnectedAccounts,
    private readonly requests: ConnectRequests,
    private readonly registry: ToolRegistry,
    private readonly trail: AuditTrail,
    private readonly resolution: AccountResolution,
    private readonly waits: ConnectWaits,
    @Optional() @Inject(SERVER_EVENTS) private readonly events?: ServerEventBus,
  ) {}

  /** Whether this server runs in connected mode (GSC_GOOGLE_OAUTH_CLIENT_ID and _SECRET). */
  get enabled(): boolean {
    return this.config.connected !== undefined;
  }

  /**
   * Runs one tool call as its principal. `invoke` is the tool's pipeline with
   * the dispatcher's rendering; it runs only once the call is admitted. A
   * NotConnectedError from inside (the grant was revoked when its token was
   * refreshed) asks to connect again, like a call that found no grant.
   */
  run(
    call: ToolCall,
    invoke: () => Promise<CallToolResult | InputRequiredResult>,
    args: Record<string, unknown> = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    const acting: ActingAs = { principal: call.principal, sites: call.sites };
    return actingAs.run(acting, async () => {
      if (call.tool.spec.apis.length === 0) {
        return invoke();
      }
      // What the previous round of this call asked (connect, which account): only answers to it count.
      const round = await this.resolution.rounds.open(call, args);
      let admission: Admission;
      try {
        admission = await this.admit(call, args, round);
      } catch (error) {
        // An account was found revoked while its properties were looked up: ask to connect, as a call without a grant is.
        if (error instanceof NotConnectedError) {
          return this.asked(call, args, await this.askToConnect(call, error.reason));
        }
        throw error;
      }
      if ('answer' in admission) {
        return this.asked(call, args, admission);
      }
      if (admission.refused) {
        // The guard refuses the arguments before Google hears of them: no account is chosen, and none may be used.
        acting.googleSub = NO_ACCOUNT;
        try {
          return await invoke();
        } catch (error) {
          if (error instanceof NotConnectedError) {
            throw new Error(`${call.tool.spec.name} reached Google although no Google account was resolved for its arguments`, {
              cause: error,
            });
          }
          throw error;
        }
      }
      call.grant = admission.grant;
      acting.account = admission.grant.googleEmail;
      // A tool over every account (list_sites) runs over those that granted its permission.
      acting.covers = (scopes) => missingScopes(call.tool.spec, scopes).length === 0;
      if (admission.resolved) {
        // The account the property resolved to: GoogleService acts as it, and as no other.
        acting.googleSub = admission.grant.googleSub;
      }
      let result: CallToolResult | InputRequiredResult;
      try {
        result = await invoke();
      } catch (error) {
        // Requests that went out before the grant failed (a tool of several requests) are on the trail too.
        await this.recordGoogleCall(call, true);
        if (error instanceof NotConnectedError) {
          return this.asked(call, args, await this.askToConnect(call, error.reason));
        }
        if (admission.cached && error instanceof GoogleApiError && error.status === 403) {
          // Matched from a cached sites.list that may be out of date (access removed at Google): look it up again next call.
          await this.resolution.staleMatch(admission.grant);
        }
        // A failure Google answered for names the account the call acted as, as every other answer does.
        if (admission.resolved && error instanceof UserFacingError && actingAs.getStore()?.googleEmail) {
          throw namingAccountIn(error, admission.grant.googleEmail, admission.property);
        }
        throw error;
      }
      if (isInputRequiredResult(result)) {
        // The approval dialog of a guarded tool: its answer comes back in the next round, which acts as the account chosen in this one.
        return admission.chosen ? this.asked(call, args, { answer: result }, { chosen: admission.chosen }) : result;
      }
      await this.recordGoogleCall(call, result.isError === true);
      return admission.resolved ? namingAccount(result, admission.grant.googleEmail, admission.property) : result;
    });
  }

  /** An answer that asks the person something: the round is remembered, so that the answers of the next one count (CallRounds). */
  private async asked(
    call: ToolCall,
    args: Record<string, unknown>,
    { answer, offered, link }: Asking,
    extra: Omit<Round, 'asked'> = {},
  ): Promise<CallToolResult | InputRequiredResult> {
    return isInputRequiredResult(answer) ? this.resolution.rounds.remember(call, args, answer, { offered, link, ...extra }) : answer;
  }

  /**
   * The scopes the principal's grant holds, for tools/list (a tool the grant
   * does not cover is hidden); undefined before any grant exists, or when the
   * store cannot say (then the principal's tools are listed as usual, and
   * calling one says what is wrong).
   */
  async grantedScopes(principal: string): Promise<readonly string[] | undefined> {
    try {
      // Several accounts: a tool is listed when any of them covers it (a call resolves to the one that has its property).
      const grants = await this.accounts.grantsOf(principal);
      return grants.length ? [...new Set(grants.flatMap((g) => g.scopes))] : undefined;
    } catch {
      return undefined;
    }
  }

  /** A call that reached Google (GoogleService named the account it acted as): the principal and that account, in the audit trail. */
  private async recordGoogleCall(call: ToolCall, failed: boolean): Promise<void> {
    const account = actingAs.getStore()?.googleEmail;
    if (account) {
      await this.audit(call, 'google_call', { google_account: account, ...(failed ? { reason: 'error' } : {}) });
    }
  }

  async admit(call: ToolCall, args: Record<string, unknown> = {}, round?: Round): Promise<Admission> {
    let grant: ConnectedGrant;
    try {
      grant = await this.accounts.requireGrant(call.principal);
    } catch (error) {
      if (!(error instanceof NotConnectedError)) {
        throw error;
      }
      const answer = inputResponse(call.sdk.mcpReq.inputResponses, CONNECT_KEY);
      // An answer counts only to the link the previous round of this call sent: an unasked "accept" is no answer.
      if (answer.kind !== 'elicit' || !round?.asked.includes(CONNECT_KEY)) {
        return this.askToConnect(call, error.reason);
      }
      if (answer.action !== 'accept') {
        this.waits.answered(round);
        await this.audit(call, answer.action === 'decline' ? 'connect_declined' : 'connect_cancelled');
        return { answer: errorResult(notConnectedText(call.tool.spec.name, answer.action)) };
      }
      const waited = await this.waitForGrant(call, round);
      if ('answer' in waited) {
        return waited;
      }
      grant = waited.grant;
      // A 2025-11-25 session listed the tools before the grant existed; what it may call now follows the scopes granted.
      if (call.era === 'legacy') {
        call.server.sendToolListChanged();
      } else {
        // 2026-07-28: the listing follows the grant's scopes too; its clients hear of it on subscriptions/listen.
        this.events?.publish({ kind: 'tools_list_changed' });
      }
    }
    // No account holds the permission: say so before any lookup at Google (one account: the usual case).
    if (missingScopes(call.tool.spec, grant.scopes).length > 0) {
      const grants = await this.accounts.grantsOf(call.principal);
      const covering = grants.find((g) => missingScopes(call.tool.spec, g.scopes).length === 0);
      if (!covering) {
        return { answer: await this.permissionMissing(call, grant) };
      }
      grant = covering;
    }
    // Several accounts per person: the one whose properties include the call's (or the one the person names or chooses).
    const resolved = await this.resolution.resolve(call, args, this.scopesOf(call), round);
    if (resolved === undefined) {
      return { grant };
    }
    if ('answer' in resolved) {
      return resolved;
    }
    if ('refused' in resolved) {
      return { refused: true };
    }
    if (missingScopes(call.tool.spec, resolved.grant.scopes).length > 0) {
      return { answer: await this.permissionMissing(call, resolved.grant) };
    }
    return { grant: resolved.grant, resolved: true, cached: resolved.cached, property: resolved.property, chosen: resolved.chosen };
  }

  private async permissionMissing(call: ToolCall, grant: ConnectedGrant): Promise<CallToolResult> {
    const missing = missingScopes(call.tool.spec, grant.scopes);
    const link = await this.requests.create(call.principal, this.scopesOf(call), { tool: call.tool.spec.name, via: 'link' });
    await this.audit(call, 'permission_missing', { google_account: grant.googleEmail, path: 'link' });
    return errorResult(missingPermissionText(call.tool.spec.name, grant.googleEmail, missing, link));
  }

  /**
   * The principal has no usable grant: a URL elicitation to a connect link when
   * the client can open links (and ELICITATION is not false), otherwise an
   * isError sentence with the link. Also what a NotConnectedError raised
   * mid-call (revoked at refresh) turns into. Nothing was sent to Google.
   * The link's id goes with the round that sends it: the next round waits on it.
   */
  async askToConnect(call: ToolCall, reason: NotConnectedReason): Promise<Asking> {
    const dialog = this.config.elicitation && opensLinks(call);
    const link = await this.requests.create(call.principal, this.scopesOf(call), {
      tool: call.tool.spec.name,
      via: dialog ? 'dialog' : 'link',
    });
    await this.audit(call, 'connect_asked', { path: dialog ? 'dialog' : 'link', reason });
    if (dialog) {
      const request = inputRequired.elicitUrl({ message: connectMessage(reason), url: link.url });
      if (call.era === 'legacy') {
        // 2025-11-25 correlates a URL elicitation by elicitationId, and the client may wait for
        // notifications/elicitation/complete: we choose the id (the SDK's shim keeps one it is given) to send that once connected.
        const elicitationId = randomUUID();
        (request.params as { elicitationId?: string }).elicitationId = elicitationId;
        this.waits.asked(call, link, elicitationId);
      }
      return { answer: inputRequired({ inputRequests: { [CONNECT_KEY]: request } }), link: link.id };
    }
    const why = this.config.elicitation
      ? 'this client cannot open a link for you (it did not declare URL-mode elicitation)'
      : 'ELICITATION=false is set for this server';
    return { answer: errorResult(connectLinkText(call.tool.spec.name, reason, link, why)) };
  }

  /** A single-use link that connects one more Google account for the caller, asking for the scopes of every tool it may use. */
  connectLink(call: ToolCall<unknown>): Promise<ConnectLink> {
    return this.requests.create(call.principal, this.scopesOf(call), { tool: call.tool.spec.name, via: 'link' });
  }

  /** The Google scopes of every tool this caller may use: what a connect link asks for (the connect page adds `openid email`). */
  private scopesOf(call: Pick<ToolCall, 'access'>): string[] {
    let scopes = this.scopesByTools.get(call.access.tools);
    if (!scopes) {
      scopes = scopesFor(this.registry.tools.filter((t) => call.access.tools.has(t.spec.name)).map((t) => t.spec));
      this.scopesByTools.set(call.access.tools, scopes);
    }
    return scopes;
  }

  /**
   * The person accepted the link: wait until the grant exists (the call goes
   * on), the person says no at Google or at the sign-in (an answer at once;
   * 2025-11-25 also gets notifications/elicitation/complete), ten minutes
   * pass, or the call is cancelled. ConnectWaits holds the how.
   */
  private waitForGrant(call: ToolCall, round: Round): Promise<Waited> {
    return this.waits.wait(call, round);
  }

  private audit(call: ToolCall, event: AuditEvent, extra: { path?: 'dialog' | 'link'; reason?: string; google_account?: string } = {}) {
    return this.trail.record({
      event,
      tool: call.tool.spec.name,
      era: call.era === 'modern' ? '2026-07-28' : '2025-11-25',
      principal: call.principal,
      ...extra,
    });
  }
}

const WHY: Record<NotConnectedReason, string> = {
  none: 'no Google account is connected for you on this server',
  revoked:
    'the Google account connected for you no longer accepts this server (access was revoked or has expired), so it must be connected again',
  unreadable: 'the Google account connected for you must be connected again (its record on this server could not be read)',
};

/** What the client shows beside the link. Names neither tokens nor secrets. */
export function connectMessage(reason: NotConnectedReason): string {
  const first =
    reason === 'none'
      ? `Connect your Google account to ${SERVER_NAME}: it acts at Google as you, and no Google account is connected for you yet.`
      : `Connect your Google account to ${SERVER_NAME} again: ${WHY[reason]}.`;
  return `${first} Open the link, sign in to Google and allow access; the call goes on once the account is connected. Nothing was sent to Google.`;
}

export function connectLinkText(tool: string, reason: NotConnectedReason, link: ConnectLink, why: string): string {
  return (
    `${tool} did not run: ${WHY[reason]}, so nothing was sent to Google. ${capitalise(why)}, so open this link in a browser yourself: ` +
    `${link.url} — it works once, until ${link.expiresAt.toISOString()}. Connect your Google account there, then call ${tool} again.`
  );
}

export function notConnectedText(tool: string, action: 'decline' | 'cancel'): string {
  const how = action === 'decline' ? 'You declined to connect a Google account' : 'The request to connect a Google account was dismissed';
  return `${how}, so ${tool} did not run and nothing was sent to Google. Call ${tool} again when you want to connect one.`;
}

export function missingPermissionText(tool: string, email: string, missing: readonly string[], link: ConnectLink): string {
  const permissions = missing.map(permissionName).join(' and ');
  const one = missing.length === 1;
  return (
    `${tool} needs the Google permission ${permissions}, which ${email} did not grant when it was connected (${one ? 'its box was' : 'their boxes were'} unticked on Google's consent page), ` +
    `so nothing was sent to Google. To grant it, open ${link.url} in a browser before ${link.expiresAt.toISOString()} and leave ${one ? 'that permission' : 'those permissions'} ticked; then call ${tool} again.`
  );
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
