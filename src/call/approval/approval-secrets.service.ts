import { Inject, Injectable, Logger } from '@nestjs/common';
import { ConfigError } from '../../config/config-error.js';
import { CONFIG, type Config } from '../../config/config.js';
import { loadOrCreateApprovalSecret } from '../../state/approval-secret.js';
import { STATE_STORE } from '../../state/state.module.js';
import { type StateStore, StateUnavailableError } from '../../state/state-store.js';
import { approvalSecretId } from './approval-tokens.js';

/** The secret that seals dialogs and signs confirm tokens, with its public id. */
export interface ApprovalKey {
  readonly secret: string;
  /** approvalSecretId(secret): shown in the start-up line and carried by tokens and seals. */
  readonly id: string;
}

/**
 * One approval secret per store, not per process (PRODUCT.md §8c). With
 * GSC_APPROVAL_SECRET that value is used as it is. Without it the state store
 * keeps one (a 0600 file beside the SQLite database, or a Redis key), which
 * restarts, sibling processes and one-process-per-request gateways share.
 *
 * It is resolved at boot; a store that cannot be reached then does not stop
 * the server (read tools need no secret): guarded calls try again, and refuse
 * while it stays unreachable. Every guarded call re-reads what the store keeps,
 * offering this process's secret for it, so a store that lost it (Redis
 * restarted empty) is re-seeded with the one already in use rather than
 * diverging from it.
 */
@Injectable()
export class ApprovalSecrets {
  private readonly logger = new Logger('ApprovalSecret');
  private current?: ApprovalKey;
  private where = '';
  private bootFailure?: string;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(STATE_STORE) private readonly store: StateStore,
  ) {}

  /** Loads the secret at boot. Only "store unreachable" is tolerated; a kept secret that is unusable stops start-up in one line. */
  async boot(): Promise<void> {
    try {
      await this.load();
    } catch (error) {
      if (error instanceof StateUnavailableError) {
        this.bootFailure = error.message;
        this.logger.warn(`approval secret not loaded: ${error.message}; guarded tools refuse until it can be read`);
        return;
      }
      throw new ConfigError((error as Error).message);
    }
  }

  /** The secret to use now; throws StateUnavailableError when the store that keeps it cannot be reached. */
  async load(): Promise<ApprovalKey> {
    const { approval } = this.config;
    if (approval.secretSource === 'GSC_APPROVAL_SECRET') {
      if (!this.current) {
        this.current = { secret: approval.secret, id: approvalSecretId(approval.secret) };
        this.where = 'from GSC_APPROVAL_SECRET';
      }
      return this.current;
    }
    const kept = await loadOrCreateApprovalSecret(this.store, { prefer: this.current?.secret });
    if (kept.secret !== this.current?.secret) {
      const next = { secret: kept.secret, id: approvalSecretId(kept.secret) };
      if (this.current) {
        this.logger.warn(
          `the approval secret kept in ${kept.location} is now ${next.id} (was ${this.current.id}); tokens and dialogs issued under ${this.current.id} are refused`,
        );
      }
      this.current = next;
      this.where = `${kept.created ? 'created in' : 'kept in'} ${kept.location}`;
    }
    this.bootFailure = undefined;
    return this.current;
  }

  /** For the start-up line: the id and where it came from, never the value. */
  describe(): string {
    if (this.current) {
      return `approval secret ${this.current.id} ${this.where}`;
    }
    return `approval secret not loaded yet (${this.bootFailure ?? 'not read'})`;
  }
}

/** Nest provider: ApprovalSecrets, resolved (secret loaded or its absence logged) before the application starts. */
export const APPROVAL_SECRETS_PROVIDER = {
  provide: ApprovalSecrets,
  useFactory: async (config: Config, store: StateStore): Promise<ApprovalSecrets> => {
    const secrets = new ApprovalSecrets(config, store);
    await secrets.boot();
    return secrets;
  },
  inject: [CONFIG, STATE_STORE],
};
