// diffStats: compares two float32 arrays element by element in f64 (issue 15: `tensorfile diff`, diffTensors).
//
// Per element x = a[i], y = b[i], widened to f64:
//   same       x == y (inf == inf, -0 == 0) or both NaN: distance 0, never differing
//   d          |x - y|; a NaN opposite a number (or inf opposite anything else) is +inf
//   differing  not same, and not (d < inf and d <= atol + rtol * |y|)   (numpy.isclose with b as reference)
//   rel        d / |y|: +inf when y == 0 and d > 0, or when d is +inf
//   dot, normA2, normB2: sums of x*y, x*x, y*y over the pairs where both are finite
// Writes six f64 to `out`: maxAbs, maxRel, differing, dot, normA2, normB2.
//
// Summation order, so that the TS twin is bit-identical: element i (below count & ~3) goes to lane i % 4;
// the lanes are combined as (l0 + l2) + (l1 + l3); the remaining count % 4 elements are summed in order into
// one more accumulator that is added last. Maxima and counts do not depend on the order.

const DIFF_CONSTANTS = memory.data<u64>([
  0x7ff0000000000000, 0x7ff0000000000000, // 0: +inf
], 16);

// @ts-ignore: decorator
@inline
function sameMask(x: v128, y: v128): v128 {
  return v128.or(f64x2.eq(x, y), v128.and(f64x2.ne(x, x), f64x2.ne(y, y)));
}

// @ts-ignore: decorator
@inline
function distance(x: v128, y: v128, same: v128, inf: v128): v128 {
  const d = f64x2.abs(f64x2.sub(x, y));
  return v128.andnot(v128.bitselect(inf, d, f64x2.ne(d, d)), same);
}

/** All ones where the pair is not close (and not the same). */
// @ts-ignore: decorator
@inline
function differingMask(d: v128, ay: v128, same: v128, inf: v128, vAtol: v128, vRtol: v128): v128 {
  const close = v128.and(f64x2.le(d, f64x2.add(vAtol, f64x2.mul(vRtol, ay))), f64x2.lt(d, inf));
  return v128.not(v128.or(close, same));
}

// @ts-ignore: decorator
@inline
function relative(d: v128, ay: v128, same: v128, inf: v128): v128 {
  const rel = f64x2.div(d, ay);
  return v128.andnot(v128.bitselect(inf, rel, f64x2.ne(rel, rel)), same);
}

/** All ones where both are finite. */
// @ts-ignore: decorator
@inline
function finiteMask(x: v128, ay: v128, inf: v128): v128 {
  return v128.and(f64x2.lt(f64x2.abs(x), inf), f64x2.lt(ay, inf));
}

// @ts-ignore: decorator
@inline
function laneSum(low: v128, high: v128, tail: f64): f64 {
  const s = f64x2.add(low, high);
  return (f64x2.extract_lane(s, 0) + f64x2.extract_lane(s, 1)) + tail;
}

/** Sums of x*y, x*x, y*y over the finite pairs only (the second pass when the plain sums came out non-finite). */
function maskedSums(a: usize, b: usize, count: usize, inf: v128, out: usize): void {
  let dotLow = f64x2.splat(0), dotHigh = f64x2.splat(0);
  let normALow = f64x2.splat(0), normAHigh = f64x2.splat(0);
  let normBLow = f64x2.splat(0), normBHigh = f64x2.splat(0);
  const vectorEnd = count & ~(<usize>3);
  let i: usize = 0;
  for (; i < vectorEnd; i += 4) {
    const a4 = v128.load(a + (i << 2));
    const b4 = v128.load(b + (i << 2));
    const x0 = f64x2.promote_low_f32x4(a4);
    const y0 = f64x2.promote_low_f32x4(b4);
    const finite0 = finiteMask(x0, f64x2.abs(y0), inf);
    const xm0 = v128.and(x0, finite0), ym0 = v128.and(y0, finite0);
    dotLow = f64x2.add(dotLow, f64x2.mul(xm0, ym0));
    normALow = f64x2.add(normALow, f64x2.mul(xm0, xm0));
    normBLow = f64x2.add(normBLow, f64x2.mul(ym0, ym0));
    const x1 = f64x2.promote_low_f32x4(v128.shuffle<f32>(a4, a4, 2, 3, 2, 3));
    const y1 = f64x2.promote_low_f32x4(v128.shuffle<f32>(b4, b4, 2, 3, 2, 3));
    const finite1 = finiteMask(x1, f64x2.abs(y1), inf);
    const xm1 = v128.and(x1, finite1), ym1 = v128.and(y1, finite1);
    dotHigh = f64x2.add(dotHigh, f64x2.mul(xm1, ym1));
    normAHigh = f64x2.add(normAHigh, f64x2.mul(xm1, xm1));
    normBHigh = f64x2.add(normBHigh, f64x2.mul(ym1, ym1));
  }
  let tailDot: f64 = 0, tailNormA: f64 = 0, tailNormB: f64 = 0;
  for (; i < count; i++) {
    const x = <f64>load<f32>(a + (i << 2));
    const y = <f64>load<f32>(b + (i << 2));
    const finite = Math.abs(x) < Infinity && Math.abs(y) < Infinity;
    const xm = finite ? x : 0;
    const ym = finite ? y : 0;
    tailDot += xm * ym;
    tailNormA += xm * xm;
    tailNormB += ym * ym;
  }
  store<f64>(out, laneSum(dotLow, dotHigh, tailDot), 24);
  store<f64>(out, laneSum(normALow, normAHigh, tailNormA), 32);
  store<f64>(out, laneSum(normBLow, normBHigh, tailNormB), 40);
}

