import { Module } from '@nestjs/common';
import { GoogleModule } from '../google/google.module.js';
import { VerificationModule } from '../verification/verification.module.js';
import { SitesService } from './sites.service.js';
import { SitesTools } from './sites.tools.js';

@Module({ imports: [GoogleModule, VerificationModule], providers: [SitesService, SitesTools], exports: [SitesService] })
export class SitesModule {}
