import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { McpModule } from '../mcp/mcp.module.js';
import { ConformanceContentTools } from './conformance-content.tools.js';
import { ConformanceFeature } from './conformance.feature.js';
import { ConformanceInputTools } from './conformance-input.tools.js';
import { ConformanceResources } from './conformance.resources.js';

/**
 * The official MCP conformance suite's fixtures (GSC_CONFORMANCE_FIXTURES=true,
 * emulator only; `npm run conformance`): the tools, resources and prompts its
 * server scenarios call by name. The tools and resources are declarations like
 * ours, so the suite measures our catalog, dispatcher and transports; the
 * module is imported (and its code loaded) only when the setting is on.
 */
@Module({ providers: [ConformanceContentTools, ConformanceInputTools, ConformanceResources, ConformanceFeature] })
export class ConformanceModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(ConformanceModule, () => [McpModule.in(graph)]);
  }
}
