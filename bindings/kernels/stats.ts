/**
 * stats and mergeStats (the stats family, assembly/stats.ts; TS twins in stats-js.ts); histogram() is in
 * histogram.ts, the chunked reading of values both share in stats-values.ts.
 */
import * as js from "./stats-js.js";
import { type StatsOptions, type StatsData, STATS_RESULT, planValues, forEachChunk } from "./stats-values.js";

/** Per-tensor statistics. Non-finite values are counted apart and left out of min, max, sum and the moments. */
export interface TensorStats {
  /** Elements, finite or not. */
  count: number;
  /** Smallest finite value (NaN when there is none). -0 reads as 0. */
  min: number;
  /** Largest finite value (NaN when there is none). */
  max: number;
  /** Sum of the finite values, accumulated in float64. */
  sum: number;
  /** Sum of their squares (float64; from the deviations: m2 + sum * mean, so it is exact to a few ulps). */
  sumSquares: number;
  /** Mean of the finite values (NaN when there is none); kept as a shift plus an offset while summing, so it
   * equals sum / finite to rounding but is exact for constant data. */
  mean: number;
  /**
   * Population standard deviation (divisor: finite, like numpy's std), NaN when finite is 0. Right for any finite
   * float64 values (moments whose squares would overflow or underflow are redone on scaled values), while sum
   * and sumSquares may be ±Inf when the true value is beyond the largest float64.
   */
  std: number;
  /** Elements that are NaN. */
  nan: number;
  /** Elements that are +Infinity. */
  posInf: number;
  /** Elements that are -Infinity. */
  negInf: number;
  /** Elements equal to 0 (+0 and -0). */
  zeros: number;
  /** Finite elements: count - nan - posInf - negInf. */
  finite: number;
}

interface PartialStats {
  count: number;
  finite: number;
  min: number;
  max: number;
  sum: number;
  m2: number;
  shift: number;
  /** mean - shift */
  offset: number;
  nan: number;
  posInf: number;
  negInf: number;
  zeros: number;
}

function partialFrom(r: Float64Array, count: number): PartialStats {
  const nan = r[4]!;
  const posInf = r[5]!;
  const negInf = r[6]!;
  // -0 and +0 compare equal and the lanes see them in another order than a loop would: report 0
  const min = r[0]! === 0 ? 0 : r[0]!;
  const max = r[1]! === 0 ? 0 : r[1]!;
  return {
    count,
    finite: count - nan - posInf - negInf,
    min,
    max,
    sum: r[2]!,
    m2: r[3]!,
    shift: r[8]!,
    offset: r[9]!,
    nan,
    posInf,
    negInf,
    zeros: r[7]!,
  };
}

/** Chan et al.'s pairwise update: the moments of the union of two disjoint sets of values. */
function mergePartial(a: PartialStats, b: PartialStats): PartialStats {
  let { m2, shift, offset } = a;
  if (a.finite === 0) ({ m2, shift, offset } = b);
  else if (b.finite > 0) {
    const n = a.finite + b.finite;
    const delta = b.shift - a.shift + (b.offset - a.offset);
    offset = a.offset + delta * (b.finite / n);
    m2 = a.m2 + b.m2 + delta * delta * (a.finite * (b.finite / n));
  }
  return {
    count: a.count + b.count,
    finite: a.finite + b.finite,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    sum: a.sum + b.sum,
    m2,
    shift,
    offset,
    nan: a.nan + b.nan,
    posInf: a.posInf + b.posInf,
    negInf: a.negInf + b.negInf,
    zeros: a.zeros + b.zeros,
  };
}

const EMPTY_PARTIAL: PartialStats = {
  count: 0,
  finite: 0,
  min: Infinity,
  max: -Infinity,
  sum: 0,
  m2: 0,
  shift: 0,
  offset: 0,
  nan: 0,
  posInf: 0,
  negInf: 0,
  zeros: 0,
};

function finishStats(p: PartialStats): TensorStats {
  const none = p.finite === 0;
  const mean = none ? NaN : p.shift + p.offset;
  return {
    count: p.count,
    min: none ? NaN : p.min,
    max: none ? NaN : p.max,
    sum: p.sum,
    sumSquares: none ? 0 : p.m2 + p.sum * mean,
    mean,
    std: none ? NaN : Math.sqrt(p.m2 / p.finite),
    nan: p.nan,
    posInf: p.posInf,
    negInf: p.negInf,
    zeros: p.zeros,
    finite: p.finite,
  };
}

const chunkResult = new Float64Array(10);

/**
 * count, min, max, sum, sumSquares, mean, std and the NaN / +Inf / -Inf / zero counts of `data`'s values in one
 * streamed pass. float16: pass `{ dtype: "float16" }` with the raw halves; int8 with a scale:
 * `{ scale, offset }` (values (q - offset) * scale, as dequantizeI8 computes them). BigInt64/BigUint64 values
 * are taken as float64 (exact to 2^53) on the TS path.
 */