// The sums are first taken over every pair, unmasked: products of two float32 cannot overflow f64, so they come
// out finite exactly when every value is finite, and then they equal the masked sums (same order). Otherwise a
// second pass (maskedSums) takes them over the finite pairs. Pairs of four that are all equal skip the distance
// work (the common case when comparing a file with a lightly changed copy).
export function diffStats(a: usize, b: usize, count: usize, atol: f64, rtol: f64, out: usize): void {
  const inf = v128.load(DIFF_CONSTANTS);
  const vAtol = f64x2.splat(atol);
  const vRtol = f64x2.splat(rtol);
  let maxAbs = f64x2.splat(0), maxRel = f64x2.splat(0);
  let differing = i64x2.splat(0);
  let dotLow = f64x2.splat(0), dotHigh = f64x2.splat(0);
  let normALow = f64x2.splat(0), normAHigh = f64x2.splat(0);
  let normBLow = f64x2.splat(0), normBHigh = f64x2.splat(0);
  const vectorEnd = count & ~(<usize>3);
  let i: usize = 0;
  for (; i < vectorEnd; i += 4) {
    const a4 = v128.load(a + (i << 2));
    const b4 = v128.load(b + (i << 2));
    const x0 = f64x2.promote_low_f32x4(a4);
    const y0 = f64x2.promote_low_f32x4(b4);
    const x1 = f64x2.promote_low_f32x4(v128.shuffle<f32>(a4, a4, 2, 3, 2, 3));
    const y1 = f64x2.promote_low_f32x4(v128.shuffle<f32>(b4, b4, 2, 3, 2, 3));
    dotLow = f64x2.add(dotLow, f64x2.mul(x0, y0));
    normALow = f64x2.add(normALow, f64x2.mul(x0, x0));
    normBLow = f64x2.add(normBLow, f64x2.mul(y0, y0));
    dotHigh = f64x2.add(dotHigh, f64x2.mul(x1, y1));
    normAHigh = f64x2.add(normAHigh, f64x2.mul(x1, x1));
    normBHigh = f64x2.add(normBHigh, f64x2.mul(y1, y1));
    if (i32x4.all_true(f32x4.eq(a4, b4))) continue; // four equal (non-NaN) pairs: distance 0
    const same0 = sameMask(x0, y0);
    const d0 = distance(x0, y0, same0, inf);
    const ay0 = f64x2.abs(y0);
    differing = i64x2.sub(differing, differingMask(d0, ay0, same0, inf, vAtol, vRtol));
    maxAbs = f64x2.pmax(maxAbs, d0);
    maxRel = f64x2.pmax(maxRel, relative(d0, ay0, same0, inf));
    const same1 = sameMask(x1, y1);
    const d1 = distance(x1, y1, same1, inf);
    const ay1 = f64x2.abs(y1);
    differing = i64x2.sub(differing, differingMask(d1, ay1, same1, inf, vAtol, vRtol));
    maxAbs = f64x2.pmax(maxAbs, d1);
    maxRel = f64x2.pmax(maxRel, relative(d1, ay1, same1, inf));
  }
  let tailAbs: f64 = 0, tailRel: f64 = 0, tailDot: f64 = 0, tailNormA: f64 = 0, tailNormB: f64 = 0;
  let tailDiffering: i64 = 0;
  for (; i < count; i++) {
    const x = <f64>load<f32>(a + (i << 2));
    const y = <f64>load<f32>(b + (i << 2));
    const ay = Math.abs(y);
    if (!(x == y || (x != x && y != y))) {
      let d = Math.abs(x - y);
      if (d != d) d = Infinity;
      if (!(d < Infinity && d <= atol + rtol * ay)) tailDiffering++;
      let rel = d / ay;
      if (rel != rel) rel = Infinity;
      if (d > tailAbs) tailAbs = d;
      if (rel > tailRel) tailRel = rel;
    }
    tailDot += x * y;
    tailNormA += x * x;
    tailNormB += y * y;
  }
  store<f64>(out, Math.max(Math.max(f64x2.extract_lane(maxAbs, 0), f64x2.extract_lane(maxAbs, 1)), tailAbs));
  store<f64>(out, Math.max(Math.max(f64x2.extract_lane(maxRel, 0), f64x2.extract_lane(maxRel, 1)), tailRel), 8);
  store<f64>(out, <f64>(i64x2.extract_lane(differing, 0) + i64x2.extract_lane(differing, 1) + tailDiffering), 16);
  const dot = laneSum(dotLow, dotHigh, tailDot);
  const normA = laneSum(normALow, normAHigh, tailNormA);
  const normB = laneSum(normBLow, normBHigh, tailNormB);
  if (isFinite(dot) && isFinite(normA) && isFinite(normB)) {
    store<f64>(out, dot, 24);
    store<f64>(out, normA, 32);
    store<f64>(out, normB, 40);
  } else {
    maskedSums(a, b, count, inf, out);
  }
}
