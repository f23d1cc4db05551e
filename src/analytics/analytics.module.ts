import { type DynamicModule, Module } from '@nestjs/common';
import { AnnotationsModule } from '../annotations/annotations.module.js';
import type { ModuleGraph } from '../common/module-graph.js';
import { GoogleModule } from '../google/google.module.js';
import { AnalyticsExports } from './analytics-export.service.js';
import { AnalyticsReports } from './analytics-reports.service.js';
import { AnalyticsService } from './analytics.service.js';
import { AnalyticsTools } from './analytics.tools.js';
import { ExportResources } from './export.resources.js';
import { PerformanceSeriesTools } from './performance-series.tools.js';
import { KnownAnomalies } from './known-anomalies.js';

/** query_search_analytics, the daily series its view asks for, and the gsc://exports resources; exports live in the state store (STATE_STORE, from ModuleGraph.shared). */
@Module({
  providers: [
    KnownAnomalies,
    AnalyticsService,
    AnalyticsReports,
    AnalyticsExports,
    AnalyticsTools,
    PerformanceSeriesTools,
    ExportResources,
  ],
})
export class AnalyticsModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(AnalyticsModule, () => [GoogleModule.in(graph), AnnotationsModule.in(graph)]);
  }
}
