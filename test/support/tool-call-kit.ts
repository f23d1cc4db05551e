import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import {
  CLIENT_CAPABILITIES_META_KEY,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  isInputRequiredResult,
  type McpServer,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { from, lastValueFrom } from 'rxjs';
import { AnnotationsService } from '../../src/annotations/annotations.service.js';
import { AnnotationsTools } from '../../src/annotations/annotations.tools.js';
import { loadSettings, type Config } from '../../src/config/config.js';
import { FakeGoogle } from '../../src/google/google-service.fake.js';
import { ApprovalInterceptor } from '../../src/call/approval/approval.interceptor.js';
import { ApprovalSecrets } from '../../src/call/approval/approval-secrets.service.js';
import { StoredUsedNonces } from '../../src/call/approval/approval-tokens.js';
import { AuditTrail, type AuditEvent } from '../../src/call/approval/audit-trail.service.js';
import { authInfoFor } from '../../src/identity/caller.js';
import { SiteAccessGuard } from '../../src/call/site-access.guard.js';
import type { CallPipeline } from '../../src/call/pipeline.js';
import { ToolDispatcher } from '../../src/call/tool-dispatcher.service.js';
import type { RegisteredTool } from '../../src/tools/registered-tool.js';
import { TOOL_METADATA } from '../../src/tools/tool.decorator.js';
import type { ToolSpec } from '../../src/tools/tool-spec.js';
import { InspectionService } from '../../src/inspection/inspection.service.js';
import { InspectionTools } from '../../src/inspection/inspection.tools.js';
import { GOOGLE_QUOTA_LIMITS } from '../../src/quota/quota-limits.js';
import { QuotaLedger } from '../../src/quota/quota-ledger.service.js';
import { resolvePolicy } from '../../src/policy/policy-resolution.js';
import { SitemapsService } from '../../src/sitemaps/sitemaps.service.js';
import { SitemapsTools } from '../../src/sitemaps/sitemaps.tools.js';
import { SitesService } from '../../src/sites/sites.service.js';
import { SitesTools } from '../../src/sites/sites.tools.js';
import { createStateStore } from '../../src/state/create-state-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { VerificationService } from '../../src/verification/verification.service.js';
import { VerificationTools } from '../../src/verification/verification.tools.js';
import { ManualClock } from './manual-clock.js';

/** How one call arrives: who makes it, on which revision, what the client can show, and what it echoes back. */
export interface CallOptions {
  readonly principal?: string;
  readonly groups?: readonly string[];
  readonly era?: 'legacy' | 'modern';
  /** The client's capabilities (default: form elicitation, so the dialog path). */
  readonly capabilities?: ClientCapabilities;
  /** The requestState the client echoes (2026-07-28 retry). */
  readonly requestState?: string;
  /** The answers the client sends with it. */
  readonly inputResponses?: Record<string, unknown>;
}

export const FORM: ClientCapabilities = { elicitation: { form: {} } };
export const NO_DIALOG: ClientCapabilities = {};

/**
 * SiteAccessGuard and ApprovalInterceptor as they run around a real tool
 * method, without Nest or a transport: a real SQLite state store in a
 * temporary folder, the shared Google fake behind the real domain services,
 * one manual clock for the store's trail and the approvals, and
 * ToolDispatcher to turn the outcome into the MCP result the client would get.
 * The order (site access, then approval, then method) is the one
 * call/pipeline.ts gives, pinned by pipeline.spec.ts.
 */
export class ToolCallKit {
  readonly google = new FakeGoogle();
  readonly clock = new ManualClock();
  readonly store: StateStore;
  readonly config: Config;
  readonly trail: AuditTrail;
  readonly guard: SiteAccessGuard;
  readonly approval: ApprovalInterceptor;
  private readonly dispatcher: ToolDispatcher;
  private readonly tools = new Map<string, { spec: ToolSpec; method: (args: unknown, call: unknown) => Promise<unknown> }>();

  /** settings: as the embedded module's `settings` (GSC_ALLOWED_SITES, ELICITATION, …); policy: as its `policy`. */
  constructor(
    settings: Record<string, unknown> = {},
    policy?: unknown,
    private readonly dir = mkdtempSync(join(tmpdir(), 'gsc-tool-call-')),
  ) {
    this.config = loadSettings({ GSC_STATE_DIR: dir, ...settings }, policy === undefined ? {} : { policy });
    this.store = createStateStore({ kind: 'sqlite', dir });
    this.trail = new AuditTrail(this.config, this.clock, this.store);
    this.guard = new SiteAccessGuard(this.config, this.google.service);
    const used = new StoredUsedNonces(this.store);
    this.approval = new ApprovalInterceptor(
      this.config,
      this.trail,
      this.clock,
      used,
      new ApprovalSecrets(this.config, this.store),
      this.store,
    );
    // The site-access and approval steps as call/pipeline.ts orders them, around the tool's method (no connected mode here).
    const pipeline = {
      run: async (registered: RegisteredTool, a: Record<string, unknown>, call: unknown) => {
        const context = new ExecutionContextHost([a, call]);
        if (!(await this.guard.canActivate(context))) {
          throw new Error('refused');
        }
        const method = (registered.instance as { method: (args: unknown, call: unknown) => Promise<unknown> }).method;
        return lastValueFrom(this.approval.intercept(context, { handle: () => from(method(a, call)) }));
      },
    };
    this.dispatcher = new ToolDispatcher(pipeline as unknown as CallPipeline);
    const verification = new VerificationService(this.google.service);
    const inspection = new InspectionService(this.google.service, new QuotaLedger(this.store, this.clock, GOOGLE_QUOTA_LIMITS), this.clock);
    for (const instance of [
      new SitesTools(new SitesService(this.google.service, verification)),
      new SitemapsTools(new SitemapsService(this.google.service)),
      new VerificationTools(verification),
      new InspectionTools(inspection),
      new AnnotationsTools(new AnnotationsService(this.store, this.clock), this.trail),
    ]) {
      const prototype = Object.getPrototypeOf(instance) as Record<string, (args: unknown, call: unknown) => Promise<unknown>>;
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const spec =
          typeof prototype[name] === 'function' ? new Reflector().get<ToolSpec | undefined>(TOOL_METADATA, prototype[name]) : undefined;
        if (spec) {
          this.tools.set(spec.name, { spec, method: prototype[name].bind(instance) });
        }
      }
    }
  }

  /** One tools/call of a real tool, answered as the client would see it. */
  call(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult | InputRequiredResult> {
    const tool = this.tools.get(name);
    if (!tool) {
      throw new Error(`ToolCallKit has no tool ${name}`);
    }
    const caller = { principal: options.principal ?? 'local', groups: options.groups ?? [] };
    const registered: RegisteredTool = { spec: tool.spec, wire: undefined as never, instance: tool, method: 'method' };
    const access = resolvePolicy(this.config.policy, caller, {
      registered: [...this.tools.values()].map((t) => t.spec),
      allowedSites: this.config.allowedSites,
    });
    const capabilities = options.capabilities ?? FORM;
    const sdk = {
      mcpReq: {
        requestState: () => options.requestState,
        inputResponses: options.inputResponses,
        envelope: { [CLIENT_CAPABILITIES_META_KEY]: capabilities },
        signal: new AbortController().signal,
        _meta: {},
        notify: async () => undefined,
      },
      http: { authInfo: authInfoFor(caller, this.clock.seconds() + 3600) },
    } as unknown as ServerContext;
    const server = { server: { getClientCapabilities: () => capabilities } } as unknown as McpServer;
    return this.dispatcher.dispatch(registered, args, { era: options.era ?? 'modern', sdk, server, caller, access });
  }

  /** The audit events recorded so far, oldest first. */
  async events(): Promise<AuditEvent[]> {
    return (await this.trail.query({ limit: 100 })).entries.map((e) => e.event).reverse();
  }

  /** The (event, reason) pairs recorded so far, oldest first. */
  async reasons(): Promise<string[]> {
    return (await this.trail.query({ limit: 100 })).entries.map((e) => (e.reason ? `${e.event}:${e.reason}` : e.event)).reverse();
  }

  async dispose(): Promise<void> {
    await this.store.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The text of a result, whichever shape it has. */
export function textOf(result: CallToolResult | InputRequiredResult): string {
  return isInputRequiredResult(result) ? '' : result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
