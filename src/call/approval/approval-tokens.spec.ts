import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { legacyStateKey, stateKey } from '../../state/keys.js';
import { SqliteStateStore } from '../../state/sqlite-state-store.js';
import { ApprovalTokens, approvalSecretId, StoredUsedNonces, TOKEN_TTL_SECONDS } from './approval-tokens.js';

const SECRET = 'the-approval-secret-of-replica-a-0123456789';
const OTHER_SECRET = 'the-approval-secret-of-replica-b-0123456789';
const BINDING = 'delete_site\0fingerprint\0local';

let root: string;
let store: SqliteStateStore;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'gsc-tokens-'));
  store = new SqliteStateStore(join(root, 'state'));
});
afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

describe('approvalSecretId', () => {
  it('is a short, stable, public name that differs between secrets and shows nothing of them', () => {
    const id = approvalSecretId(SECRET);
    expect(id).toMatch(/^[\w-]{8}$/);
    expect(approvalSecretId(SECRET)).toBe(id);
    expect(approvalSecretId(OTHER_SECRET)).not.toBe(id);
    expect(SECRET).not.toContain(id);
  });
});

describe('ApprovalTokens', () => {
  const now = Date.UTC(2026, 0, 1, 12);
  const tokens = () => new ApprovalTokens(SECRET, new StoredUsedNonces(store));

  it('carries the secret id first and is spent exactly once', async () => {
    const a = tokens();
    const { token, expiresAt } = a.issue(BINDING, now);
    expect(token.split('.')).toHaveLength(5);
    expect(token.split('.')[0]).toBe(approvalSecretId(SECRET));
    expect(expiresAt.getTime()).toBe(now + TOKEN_TTL_SECONDS * 1000);
    expect(await a.redeem(token, BINDING, now)).toEqual({ ok: true, nonce: token.split('.')[1] });
    // Another instance on the same store: the same secret, the same record of use.
    expect(await tokens().redeem(token, BINDING, now)).toEqual({ ok: false, reason: 'used' });
  });

  it('tells a drifted effect apart from other arguments, and does not spend the token on it', async () => {
    const a = tokens();
    const { token } = a.issue(BINDING, now, 'loses:webmaster@example.com');
    expect(await a.redeem(token, BINDING, now, 'loses:webmaster@example.com,coowner@example.com')).toEqual({
      ok: false,
      reason: 'effect_changed',
    });
    expect(await a.redeem(token, BINDING, now, 'loses:webmaster@example.com')).toEqual({ ok: true, nonce: token.split('.')[1] });
  });

  it('tells a token minted under another secret apart from an altered one', async () => {
    const { token } = new ApprovalTokens(OTHER_SECRET, new StoredUsedNonces(store)).issue(BINDING, now);
    expect(await tokens().redeem(token, BINDING, now)).toEqual({ ok: false, reason: 'other_secret' });
    const mine = tokens().issue(BINDING, now).token;
    const [id, nonce, exp, mac, tag] = mine.split('.');
    const cases: [string, string, string][] = [
      ['another binding', mine, 'delete_site\0other\0local'],
      ['another nonce', [id, `${nonce.slice(0, -2)}xx`, exp, mac, tag].join('.'), BINDING],
      ['another expiry', [id, nonce, String(Number(exp) + 600), mac, tag].join('.'), BINDING],
      ['an altered mac', [id, nonce, exp, `${mac.slice(0, -2)}xx`, tag].join('.'), BINDING],
    ];
    for (const [what, token, binding] of cases) {
      expect([what, await tokens().redeem(token, binding, now)]).toEqual([what, { ok: false, reason: 'mismatch' }]);
    }
    expect(await tokens().redeem([approvalSecretId(OTHER_SECRET), nonce, exp, mac, tag].join('.'), BINDING, now)).toEqual({
      ok: false,
      reason: 'other_secret',
    });
  });

  it.each([['yes-please'], ['a.b.c'], ['a.b.c.d'], ['a.b.c.d.e.f'], ['id.nonce.soon.mac.tag'], ['']])(
    'refuses %p as not a token',
    async (token) => {
      expect(await tokens().redeem(token, BINDING, now)).toEqual({ ok: false, reason: 'malformed' });
    },
  );

  it('refuses an expired token without spending it', async () => {
    const { token } = tokens().issue(BINDING, now);
    expect(await tokens().redeem(token, BINDING, now + (TOKEN_TTL_SECONDS + 1) * 1000)).toEqual({ ok: false, reason: 'expired' });
    expect(await tokens().redeem(token, BINDING, now)).toMatchObject({ ok: true });
  });
});

describe('StoredUsedNonces', () => {
  it('claims approval-used:v1:<nonce> in the store, kept a minute past the approval’s own expiry for replicas whose clock runs behind', async () => {
    const used = new StoredUsedNonces(store);
    expect(await used.claim('n-1', 1)).toBe(true);
    expect(await store.get(stateKey('approvalUsed', 'n-1'))).toBe('1');
    await sleep(20);
    expect(await used.claim('n-1', 1)).toBe(false);
    expect(await used.claim('n-2', 0)).toBe(true);
  });

  it('refuses a nonce used under its name from before the key table (an approval redeemed before the upgrade, or by a replica not upgraded yet)', async () => {
    const used = new StoredUsedNonces(store);
    expect(await store.claim(legacyStateKey('approvalUsed', 'n-old'), 60_000)).toBe(true);
    expect(await used.claim('n-old', 60_000)).toBe(false);
    expect(await used.claim('n-new', 60_000)).toBe(true);
    // …and an old replica's claim of a nonce redeemed here loses.
    expect(await store.claim(legacyStateKey('approvalUsed', 'n-new'), 60_000)).toBe(false);
  });
});
