import { type DynamicModule, Module } from '@nestjs/common';
import type { ModuleGraph } from '../common/module-graph.js';
import { GoogleAuthService } from './google-auth.service.js';

@Module({ providers: [GoogleAuthService], exports: [GoogleAuthService] })
export class GoogleAuthModule {
  static in(graph: ModuleGraph): DynamicModule {
    return graph.module(GoogleAuthModule);
  }
}
