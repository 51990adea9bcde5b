/**
 * kernels.diffStats: the WASM SIMD kernel against its TS twin (bit-identical, every length and alignment), both
 * against an independent f64 reference written here (property tests with fast-check), and the documented
 * semantics of NaN, infinities, signed zeros and tolerances.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import { BACKENDS, withBackend } from "../helpers/backends.js";
import { randomNormal, randomWords } from "../helpers/rng.js";

/** The definition, written as plainly as possible (no lanes, no chunks). */
function reference(a: ArrayLike<number>, b: ArrayLike<number>, atol: number, rtol: number) {
  let maxAbs = 0;
  let maxRel = 0;
  let differing = 0;
  let dot = 0;
  let normA2 = 0;
  let normB2 = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const bothNaN = Number.isNaN(x) && Number.isNaN(y);
    if (x !== y && !bothNaN) {
      const d =
        Number.isNaN(x) || Number.isNaN(y) || !Number.isFinite(x) || !Number.isFinite(y) ? Infinity : Math.abs(x - y);
      if (!(Number.isFinite(d) && d <= atol + rtol * Math.abs(y))) differing++;
      maxAbs = Math.max(maxAbs, d);
      maxRel = Math.max(maxRel, d === Infinity || y === 0 ? Infinity : d / Math.abs(y));
    }
    if (Number.isFinite(x) && Number.isFinite(y)) {
      dot += x * y;
      normA2 += x * x;
      normB2 += y * y;
    }
  }
  return { maxAbs, maxRel, differing, dot, normA2, normB2 };
}

/** Random float32 bit patterns with many specials: NaNs, infinities, zeros, subnormals, equal pairs. */
function nastyPair(seed: number, n: number): [Float32Array, Float32Array] {
  const words = randomWords(seed, 2 * n);
  const a = new Float32Array(n);
  const b = new Float32Array(n);
  const specials = [NaN, Infinity, -Infinity, 0, -0, 1e-45, -1e-45, 3.4e38, 1];
  const aw = new Uint32Array(a.buffer);
  for (let i = 0; i < n; i++) {
    const w = words[i]!;
    const kind = w % 16;
    if (kind < 3) a[i] = specials[w % specials.length]!;
    else aw[i] = words[n + i]! & 0xbfffffff; // finite-ish random bits
    const pick = (w >>> 4) % 8;
    if (pick === 0) b[i] = a[i]!;
    else if (pick === 1) b[i] = specials[(w >>> 8) % specials.length]!;
    else if (pick === 2) b[i] = a[i]! * (1 + 1e-6);
    else b[i] = Math.fround(a[i]! + ((w >>> 12) % 100) / 1000);
  }
  return [a, b];
}

describe.each(BACKENDS)("diffStats semantics (%s)", (backend) => {
  const run = (a: number[], b: number[], atol = 0, rtol = 0) =>
    withBackend(backend, () => kernels.diffStats(new Float32Array(a), new Float32Array(b), atol, rtol));

  it("identical arrays: no difference, cosine inputs", () => {
    const r = run([1, 2, 3, -4, 5], [1, 2, 3, -4, 5]);
    expect(r).toEqual({ maxAbs: 0, maxRel: 0, differing: 0, dot: 55, normA2: 55, normB2: 55 });
  });

  it("NaN opposite NaN is equal; NaN opposite a number is infinitely far", () => {
    expect(run([NaN, 1], [NaN, 1])).toMatchObject({ maxAbs: 0, maxRel: 0, differing: 0, dot: 1 });
    expect(run([NaN, 1], [2, 1])).toMatchObject({
      maxAbs: Infinity,
      maxRel: Infinity,
      differing: 1,
      dot: 1,
      normB2: 1,
    });
    expect(run([3], [NaN])).toMatchObject({ maxAbs: Infinity, differing: 1 });
  });

  it("infinities: equal to themselves, infinitely far from anything else, even with a tolerance", () => {
    expect(run([Infinity, -Infinity], [Infinity, -Infinity])).toMatchObject({ maxAbs: 0, differing: 0, dot: 0 });
    expect(run([Infinity], [-Infinity], 1, 1)).toMatchObject({ maxAbs: Infinity, differing: 1 });
    expect(run([1], [Infinity], 1, 10)).toMatchObject({ maxAbs: Infinity, maxRel: Infinity, differing: 1 });
  });

  it("-0 equals 0; a difference from 0 has an infinite relative size", () => {
    expect(run([-0], [0])).toMatchObject({ maxAbs: 0, differing: 0 });
    expect(run([0.5], [0])).toMatchObject({ maxAbs: 0.5, maxRel: Infinity, differing: 1 });
  });

  it("tolerances: |a - b| <= atol + rtol * |b| is close", () => {
    expect(run([1.5], [1], 0.5)).toMatchObject({ differing: 0, maxAbs: 0.5, maxRel: 0.5 });
    expect(run([1.5], [1], 0.25, 0.25)).toMatchObject({ differing: 0 });
    expect(run([1.5], [1], 0.25, 0.2)).toMatchObject({ differing: 1 });
    expect(run([110], [100], 0, 0.1)).toMatchObject({ differing: 0 });
  });

  it("refuses bad arguments", () => {
    expect(() => kernels.diffStats(new Float32Array(2), new Float32Array(3))).toThrow(RangeError);
    expect(() => kernels.diffStats(new Float32Array(2), new Float32Array(2), -1)).toThrow(RangeError);
    expect(() => kernels.diffStats(new Float64Array(2) as unknown as Float32Array, new Float32Array(2))).toThrow(
      TypeError,
    );
  });
});

