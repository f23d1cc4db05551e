import { type DynamicModule, Module } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import type { SearchConsoleMcpAsyncOptions, SearchConsoleMcpOptions } from './search-console-mcp.options.js';
import { CONFIG, type Config, loadSettings } from './config.js';
import { refuseFixturesInModule } from './conformance-fixtures.js';

/** The embedded module's options as the host's factory produced them. */
export const MODULE_OPTIONS = Symbol('MODULE_OPTIONS');

/**
 * Provides the frozen configuration and the clock, to the modules that import
 * it (through ModuleGraph.shared, never @Global: a host app's modules do not see them). The
 * standalone server parsed its configuration before Nest booted; inside a
 * company's app it comes from the module's `settings`, validated by the same
 * rules when the module initialises (a ConfigError names the setting).
 */
@Module({})
export class ConfigModule {
  static forRoot(config: Config): DynamicModule {
    return { module: ConfigModule, providers: [{ provide: CONFIG, useValue: config }, Clock], exports: [CONFIG, Clock] };
  }

  static forRootAsync(options: SearchConsoleMcpAsyncOptions): DynamicModule {
    return {
      module: ConfigModule,
      imports: [...(options.imports ?? [])],
      providers: [
        { provide: MODULE_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] },
        { provide: CONFIG, useFactory: (module: SearchConsoleMcpOptions) => configOf(module), inject: [MODULE_OPTIONS] },
        Clock,
      ],
      exports: [CONFIG, MODULE_OPTIONS, Clock],
    };
  }
}

function configOf(options: SearchConsoleMcpOptions): Config {
  // The host app listens; GSC_TRANSPORT and the bind address are the standalone server's concern.
  const config = loadSettings({ ...(options.settings ?? {}) }, { forceHttp: true, policy: options.policy });
  refuseFixturesInModule(config.conformanceFixtures);
  return config;
}
