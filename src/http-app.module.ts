import { type DynamicModule, Module } from '@nestjs/common';
import { AdminModule } from './admin/admin.module.js';
import { MetricsModule } from './admin/metrics.module.js';
import { AppModule } from './app.module.js';
import type { Config } from './config/config.js';
import { McpHttpController } from './mcp/mcp-http.controller.js';

/**
 * The HTTP server: /mcp (Streamable HTTP, both protocol revisions), /admin
 * and /metrics. A company's Nest app can import HttpAppModule.forRoot(loadConfig(env))
 * to mount the same endpoints itself.
 */
@Module({})
export class HttpAppModule {
  static forRoot(config: Config): DynamicModule {
    return {
      module: HttpAppModule,
      imports: [AppModule.forRoot(config), AdminModule, MetricsModule],
      controllers: [McpHttpController],
    };
  }
}
