import {
  type CallHandler,
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import { ApplicationConfig, ExternalContextCreator, ModuleRef, type NestContainer } from '@nestjs/core';
import { ExternalExceptionFilterContext } from '@nestjs/core/exceptions/external-exception-filter-context.js';
import { GuardsConsumer, GuardsContextCreator } from '@nestjs/core/guards/index.js';
import { InterceptorsConsumer, InterceptorsContextCreator } from '@nestjs/core/interceptors/index.js';
import { PipesConsumer, PipesContextCreator } from '@nestjs/core/pipes/index.js';
import { from, mergeMap, type Observable } from 'rxjs';
import type { RegisteredTool } from '../tools/registered-tool.js';
import type { ToolCall } from '../tools/tool-call.js';
import { AccountStep } from './account.step.js';
import { AdmissionStep } from './admission.step.js';
import { CallStep } from './call-step.js';
import { ApprovalInterceptor } from './approval/approval.interceptor.js';
import { SiteAccessGuard } from './site-access.guard.js';
import { TargetStep } from './target.step.js';

/**
 * The order of every tool call, over stdio and HTTP alike — the only place it is written:
 *
 *   1. target      — the arguments parsed once into the call's target (target.ts): the
 *                    property, page(s), resource id or annotation id the tool declares, each
 *                    checked against the caller's properties; nothing refused yet.
 *   2. admission   — connected mode: the call runs as its principal, with a usable grant
 *                    covering the tool's scope, or the person is asked to connect one (and
 *                    the call waits for it), or told which permission is missing.
 *   3. account     — connected mode: which of the principal's Google accounts acts (the one
 *                    that has the target's property, the one named, or the one the person
 *                    chooses), settled once; nothing below changes who acts.
 *   4. siteAccess  — the first failed check of the target refuses the call (nothing sent);
 *                    a Site Verification resource is fetched, as that account, and checked.
 *   5. approval    — a destructive tool is put to a person (dialog or two-call token).
 *   then the tool's method, and the dispatcher renders its answer.
 *
 * Each step is a Nest enhancer (site access a guard, the others interceptors) and
 * runs in this order through one ExternalContextCreator (toolPipeline below).
 */
export const CALL_STEPS = [TargetStep, AdmissionStep, AccountStep, SiteAccessGuard, ApprovalInterceptor] as const;

type Step = CanActivate | NestInterceptor;

/** A guard at its place in the order: Nest runs guards before every interceptor, so the pipeline runs it as one. */
function inOrder(step: Step): NestInterceptor {
  if ('intercept' in step) {
    return step;
  }
  return {
    intercept: (context: ExecutionContext, next: CallHandler): Observable<unknown> =>
      from(Promise.resolve(step.canActivate(context) as boolean | Promise<boolean>)).pipe(
        mergeMap((allowed) => {
          if (!allowed) {
            // What Nest's GuardsConsumer throws for a guard that says no.
            throw new ForbiddenException('Forbidden resource');
          }
          return next.handle();
        }),
      ),
  };
}

/**
 * Runs a tool call through CALL_STEPS, then the tool's method: each tool's
 * method wrapped once (on first call) and kept.
 */
@Injectable()
export class CallPipeline {
  private wrap?: WrapToolMethod;
  private readonly invokers = new WeakMap<RegisteredTool, ToolInvoker>();

  constructor(
    private readonly nest: ExternalContextCreator,
    private readonly modules: ModuleRef,
  ) {}

  run(tool: RegisteredTool, args: Record<string, unknown>, call: ToolCall): Promise<unknown> {
    let invoke = this.invokers.get(tool);
    if (!invoke) {
      // The steps' instances, in CALL_STEPS's order (resolved on the first call, once every provider exists).
      this.wrap ??= toolPipeline(this.nest, {
        guards: [],
        interceptors: CALL_STEPS.map((step) => this.modules.get<Step>(step, { strict: false }))
          // A step that can apply to no call of this server (the connected steps without connected mode) is left out.
          .filter((step) => !(step instanceof CallStep) || step.active)
          .map(inOrder),
      });
      invoke = this.wrap(tool.instance, tool.method);
      this.invokers.set(tool, invoke);
    }
    return invoke(args, call);
  }
}

/** A tool method wrapped in the steps of CALL_STEPS (and whatever its class declares with @UseGuards/@UseInterceptors). */
export type ToolInvoker = (args: Record<string, unknown>, call: object) => Promise<unknown>;

/** Wraps one method of a provider instance; the method runs only when every guard passed, inside every interceptor. */
export type WrapToolMethod = (instance: object, methodName: string) => ToolInvoker;

/**
 * The one place that reaches into Nest internals. Why we keep the mechanism:
 * a tool call is not an HTTP request, yet it must run inside guards and
 * interceptors (SiteAccessGuard, ApprovalInterceptor, and whatever a tool
 * class declares with @UseGuards/@UseInterceptors) over stdio and HTTP alike.
 * Nest's ExternalContextCreator does exactly that, but it also applies the
 * application's *global* enhancers — in a company's app the host's HTTP auth
 * guard and response wrapper (APP_GUARD, APP_INTERCEPTOR, useGlobalGuards),
 * which break on a tool call (no req.headers, an unexpected return shape). So
 * we build one whose "global" enhancers are ours and nothing else.
 *
 * Nest offers no public way to do that: the creator's container is private
 * (ExternalContextCreator.fromContainer reads it the same way), the context
 * creators are deep imports, and create() takes positional arguments we do not
 * use. If @nestjs/core changes any of it, this function fails at start-up with
 * a sentence, and tool-pipeline.spec.ts pins the order and the exclusion.
 */
export function toolPipeline(
  nest: ExternalContextCreator,
  enhancers: { readonly guards: readonly CanActivate[]; readonly interceptors: readonly NestInterceptor[] },
): WrapToolMethod {
  const container = (nest as unknown as { container?: NestContainer }).container;
  if (!container) {
    throw new Error('@nestjs/core changed: ExternalContextCreator no longer exposes its container');
  }
  const config = new ApplicationConfig();
  for (const guard of enhancers.guards) {
    config.addGlobalGuard(guard);
  }
  for (const interceptor of enhancers.interceptors) {
    config.addGlobalInterceptor(interceptor);
  }
  const creator = new ExternalContextCreator(
    new GuardsContextCreator(container, config),
    new GuardsConsumer(),
    new InterceptorsContextCreator(container, config),
    new InterceptorsConsumer(),
    container.getModules(),
    new PipesContextCreator(container, config),
    new PipesConsumer(),
    new ExternalExceptionFilterContext(container, config),
  );
  (creator as unknown as { container: NestContainer }).container = container;
  return (instance, methodName) => {
    const method = (instance as Record<string, (...args: unknown[]) => unknown>)[methodName];
    // Positional: no param metadata key, no params factory (the method gets the raw (args, call)), the static
    // context and no inquirer (tool providers are singletons); no exception filters: ToolDispatcher turns every
    // failure into an isError sentence itself. 'mcp' is the context type guards see in getType().
    return creator.create(
      instance,
      method,
      methodName,
      undefined,
      undefined,
      undefined,
      undefined,
      { guards: true, interceptors: true, filters: false },
      'mcp',
    ) as ToolInvoker;
  };
}
