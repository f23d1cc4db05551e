import { Module } from '@nestjs/common';
import { GoogleModule } from '../google/google.module.js';
import { IndexingService } from './indexing.service.js';
import { IndexingTools } from './indexing.tools.js';

@Module({ imports: [GoogleModule], providers: [IndexingService, IndexingTools] })
export class IndexingModule {}
