/**
 * Pure-TS twins of the WASM kernels: the fallback for tiny inputs and hosts without WebAssembly SIMD, and
 * the oracle the tests compare the WASM kernels against. Each loop is monomorphic (one typed-array type per
 * function), which keeps V8 from de-optimising them. Results are bit-identical to the WASM kernels.
 */

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** Bits of the f32 equal to a half, NaN quieted with its payload kept (as x86 F16C does). */
export function halfBitsToFloatBits(h: number): number {
  const sign = (h & 0x8000) << 16;
  const em = h & 0x7fff;
  if (em < 0x0400) {
    f32Scratch[0] = em * 5.960464477539063e-8; // em * 2^-24, exact
    return (sign | u32Scratch[0]!) >>> 0;
  }
  let bits = (em << 13) + 0x38000000;
  if (em > 0x7bff) bits += 0x38000000;
  if (em > 0x7c00) bits |= 0x00400000;
  return (sign | bits) >>> 0;
}

/** Half bits nearest to the f32 with bits `x` (ties to even), overflow to Inf, NaN to quiet NaN. */
export function floatBitsToHalfBits(x: number): number {
  const sign = (x >>> 16) & 0x8000;
  x = x & 0x7fffffff;
  let h: number;
  if (x >= 0x47800000) {
    h = x > 0x7f800000 ? 0x7e00 | ((x >>> 13) & 0x3ff) : 0x7c00;
  } else if (x < 0x38800000) {
    // subnormal half: |v| * 2^24 rounded to nearest even integer is the half's mantissa (0x400 = smallest normal)
    u32Scratch[0] = x;
    h = roundHalfEven(f32Scratch[0]! * 16777216);
  } else {
    h = (x + 0xc8000fff + ((x >>> 13) & 1)) >>> 13 & 0xffff;
  }
  return h | sign;
}

export function roundHalfEven(v: number): number {
  const floor = Math.floor(v);
  const diff = v - floor;
  if (diff > 0.5) return floor + 1;
  if (diff < 0.5) return floor;
  return floor % 2 === 0 ? floor : floor + 1;
}

let halfTable: Uint32Array | undefined;
/** The 65,536 f32 bit patterns of every half, built on first use (256 KiB). */
function halfToFloatTable(): Uint32Array {
  if (!halfTable) {
    halfTable = new Uint32Array(65536);
    for (let h = 0; h < 65536; h++) halfTable[h] = halfBitsToFloatBits(h);
  }
  return halfTable;
}

export function f16ToF32(src: Uint16Array, dst: Uint32Array): void {
  const table = halfToFloatTable();
  const n = src.length;
  for (let i = 0; i < n; i++) dst[i] = table[src[i]!]!;
}

export function f32ToF16(src: Uint32Array, dst: Uint16Array): void {
  const n = src.length;
  for (let i = 0; i < n; i++) dst[i] = floatBitsToHalfBits(src[i]!);
}

export function dequantizeI8(src: Int8Array, dst: Float32Array, scale: number, offset: number): void {
  const s = Math.fround(scale);
  const o = Math.fround(offset);
  const n = src.length;
  for (let i = 0; i < n; i++) dst[i] = Math.fround(src[i]! - o) * s;
}

export function quantizeI8(src: Float32Array, dst: Int8Array, scale: number, offset: number): void {
  const s = Math.fround(scale);
  const o = Math.fround(offset);
  const n = src.length;
  for (let i = 0; i < n; i++) {
    const v = roundHalfEven(Math.fround(Math.fround(src[i]! / s) + o));
    dst[i] = v !== v ? 0 : v >= 127 ? 127 : v <= -128 ? -128 : v;
  }
}

export function byteSwap(bytes: Uint8Array, width: 2 | 4 | 8): void {
  const n = bytes.length;
  if (width === 2) {
    for (let i = 0; i < n; i += 2) {
      const a = bytes[i]!;
      bytes[i] = bytes[i + 1]!;
      bytes[i + 1] = a;
    }
  } else {
    const half = width >> 1;
    for (let i = 0; i < n; i += width) {
      for (let k = 0; k < half; k++) {
        const a = bytes[i + k]!;
        bytes[i + k] = bytes[i + width - 1 - k]!;
        bytes[i + width - 1 - k] = a;
      }
    }
  }
}

type Elements = Uint8Array | Uint16Array | Uint32Array;

