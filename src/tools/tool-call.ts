import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type { Access } from '../policy/policy-resolution.js';
import type { Caller } from '../identity/caller.js';
import type { CallScope } from './call-scope.js';
import type { RegisteredTool } from './registered-tool.js';
import type { ResolvedTarget } from './tool-target.js';

/** Who and what a call comes from: set by the transport, the same for every tool. */
export interface CallContext {
  readonly era: 'legacy' | 'modern';
  readonly sdk: ServerContext;
  readonly server: McpServer;
  readonly caller: Caller;
  /** What AccessPolicy decided for this caller (tools, sites, the rule that narrowed them): the guard reads it, never re-decides it. */
  readonly access: Access;
}

/**
 * The second argument of every tool method, and what the steps of
 * call/pipeline.ts see through `ExecutionContext.getArgs()[1]`. Its scope
 * (caller, access, parsed target, acting Google account) is frozen and grows
 * only by `settle`, once per part, in the pipeline's order; the resolved target
 * a tool reads is written once, by the site-access step.
 */
export class ToolCall<T = ResolvedTarget> implements CallContext {
  readonly era: CallContext['era'];
  readonly sdk: ServerContext;
  readonly server: McpServer;
  readonly caller: Caller;
  readonly access: Access;
  #scope: CallScope;
  #target?: T;

  constructor(
    readonly tool: RegisteredTool,
    context: CallContext,
  ) {
    ({ era: this.era, sdk: this.sdk, server: this.server, caller: this.caller, access: this.access } = context);
    this.#scope = Object.freeze({ caller: this.caller, access: this.access });
  }

  /** Who the call is for and what it acts on, as the steps so far settled it (frozen). */
  get scope(): CallScope {
    return this.#scope;
  }

  /** A step settles its part of the scope, once: the target step the target, the account step the acting account. */
  settle(part: Pick<CallScope, 'target'> | Pick<CallScope, 'admitted'> | Pick<CallScope, 'account'>): void {
    for (const key of Object.keys(part) as (keyof CallScope)[]) {
      if (this.#scope[key] !== undefined) {
        throw new Error(`${this.tool.spec.name}: the call's ${key} is settled once`);
      }
    }
    this.#scope = Object.freeze({ ...this.#scope, ...part });
  }

  /** The properties this caller may touch (GSC_ALLOWED_SITES narrowed by its policy rule); undefined means all. */
  get sites(): readonly string[] | undefined {
    return this.access.sites;
  }

  get principal(): string {
    return this.caller.principal;
  }

  /** Aborted when the client cancels the call (notifications/cancelled, or the HTTP request closing): start no new Google calls. */
  get signal(): AbortSignal {
    return this.sdk.mcpReq.signal;
  }

  /**
   * Sends notifications/progress when the request asked for it (a
   * progressToken); otherwise does nothing. Never fails the call: progress is
   * a courtesy, the result is the answer.
   */
  async progress(progress: number, total: number, message?: string): Promise<void> {
    const token = this.sdk.mcpReq._meta?.progressToken;
    if (token === undefined || this.signal.aborted) {
      return;
    }
    await this.sdk.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress, total, ...(message ? { message } : {}) } })
      .catch(() => undefined);
  }

  get target(): T {
    if (this.#target === undefined) {
      throw new Error(`${this.tool.spec.name}: the target was read before the site-access step resolved it`);
    }
    return this.#target;
  }

  /** The site-access step only. */
  resolve(target: T): void {
    if (this.#target !== undefined) {
      throw new Error(`${this.tool.spec.name}: the target is resolved once`);
    }
    this.#target = target;
  }
}
