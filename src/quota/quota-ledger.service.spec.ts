import { afterEach, describe, expect, it } from '@jest/globals';
import { actingAs } from '../google/connected-accounts.js';
import { createStateStore } from '../state/create-state-store.js';
import { GOOGLE_QUOTA_LIMITS } from './quota-limits.js';
import { QuotaLedger } from './quota-ledger.service.js';
import { verdictOf } from './quota-refusals.js';
import { ledgerKit, type LedgerKit } from '../../test/support/quota-ledger-kit.js';
import { minuteWindow, pacificDayWindow, pacificMidnightStarting } from './quota-windows.js';

const SITE = 'https://www.example.com/';
const inspection = { kind: 'inspection', property: SITE } as const;
const publish = { kind: 'publish', project: 'demo-project' } as const;

let kit: LedgerKit;
afterEach(async () => {
  await kit?.dispose();
});

describe('quota windows', () => {
  it.each([
    ['winter (PST, UTC−8)', '2026-01-15T20:00:00Z', '2026-01-15', '2026-01-16T08:00:00.000Z'],
    ['summer (PDT, UTC−7)', '2026-07-15T20:00:00Z', '2026-07-15', '2026-07-16T07:00:00.000Z'],
    ['just before Pacific midnight, already the next UTC day', '2026-03-03T07:59:59Z', '2026-03-02', '2026-03-03T08:00:00.000Z'],
    ['the day daylight time begins (23 hours long)', '2026-03-08T12:00:00Z', '2026-03-08', '2026-03-09T07:00:00.000Z'],
    ['the day daylight time ends (25 hours long)', '2026-11-01T12:00:00Z', '2026-11-01', '2026-11-02T08:00:00.000Z'],
  ])('the Pacific day in %s', (_name, now, day, endsAt) => {
    expect(pacificDayWindow(new Date(now))).toEqual({ id: day, endsAt: new Date(endsAt) });
  });

  it('a minute window ends at the next whole minute', () => {
    expect(minuteWindow(new Date('2026-03-02T18:00:59.999Z')).endsAt.toISOString()).toBe('2026-03-02T18:01:00.000Z');
    expect(pacificMidnightStarting('2026-03-09').toISOString()).toBe('2026-03-09T07:00:00.000Z');
  });
});

