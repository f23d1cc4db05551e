import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type * as z from 'zod';
import { GoogleAuthService } from '../google/google-auth.service.js';
import { checkPolicyTools } from '../policy/policy-checks.js';
import { CONFIG, type Config } from '../config/config.js';
import { assertAppVisibility } from './app-visibility.js';
import { withAppOnly } from '../policy/tool-declaration.js';
import { GUARDED_OUTPUT } from './guarded-output.js';
import { ActingAccountOut, ConfirmTokenArg, GoogleAccountArg, ResolvedPropertyOut } from './tool-args.js';
import { TARGET_ARGS, type TargetKind } from './call-scope.js';
import type { RegisteredTool } from './registered-tool.js';
import { TOOL_METADATA, ToolProvider } from './tool.decorator.js';
import type { ToolSpec } from './tool-spec.js';
import { selectTools, type ToolSelection } from '../policy/tool-selection.js';
import { wireSchema } from './wire-schema.js';

/**
 * Finds every @Tool method on @ToolProvider classes at bootstrap, applies the
 * tool filters, and serves each declaration with what every tool of its kind
 * shares. Running a tool is call/pipeline.ts's: its steps, in order, then the method.
 */
@Injectable()
export class ToolRegistry implements OnApplicationBootstrap {
  private readonly logger = new Logger('ToolRegistry');
  private served: RegisteredTool[] = [];
  private selection?: ToolSelection<ToolSpec>;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly auth: GoogleAuthService,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  onApplicationBootstrap(): void {
    const declared = this.discover();
    // Filters and policy rules name the model's tools; a view's app-only tool follows the tool whose view calls it.
    const specs = [...declared.keys()];
    const modelTools = specs.filter((spec) => !spec.appOnlyFor);
    for (const spec of specs) {
      if (spec.appOnlyFor && !modelTools.some((t) => t.name === spec.appOnlyFor && t.view)) {
        throw new Error(`App-only tool ${spec.name} names ${spec.appOnlyFor}, which has no view`);
      }
    }
    this.selection = selectTools(modelTools, this.config);
    if (this.config.policy) {
      checkPolicyTools(this.config.policy, modelTools, { readOnly: this.config.readOnly });
    }
    const selected = withAppOnly(new Set(this.selection.registered.map((spec) => spec.name)), specs);
    this.served = specs
      .filter((spec) => selected.has(spec.name))
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((spec) => declared.get(spec)!);
    this.auth.useScopes(this.selection.scopes);
    this.logger.log(
      `${this.served.length} tools registered (${this.served.filter((t) => t.spec.appOnlyFor).length} app-only); scopes: ${this.selection.scopes.join(' ') || 'none'}`,
    );
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
      if (!instance || !wrapper.isDependencyTreeStatic()) {
        continue;
      }
      const prototype = Object.getPrototypeOf(instance) as Record<string, (...args: unknown[]) => unknown>;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const declared = this.reflector.get<ToolSpec | undefined>(TOOL_METADATA, prototype[method]);
        if (!declared) {
          continue;
        }
        if (names.has(declared.name)) {
          throw new Error(`Duplicate MCP tool name ${declared.name}`);
        }
        names.add(declared.name);
        if (declared.connectedOnly && !this.config.connected) {
          continue;
        }
        assertAppVisibility(declared);
        const { spec, defaultSite } = this.serve(declared);
        found.set(spec, {
          spec,
          wire: { input: wireSchema(spec.input), output: wireSchema(spec.output) },
          instance,
          method,
          ...(defaultSite ? { defaultSite } : {}),
          ...(this.config.connected ? { connected: true as const } : {}),
        });
      }
    }
    return found;
  }

  /** The declaration as clients see it; what every tool of a kind shares is added here, not written in each tool. */
  private serve(declared: ToolSpec): { spec: ToolSpec; defaultSite?: string } {
    checkTarget(declared);
    let spec = declared;
    if (spec.access === 'destructive') {
      if (!spec.approval) {
        throw new Error(`Destructive tool ${spec.name} declares no approval describer`);
      }
      spec = {
        ...spec,
        input: spec.input.extend({ confirm_token: ConfirmTokenArg }),
        output: spec.output.partial().extend(GUARDED_OUTPUT.shape),
      };
    }
    if (this.config.connected) {
      // Several Google accounts per person: a tool that takes a property, page or resource may name the account; the default listing is untouched.
      // A tool over this server's own store (annotations) acts as no Google account.
      if ((spec.target ?? []).length > 0 && !spec.closedWorld) {
        // Its answer names the account it acted as and the property it resolved to (PRODUCT.md §8d), for a page-URL tool too.
        const acted = { google_account: ActingAccountOut, ...('site_url' in spec.output.shape ? {} : { site_url: ResolvedPropertyOut }) };
        spec = { ...spec, input: spec.input.extend({ google_account: GoogleAccountArg }), output: spec.output.extend(acted) };
      }
      if (spec.connectedOutput) {
        spec = { ...spec, output: spec.connectedOutput };
      }
    }
    const siteArg = spec.input.shape.site_url as z.ZodType | undefined;
    if (siteArg && this.config.siteUrl && !spec.newProperty) {
      const described = siteArg
        .optional()
        .describe(`${siteArg.description ?? 'Search Console property'} Defaults to ${this.config.siteUrl}.`);
      spec = { ...spec, input: spec.input.extend({ site_url: described }) };
      return { spec, defaultSite: this.config.siteUrl };
    }
    return { spec };
  }
}

const TARGET_MEANS: Record<TargetKind, string> = {
  site: 'a Search Console property',
  page: 'a page URL',
  pages: 'a list of page URLs',
  resource: 'the id of a Site Verification resource (which it fetches)',
  annotation: 'the id of an annotation (which names its property)',
};

/**
 * The guard acts on a tool's declared target, never on an argument's name
 * alone; but the reserved names must not mean something else either, or an
 * argument called `id` would go unchecked where a reader expects the guard.
 * So a tool with a reserved argument declares one kind of it (`id` is either
 * a Site Verification resource or an annotation), and a declared kind has
 * its argument: otherwise start-up stops, naming the tool.
 */
export function checkTarget(spec: Pick<ToolSpec, 'name' | 'input' | 'target'>): void {
  const declared = new Set<TargetKind>(spec.target ?? []);
  const kindsOf = new Map<string, TargetKind[]>();
  for (const [kind, arg] of Object.entries(TARGET_ARGS) as [TargetKind, string][]) {
    kindsOf.set(arg, [...(kindsOf.get(arg) ?? []), kind]);
  }
  for (const [arg, kinds] of kindsOf) {
    const has = arg in spec.input.shape;
    const chosen = kinds.filter((kind) => declared.has(kind));
    if (has && chosen.length === 0) {
      throw new Error(
        `Tool ${spec.name} has the argument "${arg}" but does not declare target ${kinds.map((k) => `'${k}'`).join(' or ')}: SiteAccessGuard reserves "${arg}" for ${kinds.map((k) => TARGET_MEANS[k]).join(' or ')}. Add ${kinds.length > 1 ? 'one of them' : `'${kinds[0]}'`} to the target of its @Tool, or rename the argument.`,
      );
    }
    if (chosen.length > 1) {
      throw new Error(`Tool ${spec.name} declares targets ${chosen.map((k) => `'${k}'`).join(' and ')}, but its "${arg}" is one of them.`);
    }
    for (const kind of chosen) {
      if (!has) {
        throw new Error(`Tool ${spec.name} declares target '${kind}' but has no "${arg}" argument for it.`);
      }
    }
  }
}
