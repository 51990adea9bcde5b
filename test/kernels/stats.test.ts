import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as kernels from "../../bindings/kernels/index.js";
import { BACKENDS, withBackend } from "../helpers/backends.js";
import { randomNormal, randomWords, rng } from "../helpers/rng.js";

const SEED = 17;

/** The straightforward oracle: a loop over float64 values, the mean first, then squared deviations. */
function oracle(values: ArrayLike<number>) {
  let finite = 0,
    nan = 0,
    posInf = 0,
    negInf = 0,
    zeros = 0,
    min = Infinity,
    max = -Infinity;
  const kept: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (Number.isNaN(x)) nan++;
    else if (x === Infinity) posInf++;
    else if (x === -Infinity) negInf++;
    else {
      finite++;
      kept.push(x);
      if (x < min) min = x;
      if (x > max) max = x;
      if (x === 0) zeros++;
    }
  }
  const sum = kahan(kept);
  const mean = finite > 0 ? sum / finite : NaN;
  const m2 = kahan(kept.map((x) => (x - mean) * (x - mean)));
  return {
    count: values.length,
    finite,
    nan,
    posInf,
    negInf,
    zeros,
    sum,
    mean,
    min: finite > 0 ? min : NaN,
    max: finite > 0 ? max : NaN,
    std: finite > 0 ? Math.sqrt(m2 / finite) : NaN,
    sumSquares: kahan(kept.map((x) => x * x)),
  };
}

function kahan(values: number[]): number {
  let sum = 0,
    c = 0;
  for (const v of values) {
    const y = v - c;
    const t = sum + y;
    c = t - sum - y;
    sum = t;
  }
  return sum;
}

function expectClose(
  actual: number,
  expected: number,
  relative: number,
  what: string,
  scale = Math.abs(expected),
): void {
  if (Number.isNaN(expected)) {
    expect(actual, what).toBeNaN();
    return;
  }
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(
    relative * scale + 1e-300,
  );
}

function expectMatchesOracle(s: kernels.TensorStats, values: ArrayLike<number>, relative = 1e-12): void {
  const o = oracle(values);
  expect({ count: s.count, finite: s.finite, nan: s.nan, posInf: s.posInf, negInf: s.negInf, zeros: s.zeros }).toEqual({
    count: o.count,
    finite: o.finite,
    nan: o.nan,
    posInf: o.posInf,
    negInf: o.negInf,
    zeros: o.zeros,
  });
  expect(s.min).toBe(o.min === 0 ? 0 : o.min);
  expect(s.max).toBe(o.max === 0 ? 0 : o.max);
  const spread = values.length > 0 ? Math.sqrt(o.sumSquares) : 0;
  expectClose(s.sum, o.sum, relative, "sum", spread * Math.sqrt(o.finite));
  expectClose(s.mean, o.mean, relative, "mean", Math.abs(o.mean) + o.std);
  expectClose(s.std, o.std, relative * 10, "std");
  expectClose(s.sumSquares, o.sumSquares, relative, "sumSquares");
}

/** Float32 values with NaN, infinities, zeros of both signs, subnormals and extremes sprinkled in. */
function mixedFloats(seed: number, n: number, specials = 0.01): Float32Array {
  const next = rng(seed);
  const normal = randomNormal(seed + 1, n, 3);
  const pool = [
    NaN,
    Infinity,
    -Infinity,
    0,
    -0,
    1e-45,
    -1e-45,
    3.4028234663852886e38,
    -3.4028234663852886e38,
    1.1754943508222875e-38,
  ];
  for (let i = 0; i < n; i++) if (next() < specials) normal[i] = pool[Math.floor(next() * pool.length)]!;
  return normal;
}

function bitsEqual(a: kernels.TensorStats, b: kernels.TensorStats): void {
  // toEqual compares numbers with Object.is: NaN equals NaN, 0 differs from -0
  expect(a).toEqual(b);
}

