import {
  type DynamicModule,
  Inject,
  Injectable,
  type InjectionToken,
  Module,
  type ModuleMetadata,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { createStateStore } from './create-state-store.js';
import { migrateLegacyKeys } from './key-migration.js';
import type { StateConfig } from '../config/server-settings.js';
import { type StateStore, StateUnavailableError } from './state-store.js';

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

/** Retried this often while the store cannot be reached at start-up. */
const MIGRATION_RETRY_MS = 30_000;

/**
 * Copies records from their names before the key table once per store
 * (key-migration.ts), before the application serves. A store that cannot be
 * reached at start-up does not stop it (nothing guarded runs anyway, and
 * /admin/ready says why): the copy is retried in the background until it ran.
 */
@Injectable()
class StateKeyMigration implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('StateStore');
  private retry?: NodeJS.Timeout;

  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      const outcome = await migrateLegacyKeys(this.store);
      if (outcome.by === 'this process' && outcome.grants + outcome.annotations + outcome.auditEntries > 0) {
        this.logger.log(
          `copied records to the versioned key names: ${outcome.grants} grants, ${outcome.annotations} annotations, ${outcome.auditEntries} audit entries`,
        );
      }
    } catch (error) {
      if (!(error instanceof StateUnavailableError)) {
        throw error;
      }
      this.logger.warn(`records from before the versioned key names are not copied yet (retrying every 30 s): ${error.message}`);
      this.retry = setTimeout(() => void this.onApplicationBootstrap(), MIGRATION_RETRY_MS).unref();
    }
  }

  onApplicationShutdown(): void {
    clearTimeout(this.retry);
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
        StateKeyMigration,
      ],
      exports: [STATE_STORE],
    };
  }
}
