import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { from, lastValueFrom, type Observable } from 'rxjs';
import type { ToolCall } from '../tools/tool-call.js';

/** The rest of the pipeline after a step: the later steps, then the tool's method. Call it inside the async context the step enters. */
export type Next = () => Promise<unknown>;

/**
 * One step of call/pipeline.ts as a Nest interceptor: it gets the call's
 * arguments and ToolCall, and either answers instead of the tool or hands on
 * to the next step. A step that does not apply to a call hands on at once
 * (no promise in between: the per-call cost of a step that does nothing is
 * one function call).
 */
export abstract class CallStep implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const [args, call] = context.getArgs<[Record<string, unknown>, ToolCall]>();
    if (!this.applies(call)) {
      return next.handle();
    }
    return from(this.run(args, call, () => lastValueFrom(next.handle())));
  }

  /** Whether this step has anything to do for this call. */
  protected abstract applies(call: ToolCall): boolean;

  /** Whether this step can apply to any call of this server (a step that cannot is left out of the chain: it would cost every call a link). */
  abstract get active(): boolean;

  abstract run(args: Record<string, unknown>, call: ToolCall, next: Next): Promise<unknown>;
}
