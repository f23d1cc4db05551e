import { Module } from '@nestjs/common';
import { GoogleModule } from '../google/google.module.js';
import { SitemapsService } from './sitemaps.service.js';
import { SitemapsTools } from './sitemaps.tools.js';

@Module({ imports: [GoogleModule], providers: [SitemapsService, SitemapsTools] })
export class SitemapsModule {}
