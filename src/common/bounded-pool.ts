// A small concurrency limiter: runs work over a list with at most `limit`
// calls in flight, keeps results in input order, and can stop launching new
// work when a failure says there is no point going on (a daily quota) or when
// the caller gives up (an aborted signal: the MCP client cancelled).

export type PoolOutcome<R> =
  | { readonly state: 'done'; readonly value: R }
  | { readonly state: 'failed'; readonly error: unknown }
  /** Never started, because an earlier failure stopped the pool. */
  | { readonly state: 'skipped' }
  /** Never started, because the signal was aborted first. */
  | { readonly state: 'cancelled' };

export interface PoolOptions {
  /** A failure for which this returns true stops the launch of further items; calls already in flight finish. */
  readonly stopOn?: (error: unknown) => boolean;
  /**
   * Once aborted, no further item is started (those left are 'cancelled');
   * work already started is not interrupted and its outcome is kept, so what
   * was sent is still reported and recorded.
   */
  readonly signal?: AbortSignal;
}

export async function runBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
  options: PoolOptions = {},
): Promise<PoolOutcome<R>[]> {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`concurrency limit must be a positive integer, got ${limit}`);
  }
  const { signal } = options;
  // Aborted already, the first lane marks every item cancelled before any work starts.
  const outcomes: PoolOutcome<R>[] = items.map(() => ({ state: 'skipped' }));
  let next = 0;
  let stopped = false;

  const lane = async (): Promise<void> => {
    while (!stopped && next < items.length) {
      if (signal?.aborted) {
        for (let i = next; i < items.length; i++) {
          outcomes[i] = { state: 'cancelled' };
        }
        next = items.length;
        return;
      }
      const index = next++;
      try {
        outcomes[index] = { state: 'done', value: await work(items[index], index) };
      } catch (error) {
        outcomes[index] = { state: 'failed', error };
        if (options.stopOn?.(error)) {
          stopped = true;
        }
      }
    }
  };

  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return outcomes;
}
