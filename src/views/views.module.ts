import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { ViewResources } from './views.resources.js';

/** The MCP Apps views (ui:// resources); the tools that link them and the app-only tools live in their domains. */
@Module({ providers: [ViewResources] })
export class ViewsModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(ViewsModule);
  }
}
