import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  isInputRequiredResult,
  type McpServer,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import { CONNECT_REQUEST_TTL_MS, type ConnectLink, ConnectRequests } from '../accounts/connect-requests.js';
import { SERVER_NAME } from '../common/product.js';
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
import { type AuditEvent, AuditTrail } from './approval/audit-trail.service.js';
import { opensLinks } from './client-capabilities.js';
import { missingScopes, permissionName } from './granted-scopes.js';
import { SERVER_EVENTS } from './server-features.js';
import type { ToolCall } from './tool-call.js';
import { ToolRegistry } from './tool-registry.service.js';

/** The inputRequests key of the URL elicitation that asks a person to connect their Google account. */
export const CONNECT_KEY = 'connect_google';
/** How often a call whose person accepted the link looks for the grant. */
const POLL_MS = 500;
/** How often that wait says so (notifications/progress, when the request asked for progress). */
const PROGRESS_EVERY_MS = 5_000;

/** Either the grant the call may act with, or the answer the call gets instead (asked to connect, declined, a permission missing). */
export type Admission =
  | {
      readonly grant: ConnectedGrant;
      readonly resolved?: boolean;
      readonly cached?: boolean;
      readonly choice?: string;
    }
  | { readonly answer: CallToolResult | InputRequiredResult };

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
 * and goes on. Any other client gets an isError sentence with the link. The
 * answer never needs requestState: whether a grant exists is asked of the
 * store each time, so the approval guard's seal is left alone.
 */
@Injectable()
export class ConnectedCalls {
  /** The scopes a connect link asks for, per caller tool set (AccessPolicy hands a caller the same set each time). */
  private readonly scopesByTools = new WeakMap<ReadonlySet<string>, string[]>();
  /** 2025-11-25 sessions: the elicitationId of the connect link a session was last sent. */
  private readonly pendingLinks = new WeakMap<McpServer, string>();

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly accounts: ConnectedAccounts,
    private readonly requests: ConnectRequests,
    private readonly registry: ToolRegistry,
    private readonly trail: AuditTrail,
    private readonly resolution: AccountResolution,
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
    const acting: ActingAs = { principal: call.principal };
    return actingAs.run(acting, async () => {
      if (call.tool.spec.apis.length === 0) {
        return invoke();
      }
      let admission: Admission;
      try {
        admission = await this.admit(call, args);
      } catch (error) {
        // An account was found revoked while its properties were looked up: ask to connect, as a call without a grant is.
        if (error instanceof NotConnectedError) {
          return this.askToConnect(call, error.reason);
        }
        throw error;
      }
      if ('answer' in admission) {
        return admission.answer;
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
        if (admission.choice && !isInputRequiredResult(result)) {
          await this.resolution.settled(admission.choice);
        }
      } catch (error) {
        if (admission.choice) {
          await this.resolution.settled(admission.choice);
        }
        // Requests that went out before the grant failed (a tool of several requests) are on the trail too.
        await this.recordGoogleCall(call, true);
        if (error instanceof NotConnectedError) {
          return this.askToConnect(call, error.reason);
        }
        if (admission.cached && error instanceof GoogleApiError && error.status === 403) {
          // Matched from a cached sites.list that may be out of date (access removed at Google): look it up again next call.
          await this.resolution.staleMatch(admission.grant);
        }
        throw error;
      }
      await this.recordGoogleCall(call, 'isError' in result && result.isError === true);
      return result;
    });
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

