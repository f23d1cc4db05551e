import { mulberry32 } from '../../src/emulator/emulator-random.js';

/**
 * A seeded generator for a property test: the seed comes from the environment
 * variable `variable` (to repeat a failing run) or is drawn afresh, and is
 * printed either way.
 */
export function seededRandom(variable: string, label: string): { seed: number; random: () => number } {
  const seed = Number(process.env[variable] ?? Math.floor(Math.random() * 2 ** 31));
  process.stderr.write(`${label}: seed ${seed} (${variable}=${seed} repeats it)\n`);
  return { seed, random: mulberry32(seed) };
}
