import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { AccountsModule } from './accounts/accounts.module.js';
import { AnnotationsModule } from './annotations/annotations.module.js';
import { ModuleGraph } from './common/module-graph.js';
import { ConfigModule } from './config/config.module.js';
import { CONFIG, type Config } from './config/config.js';
import type { SearchConsoleMcpAsyncOptions } from './config/search-console-mcp.options.js';
import { AnalyticsModule } from './analytics/analytics.module.js';
import { IndexingModule } from './indexing/indexing.module.js';
import { InspectionModule } from './inspection/inspection.module.js';
import { McpModule } from './mcp/mcp.module.js';
import { SitemapsModule } from './sitemaps/sitemaps.module.js';
import { ConnectionsModule } from './connections/connections.module.js';
import { SitesModule } from './sites/sites.module.js';
import { StateModule } from './state/state.module.js';
import { VerificationModule } from './verification/verification.module.js';
import { ViewsModule } from './views/views.module.js';

type Imports = (DynamicModule | Type)[];

/** A module configuration switches on, built once per graph. */
export type OptionalModule = (graph: ModuleGraph) => DynamicModule;

/**
 * The modules configuration switches on, imported only then: with
 * GSC_CONFORMANCE_FIXTURES unset the fixtures' code is never even loaded, so
 * the server starts, lists and declares exactly what it does without them.
 */
export async function optionalModules(config: Config): Promise<OptionalModule[]> {
  if (!config.conformanceFixtures) {
    return [];
  }
  const { ConformanceModule } = await import('./conformance/conformance.module.js');
  return [(graph) => ConformanceModule.in(graph)];
}

const DOMAINS = [
  ConnectionsModule,
  SitesModule,
  SitemapsModule,
  AnalyticsModule,
  InspectionModule,
  IndexingModule,
  VerificationModule,
  AnnotationsModule,
];

/** Everything but the HTTP surface: configuration, the state store, Google clients, tools and policy. The stdio server runs this. */
@Module({})
export class AppModule {
  static forRoot(config: Config, optional: readonly OptionalModule[] = []): DynamicModule {
    return AppModule.in(AppModule.graph(config), optional);
  }

  /** The modules of one instance, sharing the configuration and the clock, the state store, and `more` (the HTTP server's metrics). */
  static graph(config: Config, more: Imports = []): ModuleGraph {
    const shared = [ConfigModule.forRoot(config), StateModule.forRoot(config.state)];
    return new ModuleGraph([...shared, AccountsModule.with(shared), ...more]);
  }

  /** The same, configured by a host app's factory (SearchConsoleMcpModule.forRootAsync). */
  static graphAsync(options: SearchConsoleMcpAsyncOptions, more: Imports = []): ModuleGraph {
    const config = ConfigModule.forRootAsync(options);
    const state = StateModule.forRootAsync({ imports: [config], inject: [CONFIG], useFactory: (c: Config) => c.state });
    return new ModuleGraph([config, state, AccountsModule.with([config, state]), ...more]);
  }

  static in(graph: ModuleGraph, optional: readonly OptionalModule[] = []): DynamicModule {
    const mcp = McpModule.in(graph);
    return {
      module: AppModule,
      imports: [
        graph.shared,
        mcp,
        ...DOMAINS.map((domain) => domain.in(graph)),
        ViewsModule.in(graph),
        ...optional.map((module) => module(graph)),
      ],
      exports: [mcp],
    };
  }
}
