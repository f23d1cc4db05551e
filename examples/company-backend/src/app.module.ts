import { Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { SearchConsoleMcpModule } from 'google-search-console-mcp/nest';
import { CompanyAuthGuard } from './company-auth.guard.js';
import { CompanyMetricsController } from './company-metrics.controller.js';
import { HelloController } from './hello.controller.js';
import { HelloStats } from './hello-stats.service.js';
import { WrapResponseInterceptor } from './wrap-response.interceptor.js';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true }),
    SearchConsoleMcpModule.forRootAsync({
      imports: [ConfigModule],
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        // The configuration table's variables, by name; process.env is never read behind your back.
        settings: {
          GSC_SERVICE_ACCOUNT_KEY_FILE: config.getOrThrow<string>('SEARCH_CONSOLE_KEY_FILE'),
          GSC_ALLOWED_SITES: config.get<string>('SEARCH_CONSOLE_SITES'),
          GSC_STATE_DIR: config.get<string>('SEARCH_CONSOLE_STATE_DIR'),
          // Google's endpoints; only a test sets these (to the emulator).
          GSC_API_ROOT_URL: config.get<string>('SEARCH_CONSOLE_API_ROOT_URL'),
          GSC_OAUTH_TOKEN_URL: config.get<string>('SEARCH_CONSOLE_TOKEN_URL'),
        },
        path: 'mcp', // under the global prefix: /api/mcp
        principal: (req) => req.user?.email, // set by CompanyAuthGuard
        groups: (req) => req.user?.groups ?? [],
        // Who may use which tools: the SEO team everything, everyone else the essential read tools.
        policy: {
          rules: [
            { groups: ['seo'], tools: ['*'] },
            { principals: ['*@corp.example'], tools: ['essential'] },
          ],
        },
        allowedHosts: config.get<string>('SEARCH_CONSOLE_HOSTS', 'mcp.corp.example').split(','),
        admin: { path: 'admin/search-console' }, // /api/admin/search-console/health, …/audit
        metrics: { path: 'metrics/search-console' }, // /api/metrics is the company's own
      }),
    }),
  ],
  controllers: [HelloController, CompanyMetricsController],
  providers: [
    HelloStats,
    { provide: APP_GUARD, useClass: CompanyAuthGuard },
    { provide: APP_INTERCEPTOR, useClass: WrapResponseInterceptor },
  ],
})
export class AppModule {}
