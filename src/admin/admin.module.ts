import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { McpModule } from '../mcp/mcp.module.js';
import { AdminController } from './admin.controller.js';

@Module({ imports: [McpModule, AuthModule], controllers: [AdminController] })
export class AdminModule {}