describe.each(BACKENDS)("kernels.stats (%s)", (backend) => {
  const stats = (data: kernels.StatsData, options?: kernels.StatsOptions) =>
    withBackend(backend, () => kernels.stats(data, options));

  it("counts NaN, +Inf, -Inf and zeros apart and keeps them out of min, max and the moments", () => {
    const values = new Float32Array([1, NaN, -2, Infinity, 0, -0, -Infinity, 4, NaN, 3]);
    const s = stats(values);
    expect(s).toEqual({
      count: 10,
      finite: 6,
      nan: 2,
      posInf: 1,
      negInf: 1,
      zeros: 2,
      min: -2,
      max: 4,
      sum: 6,
      sumSquares: 30,
      mean: 1,
      std: Math.sqrt((0 + 9 + 1 + 1 + 9 + 4) / 6),
    });
  });

  it("reports NaN for min, max, mean and std when nothing is finite, and an empty array as count 0", () => {
    for (const values of [
      new Float32Array([NaN, Infinity, -Infinity]),
      new Float64Array(0),
      new Float32Array(300).fill(NaN),
    ]) {
      const s = stats(values);
      expect(s.finite).toBe(0);
      expect(s.count).toBe(values.length);
      for (const key of ["min", "max", "mean", "std"] as const) expect(s[key]).toBeNaN();
      expect(s.sum).toBe(0);
      expect(s.sumSquares).toBe(0);
    }
  });

  it("reads -0 as 0 in min and max", () => {
    expect(stats(new Float32Array(1000).fill(-0)).min).toBe(0);
    expect(stats(new Float64Array([-0, 0, -0])).max).toBe(0);
  });

  it.each([0, 1, 7, 8, 9, 255, 256, 4099, 65535, 65536, 65537, 200_003])(
    "float32 and float64, length %i, equal the oracle",
    (n) => {
      const values = mixedFloats(n, n, n % 2 === 0 ? 0.01 : 0);
      expectMatchesOracle(stats(values), values);
      const doubles = Float64Array.from(values, (v, i) => v * (1 + i * 1e-9));
      expectMatchesOracle(stats(doubles), doubles);
    },
  );

  it("float16: every one of the 65,536 halves, as the widened float32 values", () => {
    const halves = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const widened = withBackend("js", () => kernels.f16ToF32(halves));
    const s = stats(halves, { dtype: "float16" });
    bitsEqual(s, stats(widened));
    expect(s.nan).toBe(2 * 1023);
    expect(s.posInf).toBe(1);
    expect(s.negInf).toBe(1);
    expect(s.zeros).toBe(2);
    expect(s.max).toBe(65504);
    expect(s.min).toBe(-65504);
    expectMatchesOracle(s, widened);
  });

  it("bfloat16 and both float8 kinds: every bit pattern, as their widened float32 values", () => {
    const bf16 = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const cases = [
      [bf16, "bfloat16", withBackend("js", () => kernels.bf16ToF32(bf16))],
      [bytes, "float8_e4m3", withBackend("js", () => kernels.f8e4m3ToF32(bytes))],
      [bytes, "float8_e5m2", withBackend("js", () => kernels.f8e5m2ToF32(bytes))],
    ] as const;
    for (const [data, dtype, widened] of cases) {
      const s = stats(data, { dtype });
      bitsEqual(s, stats(widened));
      expectMatchesOracle(s, widened);
      expect(histogram256(data, dtype)).toEqual(withBackend(backend, () => kernels.histogram(widened, 64, -500, 500)));
    }
    // e4m3 has no infinities and two NaNs; e5m2 has both infinities
    expect(stats(bytes, { dtype: "float8_e4m3" })).toMatchObject({
      nan: 2,
      posInf: 0,
      negInf: 0,
      max: 448,
      min: -448,
      zeros: 2,
    });
    expect(stats(bytes, { dtype: "float8_e5m2" })).toMatchObject({
      nan: 6,
      posInf: 1,
      negInf: 1,
      max: 57344,
      zeros: 2,
    });
    expect(() => stats(bf16 as unknown as Uint8Array, { dtype: "float8_e4m3" })).toThrow(TypeError);
  });

  const histogram256 = (data: Uint16Array | Uint8Array, dtype: string) =>
    withBackend(backend, () => kernels.histogram(data, 64, -500, 500, { dtype }));

  it("int8 with scale and offset: the statistics of dequantizeI8's values", () => {
    const q = new Int8Array(randomWords(3, 25_001).buffer, 0, 100_003);
    for (const [scale, offset] of [
      [0.013, -3],
      [2, 127],
      [1e-3, 0.25],
    ] as const) {
      const values = withBackend("js", () => kernels.dequantizeI8(q, scale, offset));
      const s = stats(q, { scale, offset });
      bitsEqual(s, stats(values));
      expectMatchesOracle(s, values);
    }
    expect(stats(q, { offset: 1 }).min).toBe(-129);
  });

  it("integer arrays of every width, exactly", () => {
    const words = randomWords(5, 70_001);
    const arrays = [
      new Int8Array(words.buffer),
      new Uint8Array(words.buffer),
      new Int16Array(words.buffer),
      new Uint16Array(words.buffer),
      new Int32Array(words.buffer),
      new Uint32Array(words.buffer),
      new Uint8ClampedArray(words.buffer),
    ];
    for (const data of arrays) {
      const values = Array.from(data as ArrayLike<number>);
      const s = stats(data);
      expectMatchesOracle(s, values);
      expect(s.min).toBe(values.reduce((a, b) => Math.min(a, b)));
      expect(s.max).toBe(values.reduce((a, b) => Math.max(a, b)));
    }
    const extremes = new Int32Array([-2147483648, 2147483647, 0, 0, -1]);
    expect(stats(extremes)).toMatchObject({ min: -2147483648, max: 2147483647, zeros: 2, sum: -2 });
    const unsigned = new Uint32Array([4294967295, 0, 1]);
    expect(stats(unsigned)).toMatchObject({ min: 0, max: 4294967295, sum: 4294967296 });
  });

  it("64-bit integers as float64", () => {
    const big = BigInt64Array.from([-(2n ** 63n), 0n, 5n, 2n ** 40n]);
    expect(stats(big)).toMatchObject({ count: 4, min: -(2 ** 63), max: 2 ** 40, zeros: 1 });
    const ubig = BigUint64Array.from([2n ** 64n - 1n, 1n, 2n]);
    const u = stats(ubig);
    expect(u).toMatchObject({ min: 1, max: 2 ** 64 });
    expectClose(u.mean, 2 ** 64 / 3, 1e-15, "mean");
  });

  it("bool and uint8 dtypes go with a Uint8Array; a dtype the array cannot hold is a TypeError", () => {
    expect(stats(new Uint8Array([1, 0, 1]), { dtype: "bool" })).toMatchObject({ sum: 2, zeros: 1 });
    expect(() => stats(new Float32Array(3), { dtype: "float16" })).toThrow(TypeError);
    expect(() => stats(new Uint16Array(3), { dtype: "int16" })).toThrow(/cannot hold dtype int16/);
    expect(() => stats(new Float32Array(3), { scale: 2 })).toThrow(/int8/);
    expect(() => stats(new Int8Array(3), { scale: NaN })).toThrow(TypeError);
    expect(() => stats([1, 2, 3] as unknown as Float32Array)).toThrow(/typed array/);
    expect(() => stats(new DataView(new ArrayBuffer(8)) as unknown as Float32Array)).toThrow(TypeError);
  });

  it("Node Buffers at odd offsets and arrays over ArrayBuffers at offsets give the statistics of their copies", () => {
    const pool = Buffer.from(randomWords(8, 40_000).buffer);
    const odd = pool.subarray(3, 3 + 100_001);
    bitsEqual(stats(odd), stats(new Uint8Array(odd)));
    const q = new Int8Array(pool.buffer, pool.byteOffset + 5, 70_001);
    bitsEqual(stats(q, { scale: 0.5, offset: 1 }), stats(new Int8Array(q), { scale: 0.5, offset: 1 }));
    const floats = new Float32Array(mixedFloats(9, 70_004).buffer, 8, 70_000);
    bitsEqual(stats(floats), stats(new Float32Array(floats)));
  });

  it("std stays exact to 1e-12 when the mean is 1e8 times the spread (sumSquares - sum^2/n would give garbage)", () => {
    // x = 1e8 + j / 1024 for random integers j: exact in float64, so the exact variance comes from BigInt sums
    const n = 1_000_003;
    const next = rng(11);
    const values = new Float64Array(n);
    let sumJ = 0n,
      sumJ2 = 0n;
    for (let i = 0; i < n; i++) {
      const j = Math.floor(next() * 2048) - 1024;
      values[i] = 1e8 + j / 1024;
      sumJ += BigInt(j);
      sumJ2 += BigInt(j) * BigInt(j);
    }
    const N = BigInt(n);
    // variance = (n sumJ2 - sumJ^2) / n^2 / 1024^2, computed from exact integers
    const variance = Number(N * sumJ2 - sumJ * sumJ) / Number(N * N) / (1024 * 1024);
    const exactStd = Math.sqrt(variance);
    const exactMean = 1e8 + Number(sumJ) / n / 1024;
    const s = stats(values);
    expectClose(s.std, exactStd, 1e-12, "std");
    expectClose(s.mean, exactMean, 1e-15, "mean");
    // the textbook one-pass formula from the same sums is far off: this test can tell the two apart
    const naive = Math.sqrt(Math.max(0, s.sumSquares / n - s.mean * s.mean));
    expect(Math.abs(naive - exactStd) / exactStd).toBeGreaterThan(1e-6);
    // float32 data with a large mean: 1e4 + small steps
    const floats = Float32Array.from({ length: 300_001 }, (_, i) => 10000 + ((i * 7919) % 64) / 64);
    expectMatchesOracle(stats(floats), floats, 1e-13);
  });

  it("a chunk that starts with an outlier (the shifted one-pass sums would cancel) still gives the exact std", () => {
    const values = new Float64Array(kernels.STATS_CHUNK * 2 + 5);
    const next = rng(12);
    for (let i = 0; i < values.length; i++) values[i] = next();
    values[0] = 1e9;
    values[kernels.STATS_CHUNK] = -1e12;
    expectMatchesOracle(stats(values), values, 1e-12);
  });

  it("float64 values whose squares or sums overflow still get a finite mean and std", () => {
    const values = new Float64Array(1000).map((_, i) => ((i % 3) - 1) * 1.5e308 + i);
    const s = stats(values);
    // exact: 334 values -1.5e308, 333 near 0, 333 values +1.5e308 (the added i are lost to rounding)
    expectClose(s.mean, -1.5e308 / 1000, 1e-12, "mean", 1.5e308);
    expectClose(s.std, 1.5e308 * Math.sqrt(0.667 - 1e-6), 1e-12, "std");
    expect(s.sumSquares).toBe(Infinity);
    expectClose(s.sum, -1.5e308, 1e-12, "sum", 667 * 1.5e308); // relative to the sum of |x|
  });

  it("float64 values so small that their squared deviations underflow still get their std", () => {
    const values = Float64Array.from([0, -5e-323, 1e-160, 3e-160, -2e-160]);
    const s = stats(values);
    const mean = (1e-160 + 3e-160 - 2e-160 - 5e-323) / 5;
    const std = Math.sqrt(values.reduce((a, v) => a + ((v - mean) * 2 ** 600) ** 2, 0) / 5) / 2 ** 600;
    expectClose(s.mean, mean, 1e-12, "mean");
    expectClose(s.std, std, 1e-12, "std");
    expect(stats(Float64Array.from([0, -5e-323])).std).toBe(2.5e-323);
    expect(stats(new Float64Array(10).fill(1e-300)).std).toBe(0);
  });

  it("kernels.allocate() arrays are reduced in place, with the same results", () => {
    const values = mixedFloats(13, 150_001);
    const resident = kernels.allocate(Float32Array, values.length);
    resident.set(values);
    bitsEqual(stats(resident), stats(values));
    const halves = withBackend("js", () => kernels.f32ToF16(values));
    const residentHalves = kernels.allocate(Uint16Array, halves.length);
    residentHalves.set(halves);
    bitsEqual(stats(residentHalves, { dtype: "float16" }), stats(halves, { dtype: "float16" }));
  });
});

