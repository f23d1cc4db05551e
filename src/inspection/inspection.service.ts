import type { searchconsole_v1 } from '@googleapis/searchconsole';
import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock.js';
import { UserFacingError } from '../common/user-facing-error.js';
import { CallCancelledError, GoogleApiError, type GoogleOperation } from '../google/google-error.js';
import { GoogleService } from '../google/google.service.js';
import { type PoolOutcome, runBounded } from '../common/bounded-pool.js';
import { QuotaLedger } from '../quota/quota-ledger.service.js';
import { type QuotaScope, type QuotaSnapshot, type QuotaVerdict, scopeId } from '../quota/quota-types.js';
import { figure } from '../quota/quota-report.js';
import { inAbout } from '../quota/quota-windows.js';
import { QuotaGate, type StopReason } from './quota-gate.js';

export type UrlInspectionResult = searchconsole_v1.Schema$UrlInspectionResult;

/**
 * Inspections in flight at once for one batch. Google allows 600 per minute per
 * property; 10 in flight at ~1 s each stays far below that, and 20 URLs take
 * about two inspections' time instead of twenty.
 */
export const INSPECTION_CONCURRENCY = 10;
/** The one wait of a batch after Google's first refusal, when nothing points at the per-minute limit. */
export const QUOTA_PROBE_WAIT_MS = 2000;
/** The longest a batch waits for a quota at all (a per-minute window, or Google's Retry-After). */
export const MAX_QUOTA_WAIT_MS = 60_000;

/** One URL of a batch: inspected, failed on its own, or not sent (and why). */
export type BatchItem = PoolOutcome<UrlInspectionResult> | { readonly state: 'not_inspected'; readonly reason: StopReason };

export interface BatchOptions {
  readonly languageCode?: string;
  /** The MCP client cancelled: no new inspection starts; those sent finish and are counted. */
  readonly signal?: AbortSignal;
  readonly concurrency?: number;
  /** Called as each URL is answered (inspected or failed), for progress notifications. */
  readonly onSettled?: (url: string, item: BatchItem, settled: number) => void;
}

export interface BatchResult {
  /** In the order of the URLs given. */
  readonly items: BatchItem[];
  /** Why URLs were left out: the daily budget by this server's count, Google's refusal after the one wait, or the client cancelling. */
  readonly stop?: StopReason;
  /** For a stop on Google's refusal: which limit it most likely was, and why. */
  readonly verdict?: QuotaVerdict;
  /** Milliseconds the batch waited for the quota before its probe. */
  readonly waitedMs: number;
  /** The ledger after the batch; undefined when the state store cannot be read. */
  readonly quota?: QuotaSnapshot;
}

/** Thrown by a lane to stop the pool; the URL is then listed as not inspected. */
class BatchStop extends Error {
  constructor(readonly reason: StopReason) {
    super(reason);
  }
}

/** urlInspection.index.inspect, counted in the quota ledger. No MCP here. */
@Injectable()
export class InspectionService {
  constructor(
    private readonly google: GoogleService,
    private readonly ledger: QuotaLedger,
    private readonly clock: Clock,
  ) {}

  /**
   * One inspection: counted in the ledger, refused without sending when this
   * server alone has used the property's daily quota, and a quota refusal is
   * told with the ledger's view of which limit it most likely was. `counted`
   * is false when the state store could not be reached: the inspection still
   * goes out (a read never fails because of the ledger) and the answer says so.
   */
  async inspect(property: string, url: string, languageCode?: string): Promise<{ result: UrlInspectionResult; counted: boolean }> {
    const scope: QuotaScope = { kind: 'inspection', property };
    const reserved = await this.ledger.reserve(scope);
    if (!reserved.ok) {
      throw new UserFacingError(budgetSentence(reserved.snapshot, reserved.window, `inspect ${url}`));
    }
    try {
      return { result: await this.send(property, url, languageCode, {}), counted: reserved.reservation !== undefined };
    } catch (error) {
      await this.ledger.release(reserved.reservation);
      throw isQuota(error) ? await this.ledger.explainRefusal(error, scope, inspectOperation(property, url)) : error;
    }
  }

