import type { CanActivate, NestInterceptor } from '@nestjs/common';
import { ApplicationConfig, ExternalContextCreator, type NestContainer } from '@nestjs/core';
import { ExternalExceptionFilterContext } from '@nestjs/core/exceptions/external-exception-filter-context.js';
import { GuardsConsumer, GuardsContextCreator } from '@nestjs/core/guards/index.js';
import { InterceptorsConsumer, InterceptorsContextCreator } from '@nestjs/core/interceptors/index.js';
import { PipesConsumer, PipesContextCreator } from '@nestjs/core/pipes/index.js';

/**
 * An ExternalContextCreator whose "global" enhancers are this module's policy
 * and nothing else. Nest's own creator applies the application's global
 * guards and interceptors — in a company's app, the host's HTTP auth guard and
 * response wrapper, which break on a tool call (no req.headers, an unexpected
 * return shape). Tool calls get exactly SiteAccessGuard and ApprovalInterceptor,
 * plus whatever a tool class declares itself with @UseGuards/@UseInterceptors.
 */
export function policyContextCreator(
  nest: ExternalContextCreator,
  guards: readonly CanActivate[],
  interceptors: readonly NestInterceptor[],
): ExternalContextCreator {
  // Nest keeps the container private; fromContainer() is how it builds the creator itself.
  const container = (nest as unknown as { container?: NestContainer }).container;
  if (!container) throw new Error('@nestjs/core changed: ExternalContextCreator no longer exposes its container');
  const config = new ApplicationConfig();
  for (const guard of guards) config.addGlobalGuard(guard);
  for (const interceptor of interceptors) config.addGlobalInterceptor(interceptor);
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
  return creator;
}
