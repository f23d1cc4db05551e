import { Module } from '@nestjs/common';
import { GoogleModule } from '../google/google.module.js';
import { VerificationService } from './verification.service.js';
import { VerificationTools } from './verification.tools.js';

// Must not import the sites module: SitesModule imports this one (setup_site).
@Module({ imports: [GoogleModule], providers: [VerificationService, VerificationTools], exports: [VerificationService] })
export class VerificationModule {}
