/**
 * stats, mergeStats and histogram (the stats family, assembly/stats.ts; TS twins in stats-js.ts).
 */
import {
  type KernelFamily,
  type KernelMemory,
  SCRATCH_BYTES,
  SCRATCH_OFFSET,
  familyModule,
  kernelsIn,
  memoryOf,
} from "../wasm/instance.js";
import { type StatsExports, convertFamily, statsFamily } from "../wasm/families.js";
import { awayFrom, useWasm } from "./backend.js";
import { viewBytes } from "./checks.js";
import * as convertJs from "./convert-js.js";
import * as js from "./stats-js.js";

// ==== Statistics and histograms (issue 17) ====
// stats(), mergeStats() and histogram() over any numeric typed array. Values go through in chunks of
// STATS_CHUNK elements, on both backends alike, so a tensor of any size needs no second copy and the results
// are the same bits whichever backend runs:
// - WASM: each chunk is copied into the scratch area (or used in place when it lives in memory from
//   allocate()), widened there when it is not float32/float64 (float16 halves, int8 with a scale, integers),
//   then reduced by assembly/stats.ts. Scratch layout: raw chunk at +0 (<= 512 KiB), widened chunk at
//   +256 KiB (<= 512 KiB), results at +768 KiB, histogram counters after them.
// - TS: each chunk is widened to float64 and reduced by the twins in stats-js.ts, lane for lane.
// Chunks combine with Chan's formula, so std comes from the sum of squared deviations, never from
// sumSquares - sum^2 / n (which cancels catastrophically when the mean is large next to the spread).

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

/** What the values of a stats()/histogram() array are, where the array type alone does not say. */
export interface StatsOptions {
  /**
   * The element type. Needed only for the narrow floats kept as raw bits: "float16" and "bfloat16" (a
   * Uint16Array), "float8_e4m3" and "float8_e5m2" (a Uint8Array); any other value must match the array ("bool"
   * goes with a Uint8Array), so a NamedTensor's dtype can always be passed along.
   */
  dtype?: string | undefined;
  /** int8 only: the values are (q - offset) * scale, computed in float32 as kernels.dequantizeI8 does. */
  scale?: number | undefined;
  /** int8 only, with or without scale (default 0). */
  offset?: number | undefined;
}

/** A histogram over [lo, hi]: `counts[i]` holds values in [lo + i * w, lo + (i + 1) * w), the last bin also hi. */
export interface Histogram {
  /** Elements per bin, `bins` of them, over [lo, hi] (the last bin includes hi). */
  counts: Float64Array;
  /** Finite values below lo / above hi. */
  below: number;
  /** Finite values above hi. */
  above: number;
  /** NaN values (not in any bin). */
  nan: number;
  /** +Infinity values (not in any bin). */
  posInf: number;
  /** -Infinity values (not in any bin). */
  negInf: number;
  /** The range used: as given, except that lo === hi is widened to a unit-wide (or relatively tiny) range. */
  lo: number;
  /** The upper end of the range used. */
  hi: number;
}

/** The arrays {@link stats} and {@link histogram} take (narrow floats as their raw bits, with the `dtype` option). */
export type StatsData =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

/** Elements per chunk, on both backends (the results depend on it, bit for bit). */
export const STATS_CHUNK = 65536;
const STATS_RAW = SCRATCH_OFFSET;
const STATS_WIDE = SCRATCH_OFFSET + (256 << 10);
const STATS_RESULT = SCRATCH_OFFSET + (768 << 10);
const STATS_COUNTS = STATS_RESULT + 128;
/** Histograms with more bins than fit the scratch (four u32 counters a bin) run on the TS twin. */
export const MAX_WASM_BINS = Math.floor((SCRATCH_OFFSET + SCRATCH_BYTES - STATS_COUNTS) / 16);

/** How one array's values reach the float32/float64 kernels. */
interface ValuePlan {
  /** Bytes per stored element. */
  elementBytes: number;
  /** Which kernel reduces the widened values; null: TS only (64-bit integers). */
  wide: "f32" | "f64" | null;
  /**
   * WASM widening from raw to wide (none for float32/float64), by a kernel of `widenFamily` (stats, or the convert
   * family instantiated on the same memory).
   */
  widen: ((home: KernelMemory, src: number, dst: number, n: number) => void) | null;
  widenFamily?: KernelFamily<unknown> | undefined;
  /** TS: values [start, start + n) as float64 into dst. */
  toF64(start: number, n: number, dst: Float64Array): void;
}

