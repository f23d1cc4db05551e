import { type DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module.js';
import type { Config } from './config/config.js';
import { McpModule } from './mcp/mcp.module.js';
import { SitesModule } from './sites/sites.module.js';

/** Everything but the HTTP surface: configuration, Google clients, tools and policy. The stdio server runs this. */
@Module({})
export class AppModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(config), McpModule, SitesModule],
      exports: [McpModule],
    };
  }
}
