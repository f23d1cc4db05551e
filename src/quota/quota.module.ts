import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { GOOGLE_QUOTA_LIMITS, QUOTA_LIMITS } from './quota-limits.js';
import { QuotaLedger } from './quota-ledger.service.js';
import { QuotaOverviewService } from './quota-overview.service.js';
import { QuotaResource } from './quota.resource.js';

/**
 * The quota ledger (PRODUCT §9a) over the state store (STATE_STORE, from
 * ModuleGraph.shared); the gsc://quota resource; the overview /admin/quota serves.
 */
@Module({
  providers: [{ provide: QUOTA_LIMITS, useValue: GOOGLE_QUOTA_LIMITS }, QuotaLedger, QuotaOverviewService, QuotaResource],
  exports: [QuotaLedger, QuotaOverviewService, QUOTA_LIMITS],
})
export class QuotaModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(QuotaModule);
  }
}
