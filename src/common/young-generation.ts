import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The bin's `--max-semi-space-size=16`, as V8 reports the young generation: two semi-spaces of 16 MiB. */
export const YOUNG_GENERATION_CAP_BYTES = 2 * 16 * 1024 * 1024;
/** V8's default growth factor of the young generation. */
const GROWTH = 2;

/** Whether the node flags or NODE_OPTIONS already size the young generation: the operator's choice stands. */
export function youngGenerationSized(execArgv: readonly string[], nodeOptions = ''): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((flag) =>
    /^--(?:max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor|max[-_]heap[-_]size)\b/.test(flag),
  );
}

/**
 * Started as `node dist/main.js` (the README recipe, a Nest host's node), the
 * bin's `#!` flag --max-semi-space-size=16 is missing, and V8 — without
 * pointer compression, as Node ships — grows the young generation up to 2 × 64
 * MiB under a burst of long-lived objects (e.g. 1 000 sessions opened at once),
 * RSS the process then keeps: the first 1 000 idle sessions after warm-up cost
 * 46 KiB each instead of ~15 (PRODUCT §10). V8 reads its semi-space maximum
 * once, when the heap is set up, so setting that flag now changes nothing
 * (measured); it reads the growth factor each time it grows the space. So:
 * after each garbage collection, growth is switched off (factor 1) while the
 * next growth would take the young generation past the bin's size, and back
 * on below — never more than the bin's cap (measured: 46 → ~11 KiB a session). Does nothing when the operator's node flags size it.
 */
export function capYoungGeneration(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env.NODE_OPTIONS): void {
  if (youngGenerationSized(execArgv, nodeOptions)) {
    return;
  }
  let capped = false;
  const observer = new PerformanceObserver(() => {
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
    // Off when the next growth would pass the cap (V8's sizes are not always powers of two: 24 MiB would become 48).
    if (young * GROWTH > YOUNG_GENERATION_CAP_BYTES !== capped) {
      capped = !capped;
      setFlagsFromString(`--semi-space-growth-factor=${capped ? 1 : GROWTH}`);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}