/** dst[j * dstStride + i] = src[i * srcStride + j] (strides in elements), blocked by 32. */
export function transpose<T extends Elements>(
  src: T, dst: T, rows: number, cols: number, srcStride = cols, dstStride = rows,
): void {
  const block = 32;
  for (let ib = 0; ib < rows; ib += block) {
    const iEnd = Math.min(ib + block, rows);
    for (let jb = 0; jb < cols; jb += block) {
      const jEnd = Math.min(jb + block, cols);
      for (let i = ib; i < iEnd; i++) {
        const s = i * srcStride;
        for (let j = jb; j < jEnd; j++) dst[j * dstStride + i] = src[s + j]!;
      }
    }
  }
}

/** transpose() of IEEE halves widened to f32 bits in the same pass (the fused column-major fp16 -> row-major f32). */
export function transposeF16ToF32(
  src: Uint16Array, dst: Uint32Array, rows: number, cols: number, srcStride = cols, dstStride = rows,
): void {
  const table = halfToFloatTable();
  const block = 32;
  for (let ib = 0; ib < rows; ib += block) {
    const iEnd = Math.min(ib + block, rows);
    for (let jb = 0; jb < cols; jb += block) {
      const jEnd = Math.min(jb + block, cols);
      for (let i = ib; i < iEnd; i++) {
        const s = i * srcStride;
        for (let j = jb; j < jEnd; j++) dst[j * dstStride + i] = table[src[s + j]!]!;
      }
    }
  }
}

