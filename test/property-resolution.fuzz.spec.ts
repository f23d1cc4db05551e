// Property resolution fuzzed, first depth: the pure resolver
// (src/property/property-match.ts) over seeded account layouts, judged by the
// oracle of test/support/resolution-fuzz.ts (written from PRODUCT.md §7 and
// §8d, not from the code). The allowlist reaches the resolver as the server
// hands it over: GSC_ALLOWED_SITES entries normalised as config.ts does,
// intersected with the person's rule by the policy code. FUZZ_SEED replays a
// run; FUZZ_LAYOUTS changes how many layouts (default 2 000).
// The second depth (through the real server and the emulator) is
// property-resolution.e2e.spec.ts; the 10 000-layout run is `npm run bench -- resolution`.

import { describe, expect, it } from '@jest/globals';
import { normalizeProperty } from '../src/property/property.js';
import { resolveProperty } from '../src/property/property-match.js';
import { intersectSites } from '../src/policy/policy-resolution.js';
import { describeFailure, figuresLine, fuzzSeed, generateLayout, resolverAnswer, runFuzz } from './support/resolution-fuzz.js';

const SEED = fuzzSeed();
const LAYOUTS = Number(process.env.FUZZ_LAYOUTS ?? 2000);

const answer = resolverAnswer({ resolveProperty, intersectSites, normalizeProperty });

describe(`property resolution fuzz, the resolver alone (FUZZ_SEED=${SEED})`, () => {
  it(`${LAYOUTS} layouts: 0 silent wrong picks, every tie asked, refusals name only allowed properties`, () => {
    const { figures, failures } = runFuzz(SEED, LAYOUTS, answer, { oddListings: true });
    process.stdout.write(`property resolution fuzz (resolver): ${figuresLine(figures)}\n`);
    expect(failures.map(describeFailure)).toEqual([]);
    expect(figures.wrongPicks).toBe(0);
    // The layouts exercise every outcome: a run that never asked or never refused proves nothing about them.
    expect(figures.asks).toBeGreaterThan(0);
    expect(figures.matches).toBeGreaterThan(0);
    expect(figures.refusals).toBeGreaterThan(0);
  });

  it('the same seed gives the same layouts (a failure replays with FUZZ_SEED)', () => {
    expect(generateLayout(SEED, 7)).toEqual(generateLayout(SEED, 7));
    expect(generateLayout(SEED, 7)).not.toEqual(generateLayout(SEED, 8));
  });
});
