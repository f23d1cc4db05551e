import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { CONFIG, type Config } from '../config/config.js';
import type { ConnectedGrant } from '../google/connected-accounts.js';
import { STATE_STORE } from '../state/state.module.js';
import type { StateStore } from '../state/state-store.js';
import { open, seal } from './grant-crypto.js';
import { type GrantKeys, loadGrantKeys } from './grant-keys.js';
import { stateKey, stateName } from '../state/keys.js';

/** A grant as stored: what the server may show, plus the refresh token that must never leave this folder. */
export interface StoredGrant extends ConnectedGrant {
  readonly refreshToken: string;
}

/** A grant Google ended (invalid_grant): kept without its refresh token so the next call can say "connect again" rather than "connect". */
export interface RevokedGrant extends ConnectedGrant {
  readonly revokedAt: string;
}

/** A record that does not open: tampered, moved, or sealed with a key no longer configured. */
export interface UnreadableGrant {
  readonly googleSub: string;
  readonly reason: string;
}

export interface PrincipalGrants {
  /** Newest first. */
  readonly usable: StoredGrant[];
  readonly revoked: RevokedGrant[];
  readonly unreadable: UnreadableGrant[];
}

/** One account's record, sorted by what it is. */
export type GrantRecord =
  | { readonly kind: 'usable'; readonly grant: StoredGrant }
  | { readonly kind: 'revoked'; readonly grant: RevokedGrant }
  | { readonly kind: 'unreadable'; readonly reason: string };

/**
 * What a compare-and-set on a grant's refresh token did: `swapped`; `replaced` when the record holds
 * another refresh token (reconnected or rotated meanwhile: that one is given); `gone` when there is no
 * usable record (disconnected, revoked, unreadable).
 */
export type GrantSwap =
  { readonly kind: 'swapped' } | { readonly kind: 'replaced'; readonly refreshToken: string } | { readonly kind: 'gone' };

/** Compare-and-set attempts on one grant record before giving up (each lost one means the record changed meanwhile). */
const SWAP_ATTEMPTS = 5;

/** What is sealed: everything but the slot (principal, account), which the associated data binds instead. */
interface Sealed {
  readonly googleEmail: string;
  readonly scopes: readonly string[];
  readonly connectedAt: string;
  readonly refreshToken?: string;
  readonly revokedAt?: string;
}

/** Distinct accounts a principal's index remembers; far above what a person connects. */
const INDEX_MAX = 64;
/** A grant's last use is written at most this often per grant and process (a Google call is not a store write). */
export const LAST_USE_EVERY_MS = 60_000;
/** Last-use times remembered by this process for throttling; the oldest are forgotten first. */
const LAST_USE_SLOTS_MAX = 4096;

/**
 * The principals' Google grants in the state store (PRODUCT.md §8d "Grants at
 * rest"), AES-256-GCM (grant-crypto.ts).
 *
 * One record per (principal, Google account) under `grant:v1:<principal>:<sub>`,
 * plus an append-only index stream of the principal's account ids. Why not one
 * record per principal holding every account: the store has no transactions,
 * and a read-modify-write of a shared record loses one of two accounts saved at
 * once (a person connecting work and personal in two tabs), or a refresh's
 * rotation racing a disconnect. Here each save writes only its own record and
 * appends to the index atomically; an index entry whose record is gone is
 * simply skipped. Saving the same account again replaces its record.
 */
@Injectable()
export class GrantStore implements OnModuleInit {
  private readonly logger = new Logger('Grants');
  private keysLoaded?: Promise<GrantKeys>;
  private keySource?: string;
  /** Unreadable records already reported by this process: one line each, not one per call. */
  private readonly reported = new Set<string>();
  /** When this process last wrote each grant's last use (ms). */
  private readonly usedWritten = new Map<string, number>();

  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  /** Loads (or creates) the grant key at boot, so the start-up line can say where it is. */
  async onModuleInit(): Promise<void> {
    if (this.config.connected) {
      await this.keys();
    }
  }