export function stats(data: StatsData, options?: StatsOptions): TensorStats {
  const plan = planValues(data, options, "stats()");
  let total = EMPTY_PARTIAL;
  forEachChunk(
    data,
    plan,
    (k, home, at, n) => {
      if (plan.wide === "f32") k.statsF32(at, n, STATS_RESULT);
      else k.statsF64(at, n, STATS_RESULT);
      total = mergePartial(total, partialFrom(new Float64Array(home.memory.buffer, STATS_RESULT, 10), n));
    },
    (values, n) => {
      js.statsF64(values, n, chunkResult);
      total = mergePartial(total, partialFrom(chunkResult, n));
    },
  );
  const result = finishStats(total);
  if (plan.wide === "f64" && result.finite > 0) {
    // float64 values beyond ~1e154 overflow the squares (beyond ~1e308 the sums); deviations below ~1e-150
    // underflow them: redo the moments on values scaled by 2^-600 or 2^600 (on the TS path, so both backends
    // agree) and scale back. Deviations that small only occur among values below ~1e-134, so 2^600 is safe.
    const overflow = !(Number.isFinite(result.mean) && Number.isFinite(result.std));
    const underflow = result.std < 1e-140 && result.min !== result.max;
    if (overflow || underflow) {
      const factor = overflow ? 2 ** -600 : 2 ** 600;
      let scaled = EMPTY_PARTIAL;
      forEachChunk(
        data,
        { ...plan, wide: null },
        () => undefined,
        (values, n) => {
          for (let i = 0; i < n; i++) values[i]! *= factor;
          js.statsF64(values, n, chunkResult);
          scaled = mergePartial(scaled, partialFrom(chunkResult, n));
        },
      );
      const moments = finishStats(scaled);
      result.sum = moments.sum / factor;
      result.sumSquares = moments.sumSquares / factor / factor;
      result.mean = moments.mean / factor;
      result.std = moments.std / factor;
    }
  }
  return result;
}

function checkStats(s: TensorStats, what: string): void {
  if (s === null || typeof s !== "object")
    throw new TypeError(
      `tensorfile: mergeStats() takes two TensorStats objects (from kernels.stats), not ${s === null ? "null" : typeof s} as ${what}`,
    );
  for (const key of ["count", "finite", "nan", "posInf", "negInf", "zeros", "sum", "mean", "std"] as const) {
    if (typeof s[key] !== "number")
      throw new TypeError(
        `tensorfile: mergeStats(): ${what}.${key} must be a number (pass what kernels.stats returns)`,
      );
  }
}

/**
 * The statistics of the union of two disjoint parts (chunks, shards, streamed pieces): equal, up to rounding,
 * to stats() of the parts' values together. The moments combine with Chan's formula written for standard
 * deviations, scaled by the largest of the two stds and the means' difference, so values near the largest
 * float64 (std up to ~1e308) merge without overflow.
 */
export function mergeStats(a: TensorStats, b: TensorStats): TensorStats {
  checkStats(a, "a");
  checkStats(b, "b");
  const finite = a.finite + b.finite;
  const merged: TensorStats = {
    count: a.count + b.count,
    min: Math.min(a.finite > 0 ? a.min : Infinity, b.finite > 0 ? b.min : Infinity),
    max: Math.max(a.finite > 0 ? a.max : -Infinity, b.finite > 0 ? b.max : -Infinity),
    sum: a.sum + b.sum,
    sumSquares: a.sumSquares + b.sumSquares,
    mean: NaN,
    std: NaN,
    nan: a.nan + b.nan,
    posInf: a.posInf + b.posInf,
    negInf: a.negInf + b.negInf,
    zeros: a.zeros + b.zeros,
    finite,
  };
  if (finite === 0) {
    merged.min = NaN;
    merged.max = NaN;
    return merged;
  }
  if (a.finite === 0 || b.finite === 0) {
    const only = a.finite === 0 ? b : a;
    merged.mean = only.mean;
    merged.std = only.std;
    return merged;
  }
  const wa = a.finite / finite;
  const wb = b.finite / finite;
  // in halves, so that neither the difference of two means near ±1e308 nor the scale can overflow
  const halfDelta = b.mean / 2 - a.mean / 2;
  merged.mean = Number.isFinite(2 * halfDelta) ? a.mean + 2 * halfDelta * wb : a.mean * wa + b.mean * wb;
  const scale = Math.max(a.std / 2, b.std / 2, Math.abs(halfDelta));
  if (scale === 0) {
    merged.std = 0;
  } else {
    const ra = a.std / 2 / scale;
    const rb = b.std / 2 / scale;
    const rd = halfDelta / scale;
    merged.std = scale * (2 * Math.sqrt(wa * ra * ra + wb * rb * rb + wa * wb * rd * rd));
  }
  return merged;
}
