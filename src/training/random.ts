/**
 * Seeded random numbers for the built-in trainer: weight initialisation (policy/), sampling
 * (worker/) and row shuffles (build-rows) share this one generator, so the policy does not
 * depend on the objective for it.
 */

/** Mulberry32: a small seeded PRNG for shuffles and initialisation (reproducible jobs). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
