import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { GoogleModule } from '../google/google.module.js';
import { VerificationModule } from '../verification/verification.module.js';
import { SitesService } from './sites.service.js';
import { SitesTools } from './sites.tools.js';

@Module({ providers: [SitesService, SitesTools], exports: [SitesService] })
export class SitesModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(SitesModule, () => [GoogleModule.in(graph), VerificationModule.in(graph)]);
  }
}
