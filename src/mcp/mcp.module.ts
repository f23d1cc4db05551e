import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { AuthModule } from '../auth/auth.module.js';
import { Clock } from '../common/clock.js';
import { GoogleModule } from '../google/google.module.js';
import { AccessPolicy } from './access-policy.service.js';
import { ApprovalInterceptor } from './approval/approval.interceptor.js';
import { InMemoryUsedNonces, UsedNonces } from './approval/approval-tokens.js';
import { AuditTrail } from './approval/audit-trail.service.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { ResourceRegistry } from './resource-registry.service.js';
import { SiteAccessGuard } from './site-access.guard.js';
import { ToolDispatcher } from './tool-dispatcher.service.js';
import { ToolRegistry } from './tool-registry.service.js';

/**
 * Tool discovery, dispatch and the policy that runs around every tool call.
 * SiteAccessGuard and ApprovalInterceptor are deliberately not APP_* enhancers:
 * the registry applies them to tool calls itself (tool-pipeline.ts), so they
 * never touch a host application's routes and its global enhancers never touch
 * a tool call.
 */
@Module({
  imports: [DiscoveryModule, AuthModule, GoogleModule],
  providers: [
    ToolRegistry,
    AccessPolicy,
    ToolDispatcher,
    McpServerFactory,
    ResourceRegistry,
    AuditTrail,
    SiteAccessGuard,
    ApprovalInterceptor,
    { provide: UsedNonces, useFactory: (clock: Clock) => new InMemoryUsedNonces(clock), inject: [Clock] },
  ],
  exports: [ToolRegistry, AccessPolicy, ResourceRegistry, McpServerFactory, ToolDispatcher, AuditTrail],
})
export class McpModule {}