  async admit(call: ToolCall, args: Record<string, unknown> = {}): Promise<Admission> {
    let grant: ConnectedGrant;
    try {
      grant = await this.accounts.requireGrant(call.principal);
    } catch (error) {
      if (!(error instanceof NotConnectedError)) {
        throw error;
      }
      const answer = inputResponse(call.sdk.mcpReq.inputResponses, CONNECT_KEY);
      if (answer.kind !== 'elicit') {
        return { answer: await this.askToConnect(call, error.reason) };
      }
      if (answer.action !== 'accept') {
        await this.audit(call, answer.action === 'decline' ? 'connect_declined' : 'connect_cancelled');
        return { answer: errorResult(notConnectedText(call.tool.spec.name, answer.action)) };
      }
      const arrived = await this.waitForGrant(call);
      if (!arrived) {
        return { answer: errorResult(noGrantInTimeText(call.tool.spec.name, call.signal.aborted)) };
      }
      grant = arrived;
      // A 2025-11-25 session listed the tools before the grant existed; what it may call now follows the scopes granted.
      if (call.era === 'legacy') {
        await this.linkCompleted(call);
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
    const resolved = await this.resolution.resolve(call, args, this.scopesOf(call));
    if (resolved && 'answer' in resolved) {
      return { answer: resolved.answer };
    }
    if (resolved) {
      grant = resolved.grant;
    }
    if (missingScopes(call.tool.spec, grant.scopes).length > 0) {
      return { answer: await this.permissionMissing(call, grant) };
    }
    return { grant, resolved: resolved !== undefined, cached: resolved?.cached ?? false, choice: resolved?.choice };
  }

  private async permissionMissing(call: ToolCall, grant: ConnectedGrant): Promise<CallToolResult> {
    const missing = missingScopes(call.tool.spec, grant.scopes);
    const link = await this.requests.create(call.principal, this.scopesOf(call));
    await this.audit(call, 'permission_missing', { google_account: grant.googleEmail, path: 'link' });
    return errorResult(missingPermissionText(call.tool.spec.name, grant.googleEmail, missing, link));
  }

  /**
   * The principal has no usable grant: a URL elicitation to a connect link when
   * the client can open links (and ELICITATION is not false), otherwise an
   * isError sentence with the link. Also what a NotConnectedError raised
   * mid-call (revoked at refresh) turns into. Nothing was sent to Google.
   */
  async askToConnect(call: ToolCall, reason: NotConnectedReason): Promise<CallToolResult | InputRequiredResult> {
    const link = await this.requests.create(call.principal, this.scopesOf(call));
    const dialog = this.config.elicitation && opensLinks(call);
    await this.audit(call, 'connect_asked', { path: dialog ? 'dialog' : 'link', reason });
    if (dialog) {
      const request = inputRequired.elicitUrl({ message: connectMessage(reason), url: link.url });
      if (call.era === 'legacy') {
        // 2025-11-25 correlates a URL elicitation by elicitationId, and the client may wait for
        // notifications/elicitation/complete: we choose the id (the SDK's shim keeps one it is given) to send that once connected.
        const elicitationId = randomUUID();
        (request.params as { elicitationId?: string }).elicitationId = elicitationId;
        this.pendingLinks.set(call.server, elicitationId);
      }
      return inputRequired({ inputRequests: { [CONNECT_KEY]: request } });
    }
    const why = this.config.elicitation
      ? 'this client cannot open a link for you (it did not declare URL-mode elicitation)'
      : 'ELICITATION=false is set for this server';
    return errorResult(connectLinkText(call.tool.spec.name, reason, link, why));
  }

  /** 2025-11-25: tells the client the link it opened did its work (notifications/elicitation/complete). Never fails the call. */
  private async linkCompleted(call: ToolCall): Promise<void> {
    const elicitationId = this.pendingLinks.get(call.server);
    if (!elicitationId) {
      return;
    }
    this.pendingLinks.delete(call.server);
    try {
      await call.server.server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: call.sdk.mcpReq.id })();
    } catch {
      // The client declared no URL elicitation after all, or the session is gone: the result still answers.
    }
  }

  /** A single-use link that connects one more Google account for the caller, asking for the scopes of every tool it may use. */
  connectLink(call: ToolCall<unknown>): Promise<ConnectLink> {
    return this.requests.create(call.principal, this.scopesOf(call));
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
   * The person accepted the link: look for the grant every POLL_MS for as long
   * as a link lives, saying so by progress notifications, until it exists or
   * the call is cancelled. Undefined when it never came.
   */
  private async waitForGrant(call: ToolCall): Promise<ConnectedGrant | undefined> {
    const started = Date.now();
    const total = CONNECT_REQUEST_TTL_MS / 1000;
    let said = -Infinity;
    while (!call.signal.aborted) {
      try {
        return await this.accounts.requireGrant(call.principal);
      } catch (error) {
        if (!(error instanceof NotConnectedError)) {
          throw error;
        }
      }
      const now = Date.now();
      if (now - started >= CONNECT_REQUEST_TTL_MS) {
        return undefined;
      }
      if (now - said >= PROGRESS_EVERY_MS) {
        said = now;
        await call.progress(Math.floor((now - started) / 1000), total, 'Waiting for the Google account to be connected in the browser');
      }
      await sleep(POLL_MS, undefined, { signal: call.signal }).catch(() => undefined);
    }
    return undefined;
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

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
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

export function noGrantInTimeText(tool: string, cancelled: boolean): string {
  const why = cancelled
    ? 'The call was cancelled while it waited for a Google account to be connected'
    : `No Google account was connected within ${CONNECT_REQUEST_TTL_MS / 60_000} minutes of accepting the link`;
  return `${why}, so ${tool} did not run and nothing was sent to Google. Call ${tool} again for a new link.`;
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
