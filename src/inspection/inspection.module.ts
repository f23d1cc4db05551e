import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { GoogleModule } from '../google/google.module.js';
import { QuotaModule } from '../quota/quota.module.js';
import { InspectionService } from './inspection.service.js';
import { InspectionTools } from './inspection.tools.js';

@Module({ providers: [InspectionService, InspectionTools] })
export class InspectionModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(InspectionModule, () => [GoogleModule.in(graph), QuotaModule.in(graph)]);
  }
}