  /**
   * Inspects several URLs of one property with bounded concurrency, within the
   * daily budget the ledger has left, stopping (after at most one bounded wait
   * and one probe) when Google refuses for quota, and starting nothing new once
   * the signal aborts. Any other failure belongs to its URL.
   */
  async inspectMany(property: string, urls: readonly string[], options: BatchOptions = {}): Promise<BatchResult> {
    const scope: QuotaScope = { kind: 'inspection', property };
    const before = await this.ledger.snapshot(scope);
    const gate = new QuotaGate(this.clock, options.signal, before?.refusedToday?.likelyLimit === 'day');
    let verdict: QuotaVerdict | undefined;
    let settled = 0;

    // One reservation for the whole batch: the daily budget this server's own count leaves decides how many may go out.
    const reserved = await this.ledger.reserveMany(scope, urls.length);
    let slots = reserved.granted;
    let answered = 0;

    const inspectOne = async (url: string): Promise<UrlInspectionResult> => {
      let slotted = false;
      for (;;) {
        const pass = await gate.pass();
        if (pass === 'stop') {
          throw new BatchStop(gate.reason ?? 'cancelled');
        }
        if (!slotted) {
          if (slots <= 0) {
            gate.stop('daily_budget');
            throw new BatchStop('daily_budget');
          }
          slots--;
          slotted = true;
        }
        try {
          const value = await this.send(property, url, options.languageCode, { signal: options.signal, retryQuota: false });
          answered++;
          if (pass === 'probe') {
            gate.probed(true);
            if (before?.refusedToday) {
              await this.ledger.clearRefusal(scope);
            }
          }
          return value;
        } catch (error) {
          if (error instanceof CallCancelledError) {
            throw new BatchStop('cancelled');
          }
          if (!isQuota(error)) {
            if (pass === 'probe') {
              gate.probed(false);
            }
            throw error;
          }
          const again = await gate.refused(pass === 'probe', async () => {
            verdict = await this.ledger.classify(scope);
            return waitFor(error, verdict);
          });
          if (again) {
            continue;
          }
          throw new BatchStop(gate.reason ?? 'quota');
        }
      }
    };

    const outcomes = await runBounded(
      urls,
      options.concurrency ?? INSPECTION_CONCURRENCY,
      async (url) => {
        try {
          const value = await inspectOne(url);
          options.onSettled?.(url, { state: 'done', value }, ++settled);
          return value;
        } catch (error) {
          if (!(error instanceof BatchStop)) {
            options.onSettled?.(url, { state: 'failed', error }, ++settled);
          }
          throw error;
        }
      },
      { stopOn: (error) => error instanceof BatchStop, signal: options.signal },
    );

    // Only what Google answered is kept: a lower bound of what it counted.
    await this.ledger.settle(reserved.reservation, answered);
    const stop = gate.reason ?? (options.signal?.aborted ? 'cancelled' : undefined);
    if (stop === 'quota') {
      verdict = (await this.ledger.classify(scope)) ?? verdict;
      if (verdict) {
        await this.ledger.noteRefusal(scope, verdict.likely);
      }
    }
    const items: BatchItem[] = outcomes.map((outcome) => {
      if (outcome.state === 'failed' && outcome.error instanceof BatchStop) {
        return { state: 'not_inspected', reason: outcome.error.reason };
      }
      if (outcome.state === 'skipped') {
        return { state: 'not_inspected', reason: stop ?? 'quota' };
      }
      if (outcome.state === 'cancelled') {
        return { state: 'not_inspected', reason: 'cancelled' };
      }
      return outcome;
    });
    return {
      items,
      ...(stop ? { stop } : {}),
      ...(stop === 'quota' && verdict ? { verdict } : {}),
      waitedMs: gate.waitedMs,
      quota: await this.ledger.snapshot(scope),
    };
  }

  private async send(
    property: string,
    url: string,
    languageCode: string | undefined,
    options: { signal?: AbortSignal; retryQuota?: boolean },
  ): Promise<UrlInspectionResult> {
    const data = await this.google.call(
      inspectOperation(property, url),
      (c) =>
        c.searchconsole.urlInspection.index.inspect({
          requestBody: { inspectionUrl: url, siteUrl: property, ...(languageCode ? { languageCode } : {}) },
        }),
      options,
    );
    // GoogleService has checked that the answer carries an inspectionResult.
    return data.inspectionResult!;
  }
}

function inspectOperation(property: string, url: string): GoogleOperation {
  return { method: 'urlInspection.index.inspect', action: `inspect ${url} in ${property}`, property };
}

export function isQuota(error: unknown): error is GoogleApiError {
  return error instanceof GoogleApiError && error.kind === 'quota';
}

/** Why nothing was sent: this server alone has used up a window of the property's quota. */
export function budgetSentence(snapshot: QuotaSnapshot, window: 'minute' | 'day', action: string): string {
  const use = window === 'day' ? snapshot.day : snapshot.minute!;
  const scope = scopeId(snapshot.scope);
  const when =
    window === 'day'
      ? `at midnight Pacific Time (${use.resetsAt.toISOString()}, ${inAbout(use.resetsAt, snapshot.now)})`
      : `at ${use.resetsAt.toISOString()}, within a minute`;
  return (
    `Did not ${action}: this server has already sent ${figure(use.used)} URL inspections of ${scope} ${window === 'day' ? 'today (Pacific Time)' : 'this minute'}, ` +
    `Google's limit per property is ${figure(use.limit)} a ${window}, and it counts at least as many. Nothing was sent to Google. The count resets ${when}.`
  );
}

/** The one wait: what Google's Retry-After says, else to the end of this minute when that limit is the likely one, else a short pause before the probe. */
function waitFor(error: GoogleApiError, verdict: QuotaVerdict | undefined): number {
  const retryAfter = error.retryAfterSeconds;
  if (retryAfter !== undefined) {
    return Math.min(retryAfter * 1000, MAX_QUOTA_WAIT_MS);
  }
  if (verdict?.likely === 'minute' && verdict.snapshot.minute) {
    return untilPlusOne(verdict.snapshot.minute.resetsAt, verdict.snapshot.now);
  }
  return QUOTA_PROBE_WAIT_MS;
}

function untilPlusOne(resetsAt: Date, now: Date): number {
  return Math.min(MAX_QUOTA_WAIT_MS, Math.max(0, resetsAt.getTime() - now.getTime()) + 1000);
}
