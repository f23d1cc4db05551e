import { Inject, Injectable } from '@nestjs/common';
import type { ConnectedGrant } from '../google/connected-accounts.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';

/** A grant as stored: what the server may show, plus the refresh token that must never leave this folder. */
export interface StoredGrant extends ConnectedGrant {
  readonly refreshToken: string;
}

/**
 * The principal's Google grants in the state store (PRODUCT.md §8d "Grants at rest").
 *
 * FOUNDATION STUB: plain JSON, one record per principal. Replaced by the
 * AES-256-GCM store (key id, principal and Google account as associated data,
 * rotation, tampered or moved records refused); the method signatures stay.
 */
@Injectable()
export class GrantStore {
  constructor(@Inject(STATE_STORE) private readonly store: StateStore) {}

  /** Every grant of the principal that opens, newest first. */
  async list(principal: string): Promise<StoredGrant[]> {
    const raw = await this.store.get(key(principal));
    return raw ? (JSON.parse(raw) as StoredGrant[]) : [];
  }

  /** Adds the grant, replacing one of the same Google account. */
  async save(grant: StoredGrant): Promise<void> {
    const others = (await this.list(grant.principal)).filter((g) => g.googleSub !== grant.googleSub);
    await this.store.put(key(grant.principal), JSON.stringify([grant, ...others]));
  }

  /** Removes one Google account's grant of the principal (revoked at Google, disconnected). */
  async remove(principal: string, googleSub: string): Promise<void> {
    const kept = (await this.list(principal)).filter((g) => g.googleSub !== googleSub);
    await (kept.length ? this.store.put(key(principal), JSON.stringify(kept)) : this.store.delete(key(principal)));
  }
}

function key(principal: string): string {
  return `grants:${principal}`;
}
