import { Inject, Injectable, Optional } from '@nestjs/common';
import type { ServerEventBus } from '@modelcontextprotocol/server';
import { CONFIG, type Config } from '../config/config.js';
import { type ActingAs, actingAs, ConnectedAccounts, type ConnectedGrant, NotConnectedError } from '../google/connected-accounts.js';
import { SERVER_EVENTS } from '../tools/server-features.js';
import type { ToolCall } from '../tools/tool-call.js';
import { errorResult } from '../tools/tool-output.js';
import { type Asking, CallAsking } from './asking.js';
import { CallStep, type Next } from './call-step.js';
import { ConnectWaits } from './connect-waits.js';
import { ConnectedCalls, notConnectedText } from './connected-calls.js';
import { missingScopes } from './granted-scopes.js';

/**
 * Step 2 (call/pipeline.ts), connected mode, a tool that talks to Google:
 * the call runs as its principal, and only with a usable grant that covers
 * the tool's scope (PRODUCT.md §8d "Asking to connect", "Using a grant").
 * No grant: the person is asked to connect one (a URL elicitation to a
 * single-use link, or a sentence with the link), and an accepted link is
 * waited on (ConnectWaits); a grant that lacks the tool's permission gets a
 * sentence and a link. A NotConnectedError from a later step (an account
 * revoked while looked up, or when its token was refreshed) asks to connect
 * again, like a call that found no grant. Settles `admitted`.
 */
@Injectable()
export class AdmissionStep extends CallStep {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    private readonly accounts: ConnectedAccounts,
    private readonly asking: CallAsking,
    private readonly connected: ConnectedCalls,
    private readonly waits: ConnectWaits,
    @Optional() @Inject(SERVER_EVENTS) private readonly events?: ServerEventBus,
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

  run(args: Record<string, unknown>, call: ToolCall, next: Next): Promise<unknown> {
    const acting: ActingAs = Object.freeze({ principal: call.principal, sites: call.sites, used: new Set<string>() });
    return actingAs.run(acting, async () => {
      // What the previous round of this call asked (connect, which account): only answers to it count.
      await this.asking.open(call, args);
      try {
        const admitted = await this.admit(call);
        if ('answer' in admitted) {
          return await this.asking.asked(call, args, admitted);
        }
        call.settle({ admitted: admitted.grant });
        return await next();
      } catch (error) {
        if (error instanceof NotConnectedError) {
          return this.asking.asked(call, args, await this.connected.askToConnect(call, error.reason));
        }
        throw error;
      }
    });
  }

  private async admit(call: ToolCall): Promise<{ readonly grant: ConnectedGrant } | Asking> {
    let grant: ConnectedGrant;
    try {
      grant = await this.accounts.requireGrant(call.principal);
    } catch (error) {
      if (!(error instanceof NotConnectedError)) {
        throw error;
      }
      const round = this.asking.roundOf(call);
      const answer = this.asking.answerOf(call, 'connect');
      // An answer counts only to the link the previous round of this call sent: an unasked "accept" is no answer.
      if (answer.kind !== 'elicit' || !round) {
        return this.connected.askToConnect(call, error.reason);
      }
      if (answer.action !== 'accept') {
        this.waits.answered(round);
        await this.connected.audit(call, answer.action === 'decline' ? 'connect_declined' : 'connect_cancelled');
        return { answer: errorResult(notConnectedText(call.tool.spec.name, answer.action)) };
      }
      const waited = await this.waits.wait(call, round);
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
        return { answer: await this.connected.permissionMissing(call, grant) };
      }
      grant = covering;
    }
    return { grant };
  }
}
