import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { legacyStateKey, stateKey } from '../../state/keys.js';
import type { StateStore } from '../../state/state-store.js';

export const TOKEN_TTL_SECONDS = 600;

export type TokenCheck =
  { ok: true; nonce: string } | { ok: false; reason: 'malformed' | 'other_secret' | 'mismatch' | 'expired' | 'used' | 'effect_changed' };

/**
 * Where single use is recorded: a nonce claimed once is refused for its
 * lifetime, by every process sharing the state store. A claim that throws
 * (the store cannot be reached) is not won.
 */
export abstract class UsedNonces {
  /** True for the first claim of a nonce, false for every later one until ttlMs has passed. */
  abstract claim(nonce: string, ttlMs: number): Promise<boolean>;
}

/**
 * Kept this long past the approval's own expiry: another replica whose clock
 * runs behind still sees the nonce as used while it still sees the approval
 * as unexpired.
 */
const CLOCK_SKEW_MS = 60_000;

/**
 * Single use in the state store: one atomic claim of `approval-used:v1:<nonce>`, so exactly one redeem wins
 * across processes. The name from before the key table is claimed too (keys.ts, `claimed-twice`): a token
 * redeemed before the upgrade, or by a replica not upgraded yet, is never redeemed again here.
 */
export class StoredUsedNonces extends UsedNonces {
  constructor(private readonly store: Pick<StateStore, 'claim'>) {
    super();
  }

  async claim(nonce: string, ttlMs: number): Promise<boolean> {
    const ttl = Math.max(ttlMs, 0) + CLOCK_SKEW_MS;
    return (await this.store.claim(stateKey('approvalUsed', nonce), ttl)) && this.store.claim(legacyStateKey('approvalUsed', nonce), ttl);
  }
}

/**
 * A short public name for a secret: the first 48 bits of an HMAC keyed by it.
 * Tokens and seals carry it so that one minted under another secret (another
 * replica's, or this store's before it was replaced) is told apart from one
 * that was altered. It reveals nothing usable about the secret.
 */
export function approvalSecretId(secret: string): string {
  return createHmac('sha256', secret).update('google-search-console-mcp approval secret id').digest('base64url').slice(0, 8);
}

/**
 * The two-call fallback token: `<secret id>.<nonce>.<expiry>.<mac>.<effect tag>`,
 * where the MAC covers the tool, the fingerprint of the exact target and
 * arguments, the principal and the expiry, and the tag the effect the call
 * had when the token was issued (who would lose or gain ownership): a token
 * whose effect drifted is told apart from one for other arguments. The target is not in the token, so the second call
 * proves itself by recomputing it; any other instance using the same secret
 * can check it. Single use is enforced by UsedNonces.
 */
export class ApprovalTokens {
  readonly secretId: string;

  constructor(
    private readonly secret: string,
    private readonly used: UsedNonces,
  ) {
    this.secretId = approvalSecretId(secret);
  }

  issue(binding: string, now: number, effect = ''): { token: string; expiresAt: Date } {
    const nonce = randomBytes(16).toString('base64url');
    const expires = Math.floor(now / 1000) + TOKEN_TTL_SECONDS;
    const token = `${this.secretId}.${nonce}.${expires}.${this.mac(binding, nonce, expires)}.${this.tag(effect, nonce)}`;
    return { token, expiresAt: new Date(expires * 1000) };
  }

  /** Checks the token and, when it holds, spends it; throws what UsedNonces throws (the store cannot be reached). */
  async redeem(token: string, binding: string, now: number, effect = ''): Promise<TokenCheck> {
    const parts = token.trim().split('.');
    if (parts.length !== 5 || !/^\d{1,12}$/.test(parts[2])) {
      return { ok: false, reason: 'malformed' };
    }
    const [secretId, nonce, expiresText, mac, tag] = parts;
    if (secretId !== this.secretId) {
      return { ok: false, reason: 'other_secret' };
    }
    if (!sameText(mac, this.mac(binding, nonce, Number(expiresText)))) {
      return { ok: false, reason: 'mismatch' };
    }
    if (Number(expiresText) * 1000 < now) {
      return { ok: false, reason: 'expired' };
    }
    if (!sameText(tag, this.tag(effect, nonce))) {
      return { ok: false, reason: 'effect_changed' };
    }
    if (!(await this.used.claim(nonce, Number(expiresText) * 1000 - now))) {
      return { ok: false, reason: 'used' };
    }
    return { ok: true, nonce };
  }

  private tag(effect: string, nonce: string): string {
    return createHmac('sha256', this.secret)
      .update(`confirm-effect\0${this.secretId}\0${effect}\0${nonce}`)
      .digest('base64url')
      .slice(0, 22);
  }

  private mac(binding: string, nonce: string, expires: number): string {
    return createHmac('sha256', this.secret)
      .update(`confirm-token\0${this.secretId}\0${binding}\0${nonce}\0${expires}`)
      .digest('base64url');
  }
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
