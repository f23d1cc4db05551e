import { Module } from '@nestjs/common';
import { GoogleModule } from '../google/google.module.js';
import { AnalyticsService } from './analytics.service.js';
import { AnalyticsTools } from './analytics.tools.js';

@Module({ imports: [GoogleModule], providers: [AnalyticsService, AnalyticsTools] })
export class AnalyticsModule {}