const DTYPE_OF_ARRAY: Record<string, readonly string[]> = {
  Float32Array: ["float32"],
  Float64Array: ["float64"],
  Int8Array: ["int8"],
  Uint8Array: ["uint8", "bool", "float8_e4m3", "float8_e5m2"],
  Uint8ClampedArray: ["uint8"],
  Int16Array: ["int16"],
  Uint16Array: ["uint16", "float16", "bfloat16"],
  Int32Array: ["int32"],
  Uint32Array: ["uint32"],
  BigInt64Array: ["int64"],
  BigUint64Array: ["uint64"],
};

function arrayTypeName(data: unknown): string | undefined {
  if (!ArrayBuffer.isView(data) || data instanceof DataView) return undefined;
  const name = Object.prototype.toString.call(data).slice(8, -1);
  return Object.prototype.hasOwnProperty.call(DTYPE_OF_ARRAY, name) ? name : undefined;
}

let floatBitsChunk: Uint32Array | undefined;
let f32Chunk: Float32Array | undefined;

/** float16, bfloat16 and float8 values: widened to float32 exactly (WASM kernel, or TS twin into float32 bits). */
function narrowFloat<T extends Uint16Array | Uint8Array, E>(
  data: T,
  elementBytes: number,
  widenFamily: KernelFamily<E>,
  widen: (k: E, src: number, dst: number, n: number) => void,
  twin: (src: T, bits: Uint32Array) => void,
): ValuePlan {
  return {
    elementBytes,
    wide: "f32",
    widenFamily,
    widen: (home, s, d, n) => widen(kernelsIn(home, widenFamily), s, d, n),
    toF64: (start, n, dst) => {
      floatBitsChunk ??= new Uint32Array(STATS_CHUNK);
      const bits = floatBitsChunk.subarray(0, n);
      twin(data.subarray(start, start + n) as T, bits);
      dst.set(new Float32Array(bits.buffer, 0, n));
    },
  };
}

