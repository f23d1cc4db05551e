/**
 * A clock that only moves when a test moves it, so nothing waits for real time to pass.
 * The one test clock: it stands wherever the product takes a Clock (common/clock.ts).
 */
export class ManualClock {
  private millis: number;
  /** Every wait the product asked for through sleep(), in order (milliseconds). */
  readonly waits: number[] = [];

  constructor(start: Date | string = '2026-03-02T09:00:00Z') {
    this.millis = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.millis);
  }

  /** Seconds since the epoch, the unit of JWT times. */
  seconds(): number {
    return Math.floor(this.millis / 1000);
  }

  advance(ms: number): void {
    this.millis += ms;
  }

  set(instant: Date | string): void {
    this.millis = new Date(instant).getTime();
  }

  /**
   * Clock.sleep without the waiting: the wait is recorded and the clock moved on by it, and it
   * ends at once — rejected with an AbortError, like the real one, when the signal has aborted.
   */
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.waits.push(ms);
    await Promise.resolve();
    if (signal?.aborted) {
      throw new DOMException('The operation was aborted', 'AbortError');
    }
    this.advance(ms);
  }
}

/**
 * A clock standing where `at` says (a suite's fixed "now", or one it moves itself), with ManualClock's waits: recorded,
 * and over at once. For suites that stand on a date rather than step through time.
 */
export class StandingClock extends ManualClock {
  constructor(private readonly at: () => Date) {
    super();
  }

  override now(): Date {
    return this.at();
  }

  override seconds(): number {
    return Math.floor(this.at().getTime() / 1000);
  }
}
