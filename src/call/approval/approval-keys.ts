import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { callerOf } from '../../identity/caller.js';
import { type StateStore, StateUnavailableError } from '../../state/state-store.js';
import type { Sealed } from './approval-flow.js';
import type { ApprovalSecrets } from './approval-secrets.service.js';
import { ApprovalTokens, TOKEN_TTL_SECONDS, type UsedNonces } from './approval-tokens.js';

/** What one secret seals and signs with. */
export type ApprovalKeys = { readonly id: string; readonly codec: RequestStateCodec<Sealed>; readonly tokens: ApprovalTokens };

/**
 * The state store could not be reached before anything was executed. Raised
 * only by the approval's own store steps (never by the tool), so the answer
 * "nothing was changed" is always true.
 */
export class StoreDown extends Error {
  constructor(unavailable: StateUnavailableError) {
    super(unavailable.message);
  }
}

/**
 * One of the approval's own store steps (loading the secret, spending a
 * nonce, redeeming a token): a store that does not answer becomes StoreDown.
 * A claim the store could not answer is not won (and the nonce may be burned).
 */
export async function storeStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof StateUnavailableError) {
      throw new StoreDown(error);
    }
    throw error;
  }
}

/**
 * The seal codec and token issuer of the secret the store keeps now, one
 * pair per secret id (a replaced secret gets its own; the old pair stays for
 * nothing but is cheap).
 */
export class ApprovalKeyring {
  private readonly keys = new Map<string, ApprovalKeys>();

  constructor(
    private readonly secrets: Pick<ApprovalSecrets, 'load'>,
    private readonly used: UsedNonces,
    private readonly store: Pick<StateStore, 'ping'>,
  ) {}

  /**
   * Before anything is asked or issued: the store must answer (a question whose
   * answer could not be spent would be wasted on the person), and the secret is
   * the one it keeps now.
   */
  async current(): Promise<ApprovalKeys> {
    const key = await storeStep(async () => {
      const loaded = await this.secrets.load();
      await this.store.ping();
      return loaded;
    });
    let keys = this.keys.get(key.id);
    if (!keys) {
      keys = {
        id: key.id,
        codec: createRequestStateCodec<Sealed>({ key: key.secret, ttlSeconds: TOKEN_TTL_SECONDS, bind: (ctx) => principalOf(ctx) }),
        tokens: new ApprovalTokens(key.secret, this.used),
      };
      this.keys.set(key.id, keys);
    }
    return keys;
  }
}

function principalOf(ctx: ServerContext): string {
  return callerOf(ctx.http?.authInfo).principal;
}