describe("kernels.stats: WASM equals TS, bit for bit", () => {
  const both = (data: kernels.StatsData, options?: kernels.StatsOptions) => {
    const js = withBackend("js", () => kernels.stats(data, options));
    const wasm = withBackend("wasm", () => kernels.stats(data, options));
    expect(wasm).toEqual(js);
  };

  it.each([0, 1, 8, 15, 16, 17, 255, 256, 257, 65535, 65536, 65537, 131_079, 300_001])(
    "every element type, length %i",
    (n) => {
      const floats = mixedFloats(n + 7, n, 0.002);
      both(floats);
      both(Float64Array.from(floats, (v, i) => v * 1.000001 + i));
      both(
        withBackend("js", () => kernels.f32ToF16(floats)),
        { dtype: "float16" },
      );
      both(new Uint16Array(randomWords(n + 5, Math.ceil(n / 2) + 1).buffer, 0, n), { dtype: "bfloat16" });
      both(new Uint8Array(randomWords(n + 6, Math.ceil(n / 4) + 1).buffer, 1, n), { dtype: "float8_e4m3" });
      both(new Uint8Array(randomWords(n + 7, Math.ceil(n / 4) + 1).buffer, 3, n), { dtype: "float8_e5m2" });
      const words = randomWords(n + 3, Math.ceil(n / 4) + 1);
      const q = new Int8Array(words.buffer, 1, n);
      both(q);
      both(q, { scale: 0.037, offset: -5 });
      both(new Uint8Array(words.buffer, 2, n));
      both(new Int16Array(randomWords(n, Math.ceil(n / 2) + 1).buffer, 2, n));
      both(new Uint16Array(randomWords(n, Math.ceil(n / 2) + 1).buffer, 0, n));
      both(new Int32Array(randomWords(n + 1, n)));
      both(new Uint32Array(randomWords(n + 2, n)));
    },
  );

  it("random float arrays with specials (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.float(), fc.constantFrom(NaN, Infinity, -Infinity, 0, -0, 1e30, -1e30)), {
          maxLength: 2000,
        }),
        fc.integer({ min: 0, max: 600 }),
        (list, repeat) => {
          const values = new Float32Array(list.length + repeat);
          values.set(list);
          values.fill(list[0] ?? 1.5, list.length);
          both(values);
          both(new Float64Array(values));
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });
});