  /** The keys and where they came from; loaded once. */
  keys(): Promise<GrantKeys> {
    this.keysLoaded ??= loadGrantKeys(this.config).then((loaded) => {
      this.keySource = loaded.source;
      return loaded;
    });
    return this.keysLoaded;
  }

  /** Where the keys came from, once loaded (the start-up line); never a value. */
  describeKeys(): string | undefined {
    return this.keySource;
  }

  /** Every grant of the principal that opens, newest first. */
  async list(principal: string): Promise<StoredGrant[]> {
    return (await this.read(principal)).usable;
  }

  /** Every record of the principal, sorted by what it is. A record sealed with an older key is re-sealed with the first one. */
  async read(principal: string): Promise<PrincipalGrants> {
    const subs = new Set((await this.store.read(indexKey(principal))).map((e) => e.value));
    const result: PrincipalGrants = { usable: [], revoked: [], unreadable: [] };
    await Promise.all(
      [...subs].map(async (googleSub) => {
        const one = await this.readOne(principal, googleSub);
        if (one?.kind === 'usable') {
          result.usable.push(one.grant);
        } else if (one?.kind === 'revoked') {
          result.revoked.push(one.grant);
        } else if (one) {
          result.unreadable.push({ googleSub, reason: one.reason });
        }
      }),
    );
    result.usable.sort((a, b) => b.connectedAt.localeCompare(a.connectedAt));
    return result;
  }

  /** One account's record of the principal, or undefined when there is none. */
  async readOne(principal: string, googleSub: string): Promise<GrantRecord | undefined> {
    return (await this.readRaw(principal, googleSub))?.record;
  }

  /** Adds the grant, replacing one of the same Google account (also a revoked or unreadable one) and forgetting that account's shared access token. */
  async save(grant: StoredGrant): Promise<void> {
    const body: Sealed = {
      googleEmail: grant.googleEmail,
      scopes: [...grant.scopes],
      connectedAt: grant.connectedAt,
      refreshToken: grant.refreshToken,
    };
    await this.write(grant.principal, grant.googleSub, body);
    // A token of the grant this one replaces may be dead (revoked) or carry other scopes.
    await this.store.delete(accessTokenKey(grant.principal, grant.googleSub));
  }

  /**
   * Google answered invalid_grant to `refreshToken`: the refresh token is dropped and
   * the account kept, so the next call asks to connect it again. Marks the grant revoked only
   * if its record still holds that refresh token (compare-and-set in the store,
   * atomic on SQLite and Redis). A late answer about a token the person has
   * since replaced — they connected the account again, or another process
   * rotated it — leaves the new grant alone and says so (`replaced`, with the
   * token now stored). `gone`: no usable record any more (disconnected,
   * already revoked, unreadable).
   */
  async revokeIfHolds(principal: string, googleSub: string, refreshToken: string, at = new Date()): Promise<GrantSwap> {
    return this.swapIfHolds(principal, googleSub, refreshToken, (grant) => {
      const { refreshToken: _dropped, principal: _p, googleSub: _s, ...kept } = grant;
      return { ...kept, scopes: [...kept.scopes], revokedAt: at.toISOString() };
    });
  }

  /**
   * Google rotated the refresh token: `to` replaces `from` only if the record
   * still holds `from` (compare-and-set), so a refresh that ran while the person
   * reconnected never overwrites the new grant with the old one's scopes.
   */
  async rotateRefreshToken(principal: string, googleSub: string, from: string, to: string): Promise<GrantSwap> {
    return this.swapIfHolds(principal, googleSub, from, (grant) => ({
      googleEmail: grant.googleEmail,
      scopes: [...grant.scopes],
      connectedAt: grant.connectedAt,
      refreshToken: to,
    }));
  }

  /** Whether the account's usable record holds this refresh token right now. */
  async holds(principal: string, googleSub: string, refreshToken: string): Promise<boolean> {
    const current = await this.readOne(principal, googleSub);
    return current?.kind === 'usable' && current.grant.refreshToken === refreshToken;
  }

