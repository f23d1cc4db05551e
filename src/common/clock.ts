import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The time, and waiting for it to pass: injectable so that tests can stand on a
 * date boundary, and so that a backoff or a quota wait is the one place where
 * the product waits in real time (a test clock records the wait and returns).
 */
@Injectable()
export class Clock {
  now(): Date {
    return new Date();
  }

  /** Resolves after `ms` of real time; rejects with an AbortError as soon as the signal aborts (or at once if it has). */
  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    await sleep(ms, undefined, signal ? { signal } : undefined);
  }
}