describe("kernels.mergeStats", () => {
  it("merging the stats of two parts equals the stats of the whole (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constantFrom(NaN, Infinity, -Infinity, 0)),
          { maxLength: 3000 },
        ),
        fc.nat(),
        fc.double({ min: -1e9, max: 1e9, noNaN: true }),
        (list, cut, shift) => {
          const values = Float64Array.from(list, (v) => v + shift);
          const at = list.length === 0 ? 0 : cut % (list.length + 1);
          const merged = kernels.mergeStats(kernels.stats(values.subarray(0, at)), kernels.stats(values.subarray(at)));
          const whole = kernels.stats(values);
          for (const key of ["count", "finite", "nan", "posInf", "negInf", "zeros", "min", "max"] as const) {
            expect(merged[key]).toEqual(whole[key]);
          }
          if (whole.finite === 0) {
            for (const key of ["mean", "std"] as const) expect(merged[key]).toBeNaN();
            return;
          }
          const scale = Math.abs(whole.mean) + whole.std;
          expectClose(merged.mean, whole.mean, 1e-12, "mean", scale);
          expectClose(merged.sum, whole.sum, 1e-12, "sum", Math.sqrt(whole.sumSquares * whole.finite));
          // std: relative to itself, plus the ulp of the mean that any float64 mean carries
          // (and a few subnormals: halving the difference of two subnormal means rounds)
          expect(Math.abs(merged.std - whole.std)).toBeLessThanOrEqual(
            1e-7 * whole.std + 1e-14 * scale + 4 * Number.MIN_VALUE,
          );
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
  });

  it("merges many streamed chunks into the stats of the whole", () => {
    const values = mixedFloats(21, 1_000_000, 0.001);
    let total = kernels.stats(new Float32Array(0));
    for (let at = 0; at < values.length; at += 12_345)
      total = kernels.mergeStats(total, kernels.stats(values.subarray(at, at + 12_345)));
    expectMatchesOracle(total, values, 1e-11);
  });

  it("merges parts whose values are near the largest float64 without overflow", () => {
    const values = new Float64Array(1000).map((_, i) => ((i % 3) - 1) * 1.5e308);
    const whole = kernels.stats(values);
    expect(Number.isFinite(whole.std)).toBe(true);
    const merged = kernels.mergeStats(kernels.stats(values.subarray(0, 400)), kernels.stats(values.subarray(400)));
    expectClose(merged.std, whole.std, 1e-12, "std");
    expectClose(merged.mean, whole.mean, 1e-12, "mean", 1.5e308);
    const apart = kernels.mergeStats(
      kernels.stats(new Float64Array([-1.7e308])),
      kernels.stats(new Float64Array([1.7e308])),
    );
    expect(apart.mean).toBe(0);
    expect(apart.std).toBe(1.7e308);
    expect(kernels.mergeStats(kernels.stats(new Float32Array([2, 2])), kernels.stats(new Float32Array([2]))).std).toBe(
      0,
    );
  });

  it("refuses what is not a TensorStats", () => {
    const s = kernels.stats(new Float32Array([1]));
    expect(() => kernels.mergeStats(s, null as unknown as kernels.TensorStats)).toThrow(TypeError);
    expect(() => kernels.mergeStats({ ...s, count: "1" } as unknown as kernels.TensorStats, s)).toThrow(/count/);
  });
});

