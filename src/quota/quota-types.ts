/** The quota ledger's vocabulary, shared by the ledger, its refusal bookkeeping and the reports. */

export type QuotaScope =
  { readonly kind: 'inspection'; readonly property: string } | { readonly kind: 'publish'; readonly project: string };
export type LimitWindow = 'minute' | 'day';

export interface WindowUse {
  /** Counted by this server (and every process sharing its store). */
  readonly used: number;
  readonly limit: number;
  /** limit − used, never below 0; an upper bound of what Google still allows. */
  readonly remaining: number;
  readonly resetsAt: Date;
}

export interface QuotaRefusal {
  readonly at: Date;
  readonly likelyLimit: LimitWindow;
}

export interface QuotaSnapshot {
  readonly scope: QuotaScope;
  readonly now: Date;
  /** Inspection only: Indexing publishes have no per-minute limit of their own. */
  readonly minute?: WindowUse;
  readonly day: WindowUse;
  /** Google refused this scope earlier today (its answer did not say which limit). */
  readonly refusedToday?: QuotaRefusal;
  /** Connected mode, in today(): the day's count per Google account the calls were made as (quotas stay per property and project). */
  readonly accounts?: readonly AccountUse[];
}

export interface AccountUse {
  readonly account: string;
  readonly used: number;
}

/** Why a refusal is thought to be one limit rather than the other. */
export type VerdictBasis =
  /** This server's own count fills the daily limit. */
  | 'own_day_count'
  /** This server's own count (nearly) fills the per-minute limit. */
  | 'own_minute_count'
  /** Google refused already in an earlier minute of this Pacific day. */
  | 'refused_earlier'
  /** Others would have to spend the per-minute limit within a minute, which uses up a day's budget within minutes. */
  | 'rates';

export interface QuotaVerdict {
  readonly likely: LimitWindow;
  readonly basis: VerdictBasis;
  readonly snapshot: QuotaSnapshot;
}

/** Units taken from every window of a scope, to give back if Google did not count them. */
export interface Reservation {
  readonly taken: readonly Counter[];
  /** How many units each counter holds for this reservation (1 for a single call). */
  readonly units?: number;
}

/** What a batch may send: `granted` of the units it asked for (the rest would pass this server's own daily count). */
export interface BatchReservation {
  readonly granted: number;
  /** undefined when the store was unavailable (nothing counted; the batch goes out uncounted). */
  readonly reservation?: Reservation;
}

export type ReserveResult =
  /** reservation undefined: the store was unavailable, so nothing is counted (the call still goes out). */
  | { readonly ok: true; readonly reservation?: Reservation }
  /** This server's own count says the window is full: nothing was taken, and the call should not go out. */
  | { readonly ok: false; readonly window: LimitWindow; readonly resetsAt: Date; readonly snapshot: QuotaSnapshot };

export interface Counter {
  readonly window: LimitWindow;
  readonly key: string;
  readonly limit: number;
  /**
   * Whether a full count refuses the call. Not for Indexing publishes: 200 is
   * the default, and a project Google granted more to has more, so only Google
   * can say no.
   */
  readonly enforced: boolean;
  readonly ttlMs: number;
  readonly endsAt: Date;
}

export function scopeId(scope: QuotaScope): string {
  return scope.kind === 'inspection' ? scope.property : scope.project;
}

/** A scope as a day's index keeps it; undefined for an entry written by another version. */
export function parseScope(text: string): QuotaScope | undefined {
  try {
    const value = JSON.parse(text) as Partial<{ kind: string; property: string; project: string }>;
    if (value.kind === 'inspection' && typeof value.property === 'string') {
      return { kind: 'inspection', property: value.property };
    }
    if (value.kind === 'publish' && typeof value.project === 'string') {
      return { kind: 'publish', project: value.project };
    }
  } catch {
    // an entry written by another version: skip it
  }
  return undefined;
}
