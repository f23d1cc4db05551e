import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import SlowFirstSequencer, { KNOWN } from './support/slow-first-sequencer.mjs';

const ROOT = resolve(import.meta.dirname, '..');

/** What jest hands a sequencer: a path and its context (config, file sizes), and no cached timings. */
function suite(relative: string, bytes: number) {
  return {
    path: join(ROOT, relative),
    context: {
      config: { rootDir: ROOT, cacheDirectory: join(ROOT, 'node_modules', '.cache', 'no-such-jest-cache'), name: 'sequencer-spec' },
      hasteFS: { getSize: () => bytes },
    },
  };
}

describe('the slow-first sequencer (a fresh clone: jest has no timings)', () => {
  it('names only suites that exist, so a renamed suite does not silently lose its place', () => {
    expect(Object.keys(KNOWN).filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('starts the known slow suites first, longest first, whatever their size; then process-level suites before unit ones', () => {
    const tests = [
      suite('src/common/clock.spec.ts', 90_000),
      suite('test/stdio.e2e.spec.ts', 4_000),
      suite('test/replicas-load.e2e.spec.ts', 4_000),
      suite('test/dockerfile.e2e.spec.ts', 9_000),
    ];
    const order = new SlowFirstSequencer({ contexts: [], globalConfig: {} }).sort(tests).map((t) => t.path.slice(ROOT.length + 1));
    expect(order).toEqual([
      'test/dockerfile.e2e.spec.ts',
      'test/replicas-load.e2e.spec.ts',
      'src/common/clock.spec.ts',
      'test/stdio.e2e.spec.ts',
    ]);
  });
});
