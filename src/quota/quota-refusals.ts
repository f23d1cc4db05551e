import { type GoogleApiError, type GoogleOperation, likelyQuotaLead } from '../google/google-error.js';
import type { StateStore } from '../state/state-store.js';
import { DAY_GRACE_MS, quotaKey, ttl } from './quota-keys.js';
import { refusalExplanation } from './quota-report.js';
import type { LimitWindow, QuotaRefusal, QuotaScope, QuotaSnapshot, QuotaVerdict } from './quota-types.js';
import { minuteWindow, pacificDayWindow } from './quota-windows.js';

// Google's quota refusals, remembered per scope and Pacific day, and the
// reading of a refusal whose answer does not say which limit it was. The
// ledger keeps the counts; this keeps what Google said about them.

/** Our own minute count this close to the limit makes the per-minute limit the likely one. */
export const MINUTE_MARGIN = 20;

/** The refused-today records of the state store (errors are the ledger's to handle). */
export class RefusalRecords {
  constructor(private readonly store: Pick<StateStore, 'get' | 'put' | 'delete'>) {}

  async note(scope: QuotaScope, likelyLimit: LimitWindow, now: Date): Promise<void> {
    const day = pacificDayWindow(now);
    await this.store.put(
      quotaKey(scope, 'refused', day.id),
      JSON.stringify({ at: now.toISOString(), likely_limit: likelyLimit }),
      ttl(day, now, DAY_GRACE_MS),
    );
  }

  async clear(scope: QuotaScope, now: Date): Promise<void> {
    await this.store.delete(quotaKey(scope, 'refused', pacificDayWindow(now).id));
  }

  async read(scope: QuotaScope, now: Date): Promise<QuotaRefusal | undefined> {
    const refused = await this.store.get(quotaKey(scope, 'refused', pacificDayWindow(now).id));
    return refused ? parseRefusal(refused) : undefined;
  }
}

/**
 * Which limit a refusal whose body does not say (Google's URL Inspection 429)
 * most likely was, from this server's own counts. Reaching the per-minute
 * limit takes others a burst that spends a large share of the daily limit
 * (600 a minute against 2 000 a day), so unless our own minute count nearly
 * fills the minute, the daily limit is the likely one.
 */
export function verdictOf(snapshot: QuotaSnapshot): QuotaVerdict {
  const { day, minute, refusedToday, now } = snapshot;
  if (day.used >= day.limit) {
    return { likely: 'day', basis: 'own_day_count', snapshot };
  }
  if (minute && minute.used >= minute.limit - MINUTE_MARGIN) {
    return { likely: 'minute', basis: 'own_minute_count', snapshot };
  }
  if (refusedToday && refusedToday.likelyLimit === 'day' && minuteWindow(refusedToday.at).id !== minuteWindow(now).id) {
    return { likely: 'day', basis: 'refused_earlier', snapshot };
  }
  return { likely: 'day', basis: 'rates', snapshot };
}

/** Google's refusal told with this server's counts and the likely limit; as it was when Google named the limit, or when nothing was counted. */
export function explainedRefusal(error: GoogleApiError, op: GoogleOperation, verdict: QuotaVerdict | undefined): GoogleApiError {
  if (error.quotaWindow || !verdict) {
    return error;
  }
  return error.rephrased(`${likelyQuotaLead(op, error.facts.googleMessage, verdict.likely)} ${refusalExplanation(verdict)}`);
}

function parseRefusal(text: string): QuotaRefusal | undefined {
  try {
    const value = JSON.parse(text) as { at?: string; likely_limit?: string };
    const at = new Date(value.at ?? '');
    if (Number.isNaN(at.getTime())) {
      return undefined;
    }
    return { at, likelyLimit: value.likely_limit === 'minute' ? 'minute' : 'day' };
  } catch {
    return undefined;
  }
}
