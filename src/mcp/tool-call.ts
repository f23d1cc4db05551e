import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import type { VerifiedResource } from '../property/verification-resource.js';
import type { Caller } from '../identity/caller.js';
import type { RegisteredTool } from './tool-registry.service.js';

/**
 * What SiteAccessGuard resolved a call's arguments to, before any request went
 * out. Which fields exist follows from the arguments a tool declares (see
 * TargetOf): `site_url` → the checked property, `url` → one checked page,
 * `urls` → checked pages, `id` → the Site Verification resource, fetched.
 */
export interface ResolvedTarget {
  readonly site?: string;
  readonly page?: URL;
  readonly pages?: readonly URL[];
  readonly resource?: VerifiedResource;
}

type ShapeOf<I extends z.ZodObject> = I['shape'];
type Has<I extends z.ZodObject, K extends string> = K extends keyof ShapeOf<I> ? true : false;

/** The target a tool with input schema I receives: exactly the fields its arguments resolve to, none optional. */
export type TargetOf<I extends z.ZodObject> = (Has<I, 'site_url'> extends true ? { readonly site: string } : unknown) &
  (Has<I, 'url'> extends true ? { readonly page: URL } : unknown) &
  (Has<I, 'urls'> extends true ? { readonly pages: readonly URL[] } : unknown) &
  (Has<I, 'id'> extends true ? { readonly resource: VerifiedResource } : unknown);

/** Who and what a call comes from: set by the transport, the same for every tool. */
export interface CallContext {
  readonly era: 'legacy' | 'modern';
  readonly sdk: ServerContext;
  readonly server: McpServer;
  readonly caller: Caller;
  /** The properties this caller may touch (GSC_ALLOWED_SITES narrowed by its policy rule); undefined means all. */
  readonly sites?: readonly string[];
}

/**
 * The second argument of every tool method, and what guards and interceptors
 * see through `ExecutionContext.getArgs()[1]`. The target is written once, by
 * SiteAccessGuard; reading it before then is a programming error.
 */
export class ToolCall<T = ResolvedTarget> implements CallContext {
  readonly era: CallContext['era'];
  readonly sdk: ServerContext;
  readonly server: McpServer;
  readonly caller: Caller;
  readonly sites?: readonly string[];
  #target?: T;

  constructor(
    readonly tool: RegisteredTool,
    context: CallContext,
  ) {
    ({ era: this.era, sdk: this.sdk, server: this.server, caller: this.caller, sites: this.sites } = context);
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
    if (token === undefined || this.signal.aborted) return;
    await this.sdk.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, progress, total, ...(message ? { message } : {}) } })
      .catch(() => undefined);
  }

  get target(): T {
    if (this.#target === undefined) throw new Error(`${this.tool.spec.name}: the target was read before SiteAccessGuard resolved it`);
    return this.#target;
  }

  /** SiteAccessGuard only. */
  resolve(target: T): void {
    if (this.#target !== undefined) throw new Error(`${this.tool.spec.name}: the target is resolved once`);
    this.#target = target;
  }
}
