/**
 * Pure-TS twins of the stats family's kernels (assembly/stats.ts), lane for lane, so both backends give the
 * same bits.
 */

// ==== Statistics and histograms (issue 17): twins of assembly/stats.ts ====
// One twin serves every element type: the wrapper widens each chunk to float64 first (float32, float16 halves,
// dequantized int8 and integers are all exact in float64, and the WASM f32 kernels promote to f64 too), so the
// comparisons, counts and f64 sums below see the same numbers in the same order as the WASM lanes.

/** Eight f64 lane accumulators reduced as the WASM kernel does: ((a0 + a2) + (a4 + a6)) + ((a1 + a3) + (a5 + a7)). */
function laneSum(a: Float64Array): number {
  return a[0]! + a[2]! + (a[4]! + a[6]!) + (a[1]! + a[3]! + (a[5]! + a[7]!));
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
  const m2 = s2 - (s1 * s1) / count;
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
          const e = x - k - dmean;
          squares += e * e;
        }
      }
      lanes[j] = squares;
    }
    m2 = laneSum(lanes);
    for (let i = vectorEnd; i < count; i++) {
      const x = src[i]!;
      if (x - x === 0) {
        const e = x - k - dmean;
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
export function histogramF64(
  src: Float64Array,
  count: number,
  lo: number,
  hi: number,
  h: number,
  loH: number,
  scale: number,
  counts: Float64Array,
  out: Float64Array,
): void {
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
