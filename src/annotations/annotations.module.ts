import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { McpModule } from '../mcp/mcp.module.js';
import { AnnotationsService } from './annotations.service.js';
import { AnnotationsTools } from './annotations.tools.js';
import { WindowAnnotations } from './window-annotations.js';

/**
 * add_annotation, list_annotations, delete_annotation over the state store (STATE_STORE, from
 * ModuleGraph.shared); exports the service for /admin/annotations and WindowAnnotations for
 * query_search_analytics. Imports McpModule for the audit trail (deletions are recorded).
 */
@Module({ providers: [AnnotationsService, AnnotationsTools, WindowAnnotations], exports: [AnnotationsService, WindowAnnotations] })
export class AnnotationsModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(AnnotationsModule, () => [McpModule.in(graph)]);
  }
}
