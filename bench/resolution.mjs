// Property resolution fuzz (PRODUCT.md §10): 10 000 seeded account layouts
// (BENCH_RESOLUTION_LAYOUTS to change) through the built resolver
// (dist/property/property-match.js, with the policy code's allowlist
// intersection and config's normalisation of entries), judged by the oracle of
// test/support/resolution-fuzz.ts, which this script loads as it is (Node's
// type stripping). FUZZ_SEED replays a run; the seed is printed either way.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { dist, ROOT } from './common.mjs';

const LAYOUTS = Number(process.env.BENCH_RESOLUTION_LAYOUTS ?? 10_000);

export async function resolution() {
  const fuzz = await import(pathToFileURL(join(ROOT, 'test/support/resolution-fuzz.ts')).href);
  const { resolveProperty } = await dist('property/property-match.js');
  const { normalizeProperty } = await dist('property/property.js');
  const { intersectSites } = await dist('policy/policy-resolution.js');
  const seed = fuzz.fuzzSeed();
  const answer = fuzz.resolverAnswer({ resolveProperty, intersectSites, normalizeProperty });
  // Warm the code paths first, then time the run (layouts/s counts generation, oracle and resolver together).
  fuzz.runFuzz(seed, 200, answer, { oddListings: true, first: LAYOUTS });
  const { figures, failures } = fuzz.runFuzz(seed, LAYOUTS, answer, { oddListings: true, keep: 3 });
  process.stderr.write(`bench: resolution — ${fuzz.figuresLine(figures)}\n`);
  for (const failure of failures) {
    process.stderr.write(`${fuzz.describeFailure(failure)}\n`);
  }
  const perSecond = Math.round((figures.layouts / figures.ms) * 1000);
  return [
    {
      bar: 'property resolution fuzz (resolver)',
      target: '≥ 10 000 layouts, 0 wrong picks, every tie asked',
      measured:
        `seed ${seed}: ${figures.layouts} layouts, ${figures.calls} calls (${figures.matches} resolved, ${figures.asks} asked, ` +
        `${figures.refusals} refused), ${figures.wrongPicks} wrong picks, ${figures.faults} faults, ${perSecond} layouts/s`,
      verdict: figures.layouts >= 10_000 && figures.faults === 0 ? 'meets' : 'MISSES',
    },
  ];
}