function planValues(data: StatsData, options: StatsOptions | undefined, what: string): ValuePlan {
  const type = arrayTypeName(data);
  if (type === undefined) {
    throw new TypeError(
      `tensorfile: ${what} takes a numeric typed array (Float32Array, Float64Array, Uint16Array of float16 halves, Int8Array, …), not ${data === null ? "null" : typeof data === "object" ? ((data as object).constructor?.name ?? "an object") : typeof data}`,
    );
  }
  const dtype = options?.dtype ?? DTYPE_OF_ARRAY[type]![0]!;
  if (!DTYPE_OF_ARRAY[type]!.includes(dtype)) {
    throw new TypeError(
      `tensorfile: ${what}: a ${type} cannot hold dtype ${String(dtype)} (it holds ${DTYPE_OF_ARRAY[type]!.join(" or ")}; float16 halves come as a Uint16Array)`,
    );
  }
  const quantized = options?.scale !== undefined || options?.offset !== undefined;
  if (quantized && dtype !== "int8")
    throw new TypeError(`tensorfile: ${what}: scale and offset apply to int8 data (an Int8Array), not to ${dtype}`);
  const scale = options?.scale ?? 1;
  const offset = options?.offset ?? 0;
  if (
    quantized &&
    (typeof scale !== "number" || typeof offset !== "number" || !Number.isFinite(scale) || !Number.isFinite(offset))
  ) {
    throw new TypeError(
      `tensorfile: ${what}: scale and offset must be finite numbers, not ${String(options?.scale)} and ${String(options?.offset)}`,
    );
  }
  const copyTo = (src: ArrayLike<number>) => (start: number, n: number, dst: Float64Array) => {
    dst.set((src as Float32Array).subarray(start, start + n));
  };
  switch (dtype) {
    case "float32":
      return { elementBytes: 4, wide: "f32", widen: null, toF64: copyTo(data as Float32Array) };
    case "float64":
      return { elementBytes: 8, wide: "f64", widen: null, toF64: copyTo(data as Float64Array) };
    case "float16":
      return narrowFloat(
        data as Uint16Array,
        2,
        convertFamily,
        (k, s, d, n) => k.f16ToF32(s, d, n),
        convertJs.f16ToF32,
      );
    case "bfloat16":
      return narrowFloat(
        data as Uint16Array,
        2,
        convertFamily,
        (k, s, d, n) => k.bf16ToF32(s, d, n),
        convertJs.bf16ToF32,
      );
    case "float8_e4m3":
      return narrowFloat(
        data as Uint8Array,
        1,
        convertFamily,
        (k, s, d, n) => k.f8e4m3ToF32(s, d, n),
        convertJs.f8e4m3ToF32,
      );
    case "float8_e5m2":
      return narrowFloat(
        data as Uint8Array,
        1,
        convertFamily,
        (k, s, d, n) => k.f8e5m2ToF32(s, d, n),
        convertJs.f8e5m2ToF32,
      );
    case "int8": {
      const q = data as Int8Array;
      if (quantized) {
        return {
          elementBytes: 1,
          wide: "f32",
          widenFamily: convertFamily,
          widen: (home, s, d, n) => kernelsIn(home, convertFamily).dequantizeI8(s, d, n, scale, offset),
          toF64: (start, n, dst) => {
            f32Chunk ??= new Float32Array(STATS_CHUNK);
            const values = f32Chunk.subarray(0, n);
            convertJs.dequantizeI8(q.subarray(start, start + n), values, scale, offset);
            dst.set(values);
          },
        };
      }
      return {
        elementBytes: 1,
        wide: "f32",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenI8ToF32(s, d, n),
        toF64: copyTo(q),
      };
    }
    case "uint8":
    case "bool":
      return {
        elementBytes: 1,
        wide: "f32",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenU8ToF32(s, d, n),
        toF64: copyTo(data as Uint8Array),
      };
    case "int16":
      return {
        elementBytes: 2,
        wide: "f32",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenI16ToF32(s, d, n),
        toF64: copyTo(data as Int16Array),
      };
    case "uint16":
      return {
        elementBytes: 2,
        wide: "f32",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenU16ToF32(s, d, n),
        toF64: copyTo(data as Uint16Array),
      };
    case "int32":
      return {
        elementBytes: 4,
        wide: "f64",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenI32ToF64(s, d, n),
        toF64: copyTo(data as Int32Array),
      };
    case "uint32":
      return {
        elementBytes: 4,
        wide: "f64",
        widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenU32ToF64(s, d, n),
        toF64: copyTo(data as Uint32Array),
      };
    default: {
      // 64-bit integers: TS only, as float64 (exact up to 2^53)
      const big = data as BigInt64Array | BigUint64Array;
      return {
        elementBytes: 8,
        wide: null,
        widen: null,
        toF64: (start, n, dst) => {
          for (let i = 0; i < n; i++) dst[i] = Number(big[start + i]!);
        },
      };
    }
  }
}

/**
 * Calls `reduce` for every chunk of `data`'s values: on WASM with the address of the chunk's float32/float64
 * values, else with the values as a Float64Array.
 */
function forEachChunk(
  data: StatsData,
  plan: ValuePlan,
  onWasm: (k: StatsExports, home: KernelMemory, values: number, n: number) => void,
  onJs: (values: Float64Array, n: number) => void,
): void {
  const count = data.length;
  let wasm = plan.wide === null ? null : useWasm(count, statsFamily);
  if (wasm && plan.widenFamily && !familyModule(plan.widenFamily)) wasm = null;
  if (!wasm) {
    const values = new Float64Array(Math.min(STATS_CHUNK, count));
    for (let start = 0; start < count; start += STATS_CHUNK) {
      const n = Math.min(STATS_CHUNK, count - start);
      plan.toF64(start, n, values);
      onJs(values, n);
    }
    return;
  }
  const resident = memoryOf(data.buffer);
  const home = resident ?? wasm;
  const k = kernelsIn(home, statsFamily);
  const bytes = viewBytes(data);
  const size = plan.elementBytes;
  // the raw chunk 2 KiB from the array's offset modulo 4 KiB (backend.ts awayFrom: no 4 KiB-aliased memcpy), where
  // that leaves it clear of the widened chunk at +256 KiB (a chunk of 4-byte integers fills those 256 KiB)
  const raw =
    plan.widen && size * STATS_CHUNK + 4096 > STATS_WIDE - STATS_RAW ? STATS_RAW : awayFrom(STATS_RAW, data.byteOffset);
  const heap = home.bytes;
  for (let start = 0; start < count; start += STATS_CHUNK) {
    const n = Math.min(STATS_CHUNK, count - start);
    let at: number;
    if (resident) {
      at = data.byteOffset + start * size;
    } else {
      heap.subarray(raw, raw + n * size).set(bytes.subarray(start * size, (start + n) * size));
      at = raw;
    }
    if (plan.widen) {
      plan.widen(home, at, STATS_WIDE, n);
      at = STATS_WIDE;
    }
    onWasm(k, home, at, n);
  }
}

