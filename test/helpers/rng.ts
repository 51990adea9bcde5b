/** mulberry32: a small seeded PRNG so random tests replay exactly (the seed is in each test's name). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` random 32-bit words. */
export function randomWords(seed: number, n: number): Uint32Array {
  const next = rng(seed);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(next() * 4294967296);
  return out;
}

export function randomBytes(seed: number, n: number): Uint8Array {
  const next = rng(seed);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(next() * 256);
  return out;
}

/** Normally distributed float32 values (Box-Muller), like real weights. */
export function randomNormal(seed: number, n: number, sigma = 1): Float32Array {
  const next = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const u = Math.max(next(), 1e-12);
    out[i] = sigma * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  }
  return out;
}
