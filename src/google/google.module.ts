import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { GoogleAuthModule } from './google-auth.module.js';
import { GoogleService } from './google.service.js';

@Module({ providers: [GoogleService], exports: [GoogleService] })
export class GoogleModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(GoogleModule, () => [GoogleAuthModule.in(graph)]);
  }
}
