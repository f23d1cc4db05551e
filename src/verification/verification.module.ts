import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { GoogleModule } from '../google/google.module.js';
import { VerificationService } from './verification.service.js';
import { VerificationTools } from './verification.tools.js';

// Must not import the sites module: SitesModule imports this one (setup_site).
@Module({ providers: [VerificationService, VerificationTools], exports: [VerificationService] })
export class VerificationModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(VerificationModule, () => [GoogleModule.in(graph)]);
  }
}
