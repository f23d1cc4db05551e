// Runs the longest suites first, so that the run does not end with one worker still busy on a
// suite it started late (issue 33: `npm test` within 6 minutes on 2 cores).
//
// Jest's own sequencer knows each suite's duration only from an earlier run on this machine
// (its cache); on a fresh clone, as in CI, it falls back to file size, which says little here: the
// 20-second replica test is one of the shortest files. So a suite jest has no time for is given the
// estimate below when it has one (measured in a whole run; they only need to be right in order of magnitude),
// else a time from its size and kind (a process-level suite starts servers, a unit suite does not).
// A suite that failed last time still goes first, as with jest's own.
import TestSequencerModule from '@jest/test-sequencer';

// A CommonJS module: Node's import gives its `default`, jest's module loader the whole exports object.
const TestSequencer = TestSequencerModule.default ?? TestSequencerModule;

/** Seconds, measured in a whole `npm test` on 2 cores (test/support/slowest-suites-reporter.mjs prints the current ones). */
export const KNOWN = {
  'test/dockerfile.e2e.spec.ts': 45,
  'test/company-backend.e2e.spec.ts': 40,
  'test/property-resolution.e2e.spec.ts': 30,
  'test/replicas-load.e2e.spec.ts': 22,
  'test/config-errors.e2e.spec.ts': 15,
  'test/long-jobs.e2e.spec.ts': 14,
  'test/views.e2e.spec.ts': 14,
  'test/package.e2e.spec.ts': 10,
};

export default class SlowFirstSequencer extends TestSequencer {
  sort(tests) {
    const estimate = (test) => {
      const cached = this.time(test);
      if (cached !== undefined) {
        return cached / 1000;
      }
      const relative = test.path.slice(test.context.config.rootDir.length + 1);
      const bytes = test.context.hasteFS.getSize(test.path) ?? 0;
      return KNOWN[relative] ?? (relative.includes('.e2e.') ? 5 : 1) + bytes / 10_000;
    };
    const key = new Map(tests.map((test) => [test, { failed: this.hasFailed(test), seconds: estimate(test) }]));
    return [...tests].sort((a, b) => {
      const [ka, kb] = [key.get(a), key.get(b)];
      return ka.failed !== kb.failed ? (ka.failed ? -1 : 1) : kb.seconds - ka.seconds;
    });
  }
}
