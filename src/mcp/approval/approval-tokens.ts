import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const TOKEN_TTL_SECONDS = 600;

export type TokenCheck = { ok: true; nonce: string } | { ok: false; reason: 'malformed' | 'mismatch' | 'expired' | 'used' };

/**
 * Where single use is recorded: a nonce claimed once is refused for its
 * lifetime. This default lives in the process; the state store replaces it so
 * that single use holds across restarts and replicas.
 */
export abstract class UsedNonces {
  /** True for the first claim of a nonce, false for every later one until ttlMs has passed. */
  abstract claim(nonce: string, ttlMs: number): Promise<boolean>;
}

export class InMemoryUsedNonces extends UsedNonces {
  private readonly used = new Map<string, number>();

  constructor(private readonly clock: { now(): Date }) {
    super();
  }

  claim(nonce: string, ttlMs: number): Promise<boolean> {
    const now = this.clock.now().getTime();
    for (const [key, expiry] of this.used) if (expiry < now) this.used.delete(key);
    if (this.used.has(nonce)) return Promise.resolve(false);
    this.used.set(nonce, now + Math.max(ttlMs, 0));
    return Promise.resolve(true);
  }
}

/**
 * The two-call fallback token: `<nonce>.<expiry>.<mac>`, where the MAC covers
 * the tool, the fingerprint of the exact target and arguments, the principal
 * and the expiry. The target is not in the token, so the second call proves
 * itself by recomputing it; any other instance sharing GSC_APPROVAL_SECRET can
 * check it. Single use is enforced by UsedNonces.
 */
export class ApprovalTokens {
  constructor(
    private readonly secret: string,
    private readonly used: UsedNonces,
  ) {}

  issue(binding: string, now: number): { token: string; expiresAt: Date } {
    const nonce = randomBytes(16).toString('base64url');
    const expires = Math.floor(now / 1000) + TOKEN_TTL_SECONDS;
    return { token: `${nonce}.${expires}.${this.mac(binding, nonce, expires)}`, expiresAt: new Date(expires * 1000) };
  }

  async redeem(token: string, binding: string, now: number): Promise<TokenCheck> {
    const parts = token.trim().split('.');
    if (parts.length !== 3 || !/^\d+$/.test(parts[1])) return { ok: false, reason: 'malformed' };
    const [nonce, expiresText, mac] = parts;
    const expected = Buffer.from(this.mac(binding, nonce, Number(expiresText)));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'mismatch' };
    if (Number(expiresText) * 1000 < now) return { ok: false, reason: 'expired' };
    if (!(await this.used.claim(nonce, Number(expiresText) * 1000 - now))) return { ok: false, reason: 'used' };
    return { ok: true, nonce };
  }

  private mac(binding: string, nonce: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`confirm-token\0${binding}\0${nonce}\0${expires}`).digest('base64url');
  }
}

/** A stable fingerprint of a value, independent of key order. */
export function fingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
