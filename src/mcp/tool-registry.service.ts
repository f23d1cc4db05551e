import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, ExternalContextCreator, MetadataScanner, Reflector } from '@nestjs/core';
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { GoogleAuthService } from '../auth/google-auth.service.js';
import { CONFIG, type Config } from '../config/config.js';
import type { ApprovalPlan } from './approval/approval-plan.js';
import { GUARDED_OUTPUT } from './approval/guarded-output.js';
import type { ToolCall } from './tool-call.js';
import { Tool, ToolProvider, type ToolSpec } from './tool.decorator.js';
import { selectTools, type ToolSelection } from './tool-selection.js';
import { wireSchema } from './wire-schema.js';

export interface RegisteredTool {
  /** The declaration as served: site_url optional when GSC_SITE_URL is set, guarded fields added to destructive outputs. */
  readonly spec: ToolSpec;
  /** Input and output schemas as served to clients (see wire-schema.ts). */
  readonly wire: { readonly input: StandardSchemaWithJSON; readonly output: StandardSchemaWithJSON };
  /** The method behind Nest's guard → interceptor pipeline. */
  readonly invoke: (args: Record<string, unknown>, call: ToolCall) => Promise<unknown>;
  /** Destructive tools: describes what a call will do, for the approval dialog. */
  readonly describeApproval?: (args: Record<string, unknown>, call: ToolCall) => Promise<ApprovalPlan>;
}

/**
 * Finds every @Tool method on @ToolProvider classes at bootstrap, applies the
 * tool filters, and wraps each method with ExternalContextCreator so that Nest
 * guards and interceptors run around every call, over stdio and HTTP alike.
 */
@Injectable()
export class ToolRegistry implements OnApplicationBootstrap {
  private readonly logger = new Logger('ToolRegistry');
  private served: RegisteredTool[] = [];
  private selection?: ToolSelection;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly contexts: ExternalContextCreator,
    private readonly auth: GoogleAuthService,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  onApplicationBootstrap(): void {
    const declared = this.discover();
    this.selection = selectTools([...declared.keys()], this.config);
    this.served = this.selection.registered.map((spec) => declared.get(spec)!);
    this.auth.useScopes(this.selection.scopes);
    this.logger.log(`${this.served.length} tools registered; scopes: ${this.selection.scopes.join(' ') || 'none'}`);
  }

  get tools(): readonly RegisteredTool[] {
    return this.served;
  }

  get excluded(): ToolSelection['excluded'] {
    return this.selection?.excluded ?? [];
  }

  get scopes(): readonly string[] {
    return this.selection?.scopes ?? [];
  }

  private discover(): Map<ToolSpec, RegisteredTool> {
    const found = new Map<ToolSpec, RegisteredTool>();
    const names = new Set<string>();
    for (const wrapper of this.discovery.getProviders({ metadataKey: ToolProvider.KEY })) {
      const instance = wrapper.instance as Record<string, (...args: unknown[]) => unknown> | undefined;
      if (!instance || !wrapper.isDependencyTreeStatic()) continue;
      const prototype = Object.getPrototypeOf(instance);
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const declared = this.reflector.get(Tool, prototype[method]);
        if (!declared) continue;
        if (names.has(declared.name)) throw new Error(`Duplicate MCP tool name ${declared.name}`);
        names.add(declared.name);
        const spec = this.serve(declared);
        const invoke = this.contexts.create(instance, prototype[method], method, undefined, undefined, undefined, undefined, {
          guards: true,
          interceptors: true,
          filters: false,
        }, 'mcp');
        const describeApproval = spec.approval ? this.approvalDescriber(instance, spec) : undefined;
        found.set(spec, { spec, wire: { input: wireSchema(spec.input), output: wireSchema(spec.output) }, invoke, describeApproval });
      }
    }
    return found;
  }

  private serve(declared: ToolSpec): ToolSpec {
    let spec = declared;
    if (spec.access === 'destructive') {
      if (!spec.approval) throw new Error(`Destructive tool ${spec.name} declares no approval describer`);
      spec = { ...spec, output: spec.output.partial().extend(GUARDED_OUTPUT.shape) };
    }
    const siteArg = spec.input.shape.site_url as z.ZodType | undefined;
    if (siteArg && this.config.siteUrl && !spec.newProperty) {
      const described = siteArg.optional().describe(`${siteArg.description ?? 'Search Console property'} Defaults to ${this.config.siteUrl}.`);
      spec = { ...spec, input: spec.input.extend({ site_url: described }) };
    }
    return spec;
  }

  private approvalDescriber(instance: Record<string, (...args: unknown[]) => unknown>, spec: ToolSpec) {
    const describe = instance[spec.approval!];
    if (typeof describe !== 'function') throw new Error(`Tool ${spec.name}: approval describer ${spec.approval} is not a method`);
    return (args: Record<string, unknown>, call: ToolCall) => describe.call(instance, args, call) as Promise<ApprovalPlan>;
  }
}