/**
 * Statistics of one chunk or more, before the finishing step (min/max still ±Inf when nothing is finite). The
 * mean is kept as shift + offset (the shift: a value of the data), so that merging loses no precision to a
 * large mean and constant data keeps m2 exactly 0.
 */
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

const histogramSpecials = new Float64Array(5);

/**
 * Counts `data`'s finite values in `bins` equal bins over [lo, hi] (finite, lo <= hi): value x goes to bin
 * min(trunc((x - lo) * (bins / (hi - lo))), bins - 1), computed in float64 (for a range wider than the
 * largest float64, with x, lo and hi halved first). Values outside [lo, hi] and non-finite values are counted
 * apart (below, above, nan, posInf, negInf). A range too narrow for that arithmetic (lo === hi, a constant
 * tensor, included) is widened around its middle, as numpy does: the result's lo and hi say what was used.
 * Same options as stats().
 */
export function histogram(data: StatsData, bins: number, lo: number, hi: number, options?: StatsOptions): Histogram {
  const plan = planValues(data, options, "histogram()");
  if (!Number.isInteger(bins) || bins < 1 || bins > 1 << 24)
    throw new RangeError(`tensorfile: histogram() bins must be an integer from 1 to 16777216, not ${String(bins)}`);
  if (typeof lo !== "number" || typeof hi !== "number" || !Number.isFinite(lo) || !Number.isFinite(hi) || !(lo <= hi)) {
    throw new RangeError(
      `tensorfile: histogram() needs finite lo <= hi, not ${String(lo)} and ${String(hi)} (the min and max from stats() will do)`,
    );
  }
  // halve everything when hi - lo overflows (exact: such a range has no subnormal ends)
  const h = Number.isFinite(hi - lo) ? 1 : 0.5;
  if (!Number.isFinite(bins / (hi * h - lo * h)) || hi === lo) {
    const middle = lo / 2 + hi / 2;
    const half = Math.max(0.5, Math.abs(middle) * 2 ** -20);
    lo = Math.max(-Number.MAX_VALUE, middle - half);
    hi = Math.min(Number.MAX_VALUE, middle + half);
  }
  const loH = lo * h;
  const scale = bins / (hi * h - loH);
  const counts = new Float64Array(bins);
  const result: Histogram = { counts, below: 0, above: 0, nan: 0, posInf: 0, negInf: 0, lo, hi };
  const addSpecials = (r: ArrayLike<number>) => {
    result.below += r[0]!;
    result.above += r[1]!;
    result.nan += r[2]!;
    result.posInf += r[3]!;
    result.negInf += r[4]!;
  };
  const onJs = (values: Float64Array, n: number) => {
    js.histogramF64(values, n, lo, hi, h, loH, scale, counts, histogramSpecials);
    addSpecials(histogramSpecials);
  };
  if (bins > MAX_WASM_BINS) {
    forEachChunk(data, { ...plan, wide: null }, () => undefined, onJs);
    return result;
  }
  let home: KernelMemory | undefined;
  forEachChunk(
    data,
    plan,
    (k, instance, at, n) => {
      if (!home) {
        home = instance;
        new Uint32Array(instance.memory.buffer, STATS_COUNTS, bins * 4).fill(0);
      }
      if (plan.wide === "f32") k.histogramF32(at, n, lo, hi, h, loH, scale, bins, STATS_COUNTS, STATS_RESULT);
      else k.histogramF64(at, n, lo, hi, h, loH, scale, bins, STATS_COUNTS, STATS_RESULT);
      addSpecials(new Float64Array(instance.memory.buffer, STATS_RESULT, 5));
    },
    onJs,
  );
  if (home) {
    const lanes = new Uint32Array(home.memory.buffer, STATS_COUNTS, bins * 4);
    for (let b = 0; b < bins; b++)
      counts[b] = lanes[4 * b]! + lanes[4 * b + 1]! + lanes[4 * b + 2]! + lanes[4 * b + 3]!;
  }
  return result;
}
