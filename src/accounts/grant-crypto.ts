import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { GrantKey } from '../config/connected-config.js';

// AES-256-GCM for what connected accounts keep in the state store (PRODUCT.md
// §8d "Grants at rest"): a fresh 12-byte IV per record, the key id stored
// beside the ciphertext, and associated data that binds the record to where it
// belongs — its kind, the key id, the principal and the Google account — so a
// record copied to another principal's or another account's slot, or re-labelled
// with another key id, fails authentication like a tampered one.

/** A sealed record as stored: JSON of these fields, base64 throughout. */
interface Sealed {
  readonly v: 1;
  readonly kid: string;
  readonly iv: string;
  readonly tag: string;
  readonly data: string;
}

/** Where a record belongs; every part goes into the associated data. */
export interface Slot {
  /** What is sealed: 'grant' or 'access-token' (a record of one kind never opens as the other). */
  readonly kind: string;
  readonly principal: string;
  readonly googleSub: string;
}

export type Opened = { readonly ok: true; readonly text: string; readonly kid: string } | { readonly ok: false; readonly reason: string };

export function seal(keys: readonly GrantKey[], slot: Slot, text: string): string {
  const { id, key } = keys[0];
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', Buffer.from(key, 'base64'), iv);
  cipher.setAAD(associatedData(id, slot));
  const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  const sealed: Sealed = {
    v: 1,
    kid: id,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
  return JSON.stringify(sealed);
}

/** Opens a record sealed for this slot with any of the keys; a reason (never content) when it does not. */
export function open(keys: readonly GrantKey[], slot: Slot, stored: string): Opened {
  let sealed: Partial<Sealed>;
  try {
    sealed = JSON.parse(stored) as Partial<Sealed>;
  } catch {
    return { ok: false, reason: 'the record is not a sealed grant (not JSON)' };
  }
  if (
    !sealed ||
    sealed.v !== 1 ||
    typeof sealed.kid !== 'string' ||
    typeof sealed.iv !== 'string' ||
    typeof sealed.tag !== 'string' ||
    typeof sealed.data !== 'string'
  ) {
    return { ok: false, reason: 'the record is not a sealed grant (fields missing)' };
  }
  const key = keys.find((k) => k.id === sealed.kid);
  if (!key) {
    return { ok: false, reason: `it was sealed with key ${JSON.stringify(sealed.kid.slice(0, 32))}, which is not among the grant keys` };
  }
  try {
    const iv = Buffer.from(sealed.iv, 'base64');
    const tag = Buffer.from(sealed.tag, 'base64');
    if (iv.length !== 12 || tag.length !== 16) {
      throw new Error('bad sizes');
    }
    const decipher = createDecipheriv('aes-256-gcm', Buffer.from(key.key, 'base64'), iv, { authTagLength: 16 });
    decipher.setAAD(associatedData(key.id, slot));
    decipher.setAuthTag(tag);
    const text = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
    return { ok: true, text, kid: key.id };
  } catch {
    return { ok: false, reason: 'it does not open: altered, or moved from another principal or Google account' };
  }
}

function associatedData(kid: string, slot: Slot): Buffer {
  return Buffer.from(JSON.stringify(['google-search-console-mcp', slot.kind, kid, slot.principal, slot.googleSub]), 'utf8');
}
