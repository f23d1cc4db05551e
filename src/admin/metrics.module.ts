import { Global, Module } from '@nestjs/common';
import { OBSERVER } from '../common/observer.js';
import { MetricsService } from './metrics.service.js';

/** Global so that the dispatcher, GoogleService and the audit trail can report to it when it exists. */
@Global()
@Module({
  providers: [MetricsService, { provide: OBSERVER, useExisting: MetricsService }],
  exports: [OBSERVER, MetricsService],
})
export class MetricsModule {}
