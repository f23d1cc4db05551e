import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { GoogleModule } from '../google/google.module.js';
import { SitemapsService } from './sitemaps.service.js';
import { SitemapsTools } from './sitemaps.tools.js';

@Module({ providers: [SitemapsService, SitemapsTools] })
export class SitemapsModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(SitemapsModule, () => [GoogleModule.in(graph)]);
  }
}
