import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module.js';
import { CONFIG, type Config } from './config/config.js';
import type { SearchConsoleMcpAsyncOptions } from './search-console-mcp.options.js';
import { AnalyticsModule } from './analytics/analytics.module.js';
import { IndexingModule } from './indexing/indexing.module.js';
import { InspectionModule } from './inspection/inspection.module.js';
import { McpModule } from './mcp/mcp.module.js';
import { SitemapsModule } from './sitemaps/sitemaps.module.js';
import { SitesModule } from './sites/sites.module.js';
import { StateModule } from './state/state.module.js';
import { VerificationModule } from './verification/verification.module.js';
import { ViewsModule } from './views/views.module.js';

const DOMAINS = [SitesModule, SitemapsModule, AnalyticsModule, InspectionModule, IndexingModule, VerificationModule];

/** Everything but the HTTP surface: configuration, the state store, Google clients, tools and policy. The stdio server runs this. */
@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return { module: AppModule, imports: [ConfigModule.forRoot(config), StateModule.forRoot(config.state), McpModule, ...DOMAINS, ViewsModule], exports: [McpModule] };
  }

  /** The same, configured by a host app's factory (SearchConsoleMcpModule.forRootAsync). */
  static forRootAsync(options: SearchConsoleMcpAsyncOptions): DynamicModule {
    const state = StateModule.forRootAsync({ inject: [CONFIG], useFactory: (config: Config) => config.state });
    return { module: AppModule, imports: [ConfigModule.forRootAsync(options), state, McpModule, ...DOMAINS, ViewsModule], exports: [McpModule] };
  }
}
