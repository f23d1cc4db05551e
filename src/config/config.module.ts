import { type DynamicModule, Global, Module } from '@nestjs/common';
import { CONFIG, type Config } from './config.js';

/** Provides the frozen configuration, parsed before Nest booted, to every module. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: Config): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: CONFIG, useValue: config }], exports: [CONFIG] };
  }
}
