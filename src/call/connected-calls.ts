import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type CallToolResult, inputRequired } from '@modelcontextprotocol/server';
import { type ConnectLink, ConnectRequests } from '../accounts/connect-requests.js';
import { SERVER_NAME } from '../common/product.js';
import { CONFIG, type Config } from '../config/config.js';
import { ConnectedAccounts, type ConnectedGrant, type NotConnectedReason } from '../google/connected-accounts.js';
import { scopesFor } from '../policy/tool-selection.js';
import type { ToolCall } from '../tools/tool-call.js';
import { ToolRegistry } from '../tools/tool-registry.service.js';
import { errorResult } from '../tools/tool-output.js';
import { type AuditEvent, AuditTrail } from './approval/audit-trail.service.js';
import { ASK_KEYS, type Asking, whyNoLink } from './asking.js';
import { ConnectWaits } from './connect-waits.js';
import { missingScopes, permissionName } from './granted-scopes.js';

/**
 * Connected accounts at call time, as the admission and account steps
 * (call/pipeline.ts) and the listing use them: whether this server runs in
 * connected mode, the scopes a principal's grants hold, a connect link and
 * the question that sends it, the sentence for a permission left unticked,
 * and the audit trail's entries for them.
 *
 * No grant (none, revoked, a record that does not open): a client that can
 * open links gets a URL elicitation to a single-use connect link (2025-11-25:
 * the SDK's shim pushes `elicitation/create` mode `url`; 2026-07-28:
 * `input_required`); when the person accepts, the call waits for the grant
 * and goes on, or answers at once when the person says no at Google
 * (ConnectWaits). Any other client gets an isError sentence with the link.
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
    private readonly waits: ConnectWaits,
  ) {}

  /** Whether this server runs in connected mode (GSC_GOOGLE_OAUTH_CLIENT_ID and _SECRET). */
  get enabled(): boolean {
    return this.config.connected !== undefined;
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

  async permissionMissing(call: ToolCall, grant: ConnectedGrant): Promise<CallToolResult> {
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
    const why = whyNoLink(this.config.elicitation, call);
    const link = await this.requests.create(call.principal, this.scopesOf(call), {
      tool: call.tool.spec.name,
      via: why ? 'link' : 'dialog',
    });
    await this.audit(call, 'connect_asked', { path: why ? 'link' : 'dialog', reason });
    if (why === undefined) {
      const request = inputRequired.elicitUrl({ message: connectMessage(reason), url: link.url });
      if (call.era === 'legacy') {
        // 2025-11-25 correlates a URL elicitation by elicitationId, and the client may wait for
        // notifications/elicitation/complete: we choose the id (the SDK's shim keeps one it is given) to send that once connected.
        const elicitationId = randomUUID();
        (request.params as { elicitationId?: string }).elicitationId = elicitationId;
        this.waits.asked(call, link, elicitationId);
      }
      return { answer: inputRequired({ inputRequests: { [ASK_KEYS.connect]: request } }), link: link.id };
    }
    return { answer: errorResult(connectLinkText(call.tool.spec.name, reason, link, why)) };
  }

  /** A single-use link that connects one more Google account for the caller, asking for the scopes of every tool it may use. */
  connectLink(call: ToolCall<unknown>): Promise<ConnectLink> {
    return this.requests.create(call.principal, this.scopesOf(call), { tool: call.tool.spec.name, via: 'link' });
  }

  /** The Google scopes of every tool this caller may use: what a connect link asks for (the connect page adds `openid email`). */
  scopesOf(call: Pick<ToolCall, 'access'>): string[] {
    let scopes = this.scopesByTools.get(call.access.tools);
    if (!scopes) {
      scopes = scopesFor(this.registry.tools.filter((t) => call.access.tools.has(t.spec.name)).map((t) => t.spec));
      this.scopesByTools.set(call.access.tools, scopes);
    }
    return scopes;
  }

  audit(call: ToolCall, event: AuditEvent, extra: { path?: 'dialog' | 'link'; reason?: string; google_account?: string } = {}) {
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
