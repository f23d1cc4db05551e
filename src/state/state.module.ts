import { type DynamicModule, Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { CONFIG, type Config } from '../config/config.js';
import { createStateStore } from './create-state-store.js';
import type { StateStore, StateStoreOptions } from './state-store.js';

/** Injection token of the process's one StateStore. */
export const STATE_STORE = Symbol('STATE_STORE');
const OWNS_STORE = Symbol('OWNS_STORE');

/** Closes the store this module created when the application shuts down (Redis connection quit, SQLite handle closed). */
@Injectable()
class StateStoreCloser implements OnApplicationShutdown {
  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(OWNS_STORE) private readonly owns: boolean,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    if (this.owns) await this.store.close();
  }
}

/**
 * Provides STATE_STORE to every module: a store built from `config.state`, or
 * one the caller made (a test, an embedding app), which the caller then closes.
 */
@Global()
@Module({})
export class StateModule {
  static forRoot(source: StateStoreOptions | { readonly store: StateStore }): DynamicModule {
    const given = 'store' in source;
    return {
      module: StateModule,
      providers: [
        { provide: STATE_STORE, useFactory: () => (given ? source.store : createStateStore(source)) },
        { provide: OWNS_STORE, useValue: !given },
        StateStoreCloser,
      ],
      exports: [STATE_STORE],
    };
  }

  /** The store the configuration (CONFIG) names, once it is known: for a host app whose settings come from an async factory. */
  static forConfig(): DynamicModule {
    return {
      module: StateModule,
      providers: [
        { provide: STATE_STORE, useFactory: (config: Config) => createStateStore(config.state), inject: [CONFIG] },
        { provide: OWNS_STORE, useValue: true },
        StateStoreCloser,
      ],
      exports: [STATE_STORE],
    };
  }
}