/** transpose() for 8-byte elements held as pairs of 32-bit words (no float64 round trip, so NaN bits stay). */
export function transpose64(
  src: Uint32Array, dst: Uint32Array, rows: number, cols: number, srcStride = cols, dstStride = rows,
): void {
  const block = 32;
  for (let ib = 0; ib < rows; ib += block) {
    const iEnd = Math.min(ib + block, rows);
    for (let jb = 0; jb < cols; jb += block) {
      const jEnd = Math.min(jb + block, cols);
      for (let i = ib; i < iEnd; i++) {
        const s = i * srcStride;
        for (let j = jb; j < jEnd; j++) {
          const from = (s + j) * 2;
          const to = (j * dstStride + i) * 2;
          dst[to] = src[from]!;
          dst[to + 1] = src[from + 1]!;
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Narrow floats (safetensors BF16, F8_E4M3, F8_E5M2) to float32: exact. Tables are built on first use from
// the scalar definitions below, which the WASM kernels (assembly/minifloat.ts) match bit for bit.

/** f32 bits of a bfloat16: the 16 bits are the f32's top half (NaN payloads kept). */
export function bf16ToF32(src: Uint16Array, dst: Uint32Array): void {
  const n = src.length;
  for (let i = 0; i < n; i++) dst[i] = src[i]! << 16;
}

/**
 * f32 bits of a float8 e4m3fn byte (1 sign, 4 exponent bits with bias 7, 3 mantissa bits; no infinities;
 * S.1111.111 is NaN and widens to a quiet NaN with the sign kept; subnormals are m × 2^-9).
 */
export function e4m3BitsToFloatBits(x: number): number {
  const sign = (x & 0x80) << 24;
  const em = x & 0x7f;
  if (em === 0x7f) return (sign | 0x7fc00000) >>> 0;
  if (em < 0x08) {
    f32Scratch[0] = em * 0.001953125; // em * 2^-9, exact
    return (sign | u32Scratch[0]!) >>> 0;
  }
  return (sign | ((em << 20) + 0x3c000000)) >>> 0; // exponent re-bias (127 - 7) << 23
}

/**
 * f32 bits of a float8 e5m2 byte (1 sign, 5 exponent bits with bias 15, 2 mantissa bits: the top byte of an
 * IEEE binary16, so infinities and NaNs as there; NaN widens quiet with its payload kept).
 */
export function e5m2BitsToFloatBits(x: number): number {
  return halfBitsToFloatBits(x << 8);
}

let e4m3Table: Uint32Array | undefined;
let e5m2Table: Uint32Array | undefined;

export function f8e4m3ToF32(src: Uint8Array, dst: Uint32Array): void {
  e4m3Table ??= Uint32Array.from({ length: 256 }, (_, x) => e4m3BitsToFloatBits(x));
  const table = e4m3Table;
  const n = src.length;
  for (let i = 0; i < n; i++) dst[i] = table[src[i]!]!;
}

export function f8e5m2ToF32(src: Uint8Array, dst: Uint32Array): void {
  e5m2Table ??= Uint32Array.from({ length: 256 }, (_, x) => e5m2BitsToFloatBits(x));
  const table = e5m2Table;
  const n = src.length;
  for (let i = 0; i < n; i++) dst[i] = table[src[i]!]!;
}

// issue 15 (diff): the TS twin of assembly/diff.ts diffStats, with the same summation order (lane i % 4 for
// i below count & ~3, lanes combined as (l0 + l2) + (l1 + l3), the tail summed in order and added last).

/** What diffStats gives for one run: see assembly/diff.ts. */
export interface DiffStatsResult {
  /** Largest |a - b| over the pairs (NaN opposite NaN counts as equal, opposite a number as Infinity). */
  maxAbs: number;
  /** Largest |a - b| / |b| (Infinity where b is 0 and a is not). */
  maxRel: number;
  /** Pairs outside |a - b| <= atol + rtol * |b|. */
  differing: number;
  /** Sum of a * b over the pairs where both are finite (for the cosine). */
  dot: number;
  /** Sum of a * a over those pairs. */
  normA2: number;
  /** Sum of b * b over those pairs. */
  normB2: number;
}

/**
 * Also serves float64 data (diffTensors' f64 path for dtypes float32 cannot hold exactly): the loop only reads
 * a[i] and b[i] and computes in f64 either way.
 */
export function diffStats(a: ArrayLike<number>, b: ArrayLike<number>, atol: number, rtol: number): DiffStatsResult {
  const n = a.length;
  const dot = [0, 0, 0, 0];
  const normA = [0, 0, 0, 0];
  const normB = [0, 0, 0, 0];
  let tailDot = 0;
  let tailNormA = 0;
  let tailNormB = 0;
  let maxAbs = 0;
  let maxRel = 0;
  let differing = 0;
  const vectorEnd = n & ~3;
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    const ay = Math.abs(y);
    if (!(x === y || (x !== x && y !== y))) {
      let d = Math.abs(x - y);
      if (d !== d) d = Infinity;
      if (!(d < Infinity && d <= atol + rtol * ay)) differing++;
      let rel = d / ay;
      if (rel !== rel) rel = Infinity;
      if (d > maxAbs) maxAbs = d;
      if (rel > maxRel) maxRel = rel;
    }
    const finite = Math.abs(x) < Infinity && ay < Infinity;
    const xm = finite ? x : 0;
    const ym = finite ? y : 0;
    if (i < vectorEnd) {
      const lane = i & 3;
      dot[lane] = dot[lane]! + xm * ym;
      normA[lane] = normA[lane]! + xm * xm;
      normB[lane] = normB[lane]! + ym * ym;
    } else {
      tailDot += xm * ym;
      tailNormA += xm * xm;
      tailNormB += ym * ym;
    }
  }
  const combine = (l: number[], tail: number) => (l[0]! + l[2]!) + (l[1]! + l[3]!) + tail;
  return {
    maxAbs, maxRel, differing,
    dot: combine(dot, tailDot), normA2: combine(normA, tailNormA), normB2: combine(normB, tailNormB),
  };
}

// ==== Statistics and histograms (issue 17): twins of assembly/stats.ts ====
// One twin serves every element type: the wrapper widens each chunk to float64 first (float32, float16 halves,
// dequantized int8 and integers are all exact in float64, and the WASM f32 kernels promote to f64 too), so the
// comparisons, counts and f64 sums below see the same numbers in the same order as the WASM lanes.

/** Eight f64 lane accumulators reduced as the WASM kernel does: ((a0 + a2) + (a4 + a6)) + ((a1 + a3) + (a5 + a7)). */
function laneSum(a: Float64Array): number {
  return ((a[0]! + a[2]!) + (a[4]! + a[6]!)) + ((a[1]! + a[3]!) + (a[5]! + a[7]!));
}

const sumLanes = new Float64Array(8);
const squareLanes = new Float64Array(8);

/**
 * The first `count` values of `src`: writes [min, max, sum, m2, nan, +Inf, -Inf, zeros, K, mean - K] to `out`
 * (see assembly/stats.ts). Like the WASM kernel: first the one-pass sums shifted by the first value, then,
 * when a value is not finite or the shift cost precision, the exact two passes.
 */
export function statsF64(src: Float64Array, count: number, out: Float64Array): void {
  if (count === 0) {
    statsF64Exact(src, count, out);
    return;
  }
  const s = sumLanes;
  const q = squareLanes;
  const k = src[0]!;
  let mn = Infinity;
  let mx = -Infinity;
  let zeros = 0;
  const vectorEnd = count - (count % 8);
  // one lane at a time: lane j sums elements j, j + 8, … in order, as WASM lane j does (and twice as fast in JS
  // as indexing the lane accumulators element by element)
  for (let j = 0; j < 8; j++) {
    let sum = 0;
    let squares = 0;
    for (let i = j; i < vectorEnd; i += 8) {
      const x = src[i]!;
      const d = x - k;
      sum += d;
      squares += d * d;
      if (x < mn) mn = x;
      if (x > mx) mx = x;
      if (x === 0) zeros++;
    }
    s[j] = sum;
    q[j] = squares;
  }
  let s1 = laneSum(s);
  let s2 = laneSum(q);
  for (let i = vectorEnd; i < count; i++) {
    const x = src[i]!;
    const d = x - k;
    s1 += d;
    s2 += d * d;
    if (x < mn) mn = x;
    if (x > mx) mx = x;
    if (x === 0) zeros++;
  }
  const m2 = s2 - s1 * s1 / count;
  if (!(m2 * 256 >= s2) || s1 + s2 - (s1 + s2) !== 0) {
    statsF64Exact(src, count, out);
    return;
  }
  out[0] = mn;
  out[1] = mx;
  out[2] = s1 + count * k;
  out[3] = m2;
  out[4] = 0;
  out[5] = 0;
  out[6] = 0;
  out[7] = zeros;
  out[8] = k;
  out[9] = s1 / count;
}

function statsF64Exact(src: Float64Array, count: number, out: Float64Array): void {
  const lanes = sumLanes;
  let k = 0;
  for (let i = 0; i < count; i++) {
    if (src[i]! - src[i]! === 0) {
      k = src[i]!;
      break;
    }
  }
  let mn = Infinity;
  let mx = -Infinity;
  let nan = 0;
  let posInf = 0;
  let negInf = 0;
  let zeros = 0;
  const vectorEnd = count - (count % 8);
  for (let j = 0; j < 8; j++) {
    let sum = 0;
    for (let i = j; i < vectorEnd; i += 8) {
      const x = src[i]!;
      if (x - x === 0) {
        sum += x - k;
        if (x < mn) mn = x;
        if (x > mx) mx = x;
        if (x === 0) zeros++;
      } else if (x !== x) nan++;
      else if (x > 0) posInf++;
      else negInf++;
    }
    lanes[j] = sum;
  }
  let s1 = laneSum(lanes);
  for (let i = vectorEnd; i < count; i++) {
    const x = src[i]!;
    if (x - x === 0) {
      s1 += x - k;
      if (x < mn) mn = x;
      if (x > mx) mx = x;
      if (x === 0) zeros++;
    } else if (x !== x) nan++;
    else if (x > 0) posInf++;
    else negInf++;
  }
  const finite = count - nan - posInf - negInf;
  let m2 = 0;
  let dmean = 0;
  if (finite > 0) {
    dmean = s1 / finite;
    for (let j = 0; j < 8; j++) {
      let squares = 0;
      for (let i = j; i < vectorEnd; i += 8) {
        const x = src[i]!;
        if (x - x === 0) {
          const e = (x - k) - dmean;
          squares += e * e;
        }
      }
      lanes[j] = squares;
    }
    m2 = laneSum(lanes);
    for (let i = vectorEnd; i < count; i++) {
      const x = src[i]!;
      if (x - x === 0) {
        const e = (x - k) - dmean;
        m2 += e * e;
      }
    }
  }
  out[0] = mn;
  out[1] = mx;
  out[2] = s1 + finite * k;
  out[3] = m2;
  out[4] = nan;
  out[5] = posInf;
  out[6] = negInf;
  out[7] = zeros;
  out[8] = k;
  out[9] = dmean;
}

/**
 * Histogram of the first `count` values of `src`: counts[bin] += 1 for lo <= x <= hi with
 * bin = min(trunc((x * h - loH) * scale), bins - 1); writes [below, above, nan, +Inf, -Inf] to `out`.
 */
export function histogramF64(src: Float64Array, count: number, lo: number, hi: number, h: number, loH: number, scale: number,
  counts: Float64Array, out: Float64Array): void {
  const last = counts.length - 1;
  let below = 0;
  let above = 0;
  let nan = 0;
  let posInf = 0;
  let negInf = 0;
  for (let i = 0; i < count; i++) {
    const x = src[i]!;
    if (x >= lo && x <= hi) {
      const b = Math.trunc((x * h - loH) * scale);
      counts[b > last ? last : b]!++;
    } else if (x < lo) {
      if (x === -Infinity) negInf++;
      else below++;
    } else if (x > hi) {
      if (x === Infinity) posInf++;
      else above++;
    } else nan++;
  }
  out[0] = below;
  out[1] = above;
  out[2] = nan;
  out[3] = posInf;
  out[4] = negInf;
}
