import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { actingAs } from '../google/connected-accounts.js';
import type { GoogleApiError, GoogleOperation } from '../google/google-error.js';
import { STATE_STORE } from '../state/state.module.js';
import { type StateStore, StateUnavailableError } from '../state/state-store.js';
import { accountKey, DAY_GRACE_MS, dayIndexKey, indexedKey, MINUTE_GRACE_MS, quotaKey, ttl } from './quota-keys.js';
import { QUOTA_LIMITS, type QuotaLimits } from './quota-limits.js';
import { explainedRefusal, RefusalRecords, verdictOf } from './quota-refusals.js';
import {
  type AccountUse,
  type BatchReservation,
  type Counter,
  type LimitWindow,
  parseScope,
  type QuotaScope,
  type QuotaSnapshot,
  type QuotaVerdict,
  type Reservation,
  type ReserveResult,
  scopeId,
  type WindowUse,
} from './quota-types.js';
import { minuteWindow, pacificDayWindow } from './quota-windows.js';

// The server's own count of the Google quotas that answer with a body that
// does not say which limit was hit (PRODUCT §9a): URL inspections per property
// per minute and per Pacific day, Indexing publishes per Cloud project per
// Pacific day. Counters live in the state store, so every process sharing it
// (several stdio servers on one machine, replicas on one Redis) counts
// together, atomically. They are a lower bound of Google's own count: other
// clients of the same property or project spend the same quota, and only
// requests Google answered with success are kept.
//
// Keys: quota-keys.ts. Types: quota-types.ts. Google's refusals: quota-refusals.ts.

@Injectable()
export class QuotaLedger {
  private readonly logger = new Logger('QuotaLedger');
  private warned = false;
  /** Scopes this process has put in a day's index already: a memo that saves a write per call, never the record itself. */
  private readonly indexed = new Set<string>();
  private readonly refusals: RefusalRecords;

  constructor(
    @Inject(STATE_STORE) private readonly store: StateStore,
    private readonly clock: Clock,
    @Inject(QUOTA_LIMITS) readonly limits: QuotaLimits,
  ) {
    this.refusals = new RefusalRecords(store);
  }

  /**
   * Takes one unit from every window of the scope before the call goes out,
   * atomically across processes; for inspections, refuses (taking nothing) when
   * this server's own count already fills a window, since Google's count is at
   * least ours and the limit cannot be raised.
   */
  async reserve(scope: QuotaScope): Promise<ReserveResult> {
    const now = this.clock.now();
    const counters = this.reserving(scope, now);
    const taken: Counter[] = [];
    try {
      for (const counter of counters) {
        const count = await this.store.increment(counter.key, 1, counter.ttlMs);
        taken.push(counter);
        if (counter.enforced && count > counter.limit) {
          await this.giveBack(taken);
          return { ok: false, window: counter.window, resetsAt: counter.endsAt, snapshot: await this.read(scope, now) };
        }
      }
      await this.index(scope, now);
      return { ok: true, reservation: { taken } };
    } catch (error) {
      this.unavailable(error);
      if (taken.length) {
        await this.giveBack(taken).catch(() => undefined);
      }
      return { ok: true };
    }
  }

  /**
   * For a batch: takes up to `units` at once (two writes however long the
   * batch), granting what this server's own daily count leaves; the per-minute
   * limit is counted but left to Google's answer (a batch is at most 20 of its
   * 600). settle() gives back what was not used.
   */
  async reserveMany(scope: QuotaScope, units: number): Promise<BatchReservation> {
    const now = this.clock.now();
    const taken: Counter[] = [];
    let granted = units;
    try {
      for (const counter of this.reserving(scope, now)) {
        const count = await this.store.increment(counter.key, granted, counter.ttlMs);
        taken.push(counter);
        const over = counter.window === 'day' && counter.enforced ? Math.min(granted, Math.max(0, count - counter.limit)) : 0;
        if (over > 0) {
          await this.store.increment(counter.key, -over, counter.ttlMs);
          granted -= over;
        }
        if (granted === 0) {
          break;
        }
      }
      if (granted > 0) {
        await this.index(scope, now);
      }
      return { granted, reservation: { taken: taken.slice(0, granted > 0 ? taken.length : 0), units: granted } };
    } catch (error) {
      this.unavailable(error);
      if (taken.length) {
        await this.giveBack(taken, granted).catch(() => undefined);
      }
      return { granted: units };
    }
  }

