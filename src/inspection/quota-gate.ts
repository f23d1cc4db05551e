// How a batch of inspections meets Google's quota: the first refusal pauses the
// whole batch (no lane launches), one bounded wait follows, then a single probe
// request; if the probe is refused too, the batch stops and everything not yet
// inspected is listed. At most one wait per batch, so a batch never lingers
// (PRODUCT §9a: "stops at the first 429 that a single bounded wait does not
// clear"). A batch that starts knowing Google refused this property earlier
// today begins with a probe and no wait.

import type { Clock } from '../common/clock.js';

export type GateState = 'open' | 'waiting' | 'needs_probe' | 'probing' | 'stopped';
export type StopReason = 'quota' | 'daily_budget' | 'cancelled';

/** What a lane may do next: send as usual, send as the one probe, or stop. */
export type Pass = 'go' | 'probe' | 'stop';

export class QuotaGate {
  private state: GateState;
  private waited = false;
  private changed = deferred();
  #reason?: StopReason;
  #waitedMs = 0;

  constructor(
    /** The wait passes on this clock (real time in production; a test clock records it). */
    private readonly clock: Pick<Clock, 'sleep'>,
    private readonly signal: AbortSignal | undefined,
    /** Google refused this scope earlier today: the first request is a probe, and no wait is left. */
    probeFirst = false,
  ) {
    this.state = probeFirst ? 'needs_probe' : 'open';
    if (probeFirst) {
      this.waited = true;
    }
    signal?.addEventListener('abort', () => this.stop('cancelled'), { once: true });
  }

  get reason(): StopReason | undefined {
    return this.#reason;
  }

  /** How long the batch chose to wait for the quota (0 when it never did). */
  get waitedMs(): number {
    return this.#waitedMs;
  }

  /** Resolves when this lane may send: at once while open; after the wait and the probe otherwise. */
  async pass(): Promise<Pass> {
    for (;;) {
      if (this.signal?.aborted) {
        this.stop('cancelled');
      }
      switch (this.state) {
        case 'open':
          return 'go';
        case 'stopped':
          return 'stop';
        case 'needs_probe':
          this.set('probing');
          return 'probe';
        default:
          await this.changed.promise;
      }
    }
  }

  /**
   * A lane's request was refused for quota. Returns true when the lane should
   * try its URL again (after the one wait and a probe that got through), false
   * when the batch is over.
   */
  async refused(asProbe: boolean, waitMs: () => Promise<number>): Promise<boolean> {
    if (asProbe || this.state === 'stopped') {
      this.stop('quota');
      return false;
    }
    if (this.state !== 'open') {
      return true;
    } // answered after the batch paused: wait for the probe like everyone else
    if (this.waited) {
      this.stop('quota');
      return false;
    }
    this.waited = true;
    this.set('waiting');
    const ms = await waitMs();
    this.#waitedMs = ms;
    try {
      await this.clock.sleep(ms, this.signal);
    } catch {
      this.stop('cancelled');
      return false;
    }
    // The state may have moved on during the wait (a cancellation stopped the batch).
    const now = this.state as GateState;
    if (now === 'waiting') {
      this.set('needs_probe');
    }
    return (this.state as GateState) !== 'stopped';
  }

  /** The probe got through (or failed for another reason, which says nothing about quota: then the next lane probes). */
  probed(accepted: boolean): void {
    if (this.state === 'probing') {
      this.set(accepted ? 'open' : 'needs_probe');
    }
  }

  stop(reason: StopReason): void {
    if (this.state === 'stopped') {
      return;
    }
    this.#reason = reason;
    this.set('stopped');
  }

  private set(state: GateState): void {
    this.state = state;
    const changed = this.changed;
    this.changed = deferred();
    changed.resolve();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
