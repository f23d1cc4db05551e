import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/server';
import {
  CONNECT_REQUEST_TTL_MS,
  type ConnectLink,
  type ConnectOutcome,
  ConnectRequests,
  MAX_LIVE_LINKS,
  MAX_WAITING_CALLS,
} from '../accounts/connect-requests.js';
import { ConnectedAccounts, type ConnectedGrant, NotConnectedError } from '../google/connected-accounts.js';
import type { Round } from './asking.js';
import type { ToolCall } from '../tools/tool-call.js';
import { errorResult } from '../tools/tool-output.js';

/** How often a waiting call (and a 2025-11-25 session's watch) reads the store for the grant or the link's end. */
export const POLL_MS = 500;
/** How often a waiting call says so (notifications/progress, when the request asked for progress). */
const PROGRESS_EVERY_MS = 5_000;

/** What a wait came to: the grant, or the call's answer instead (declined, cancelled, timed out, too many waiting). */
export type Waited = { readonly grant: ConnectedGrant } | { readonly answer: CallToolResult };

/** Where a connect link stands, as a waiting call reads it from the state store. */
type LinkState =
  | { readonly kind: 'connected'; readonly grant: ConnectedGrant }
  | { readonly kind: 'ended'; readonly outcome: ConnectOutcome }
  | { readonly kind: 'pending' };

/** A 2025-11-25 session that was sent a URL elicitation, watched until its link ends (this process: the session is sticky). */
interface Watch {
  readonly principal: string;
  readonly requestId: string;
  /** Sends notifications/elicitation/complete for the link on the request that got it; once, and never fails. */
  readonly complete: () => Promise<void>;
  readonly stop: AbortController;
}

/**
 * The calls that wait for a person to connect a Google account (PRODUCT.md §8d):
 *
 * - A call given a connect link by URL elicitation carries the link's id in
 *   the record of its round (CallRounds, in the state store), so its next round
 *   (the 2026-07-28 retry on any replica, or the 2025-11-25 shim's re-entry)
 *   knows which link it waits on, and only that round does.
 * - The waiting round polls the store: a usable grant → it goes on; the link
 *   ended with a no (Cancel at Google, a cancelled sign-in at the IdP, recorded
 *   by the callback on whichever replica served it) → it answers at once; ten
 *   minutes → it gives up. At most MAX_WAITING_CALLS calls of one principal
 *   wait at once (places in the store); one more gets a sentence.
 * - 2025-11-25: `notifications/elicitation/complete` goes out as soon as the
 *   link's connection is done (a grant stored, or a no), whether or not the
 *   client has answered the URL elicitation yet: clients such as the MCP
 *   Inspector wait for it before answering. Until the round re-enters, a watch
 *   on the session's own process polls the store for it.
 */
@Injectable()
export class ConnectWaits {
  /** By request id; at most MAX_LIVE_LINKS per principal (older links no longer work anyway). */
  private readonly watches = new Map<string, Watch>();

  constructor(
    private readonly accounts: ConnectedAccounts,
    private readonly requests: ConnectRequests,
  ) {}

  /** 2025-11-25: the call was sent `link` by URL elicitation with `elicitationId`; the session is told as soon as the link is done. */
  asked(call: ToolCall, link: ConnectLink, elicitationId: string): void {
    this.watch(call, link, elicitationId);
  }

  /** The person declined or dismissed the URL elicitation in the client (`round`: the one that sent the link): nothing to wait for or watch. */
  answered(round: Round): void {
    if (round.link !== undefined) {
      this.take(round.link);
    }
  }

  /**
   * The person accepted the link: wait for the grant, saying so by progress
   * notifications, until it exists, the link ends with a no, ten minutes
   * pass, or the call is cancelled.
   */
  async wait(call: ToolCall, round: Round): Promise<Waited> {
    const tool = call.tool.spec.name;
    const release = await this.requests.holdWaitingPlace(call.principal);
    if (!release) {
      return { answer: errorResult(tooManyWaitingText(tool)) };
    }
    try {
      const requestId = round.link;
      // From here this round polls; a 2025 watch's notifier is kept to tell the client.
      const watch = requestId === undefined ? undefined : this.take(requestId);
      const started = Date.now();
      let said = -Infinity;
      while (!call.signal.aborted) {
        const state = await this.stateOf(call.principal, requestId);
        if (state.kind === 'connected') {
          await watch?.complete();
          return { grant: state.grant };
        }
        if (state.kind === 'ended') {
          await watch?.complete();
          return { answer: errorResult(saidNoText(tool, state.outcome)) };
        }
        const now = Date.now();
        if (now - started >= CONNECT_REQUEST_TTL_MS) {
          return { answer: errorResult(noGrantInTimeText(tool, false)) };
        }
        if (now - said >= PROGRESS_EVERY_MS) {
          said = now;
          const total = CONNECT_REQUEST_TTL_MS / 1000;
          await call.progress(Math.floor((now - started) / 1000), total, 'Waiting for the Google account to be connected in the browser');
        }
        await sleep(POLL_MS, undefined, { signal: call.signal }).catch(() => undefined);
      }
      return { answer: errorResult(noGrantInTimeText(tool, true)) };
    } finally {
      // Never in the way of the answer: a place not given back (the store is down) expires with the longest wait.
      await release().catch(() => undefined);
    }
  }