  private async swapIfHolds(
    principal: string,
    googleSub: string,
    refreshToken: string,
    next: (grant: StoredGrant) => Sealed,
  ): Promise<GrantSwap> {
    const key = recordKey(principal, googleSub);
    // A lost compare-and-set means the record changed meanwhile (a save, a re-seal under a new key): read it again.
    for (let attempt = 0; attempt < SWAP_ATTEMPTS; attempt++) {
      const current = await this.readRaw(principal, googleSub);
      if (current?.record.kind !== 'usable') {
        return { kind: 'gone' };
      }
      const { grant } = current.record;
      if (grant.refreshToken !== refreshToken) {
        return { kind: 'replaced', refreshToken: grant.refreshToken };
      }
      const { keys } = await this.keys();
      if (await this.store.replaceIf(key, current.raw, seal(keys, { kind: 'grant', principal, googleSub }, JSON.stringify(next(grant))))) {
        return { kind: 'swapped' };
      }
    }
    return { kind: 'gone' };
  }

  /** Removes one Google account's grant of the principal (disconnected); the principal leaves the ops index with its last record. */
  async remove(principal: string, googleSub: string): Promise<void> {
    await this.store.delete(recordKey(principal, googleSub));
    await this.store.delete(lastUseKey(principal, googleSub));
    this.usedWritten.delete(`${principal}\n${googleSub}`);
    if (await this.hasRecords(principal)) {
      return;
    }
    await this.store.append(PRINCIPALS_INDEX, `-${principal}`);
    // A save that wrote its record before this line was appended may have seen the principal still listed and not
    // appended itself: look again. (A save after it sees the removal in the index and lists the principal again.)
    if (await this.hasRecords(principal)) {
      await this.store.append(PRINCIPALS_INDEX, `+${principal}`);
    }
  }

  /**
   * Principals with at least one grant record (usable, revoked or unreadable), in the order they
   * first connected: the ops listing (/admin/accounts) reads this instead of scanning keys.
   * The index is an append-only stream of "+principal" / "-principal" events (the store has no
   * sets and no transactions); the last event of a principal decides.
   */
  async principals(): Promise<string[]> {
    return [...(await this.principalIndex()).entries()].filter(([, listed]) => listed).map(([principal]) => principal);
  }

  /** Records that the grant was used for a Google call now: written at most once a minute per grant (and process), never failing the call. */
  async touch(principal: string, googleSub: string, now = Date.now()): Promise<void> {
    const id = `${principal}\n${googleSub}`;
    const written = this.usedWritten.get(id);
    if (written !== undefined && now - written < LAST_USE_EVERY_MS) {
      return;
    }
    this.usedWritten.delete(id);
    this.usedWritten.set(id, now);
    while (this.usedWritten.size > LAST_USE_SLOTS_MAX) {
      this.usedWritten.delete(this.usedWritten.keys().next().value!);
    }
    try {
      await this.store.put(lastUseKey(principal, googleSub), new Date(now).toISOString());
    } catch (error) {
      this.logger.debug(`last use of a grant not recorded: ${(error as Error).message}`);
    }
  }

  /** ISO time a grant's client was last handed out for a call (to the minute), or undefined when never since it was connected. */
  async lastUsed(principal: string, googleSub: string): Promise<string | undefined> {
    return this.store.get(lastUseKey(principal, googleSub));
  }

