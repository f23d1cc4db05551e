import type { CanActivate, NestInterceptor } from '@nestjs/common';
import { ApplicationConfig, ExternalContextCreator, type NestContainer } from '@nestjs/core';
import { ExternalExceptionFilterContext } from '@nestjs/core/exceptions/external-exception-filter-context.js';
import { GuardsConsumer, GuardsContextCreator } from '@nestjs/core/guards/index.js';
import { InterceptorsConsumer, InterceptorsContextCreator } from '@nestjs/core/interceptors/index.js';
import { PipesConsumer, PipesContextCreator } from '@nestjs/core/pipes/index.js';

/** A tool method wrapped in its guards and interceptors: what ToolRegistry stores as RegisteredTool.invoke. */
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