  /** A usable grant (through this link or any other), else the link's no, else pending. */
  private async stateOf(principal: string, requestId: string | undefined): Promise<LinkState> {
    try {
      return { kind: 'connected', grant: await this.accounts.requireGrant(principal) };
    } catch (error) {
      if (!(error instanceof NotConnectedError)) {
        throw error;
      }
    }
    const request = requestId === undefined ? undefined : await this.requests.peek(requestId);
    return request?.ended && request.principal === principal ? { kind: 'ended', outcome: request.ended.outcome } : { kind: 'pending' };
  }

  /** 2025-11-25: watch the link until it is done, then tell the client on the request that got it. */
  private watch(call: ToolCall, link: ConnectLink, elicitationId: string): void {
    let sent = false;
    const watch: Watch = {
      principal: call.principal,
      requestId: link.id,
      stop: new AbortController(),
      complete: async () => {
        if (sent) {
          return;
        }
        sent = true;
        try {
          await call.server.server.createElicitationCompletionNotifier(elicitationId, { relatedRequestId: call.sdk.mcpReq.id })();
        } catch {
          // The client declared no URL elicitation after all, or the session is gone: the call's result still answers.
        }
      },
    };
    this.watches.set(link.id, watch);
    const mine = [...this.watches.values()].filter((w) => w.principal === call.principal);
    for (const old of mine.slice(0, Math.max(0, mine.length - MAX_LIVE_LINKS))) {
      this.take(old.requestId);
    }
    void this.follow(call, watch, link.expiresAt.getTime());
  }

  private async follow(call: ToolCall, watch: Watch, until: number): Promise<void> {
    const signal = AbortSignal.any([watch.stop.signal, call.signal]);
    try {
      while (Date.now() < until && call.server.isConnected()) {
        await sleep(POLL_MS, undefined, { signal });
        let state: LinkState;
        try {
          state = await this.stateOf(watch.principal, watch.requestId);
        } catch {
          // The store is unreachable for a moment: look again at the next poll.
          continue;
        }
        if (state.kind !== 'pending') {
          await watch.complete();
          return;
        }
      }
    } catch {
      // Stopped: the round re-entered (it polls now), the client answered no, or the call was cancelled.
    } finally {
      if (this.watches.get(watch.requestId) === watch) {
        this.watches.delete(watch.requestId);
      }
    }
  }

  /** Stops a watch's polling and hands it over (its notifier still works); undefined when none. */
  private take(requestId: string): Watch | undefined {
    const watch = this.watches.get(requestId);
    this.watches.delete(requestId);
    watch?.stop.abort();
    return watch;
  }
}

/**
 * The person said no while the call waited. An isError result, as when the
 * person declines the link in the client: the call did not produce what its
 * tool promises, and a result that is not an error must carry the tool's
 * structured output (clients validate it against the output schema), which a
 * call that never ran does not have.
 */
export function saidNoText(tool: string, outcome: ConnectOutcome): string {
  const who = outcome === 'denied' ? 'You declined at Google' : 'You cancelled the sign-in that comes before Google';
  return `${who}, so no Google account was connected: nothing was stored, ${tool} did not run and nothing was sent to Google. Call ${tool} again when you want to connect one.`;
}

export function noGrantInTimeText(tool: string, cancelled: boolean): string {
  const why = cancelled
    ? 'The call was cancelled while it waited for a Google account to be connected'
    : `No Google account was connected within ${CONNECT_REQUEST_TTL_MS / 60_000} minutes of accepting the link`;
  return `${why}, so ${tool} did not run and nothing was sent to Google. Call ${tool} again for a new link.`;
}

export function tooManyWaitingText(tool: string): string {
  return (
    `${tool} did not run and nothing was sent to Google: ${MAX_WAITING_CALLS} of your calls are already waiting for a Google account to be connected, as many as may wait at once. ` +
    `Connect the account through a link your client already showed you (the waiting calls then go on), or call ${tool} again once they have ended.`
  );
}
