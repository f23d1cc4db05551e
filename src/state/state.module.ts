import {
  type DynamicModule,
  Inject,
  Injectable,
  type InjectionToken,
  Module,
  type ModuleMetadata,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { createStateStore } from './create-state-store.js';
import type { StateConfig } from '../config/server-settings.js';
import type { StateStore } from './state-store.js';

/** Injection token of the process's one StateStore. */
export const STATE_STORE = Symbol('STATE_STORE');
const OWNS_STORE = Symbol('OWNS_STORE');
const SOURCE = Symbol('STATE_STORE_SOURCE');

type Source = StateConfig | { readonly store: StateStore };

export interface StateModuleAsyncOptions {
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: InjectionToken[];
  /** Names the store once its inputs are known, e.g. `(config: Config) => config.state` with `inject: [CONFIG]`. */
  readonly useFactory: (...args: never[]) => Source | Promise<Source>;
}

/** Closes the store this module created when the application shuts down (Redis connection quit, SQLite handle closed). */
@Injectable()
class StateStoreCloser implements OnApplicationShutdown {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(OWNS_STORE) private readonly owns: boolean,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.owns) {
      await this.store.close();
    }
  }
}

/**
 * Provides STATE_STORE to the modules that import it (ModuleGraph.shared; not
 * @Global, so a host app's modules never see it): a store built from `config.state`, or
 * one the caller made (a test, an embedding app), which the caller then closes.
 */
@Module({})
export class StateModule {
  static forRoot(source: Source): DynamicModule {
    return StateModule.forRootAsync({ useFactory: () => source });
  }

  /** The same, from a factory: for configurations resolved by another provider (an embedding app's forRootAsync). */
  static forRootAsync(options: StateModuleAsyncOptions): DynamicModule {
    return {
      module: StateModule,
      imports: options.imports ?? [],
      providers: [
        { provide: SOURCE, useFactory: options.useFactory, inject: options.inject ?? [] },
        {
          provide: STATE_STORE,
          useFactory: (source: Source) => ('store' in source ? source.store : createStateStore(source)),
          inject: [SOURCE],
        },
        { provide: OWNS_STORE, useFactory: (source: Source) => !('store' in source), inject: [SOURCE] },
        StateStoreCloser,
      ],
      exports: [STATE_STORE],
    };
  }
}
