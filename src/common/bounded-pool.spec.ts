import { describe, expect, it } from '@jest/globals';
import { runBounded } from './bounded-pool.js';

/** Work whose completion the test controls, recording how many calls overlap. */
function gate() {
  let inFlight = 0;
  let maxInFlight = 0;
  const started: number[] = [];
  const pending = new Map<number, { resolve: (v: string) => void; reject: (e: Error) => void }>();
  const work = (item: number) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    started.push(item);
    return new Promise<string>((resolve, reject) => {
      pending.set(item, {
        resolve: (v) => {
          inFlight--;
          resolve(v);
        },
        reject: (e: Error) => {
          inFlight--;
          reject(e);
        },
      });
    });
  };
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await Promise.resolve();
    }
  };
  return { work, pending, started, settle, max: () => maxInFlight };
}

describe('runBounded', () => {
  it('never has more than the limit in flight, fills every lane, and keeps input order', async () => {
    const g = gate();
    const items = Array.from({ length: 20 }, (_, i) => i);
    const done = runBounded(items, 10, g.work);
    await g.settle();
    expect(g.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Finish out of order; each finish lets exactly one more start.
    for (const item of [9, 3, 0, 7]) {
      g.pending.get(item)!.resolve(`r${item}`);
      await g.settle();
    }
    expect(g.started.slice(10)).toEqual([10, 11, 12, 13]);
    expect(g.started).toHaveLength(14);
    // Finish the rest in start order, one at a time.
    for (let i = 0; i < 20; i++) {
      const open = g.started.find((item) => g.pending.has(item) && ![9, 3, 0, 7].includes(item));
      if (open === undefined) {
        break;
      }
      g.pending.get(open)!.resolve(`r${open}`);
      g.pending.delete(open);
      await g.settle();
    }
    const outcomes = await done;
    expect(g.max()).toBe(10);
    expect(outcomes).toEqual(items.map((i) => ({ state: 'done', value: `r${i}` })));
  });

  it('reports a failure against its item and carries on with the rest', async () => {
    const outcomes = await runBounded([1, 2, 3], 2, async (n) => {
      if (n === 2) {
        throw new Error('boom');
      }
      return n * 10;
    });
    expect(outcomes).toEqual([
      { state: 'done', value: 10 },
      { state: 'failed', error: new Error('boom') },
      { state: 'done', value: 30 },
    ]);
  });

  it('stops launching when a failure says so, lets calls in flight finish, and marks the rest skipped', async () => {
    const g = gate();
    const done = runBounded([0, 1, 2, 3, 4, 5], 2, g.work, { stopOn: (e) => e instanceof Error && e.message === 'quota' });
    await g.settle();
    expect(g.started).toEqual([0, 1]);
    g.pending.get(0)!.reject(new Error('quota'));
    await g.settle();
    expect(g.started).toEqual([0, 1]); // nothing new launched
    g.pending.get(1)!.resolve('late but fine');
    const outcomes = await done;
    expect(outcomes).toEqual([
      { state: 'failed', error: new Error('quota') },
      { state: 'done', value: 'late but fine' },
      { state: 'skipped' },
      { state: 'skipped' },
      { state: 'skipped' },
      { state: 'skipped' },
    ]);
  });

  it('handles an empty list and a limit above the list length, and refuses a nonsensical limit', async () => {
    expect(await runBounded([], 10, async () => 1)).toEqual([]);
    expect(await runBounded(['a'], 10, async (s) => s.toUpperCase())).toEqual([{ state: 'done', value: 'A' }]);
    await expect(runBounded([1], 0, async () => 1)).rejects.toThrow(RangeError);
  });
});

describe('runBounded with an AbortSignal', () => {
  it('starts nothing new once aborted, lets started work finish and keeps its outcome, and marks the rest cancelled', async () => {
    const g = gate();
    const controller = new AbortController();
    const done = runBounded([0, 1, 2, 3, 4, 5], 2, g.work, { signal: controller.signal });
    await g.settle();
    expect(g.started).toEqual([0, 1]);
    g.pending.get(0)!.resolve('first');
    await g.settle();
    expect(g.started).toEqual([0, 1, 2]);
    controller.abort();
    g.pending.get(1)!.resolve('in flight when cancelled');
    await g.settle();
    expect(g.started).toEqual([0, 1, 2]); // nothing launched after the abort
    g.pending.get(2)!.reject(new Error('late failure'));
    expect(await done).toEqual([
      { state: 'done', value: 'first' },
      { state: 'done', value: 'in flight when cancelled' },
      { state: 'failed', error: new Error('late failure') },
      { state: 'cancelled' },
      { state: 'cancelled' },
      { state: 'cancelled' },
    ]);
  });

  it('an already aborted signal starts nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    let calls = 0;
    const outcomes = await runBounded([1, 2, 3], 2, async () => ++calls, { signal: controller.signal });
    expect(calls).toBe(0);
    expect(outcomes).toEqual([{ state: 'cancelled' }, { state: 'cancelled' }, { state: 'cancelled' }]);
  });
});
