import { Module } from '@nestjs/common';
import { GoogleModule } from '../google/google.module.js';
import { QuotaModule } from '../quota/quota.module.js';
import { IndexingRecord } from './indexing-record.service.js';
import { IndexingService } from './indexing.service.js';
import { IndexingTools } from './indexing.tools.js';

@Module({ imports: [GoogleModule, QuotaModule], providers: [IndexingRecord, IndexingService, IndexingTools] })
export class IndexingModule {}
