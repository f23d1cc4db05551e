import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { GoogleModule } from '../google/google.module.js';
import { QuotaModule } from '../quota/quota.module.js';
import { IndexingRecord } from './indexing-record.service.js';
import { IndexingService } from './indexing.service.js';
import { IndexingTools } from './indexing.tools.js';

@Module({ providers: [IndexingRecord, IndexingService, IndexingTools] })
export class IndexingModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(IndexingModule, () => [GoogleModule.in(graph), QuotaModule.in(graph)]);
  }
}
