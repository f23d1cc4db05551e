// Deterministic hashing and a seeded PRNG: everything the emulator invents is
// derived from names and dates, so the same request always gets the same answer.

// A local binding: inside a test runner's vm context a global lookup per call (Math.imul) is several times slower.
const { imul } = Math;

/** FNV-1a, 32 bits. */
export function hashString(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Uniform [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