describe("diffStats: WASM equals TS, bit for bit", () => {
  it.each([0, 1, 3, 4, 5, 7, 8, 255, 256, 257, 4099, 65535, 65536, 65537, 200_003])(
    "length %i (specials, unaligned views)",
    (n) => {
      const [a, b] = nastyPair(n + 7, n);
      // views at odd element offsets of larger buffers (byte offset 4: aligned for Float32Array, not for 16-byte loads)
      const aBig = new Float32Array(n + 3);
      aBig.set(a, 1);
      const bBig = new Float32Array(n + 5);
      bBig.set(b, 3);
      const av = aBig.subarray(1, 1 + n);
      const bv = bBig.subarray(3, 3 + n);
      for (const [atol, rtol] of [
        [0, 0],
        [1e-3, 1e-2],
      ] as const) {
        const js = withBackend("js", () => kernels.diffStats(av, bv, atol, rtol));
        const wasm = withBackend("wasm", () => kernels.diffStats(av, bv, atol, rtol));
        expect(
          Object.is(wasm.dot, js.dot) && Object.is(wasm.normA2, js.normA2) && Object.is(wasm.normB2, js.normB2),
        ).toBe(true);
        expect(wasm).toEqual(js);
      }
    },
  );

  it("inputs in a kernels.allocate() memory give the same result as ordinary arrays", () => {
    const n = 300_001;
    const [a, b] = nastyPair(99, n);
    const ra = kernels.allocate(Float32Array, n);
    ra.set(a);
    const plain = withBackend("wasm", () => kernels.diffStats(a, b, 1e-4, 0));
    // a in its own memory, b ordinary: streamed through the shared scratch
    expect(withBackend("wasm", () => kernels.diffStats(ra, b, 1e-4, 0))).toEqual(plain);
  });

  it("a large normal tensor against a perturbed copy matches the f64 reference", () => {
    const a = randomNormal(5, 1_000_003);
    const b = a.map((v, i) => (i % 1000 === 0 ? v + 0.01 : v));
    for (const backend of BACKENDS) {
      const r = withBackend(backend, () => kernels.diffStats(a, b, 1e-3, 0));
      const ref = reference(a, b, 1e-3, 0);
      expect(r.differing).toBe(ref.differing);
      expect(r.maxAbs).toBe(ref.maxAbs);
      expect(r.maxRel).toBe(ref.maxRel);
      expect(r.dot).toBeCloseTo(ref.dot, 6);
    }
  });
});

describe("diffStats properties (fast-check, fixed seed)", () => {
  const float = fc.float({ noDefaultInfinity: false, noNaN: false });
  const pairs = fc
    .array(fc.tuple(float, fc.oneof(float, fc.constant(null))), { maxLength: 300 })
    .map((rows) => [rows.map((r) => r[0]), rows.map((r) => (r[1] === null ? r[0] : r[1]))] as const);

  it.each(BACKENDS)("maxima and counts equal the plain definition; sums within f64 rounding (%s)", (backend) => {
    fc.assert(
      fc.property(
        pairs,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        ([xs, ys], atol, rtol) => {
          const a = new Float32Array(xs);
          const b = new Float32Array(ys);
          const r = withBackend(backend, () => kernels.diffStats(a, b, atol, rtol));
          const ref = reference(a, b, atol, rtol);
          expect(r.maxAbs).toBe(ref.maxAbs);
          expect(r.maxRel).toBe(ref.maxRel);
          expect(r.differing).toBe(ref.differing);
          for (const key of ["dot", "normA2", "normB2"] as const) {
            const scale = Math.max(1, ref.normA2 + ref.normB2);
            if (Number.isFinite(ref[key])) expect(Math.abs(r[key] - ref[key])).toBeLessThanOrEqual(scale * 1e-12);
            else expect(r[key]).toBe(ref[key]);
          }
        },
      ),
      { seed: 15, numRuns: 300 },
    );
  });

  it("is symmetric in everything but maxRel and the tolerance's reference", () => {
    fc.assert(
      fc.property(pairs, ([xs, ys]) => {
        const a = new Float32Array(xs);
        const b = new Float32Array(ys);
        const ab = kernels.diffStats(a, b);
        const ba = kernels.diffStats(b, a);
        expect(ba.maxAbs).toBe(ab.maxAbs);
        expect(ba.differing).toBe(ab.differing);
        expect(ba.normA2).toBe(ab.normB2);
      }),
      { seed: 16, numRuns: 200 },
    );
  });
});