  /** Keeps `used` units of a batch reservation (what Google answered) and gives the rest back. */
  async settle(reservation: Reservation | undefined, used: number): Promise<void> {
    const unused = (reservation?.units ?? 1) - used;
    if (!reservation || unused <= 0) {
      return;
    }
    try {
      await this.giveBack(reservation.taken, unused);
    } catch (error) {
      this.unavailable(error);
    }
  }

  /** Gives a reservation back: the call was not sent, or Google did not accept it (only successes are counted: a lower bound). */
  async release(reservation: Reservation | undefined): Promise<void> {
    await this.settle(reservation, 0);
  }

  /** What this server counted in the current minute and Pacific day; undefined when the store cannot be read. */
  async snapshot(scope: QuotaScope): Promise<QuotaSnapshot | undefined> {
    try {
      return await this.read(scope, this.clock.now());
    } catch (error) {
      this.unavailable(error);
      return undefined;
    }
  }

  /** Which limit a refusal whose body does not say most likely was (verdictOf), from this server's own counts. */
  async classify(scope: QuotaScope): Promise<QuotaVerdict | undefined> {
    const snapshot = await this.snapshot(scope);
    return snapshot && verdictOf(snapshot);
  }

  /** Remembers that Google refused the scope (for gsc://quota, and so the next batch probes first). */
  async noteRefusal(scope: QuotaScope, likelyLimit: LimitWindow): Promise<void> {
    const now = this.clock.now();
    try {
      await this.refusals.note(scope, likelyLimit, now);
      await this.index(scope, now);
    } catch (error) {
      this.unavailable(error);
    }
  }

  /**
   * Google's quota refusal of the scope: remembered, and, when its answer does
   * not say which limit, told with this server's counts and the likely one.
   * `unread` is the limit to remember when the ledger cannot be read; without
   * it, nothing is remembered then.
   */
  async explainRefusal(error: GoogleApiError, scope: QuotaScope, op: GoogleOperation, unread?: LimitWindow): Promise<GoogleApiError> {
    const verdict = await this.classify(scope);
    const likely = verdict?.likely ?? unread;
    if (likely) {
      await this.noteRefusal(scope, error.quotaWindow ?? likely);
    }
    return explainedRefusal(error, op, verdict);
  }

  /** Google accepted the scope again after a refusal: the refusal no longer stands. */
  async clearRefusal(scope: QuotaScope): Promise<void> {
    try {
      await this.refusals.clear(scope, this.clock.now());
    } catch (error) {
      this.unavailable(error);
    }
  }

  /** Every scope counted (or refused) in the current Pacific day, for gsc://quota and /admin/quota. */
  async today(): Promise<{ now: Date; dayEndsAt: Date; scopes: QuotaSnapshot[] } | undefined> {
    const now = this.clock.now();
    const day = pacificDayWindow(now);
    try {
      const entries = await this.store.read(dayIndexKey(day.id));
      const seen = new Set<string>();
      const scopes: QuotaSnapshot[] = [];
      for (const entry of entries) {
        if (seen.has(entry.value)) {
          continue;
        }
        seen.add(entry.value);
        const scope = parseScope(entry.value);
        if (scope) {
          const [snapshot, accounts] = await Promise.all([this.read(scope, now), this.accountsOf(scope, now)]);
          scopes.push(accounts.length ? { ...snapshot, accounts } : snapshot);
        }
      }
      return { now, dayEndsAt: day.endsAt, scopes };
    } catch (error) {
      this.unavailable(error);
      return undefined;
    }
  }

  private async read(scope: QuotaScope, now: Date): Promise<QuotaSnapshot> {
    const counters = this.counters(scope, now);
    const values = await Promise.all(counters.map((c) => this.store.get(c.key)));
    const use = (window: LimitWindow): WindowUse | undefined => {
      const i = counters.findIndex((c) => c.window === window);
      if (i < 0) {
        return undefined;
      }
      const used = Math.max(0, Number.parseInt(values[i] ?? '0', 10) || 0);
      return { used, limit: counters[i].limit, remaining: Math.max(0, counters[i].limit - used), resetsAt: counters[i].endsAt };
    };
    const refused = await this.refusals.read(scope, now);
    const minute = use('minute');
    return { scope, now, ...(minute ? { minute } : {}), day: use('day')!, ...(refused ? { refusedToday: refused } : {}) };
  }