describe('QuotaLedger', () => {
  it('counts reservations per minute and per Pacific day, and gives back what Google did not count', async () => {
    kit = ledgerKit();
    const first = await kit.ledger.reserve(inspection);
    const second = await kit.ledger.reserve(inspection);
    expect(first.ok && second.ok).toBe(true);
    if (second.ok) {
      await kit.ledger.release(second.reservation);
    }
    const snapshot = (await kit.ledger.snapshot(inspection))!;
    expect(snapshot.minute).toMatchObject({ used: 1, limit: 600, remaining: 599 });
    expect(snapshot.day).toMatchObject({ used: 1, limit: 2000, remaining: 1999 });
    kit.clock.advance(60_000);
    expect((await kit.ledger.snapshot(inspection))!).toMatchObject({ minute: { used: 0 }, day: { used: 1 } });
  });

  it('is right across a Pacific midnight: the old day keeps its count, the new one starts at zero', async () => {
    kit = ledgerKit('2026-03-03T07:59:58Z'); // 23:59:58 PST on 2026-03-02
    for (let i = 0; i < 3; i++) {
      await kit.ledger.reserve(inspection);
    }
    await kit.ledger.reserve(publish);
    const before = (await kit.ledger.snapshot(inspection))!;
    expect(before.day).toMatchObject({ used: 3, resetsAt: new Date('2026-03-03T08:00:00Z') });
    kit.clock.advance(3000); // 00:00:01 PST on 2026-03-03
    const after = (await kit.ledger.snapshot(inspection))!;
    expect(after.day).toMatchObject({ used: 0, remaining: 2000, resetsAt: new Date('2026-03-04T08:00:00Z') });
    expect((await kit.ledger.snapshot(publish))!.day.used).toBe(0);
    await kit.ledger.reserve(inspection);
    expect((await kit.ledger.snapshot(inspection))!.day.used).toBe(1);
    // gsc://quota lists the scopes of the current day only.
    const today = (await kit.ledger.today())!;
    expect(today.scopes.map((s) => s.scope)).toEqual([inspection]);
    expect(today.dayEndsAt.toISOString()).toBe('2026-03-04T08:00:00.000Z');
    // A reservation from before midnight is given back to the day it was taken from.
    kit.clock.set('2026-03-03T07:59:59Z');
    const late = await kit.ledger.reserve(inspection);
    kit.clock.set('2026-03-03T08:00:30Z');
    if (late.ok) {
      await kit.ledger.release(late.reservation);
    }
    expect((await kit.ledger.snapshot(inspection))!.day.used).toBe(1);
    kit.clock.set('2026-03-03T07:59:59Z');
    expect((await kit.ledger.snapshot(inspection))!.day.used).toBe(3);
  });

  it('refuses an inspection when its own count fills the day or the minute, taking nothing', async () => {
    kit = ledgerKit('2026-03-02T18:00:00Z', { inspectionPerDay: 3, inspectionPerMinute: 2 });
    expect((await kit.ledger.reserve(inspection)).ok).toBe(true);
    expect((await kit.ledger.reserve(inspection)).ok).toBe(true);
    const minuteFull = await kit.ledger.reserve(inspection);
    expect(minuteFull).toMatchObject({ ok: false, window: 'minute', resetsAt: new Date('2026-03-02T18:01:00Z') });
    kit.clock.advance(60_000);
    expect((await kit.ledger.reserve(inspection)).ok).toBe(true);
    const dayFull = await kit.ledger.reserve(inspection);
    expect(dayFull).toMatchObject({ ok: false, window: 'day' });
    expect((await kit.ledger.snapshot(inspection))!.day).toMatchObject({ used: 3, remaining: 0 });
  });

  it('a batch reserves at once what the day leaves, and settles to what Google answered', async () => {
    kit = ledgerKit('2026-03-02T18:00:00Z', { inspectionPerDay: 10 });
    await kit.ledger.reserve(inspection);
    const batch = await kit.ledger.reserveMany(inspection, 20);
    expect(batch.granted).toBe(9);
    expect((await kit.ledger.snapshot(inspection))!).toMatchObject({ day: { used: 10 }, minute: { used: 10 } });
    expect((await kit.ledger.reserveMany(inspection, 5)).granted).toBe(0); // nothing left for a second batch meanwhile
    await kit.ledger.settle(batch.reservation, 4);
    expect((await kit.ledger.snapshot(inspection))!).toMatchObject({ day: { used: 5 }, minute: { used: 5 } });
    const rest = await kit.ledger.reserveMany(inspection, 20);
    expect(rest.granted).toBe(5);
    await kit.ledger.settle(rest.reservation, 0);
    expect((await kit.ledger.snapshot(inspection))!.day.used).toBe(5);
  });

  it('counts publishes past the default 200 (a project may have been granted more) without refusing', async () => {
    kit = ledgerKit('2026-03-02T18:00:00Z', { publishPerDay: 2 });
    for (let i = 0; i < 3; i++) {
      expect((await kit.ledger.reserve(publish)).ok).toBe(true);
    }
    expect((await kit.ledger.snapshot(publish))!.day).toMatchObject({ used: 3, limit: 2, remaining: 0 });
    expect((await kit.ledger.snapshot(publish))!.minute).toBeUndefined();
  });

  it('two ledgers on one folder (as two processes) count together, atomically', async () => {
    kit = ledgerKit('2026-03-02T18:00:00Z', { inspectionPerDay: 50 });
    const other = createStateStore({ kind: 'sqlite', dir: kit.dir });
    const sibling = new QuotaLedger(other, kit.clock, { ...GOOGLE_QUOTA_LIMITS, inspectionPerDay: 50 });
    try {
      const results = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 ? sibling : kit.ledger).reserve(inspection)));
      expect(results.filter((r) => r.ok)).toHaveLength(50);
      const batches = await Promise.all([kit.ledger.reserveMany(inspection, 20), sibling.reserveMany(inspection, 20)]);
      expect(batches.map((b) => b.granted)).toEqual([0, 0]);
      expect((await sibling.snapshot(inspection))!.day.used).toBe(50);
      expect((await kit.ledger.snapshot(inspection))!.day.used).toBe(50);
    } finally {
      await other.close();
    }
  });

  it('keeps Google’s refusals of the day, and forgets them at Pacific midnight', async () => {
    kit = ledgerKit('2026-03-02T18:00:00Z');
    await kit.ledger.noteRefusal(inspection, 'day');
    expect((await kit.ledger.snapshot(inspection))!.refusedToday).toEqual({ at: new Date('2026-03-02T18:00:00Z'), likelyLimit: 'day' });
    expect((await kit.ledger.today())!.scopes.map((s) => s.scope)).toEqual([inspection]);
    kit.clock.set('2026-03-03T08:00:01Z');
    expect((await kit.ledger.snapshot(inspection))!.refusedToday).toBeUndefined();
    kit.clock.set('2026-03-02T18:05:00Z');
    await kit.ledger.clearRefusal(inspection);
    expect((await kit.ledger.snapshot(inspection))!.refusedToday).toBeUndefined();
  });

  it('an unreachable store is reported as unknown, and never fails the call', async () => {
    kit = ledgerKit();
    await kit.store.close();
    expect(await kit.ledger.reserve(inspection)).toEqual({ ok: true });
    expect(await kit.ledger.snapshot(inspection)).toBeUndefined();
    expect(await kit.ledger.today()).toBeUndefined();
    await expect(kit.ledger.noteRefusal(inspection, 'day')).resolves.toBeUndefined();
  });
});

