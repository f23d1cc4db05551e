import { Inject, Injectable } from '@nestjs/common';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import { CONFIG, type Config } from '../config/config.js';
import type { ToolCall } from '../tools/tool-call.js';
import { targetOf } from './target.js';

/**
 * Step 1 (call/pipeline.ts): the target, parsed once from the arguments by
 * target.ts and settled in the call's scope, where every later step reads it.
 * Pure: nothing is refused here (the site-access step refuses, after the
 * person was asked to connect an account when there was none to act with).
 */
@Injectable()
export class TargetStep implements NestInterceptor {
  constructor(@Inject(CONFIG) private readonly config: Config) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const [args, call] = context.getArgs<[Record<string, unknown>, ToolCall]>();
    this.settle(args, call);
    return next.handle();
  }

  settle(args: Record<string, unknown>, call: ToolCall): void {
    const context = { ...(this.config.siteUrl ? { siteUrl: this.config.siteUrl } : {}), principal: call.principal, access: call.access };
    call.settle({ target: targetOf(call.tool.spec, args, context) });
  }
}