/** The histogram oracle: the documented bin formula, one value at a time. */
function histogramOracle(values: ArrayLike<number>, bins: number, lo: number, hi: number) {
  const counts = new Float64Array(bins);
  let below = 0,
    above = 0,
    nan = 0,
    posInf = 0,
    negInf = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (Number.isNaN(x)) nan++;
    else if (x === Infinity) posInf++;
    else if (x === -Infinity) negInf++;
    else if (x < lo) below++;
    else if (x > hi) above++;
    else counts[Math.min(bins - 1, Math.floor((x - lo) * (bins / (hi - lo))))]!++;
  }
  return { counts, below, above, nan, posInf, negInf, lo, hi };
}

describe.each(BACKENDS)("kernels.histogram (%s)", (backend) => {
  const histogram = (data: kernels.StatsData, bins: number, lo: number, hi: number, options?: kernels.StatsOptions) =>
    withBackend(backend, () => kernels.histogram(data, bins, lo, hi, options));

  it.each([0, 1, 9, 256, 65537, 200_001])("float32 and float64 with specials, length %i, equal the oracle", (n) => {
    const values = mixedFloats(n + 30, n, 0.02);
    for (const [bins, lo, hi] of [
      [64, -3, 3],
      [1, -1, 1],
      [255, -10, 0.5],
      [7, 2, 2.5],
    ] as const) {
      expect(histogram(values, bins, lo, hi)).toEqual(histogramOracle(values, bins, lo, hi));
      const doubles = new Float64Array(values);
      expect(histogram(doubles, bins, lo, hi)).toEqual(histogramOracle(doubles, bins, lo, hi));
    }
  });

  it("puts hi in the last bin, lo in the first, and counts every element once", () => {
    const h = histogram(new Float32Array([0, 1, 0.5, 0.25, 0.75, -0.1, 1.1, NaN]), 4, 0, 1);
    expect(Array.from(h.counts)).toEqual([1, 1, 1, 2]);
    expect(h).toMatchObject({ below: 1, above: 1, nan: 1, posInf: 0, negInf: 0 });
  });

  it("float16, int8 with scale and integers bin their values", () => {
    const halves = Uint16Array.from({ length: 65536 }, (_, i) => i);
    const widened = withBackend("js", () => kernels.f16ToF32(halves));
    expect(histogram(halves, 100, -70000, 70000, { dtype: "float16" })).toEqual(
      histogramOracle(widened, 100, -70000, 70000),
    );
    const q = new Int8Array(randomWords(4, 5000).buffer, 1, 19_000);
    const deq = withBackend("js", () => kernels.dequantizeI8(q, 0.5, 3));
    expect(histogram(q, 33, -60, 60, { scale: 0.5, offset: 3 })).toEqual(histogramOracle(deq, 33, -60, 60));
    const ints = new Int32Array(randomWords(6, 10_000));
    expect(histogram(ints, 10, -2e9, 2e9)).toEqual(histogramOracle(ints, 10, -2e9, 2e9));
    const u16 = new Uint16Array(randomWords(7, 5000).buffer);
    expect(histogram(u16, 256, 0, 65535)).toEqual(histogramOracle(u16, 256, 0, 65535));
  });

  it("widens lo === hi (a constant tensor) to a range around the value", () => {
    const h = histogram(new Float32Array(1000).fill(3), 5, 3, 3);
    expect(h.lo).toBe(2.5);
    expect(h.hi).toBe(3.5);
    expect(Array.from(h.counts)).toEqual([0, 0, 1000, 0, 0]);
    const big = histogram(new Float64Array([1e300]), 3, 1e300, 1e300);
    expect(big.lo).toBeLessThan(1e300);
    expect(big.counts[1]).toBe(1);
  });

  it("bins ranges wider than the largest float64, and widens ranges too narrow to divide", () => {
    const wide = histogram(new Float64Array([-1.7e308, 0, 1.7e308, 1e308, -Infinity]), 3, -1.7e308, 1.7e308);
    expect(Array.from(wide.counts)).toEqual([1, 1, 2]);
    expect(wide.negInf).toBe(1);
    const narrow = histogram(new Float64Array([0, 5e-324, 5e-324]), 2, 0, 5e-324);
    expect(narrow.lo).toBe(-0.5);
    expect(narrow.hi).toBe(0.5);
    expect(Array.from(narrow.counts)).toEqual([0, 3]);
  });

  it("more bins than fit the WASM scratch run on TS with the same counts", () => {
    const values = randomNormal(15, 50_000);
    const bins = kernels.MAX_WASM_BINS + 10;
    expect(histogram(values, bins, -4, 4)).toEqual(histogramOracle(values, bins, -4, 4));
  });

  it("refuses bad bins and ranges with a RangeError", () => {
    const values = new Float32Array(4);
    expect(() => histogram(values, 0, 0, 1)).toThrow(RangeError);
    expect(() => histogram(values, 2.5, 0, 1)).toThrow(RangeError);
    expect(() => histogram(values, 4, 1, 0)).toThrow(/lo <= hi/);
    expect(() => histogram(values, 4, NaN, 1)).toThrow(RangeError);
    expect(() => histogram(values, 4, 0, Infinity)).toThrow(RangeError);
  });
});

