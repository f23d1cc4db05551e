/**
 * A clock that only moves when a test moves it, so nothing waits for real time to pass.
 * The one test clock: it stands wherever the product takes a Clock (common/clock.ts).
 */
export class ManualClock {
  private millis: number;

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
}
