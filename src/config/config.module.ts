import { type DynamicModule, Global, Module } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { CONFIG, type Config } from './config.js';

/** Provides the frozen configuration, parsed before Nest booted, and the clock to every module. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: Config): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: CONFIG, useValue: config }, Clock], exports: [CONFIG, Clock] };
  }
}
