import { Module } from '@nestjs/common';
import { OBSERVER } from '../common/observer.js';
import { MetricsService } from './metrics.service.js';

/**
 * The HTTP server puts it in ModuleGraph.shared, so that the dispatcher, GoogleService and
 * the audit trail can report to it; the stdio server has none (OBSERVER is optional).
 */
@Module({
  providers: [MetricsService, { provide: OBSERVER, useExisting: MetricsService }],
  exports: [OBSERVER, MetricsService],
})
export class MetricsModule {}
