import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, DiscoveryModule } from '@nestjs/core';
import { AuthModule } from '../auth/auth.module.js';
import { GoogleModule } from '../google/google.module.js';
import { ApprovalInterceptor } from './approval/approval.interceptor.js';
import { AuditTrail } from './approval/audit-trail.service.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { SiteAccessGuard } from './site-access.guard.js';
import { ToolDispatcher } from './tool-dispatcher.service.js';
import { ToolRegistry } from './tool-registry.service.js';

/**
 * Tool discovery, dispatch and the policy that runs around every tool call:
 * SiteAccessGuard and ApprovalInterceptor are global enhancers, so they apply
 * to every @Tool in every module — including ones added later — and pass
 * anything that is not an MCP call straight through.
 */
@Module({
  imports: [DiscoveryModule, AuthModule, GoogleModule],
  providers: [
    ToolRegistry,
    ToolDispatcher,
    McpServerFactory,
    AuditTrail,
    { provide: APP_GUARD, useClass: SiteAccessGuard },
    { provide: APP_INTERCEPTOR, useClass: ApprovalInterceptor },
  ],
  exports: [ToolRegistry, McpServerFactory, AuditTrail],
})
export class McpModule {}