  /** The record as stored (for compare-and-set) and as read. A record sealed with an older key is re-sealed with the first one. */
  private async readRaw(principal: string, googleSub: string): Promise<{ raw: string; record: GrantRecord } | undefined> {
    const key = recordKey(principal, googleSub);
    let raw = await this.store.get(key);
    if (raw === undefined) {
      return undefined;
    }
    const { keys } = await this.keys();
    const opened = open(keys, { kind: 'grant', principal, googleSub }, raw);
    let body: Sealed | undefined;
    if (opened.ok) {
      try {
        body = JSON.parse(opened.text) as Sealed;
      } catch {
        body = undefined;
      }
    }
    if (!opened.ok || !body || typeof body.googleEmail !== 'string' || !Array.isArray(body.scopes)) {
      const reason = opened.ok ? 'its content is not a grant' : opened.reason;
      this.reportUnreadable(principal, googleSub, reason);
      return { raw, record: { kind: 'unreadable', reason } };
    }
    const shown: ConnectedGrant = {
      principal,
      googleSub,
      googleEmail: body.googleEmail,
      scopes: body.scopes,
      connectedAt: body.connectedAt,
    };
    if (opened.kid !== keys[0].id) {
      // Rotation: re-sealed with the first key on use, so the old key can be dropped once every grant was used.
      // Only over the record read here: a save meanwhile is never overwritten with the old grant.
      const resealed = seal(keys, { kind: 'grant', principal, googleSub }, opened.text);
      if (await this.store.replaceIf(key, raw, resealed)) {
        raw = resealed;
      }
    }
    if (body.revokedAt || !body.refreshToken) {
      return { raw, record: { kind: 'revoked', grant: { ...shown, revokedAt: body.revokedAt ?? body.connectedAt } } };
    }
    return { raw, record: { kind: 'usable', grant: { ...shown, refreshToken: body.refreshToken } } };
  }

  private async principalIndex(): Promise<Map<string, boolean>> {
    const listed = new Map<string, boolean>();
    for (const { value } of await this.store.read(PRINCIPALS_INDEX)) {
      listed.set(value.slice(1), value.startsWith('+'));
    }
    return listed;
  }

  private async hasRecords(principal: string): Promise<boolean> {
    const subs = new Set((await this.store.read(indexKey(principal))).map((e) => e.value));
    for (const sub of subs) {
      if ((await this.store.get(recordKey(principal, sub))) !== undefined) {
        return true;
      }
    }
    return false;
  }

  private async write(principal: string, googleSub: string, body: Sealed): Promise<void> {
    const { keys } = await this.keys();
    await this.store.put(recordKey(principal, googleSub), seal(keys, { kind: 'grant', principal, googleSub }, JSON.stringify(body)));
    const known = (await this.store.read(indexKey(principal))).some((e) => e.value === googleSub);
    if (!known) {
      await this.store.append(indexKey(principal), googleSub, { maxLength: INDEX_MAX });
    }
    // After the record is written, so that a concurrent remove of the principal's last other grant sees it (see remove).
    if ((await this.principalIndex()).get(principal) !== true) {
      await this.store.append(PRINCIPALS_INDEX, `+${principal}`);
    }
    this.reported.delete(`${principal}\n${googleSub}`);
  }

  private reportUnreadable(principal: string, googleSub: string, reason: string): void {
    const id = `${principal}\n${googleSub}`;
    if (!this.reported.has(id)) {
      this.reported.add(id);
      this.logger.warn(
        `the stored Google grant of principal ${JSON.stringify(principal)} (account ${googleSub}) is not used: ${reason}; they are asked to connect again`,
      );
    }
  }
}

/** The state key of one account's grant of a principal (exported for specs that tamper with records). */
export function recordKey(principal: string, googleSub: string): string {
  return stateKey('grant', encodeURIComponent(principal), encodeURIComponent(googleSub));
}

/** The state key of a grant's shared access token (sealed; GrantAuth keeps it). */
export function accessTokenKey(principal: string, googleSub: string): string {
  return stateKey('grantToken', encodeURIComponent(principal), encodeURIComponent(googleSub));
}

/** The state stream listing principals with grants, for ops (see GrantStore.principals). */
export const PRINCIPALS_INDEX = stateName('grantPrincipals');

/** The state key of a grant's last use (an ISO time; not secret, so not sealed). */
export function lastUseKey(principal: string, googleSub: string): string {
  return stateKey('grantUsed', encodeURIComponent(principal), encodeURIComponent(googleSub));
}

/** The principal's index stream of account ids. */
export function indexKey(principal: string): string {
  return stateKey('grantIndex', encodeURIComponent(principal));
}