  private counters(scope: QuotaScope, now: Date): Counter[] {
    const day = pacificDayWindow(now);
    const dayLimit = scope.kind === 'inspection' ? this.limits.inspectionPerDay : this.limits.publishPerDay;
    const enforced = scope.kind === 'inspection';
    const counters: Counter[] = [
      {
        window: 'day',
        key: quotaKey(scope, 'day', day.id),
        limit: dayLimit,
        enforced,
        ttlMs: ttl(day, now, DAY_GRACE_MS),
        endsAt: day.endsAt,
      },
    ];
    if (scope.kind === 'inspection') {
      const minute = minuteWindow(now);
      counters.push({
        window: 'minute',
        key: quotaKey(scope, 'minute', minute.id),
        limit: this.limits.inspectionPerMinute,
        enforced,
        ttlMs: ttl(minute, now, MINUTE_GRACE_MS),
        endsAt: minute.endsAt,
      });
    }
    return counters;
  }

  /**
   * The counters a reservation takes: the scope's, then, in connected mode,
   * the day's count of the Google account the call acts as (last, never
   * enforced, so a refusal or a partial batch gives it back like the others).
   */
  private reserving(scope: QuotaScope, now: Date): Counter[] {
    const counters = this.counters(scope, now);
    const account = actingAs.getStore()?.account;
    if (account) {
      const day = counters[0];
      counters.push({
        ...day,
        key: accountKey(scope, pacificDayWindow(now).id, account),
        limit: Number.MAX_SAFE_INTEGER,
        enforced: false,
      });
    }
    return counters;
  }

  /** Connected mode: which Google accounts the scope was counted for today, and how many each. */
  private async accountsOf(scope: QuotaScope, now: Date): Promise<AccountUse[]> {
    const day = pacificDayWindow(now).id;
    const seen = new Set((await this.store.read(quotaKey(scope, 'accounts', day))).map((e) => e.value));
    const uses = await Promise.all(
      [...seen].map(async (account) => ({
        account,
        used: Math.max(0, Number.parseInt((await this.store.get(accountKey(scope, day, account))) ?? '0', 10) || 0),
      })),
    );
    return uses.filter((u) => u.used > 0).sort((a, b) => (a.account < b.account ? -1 : 1));
  }

  private async giveBack(taken: readonly Counter[], units = 1): Promise<void> {
    for (const counter of taken) {
      await this.store.increment(counter.key, -units, counter.ttlMs);
    }
  }

  private async index(scope: QuotaScope, now: Date): Promise<void> {
    const day = pacificDayWindow(now);
    const ttlMs = ttl(day, now, DAY_GRACE_MS);
    const memo = `${day.id}:${scope.kind}:${scopeId(scope)}`;
    await this.once(memo, ttlMs, () => this.store.append(dayIndexKey(day.id), JSON.stringify(scope), { ttlMs, maxLength: 10_000 }));
    const account = actingAs.getStore()?.account;
    if (account) {
      await this.once(`${memo}:${account}`, ttlMs, () =>
        this.store.append(quotaKey(scope, 'accounts', day.id), account, { ttlMs, maxLength: 10_000 }),
      );
    }
  }

  /** Appends to a day's index once across processes (a claim in the store), and once per process without asking it again. */
  private async once(memo: string, ttlMs: number, append: () => Promise<unknown>): Promise<void> {
    if (this.indexed.has(memo)) {
      return;
    }
    if (await this.store.claim(indexedKey(memo), ttlMs)) {
      await append();
    }
    if (this.indexed.size > 10_000) {
      this.indexed.clear();
    }
    this.indexed.add(memo);
  }

  // Counting is a courtesy to the person, never a reason to fail a read: without
  // the store, calls go out uncounted and results say the ledger is unavailable.
  private unavailable(error: unknown): void {
    if (!(error instanceof StateUnavailableError)) {
      throw error;
    }
    if (!this.warned) {
      this.logger.warn(`quota ledger not updated: ${error.message}`);
    }
    this.warned = true;
  }
}