describe("kernels.histogram: WASM equals TS", () => {
  it("float32 values at the float32 neighbours of bounds that are not float32 (the kernel tests the range in float32)", () => {
    const bits = new Uint32Array(1);
    const f32 = new Float32Array(bits.buffer);
    /** x and the float32 values up to 3 steps either side of fround(x). */
    const around = (x: number) => {
      f32[0] = x;
      const at = bits[0]!;
      const out: number[] = [];
      for (let d = -3; d <= 3; d++) {
        bits[0] = (at + d) >>> 0;
        out.push(f32[0]);
      }
      return out;
    };
    const ranges: [number, number][] = [
      [0.1, 0.3],
      [-0.3, -0.1],
      [-1e-300, 1e-300],
      [1e-300, 1e-45],
      [-3.5e38, 3.5e38],
      [3.4028235677973366e38, 3.5e38],
      [-1.7e308, 1.7e308],
      [-0, 2 ** -149],
    ];
    for (const [lo, hi] of ranges) {
      const edges = [...around(lo), ...around(hi), 0, -0, 3.4028234663852886e38, -3.4028234663852886e38, 2 ** -149];
      // every edge value alone in a vector of in-range values, and all of them packed together
      const inside = Math.fround(lo / 2 + hi / 2);
      const values: number[] = [];
      for (const e of edges) values.push(inside, e, inside, inside);
      values.push(...edges, Infinity, -Infinity, NaN, inside);
      const data = Float32Array.from(values);
      for (const bins of [1, 3, 256]) {
        const want = histogramOracle(data, bins, lo, hi);
        const js = withBackend("js", () => kernels.histogram(data, bins, lo, hi));
        const wasm = withBackend("wasm", () => kernels.histogram(data, bins, lo, hi));
        expect(wasm, `${lo} ${hi} ${bins}`).toEqual(js);
        if (Number.isFinite(hi - lo) && hi > lo) expect(wasm, `${lo} ${hi} ${bins} oracle`).toEqual(want);
      }
    }
  });

  it("random values and ranges (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.float(), fc.constantFrom(NaN, Infinity, -Infinity, 0, -0)), { maxLength: 3000 }),
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: -100, max: 100, noNaN: true }),
        fc.double({ min: 0, max: 1000, noNaN: true }),
        (list, bins, lo, width) => {
          const values = Float32Array.from(list);
          const js = withBackend("js", () => kernels.histogram(values, bins, lo, lo + width));
          const wasm = withBackend("wasm", () => kernels.histogram(values, bins, lo, lo + width));
          expect(wasm).toEqual(js);
        },
      ),
      { seed: SEED, numRuns: 150 },
    );
  });
});
