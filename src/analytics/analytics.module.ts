import { Module } from '@nestjs/common';
import { GoogleModule } from '../google/google.module.js';
import { AnalyticsExports } from './analytics-export.service.js';
import { AnalyticsReports } from './analytics-reports.service.js';
import { AnalyticsService } from './analytics.service.js';
import { AnalyticsTools } from './analytics.tools.js';
import { ExportResources } from './export.resources.js';
import { PerformanceSeriesTools } from './performance-series.tools.js';

/** query_search_analytics, the daily series its view asks for, and the gsc://exports resources; exports live in the state store (StateModule is global). */
@Module({ imports: [GoogleModule], providers: [AnalyticsService, AnalyticsReports, AnalyticsExports, AnalyticsTools, PerformanceSeriesTools, ExportResources] })
export class AnalyticsModule {}
