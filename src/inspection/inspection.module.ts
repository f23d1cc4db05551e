import { Module } from '@nestjs/common';
import { GoogleModule } from '../google/google.module.js';
import { QuotaModule } from '../quota/quota.module.js';
import { InspectionService } from './inspection.service.js';
import { InspectionTools } from './inspection.tools.js';

@Module({ imports: [GoogleModule, QuotaModule], providers: [InspectionService, InspectionTools] })
export class InspectionModule {}
