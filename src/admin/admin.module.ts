import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { McpModule } from '../mcp/mcp.module.js';
import { QuotaModule } from '../quota/quota.module.js';
import { AdminController } from './admin.controller.js';
import { QuotaController } from './quota.controller.js';

@Module({ imports: [McpModule, AuthModule, QuotaModule], controllers: [AdminController, QuotaController] })
export class AdminModule {}
