import type { ConnectedGrant } from '../google/connected-accounts.js';
import { legacyStateKey, stateKey } from '../state/keys.js';
import type { StateStore } from '../state/state-store.js';

/** How long the account a property's calls acted as is remembered after it was last set. */
export const ACCOUNT_MEMORY_TTL_MS = 180 * 24 * 60 * 60_000;

/** The account calls for one property (or pages of one host) acted as last. */
export interface UsedAccount {
  readonly sub: string;
  readonly email: string;
}

/**
 * What "the account a call would have used" means (PRODUCT.md §8d "Never the
 * wrong account, never silently"): per principal, the Google account the last
 * call for a property acted as — `p:<property>` — and, for a page-URL tool,
 * the last one for pages of that host — `h:<host>`. When that account is no
 * longer among the principal's usable grants (disconnected, revoked) and
 * another would resolve now, the call asks instead of switching; the answer
 * (or a google_account argument) becomes the remembered one. In the state
 * store, so every replica and a restarted process see it.
 */
export class AccountMemory {
  constructor(private readonly store: Pick<StateStore, 'get' | 'put'>) {}

  /** The first remembered account among `keys`, in order. */
  async recall(principal: string, keys: readonly string[]): Promise<UsedAccount | undefined> {
    for (const key of keys) {
      const raw = (await this.store.get(storeKey(principal, key))) ?? (await this.fromLegacy(principal, key));
      if (raw === undefined) {
        continue;
      }
      try {
        const used = JSON.parse(raw) as UsedAccount;
        if (typeof used.sub === 'string' && typeof used.email === 'string') {
          return used;
        }
      } catch {
        // A damaged entry remembers nothing.
      }
    }
    return undefined;
  }

  /** A memory kept under its name from before the key table (keys.ts), read once and kept under the new one. */
  private async fromLegacy(principal: string, key: string): Promise<string | undefined> {
    const raw = await this.store.get(legacyStateKey('accountChoice', encodeURIComponent(principal), key));
    if (raw !== undefined) {
      await this.store.put(storeKey(principal, key), raw, ACCOUNT_MEMORY_TTL_MS);
    }
    return raw;
  }

  /** Remembers the account for each key; a key that already names it is left as it is (a read, not a write, on every call). */
  async remember(grant: ConnectedGrant, keys: readonly string[]): Promise<void> {
    const value = JSON.stringify({ sub: grant.googleSub, email: grant.googleEmail } satisfies UsedAccount);
    await Promise.all(
      keys.map(async (key) => {
        const stored = storeKey(grant.principal, key);
        if ((await this.store.get(stored)) !== value) {
          await this.store.put(stored, value, ACCOUNT_MEMORY_TTL_MS);
        }
      }),
    );
  }
}

/** The memory key of a property. */
export const propertyKey = (property: string): string => `p:${property}`;

/** The memory key of the pages of one host (page-URL tools). */
export const hostKey = (host: string): string => `h:${host}`;

function storeKey(principal: string, key: string): string {
  return stateKey('accountChoice', encodeURIComponent(principal), key);
}
