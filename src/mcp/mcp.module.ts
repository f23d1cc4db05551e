import { AccountResolution } from '../call/account-resolution.js';
import { AccountSites } from '../call/account-sites.js';
import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { DiscoveryModule } from '@nestjs/core';
import { GoogleAuthModule } from '../google/google-auth.module.js';
import { GoogleModule } from '../google/google.module.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import { AccessPolicy } from '../policy/access-policy.service.js';
import { RegisteredTools } from '../policy/registered-tools.js';
import { ApprovalInterceptor } from '../call/approval/approval.interceptor.js';
import { APPROVAL_SECRETS_PROVIDER } from '../call/approval/approval-secrets.service.js';
import { StoredUsedNonces, UsedNonces } from '../call/approval/approval-tokens.js';
import { AuditTrail } from '../call/approval/audit-trail.service.js';
import { AccountStep } from '../call/account.step.js';
import { AdmissionStep } from '../call/admission.step.js';
import { CallAsking } from '../call/asking.js';
import { ConnectedCalls } from '../call/connected-calls.js';
import { CallPipeline } from '../call/pipeline.js';
import { TargetStep } from '../call/target.step.js';
import { ConnectPageAudit } from '../call/connect-page-audit.js';
import { ConnectWaits } from '../call/connect-waits.js';
import { McpServerFactory } from './mcp-server.factory.js';
import { ResourceRegistry } from '../tools/resource-registry.service.js';
import { SERVER_EVENTS, SERVER_EVENTS_PROVIDER, ServerFeatures } from '../tools/server-features.js';
import { SessionEventStores } from './session-event-store.js';
import { SiteAccessGuard } from '../call/site-access.guard.js';
import { ToolDispatcher } from '../call/tool-dispatcher.service.js';
import { ToolRegistry } from '../tools/tool-registry.service.js';

/**
 * Tool discovery, dispatch and the steps that run around every tool call.
 * The steps (call/pipeline.ts) are deliberately not APP_* enhancers: the
 * pipeline applies them to tool calls itself, in its declared order, so they
 * never touch a host application's routes and its global enhancers never touch
 * a tool call. Single use, the approval secret, the audit trail and 2025
 * stream events live in the state store (STATE_STORE, from StateModule).
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    ToolRegistry,
    { provide: RegisteredTools, useExisting: ToolRegistry },
    AccessPolicy,
    ToolDispatcher,
    ConnectedCalls,
    ConnectWaits,
    ConnectPageAudit,
    AccountSites,
    AccountResolution,
    McpServerFactory,
    ResourceRegistry,
    AuditTrail,
    CallPipeline,
    CallAsking,
    TargetStep,
    AdmissionStep,
    AccountStep,
    SiteAccessGuard,
    ApprovalInterceptor,
    APPROVAL_SECRETS_PROVIDER,
    SessionEventStores,
    ServerFeatures,
    SERVER_EVENTS_PROVIDER,
    { provide: UsedNonces, useFactory: (store: StateStore) => new StoredUsedNonces(store), inject: [STATE_STORE] },
  ],
  exports: [
    ToolRegistry,
    AccessPolicy,
    ResourceRegistry,
    McpServerFactory,
    ToolDispatcher,
    AuditTrail,
    AccountSites,
    ConnectedCalls,
    SessionEventStores,
    SERVER_EVENTS,
    APPROVAL_SECRETS_PROVIDER.provide,
  ],
})
export class McpModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(McpModule, () => [GoogleAuthModule.in(graph), GoogleModule.in(graph)]);
  }
}