describe('verdictOf: which limit a refusal that does not say most likely was', () => {
  const at = new Date('2026-03-02T18:00:30Z');
  const snapshot = (minuteUsed: number, dayUsed: number, refusedAt?: string) => ({
    scope: inspection,
    now: at,
    minute: { used: minuteUsed, limit: 600, remaining: 600 - minuteUsed, resetsAt: new Date('2026-03-02T18:01:00Z') },
    day: { used: dayUsed, limit: 2000, remaining: 2000 - dayUsed, resetsAt: new Date('2026-03-03T08:00:00Z') },
    ...(refusedAt ? { refusedToday: { at: new Date(refusedAt), likelyLimit: 'day' as const } } : {}),
  });
  it.each([
    ['its own day count fills the day', snapshot(5, 2000), 'day', 'own_day_count'],
    ['its own minute count nearly fills the minute', snapshot(590, 900), 'minute', 'own_minute_count'],
    ['Google refused already in an earlier minute today', snapshot(5, 5, '2026-03-02T17:40:00Z'), 'day', 'refused_earlier'],
    ['a refusal in this same minute proves nothing more', snapshot(5, 5, '2026-03-02T18:00:10Z'), 'day', 'rates'],
    ['small counts: others reaching 600 a minute would spend the day in minutes', snapshot(5, 5), 'day', 'rates'],
  ])('%s → %s (%s)', (_name, s, likely, basis) => {
    expect(verdictOf(s)).toMatchObject({ likely, basis });
  });
});

describe('QuotaLedger in connected mode', () => {
  const as = <T>(account: string, run: () => Promise<T>) => actingAs.run({ principal: `${account}-person`, account }, run);

  it('counts each Google account the calls were made as, beside the scope’s own count, and gives back what it gives back', async () => {
    kit = ledgerKit();
    await as('alice@example.com', () => kit.ledger.reserve(inspection));
    await as('alice@example.com', () => kit.ledger.reserve(inspection));
    const bobs = await as('bob@example.net', () => kit.ledger.reserve(inspection));
    if (bobs.ok) {
      await kit.ledger.release(bobs.reservation); // Google did not count it
    }
    const batch = await as('bob@example.net', () => kit.ledger.reserveMany(inspection, 5));
    await kit.ledger.settle(batch.reservation, 3);
    await kit.ledger.reserve(inspection); // a call outside connected mode: the scope counts it, no account does
    const [today] = (await kit.ledger.today())!.scopes;
    expect(today.day.used).toBe(6);
    expect(today.accounts).toEqual([
      { account: 'alice@example.com', used: 2 },
      { account: 'bob@example.net', used: 3 },
    ]);
  });

  it('a reservation refused by the scope’s limit takes nothing from the account', async () => {
    kit = ledgerKit(undefined, { inspectionPerDay: 1 });
    await as('alice@example.com', () => kit.ledger.reserve(inspection));
    const refused = await as('alice@example.com', () => kit.ledger.reserve(inspection));
    expect(refused.ok).toBe(false);
    expect((await kit.ledger.today())!.scopes[0].accounts).toEqual([{ account: 'alice@example.com', used: 1 }]);
  });
});
