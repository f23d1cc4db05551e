// Preloaded into a server under measurement (node --import): answers "memory"
// on the IPC channel with process.memoryUsage() after a full GC, plus
// `youngPeak`: the most V8 reserved for the young generation (both
// semi-spaces, which RSS keeps once touched) after any collection since the
// last answer. Not part of the product; only bench/ starts a server with it.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0;
let youngPeak = 0;
new PerformanceObserver(() => {
  youngPeak = Math.max(youngPeak, young());
}).observe({ entryTypes: ['gc'] });

process.on('message', (message) => {
  if (message !== 'memory') {
    return;
  }
  globalThis.gc?.();
  globalThis.gc?.();
  process.send?.({ ...process.memoryUsage(), youngPeak: Math.max(youngPeak, young()) });
  youngPeak = 0;
});
// The IPC channel must not keep the server alive on its own.
process.channel?.unref();
