// Statistics and histograms over float32 / float64 values (issue 17). Every other element type reaches these
// two through a widening kernel first (integers below; float16 and int8-with-scale through half.ts/quant.ts),
// chunk by chunk in the scratch area, so the values never need a second full copy.
//
// statsF32 / statsF64(src, count, out) write ten f64 to `out`:
//   [0] min  [1] max   over finite values (+Inf / -Inf when there is none)
//   [2] sum            of the finite values: S1 + finite * K, where S1 = sum of (x - K) in f64
//   [3] m2             sum of squared deviations of the finite values from their mean
//   [4] NaN  [5] +Inf  [6] -Inf  [7] zeros (+0 and -0)
//   [8] K              the shift: the chunk's first finite value (0 when there is none)
//   [9] mean - K       S1 / finite (0 when nothing is finite)
// Everything is summed as deviations from K, so a constant chunk has m2 exactly 0 and a large mean costs no
// precision; chunks combine with Chan's formula in TS, in the same shifted form.
//
// The fast path is one pass summing d = x - K and d^2 (K: the first value). It holds when every value is
// finite and K lies within 16 standard deviations of the mean (m2 = S2 - S1^2 / n is at least S2 / 256, so
// the subtraction loses under 8 bits). Otherwise the chunk is redone by the exact kernel: one pass for min,
// max, S1 and the counts, a second summing ((x - K) - S1 / finite)^2. Both are meant for a cache-resident
// chunk (the callers feed 64K elements).
//
// Lane layout (the TS twins in bindings/kernels-js.ts copy it, so both backends give the same bits): blocks of
// 8 elements; element i of a block adds into f64 accumulator i (lanes of four f64x2 vectors s0..s3). The
// total is ((a0 + a2) + (a4 + a6)) + ((a1 + a3) + (a5 + a7)); the count % 8 elements left over are then
// added one by one, in order. In the exact kernel non-finite values add exactly nothing (masked to +0).
//
// histogramF32 / histogramF64: counts[(bin << 2) | (i & 3)] += 1 (u32; four interleaved sub-histograms so
// that runs of one value do not serialise on one counter), bin = trunc((x * h - loH) * scale) capped at
// bins - 1 for lo <= x <= hi (in f64; h is 1, or 0.5 for a range wider than the largest f64, loH = lo * h);
// the rest go to out[0..5] = below, above, NaN, +Inf, -Inf (f64, overwritten).
//
// Constants live in static memory and are loaded once per call: V8 re-materialises every v128.const inside a
// loop (see ../shared/notes/performance.md).

const F32_CONSTANTS = memory.data<u32>([
  0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff, // 0: abs mask
  0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, // 16: +Inf
  0xff800000, 0xff800000, 0xff800000, 0xff800000, // 32: -Inf
], 16);

const F64_CONSTANTS = memory.data<u64>([
  0x7fffffffffffffff, 0x7fffffffffffffff, // 0: abs mask
  0x7ff0000000000000, 0x7ff0000000000000, // 16: +Inf
  0xfff0000000000000, 0xfff0000000000000, // 32: -Inf
  0x4330000000000000, 0x4330000000000000, // 48: 2^52
], 16);

// @ts-ignore: decorator
@inline
function highHalf(v: v128): v128 {
  return v128.shuffle<i32>(v, v, 2, 3, 2, 3);
}

// @ts-ignore: decorator
@inline
function laneSum(s0: v128, s1: v128, s2: v128, s3: v128): f64 {
  const t = f64x2.add(f64x2.add(s0, s1), f64x2.add(s2, s3));
  return f64x2.extract_lane(t, 0) + f64x2.extract_lane(t, 1);
}

// @ts-ignore: decorator
@inline
function countSum32(v: v128): f64 {
  return <f64>(i32x4.extract_lane(v, 0) + i32x4.extract_lane(v, 1) + i32x4.extract_lane(v, 2) + i32x4.extract_lane(v, 3));
}

// @ts-ignore: decorator
@inline
function countSum64(v: v128): f64 {
  return <f64>(i64x2.extract_lane(v, 0) + i64x2.extract_lane(v, 1));
}

// @ts-ignore: decorator
@inline
function min4(v: v128): f32 {
  return min(min(f32x4.extract_lane(v, 0), f32x4.extract_lane(v, 1)), min(f32x4.extract_lane(v, 2), f32x4.extract_lane(v, 3)));
}

// @ts-ignore: decorator
@inline
function max4(v: v128): f32 {
  return max(max(f32x4.extract_lane(v, 0), f32x4.extract_lane(v, 1)), max(f32x4.extract_lane(v, 2), f32x4.extract_lane(v, 3)));
}

// @ts-ignore: decorator
@inline
function storeStats(out: usize, mn: f64, mx: f64, sum: f64, m2: f64, nan: f64, posInf: f64, negInf: f64, zeros: f64, k: f64, dmean: f64): void {
  store<f64>(out, mn);
  store<f64>(out, mx, 8);
  store<f64>(out, sum, 16);
  store<f64>(out, m2, 24);
  store<f64>(out, nan, 32);
  store<f64>(out, posInf, 40);
  store<f64>(out, negInf, 48);
  store<f64>(out, zeros, 56);
  store<f64>(out, k, 64);
  store<f64>(out, dmean, 72);
}

function firstFiniteF32(src: usize, count: usize): f64 {
  for (let i: usize = 0; i < count; i++) {
    const x = load<f32>(src + (i << 2));
    if ((reinterpret<u32>(x) & 0x7fffffff) < 0x7f800000) return <f64>x;
  }
  return 0;
}

function firstFiniteF64(src: usize, count: usize): f64 {
  for (let i: usize = 0; i < count; i++) {
    const x = load<f64>(src + (i << 3));
    if ((reinterpret<u64>(x) & 0x7fffffffffffffff) < 0x7ff0000000000000) return x;
  }
  return 0;
}

function statsF32Exact(src: usize, count: usize, out: usize): void {
  const c = changetype<usize>(F32_CONSTANTS);
  const absMask = v128.load(c), inf = v128.load(c, 16), negInf = v128.load(c, 32);
  const zero = i32x4.splat(0);
  const K = firstFiniteF32(src, count);
  const k = f64x2.splat(K);
  let mn0 = inf, mn1 = inf, mx0 = negInf, mx1 = negInf;
  let s0 = f64x2.splat(0), s1 = f64x2.splat(0), s2 = f64x2.splat(0), s3 = f64x2.splat(0);
  let zeros = zero, nans = zero, posInfs = zero, negInfs = zero;
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const p = src + (i << 2);
    const v0 = v128.load(p), v1 = v128.load(p, 16);
    const a0 = v128.and(v0, absMask), a1 = v128.and(v1, absMask);
    zeros = i32x4.sub(i32x4.sub(zeros, i32x4.eq(a0, zero)), i32x4.eq(a1, zero));
    const f0 = i32x4.lt_s(a0, inf), f1 = i32x4.lt_s(a1, inf);
    let d0 = f64x2.sub(f64x2.promote_low_f32x4(v0), k), d1 = f64x2.sub(f64x2.promote_low_f32x4(highHalf(v0)), k);
    let d2 = f64x2.sub(f64x2.promote_low_f32x4(v1), k), d3 = f64x2.sub(f64x2.promote_low_f32x4(highHalf(v1)), k);
    if (i32x4.all_true(v128.and(f0, f1))) {
      mn0 = f32x4.pmin(mn0, v0); mx0 = f32x4.pmax(mx0, v0);
      mn1 = f32x4.pmin(mn1, v1); mx1 = f32x4.pmax(mx1, v1);
    } else {
      nans = i32x4.sub(i32x4.sub(nans, i32x4.gt_s(a0, inf)), i32x4.gt_s(a1, inf));
      posInfs = i32x4.sub(i32x4.sub(posInfs, i32x4.eq(v0, inf)), i32x4.eq(v1, inf));
      negInfs = i32x4.sub(i32x4.sub(negInfs, i32x4.eq(v0, negInf)), i32x4.eq(v1, negInf));
      mn0 = f32x4.pmin(mn0, v128.bitselect(v0, inf, f0)); mx0 = f32x4.pmax(mx0, v128.bitselect(v0, negInf, f0));
      mn1 = f32x4.pmin(mn1, v128.bitselect(v1, inf, f1)); mx1 = f32x4.pmax(mx1, v128.bitselect(v1, negInf, f1));
      d0 = v128.and(d0, i64x2.extend_low_i32x4_s(f0)); d1 = v128.and(d1, i64x2.extend_high_i32x4_s(f0));
      d2 = v128.and(d2, i64x2.extend_low_i32x4_s(f1)); d3 = v128.and(d3, i64x2.extend_high_i32x4_s(f1));
    }
    s0 = f64x2.add(s0, d0); s1 = f64x2.add(s1, d1); s2 = f64x2.add(s2, d2); s3 = f64x2.add(s3, d3);
  }
  let mn = min(min4(mn0), min4(mn1));
  let mx = max(max4(mx0), max4(mx1));
  let S1 = laneSum(s0, s1, s2, s3);
  let nan = countSum32(nans), posInf = countSum32(posInfs), negInfCount = countSum32(negInfs), zeroCount = countSum32(zeros);
  for (; i < count; i++) {
    const x = load<f32>(src + (i << 2));
    const bits = reinterpret<u32>(x) & 0x7fffffff;
    if (bits < 0x7f800000) {
      S1 += <f64>x - K;
      if (x < mn) mn = x;
      if (x > mx) mx = x;
      if (bits == 0) zeroCount += 1;
    } else if (bits > 0x7f800000) nan += 1;
    else if (x > 0) posInf += 1;
    else negInfCount += 1;
  }
  const finite = <f64>count - nan - posInf - negInfCount;
  let m2: f64 = 0, dmean: f64 = 0;
  if (finite > 0) {
    dmean = S1 / finite;
    const m = f64x2.splat(dmean);
    let q0 = f64x2.splat(0), q1 = f64x2.splat(0), q2 = f64x2.splat(0), q3 = f64x2.splat(0);
    for (i = 0; i < vectorEnd; i += 8) {
      const p = src + (i << 2);
      const v0 = v128.load(p), v1 = v128.load(p, 16);
      const f0 = i32x4.lt_s(v128.and(v0, absMask), inf), f1 = i32x4.lt_s(v128.and(v1, absMask), inf);
      const e0 = v128.and(f64x2.sub(f64x2.sub(f64x2.promote_low_f32x4(v0), k), m), i64x2.extend_low_i32x4_s(f0));
      const e1 = v128.and(f64x2.sub(f64x2.sub(f64x2.promote_low_f32x4(highHalf(v0)), k), m), i64x2.extend_high_i32x4_s(f0));
      const e2 = v128.and(f64x2.sub(f64x2.sub(f64x2.promote_low_f32x4(v1), k), m), i64x2.extend_low_i32x4_s(f1));
      const e3 = v128.and(f64x2.sub(f64x2.sub(f64x2.promote_low_f32x4(highHalf(v1)), k), m), i64x2.extend_high_i32x4_s(f1));
      q0 = f64x2.add(q0, f64x2.mul(e0, e0)); q1 = f64x2.add(q1, f64x2.mul(e1, e1));
      q2 = f64x2.add(q2, f64x2.mul(e2, e2)); q3 = f64x2.add(q3, f64x2.mul(e3, e3));
    }
    m2 = laneSum(q0, q1, q2, q3);
    for (i = vectorEnd; i < count; i++) {
      const x = load<f32>(src + (i << 2));
      if ((reinterpret<u32>(x) & 0x7fffffff) < 0x7f800000) {
        const e = (<f64>x - K) - dmean;
        m2 += e * e;
      }
    }
  }
  storeStats(out, <f64>mn, <f64>mx, S1 + finite * K, m2, nan, posInf, negInfCount, zeroCount, K, dmean);
}

function statsF64Exact(src: usize, count: usize, out: usize): void {
  const c = changetype<usize>(F64_CONSTANTS);
  const absMask = v128.load(c), inf = v128.load(c, 16), negInf = v128.load(c, 32);
  const zero = i64x2.splat(0);
  const K = firstFiniteF64(src, count);
  const k = f64x2.splat(K);
  let mn0 = inf, mn1 = inf, mx0 = negInf, mx1 = negInf;
  let s0 = f64x2.splat(0), s1 = f64x2.splat(0), s2 = f64x2.splat(0), s3 = f64x2.splat(0);
  let zeros = zero, nans = zero, posInfs = zero, negInfs = zero;
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const p = src + (i << 3);
    const v0 = v128.load(p), v1 = v128.load(p, 16), v2 = v128.load(p, 32), v3 = v128.load(p, 48);
    const a0 = v128.and(v0, absMask), a1 = v128.and(v1, absMask), a2 = v128.and(v2, absMask), a3 = v128.and(v3, absMask);
    zeros = i64x2.sub(i64x2.sub(zeros, i64x2.eq(a0, zero)), i64x2.eq(a1, zero));
    zeros = i64x2.sub(i64x2.sub(zeros, i64x2.eq(a2, zero)), i64x2.eq(a3, zero));
    const f0 = i64x2.lt_s(a0, inf), f1 = i64x2.lt_s(a1, inf), f2 = i64x2.lt_s(a2, inf), f3 = i64x2.lt_s(a3, inf);
    let d0 = f64x2.sub(v0, k), d1 = f64x2.sub(v1, k), d2 = f64x2.sub(v2, k), d3 = f64x2.sub(v3, k);
    if (i64x2.all_true(v128.and(v128.and(f0, f1), v128.and(f2, f3)))) {
      mn0 = f64x2.pmin(f64x2.pmin(mn0, v0), v2); mx0 = f64x2.pmax(f64x2.pmax(mx0, v0), v2);
      mn1 = f64x2.pmin(f64x2.pmin(mn1, v1), v3); mx1 = f64x2.pmax(f64x2.pmax(mx1, v1), v3);
    } else {
      nans = i64x2.sub(i64x2.sub(nans, i64x2.gt_s(a0, inf)), i64x2.gt_s(a1, inf));
      nans = i64x2.sub(i64x2.sub(nans, i64x2.gt_s(a2, inf)), i64x2.gt_s(a3, inf));
      posInfs = i64x2.sub(i64x2.sub(posInfs, i64x2.eq(v0, inf)), i64x2.eq(v1, inf));
      posInfs = i64x2.sub(i64x2.sub(posInfs, i64x2.eq(v2, inf)), i64x2.eq(v3, inf));
      negInfs = i64x2.sub(i64x2.sub(negInfs, i64x2.eq(v0, negInf)), i64x2.eq(v1, negInf));
      negInfs = i64x2.sub(i64x2.sub(negInfs, i64x2.eq(v2, negInf)), i64x2.eq(v3, negInf));
      mn0 = f64x2.pmin(f64x2.pmin(mn0, v128.bitselect(v0, inf, f0)), v128.bitselect(v2, inf, f2));
      mx0 = f64x2.pmax(f64x2.pmax(mx0, v128.bitselect(v0, negInf, f0)), v128.bitselect(v2, negInf, f2));
      mn1 = f64x2.pmin(f64x2.pmin(mn1, v128.bitselect(v1, inf, f1)), v128.bitselect(v3, inf, f3));
      mx1 = f64x2.pmax(f64x2.pmax(mx1, v128.bitselect(v1, negInf, f1)), v128.bitselect(v3, negInf, f3));
      d0 = v128.and(d0, f0); d1 = v128.and(d1, f1); d2 = v128.and(d2, f2); d3 = v128.and(d3, f3);
    }
    s0 = f64x2.add(s0, d0); s1 = f64x2.add(s1, d1); s2 = f64x2.add(s2, d2); s3 = f64x2.add(s3, d3);
  }
  const mnv = f64x2.pmin(mn0, mn1), mxv = f64x2.pmax(mx0, mx1);
  let mn = min(f64x2.extract_lane(mnv, 0), f64x2.extract_lane(mnv, 1));
  let mx = max(f64x2.extract_lane(mxv, 0), f64x2.extract_lane(mxv, 1));
  let S1 = laneSum(s0, s1, s2, s3);
  let nan = countSum64(nans), posInf = countSum64(posInfs), negInfCount = countSum64(negInfs), zeroCount = countSum64(zeros);
  for (; i < count; i++) {
    const x = load<f64>(src + (i << 3));
    const bits = reinterpret<u64>(x) & 0x7fffffffffffffff;
    if (bits < 0x7ff0000000000000) {
      S1 += x - K;
      if (x < mn) mn = x;
      if (x > mx) mx = x;
      if (bits == 0) zeroCount += 1;
    } else if (bits > 0x7ff0000000000000) nan += 1;
    else if (x > 0) posInf += 1;
    else negInfCount += 1;
  }
  const finite = <f64>count - nan - posInf - negInfCount;
  let m2: f64 = 0, dmean: f64 = 0;
  if (finite > 0) {
    dmean = S1 / finite;
    const m = f64x2.splat(dmean);
    let q0 = f64x2.splat(0), q1 = f64x2.splat(0), q2 = f64x2.splat(0), q3 = f64x2.splat(0);
    for (i = 0; i < vectorEnd; i += 8) {
      const p = src + (i << 3);
      const v0 = v128.load(p), v1 = v128.load(p, 16), v2 = v128.load(p, 32), v3 = v128.load(p, 48);
      const e0 = v128.and(f64x2.sub(f64x2.sub(v0, k), m), i64x2.lt_s(v128.and(v0, absMask), inf));
      const e1 = v128.and(f64x2.sub(f64x2.sub(v1, k), m), i64x2.lt_s(v128.and(v1, absMask), inf));
      const e2 = v128.and(f64x2.sub(f64x2.sub(v2, k), m), i64x2.lt_s(v128.and(v2, absMask), inf));
      const e3 = v128.and(f64x2.sub(f64x2.sub(v3, k), m), i64x2.lt_s(v128.and(v3, absMask), inf));
      q0 = f64x2.add(q0, f64x2.mul(e0, e0)); q1 = f64x2.add(q1, f64x2.mul(e1, e1));
      q2 = f64x2.add(q2, f64x2.mul(e2, e2)); q3 = f64x2.add(q3, f64x2.mul(e3, e3));
    }
    m2 = laneSum(q0, q1, q2, q3);
    for (i = vectorEnd; i < count; i++) {
      const x = load<f64>(src + (i << 3));
      if ((reinterpret<u64>(x) & 0x7fffffffffffffff) < 0x7ff0000000000000) {
        const e = (x - K) - dmean;
        m2 += e * e;
      }
    }
  }
  storeStats(out, mn, mx, S1 + finite * K, m2, nan, posInf, negInfCount, zeroCount, K, dmean);
}

export function statsF32(src: usize, count: usize, out: usize): void {
  if (count == 0) {
    statsF32Exact(src, count, out);
    return;
  }
  const c = changetype<usize>(F32_CONSTANTS);
  const inf = v128.load(c, 16), negInf = v128.load(c, 32);
  const zero = f32x4.splat(0);
  const K = <f64>load<f32>(src);
  const k = f64x2.splat(K);
  let mn0 = inf, mn1 = inf, mx0 = negInf, mx1 = negInf;
  let s0 = f64x2.splat(0), s1 = f64x2.splat(0), s2 = f64x2.splat(0), s3 = f64x2.splat(0);
  let q0 = f64x2.splat(0), q1 = f64x2.splat(0), q2 = f64x2.splat(0), q3 = f64x2.splat(0);
  let zeros = i32x4.splat(0);
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const p = src + (i << 2);
    const v0 = v128.load(p), v1 = v128.load(p, 16);
    zeros = i32x4.sub(i32x4.sub(zeros, f32x4.eq(v0, zero)), f32x4.eq(v1, zero));
    mn0 = f32x4.pmin(mn0, v0); mx0 = f32x4.pmax(mx0, v0);
    mn1 = f32x4.pmin(mn1, v1); mx1 = f32x4.pmax(mx1, v1);
    const d0 = f64x2.sub(f64x2.promote_low_f32x4(v0), k), d1 = f64x2.sub(f64x2.promote_low_f32x4(highHalf(v0)), k);
    const d2 = f64x2.sub(f64x2.promote_low_f32x4(v1), k), d3 = f64x2.sub(f64x2.promote_low_f32x4(highHalf(v1)), k);
    s0 = f64x2.add(s0, d0); s1 = f64x2.add(s1, d1); s2 = f64x2.add(s2, d2); s3 = f64x2.add(s3, d3);
    q0 = f64x2.add(q0, f64x2.mul(d0, d0)); q1 = f64x2.add(q1, f64x2.mul(d1, d1));
    q2 = f64x2.add(q2, f64x2.mul(d2, d2)); q3 = f64x2.add(q3, f64x2.mul(d3, d3));
  }
  let mn = min(min4(mn0), min4(mn1));
  let mx = max(max4(mx0), max4(mx1));
  let S1 = laneSum(s0, s1, s2, s3);
  let S2 = laneSum(q0, q1, q2, q3);
  let zeroCount = countSum32(zeros);
  for (; i < count; i++) {
    const x = load<f32>(src + (i << 2));
    const d = <f64>x - K;
    S1 += d;
    S2 += d * d;
    if (x < mn) mn = x;
    if (x > mx) mx = x;
    if (x == 0) zeroCount += 1;
  }
  const n = <f64>count;
  const m2 = S2 - S1 * S1 / n;
  // NaN or an infinity anywhere makes S1 + S2 NaN or infinite
  if (!(m2 * 256 >= S2) || S1 + S2 - (S1 + S2) != 0) {
    statsF32Exact(src, count, out);
    return;
  }
  storeStats(out, <f64>mn, <f64>mx, S1 + n * K, m2, 0, 0, 0, zeroCount, K, S1 / n);
}

export function statsF64(src: usize, count: usize, out: usize): void {
  if (count == 0) {
    statsF64Exact(src, count, out);
    return;
  }
  const c = changetype<usize>(F64_CONSTANTS);
  const inf = v128.load(c, 16), negInf = v128.load(c, 32);
  const zero = f64x2.splat(0);
  const K = load<f64>(src);
  const k = f64x2.splat(K);
  let mn0 = inf, mn1 = inf, mx0 = negInf, mx1 = negInf;
  let s0 = f64x2.splat(0), s1 = f64x2.splat(0), s2 = f64x2.splat(0), s3 = f64x2.splat(0);
  let q0 = f64x2.splat(0), q1 = f64x2.splat(0), q2 = f64x2.splat(0), q3 = f64x2.splat(0);
  let zeros = i64x2.splat(0);
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const p = src + (i << 3);
    const v0 = v128.load(p), v1 = v128.load(p, 16), v2 = v128.load(p, 32), v3 = v128.load(p, 48);
    zeros = i64x2.sub(i64x2.sub(zeros, f64x2.eq(v0, zero)), f64x2.eq(v1, zero));
    zeros = i64x2.sub(i64x2.sub(zeros, f64x2.eq(v2, zero)), f64x2.eq(v3, zero));
    mn0 = f64x2.pmin(f64x2.pmin(mn0, v0), v2); mx0 = f64x2.pmax(f64x2.pmax(mx0, v0), v2);
    mn1 = f64x2.pmin(f64x2.pmin(mn1, v1), v3); mx1 = f64x2.pmax(f64x2.pmax(mx1, v1), v3);
    const d0 = f64x2.sub(v0, k), d1 = f64x2.sub(v1, k), d2 = f64x2.sub(v2, k), d3 = f64x2.sub(v3, k);
    s0 = f64x2.add(s0, d0); s1 = f64x2.add(s1, d1); s2 = f64x2.add(s2, d2); s3 = f64x2.add(s3, d3);
    q0 = f64x2.add(q0, f64x2.mul(d0, d0)); q1 = f64x2.add(q1, f64x2.mul(d1, d1));
    q2 = f64x2.add(q2, f64x2.mul(d2, d2)); q3 = f64x2.add(q3, f64x2.mul(d3, d3));
  }
  const mnv = f64x2.pmin(mn0, mn1), mxv = f64x2.pmax(mx0, mx1);
  let mn = min(f64x2.extract_lane(mnv, 0), f64x2.extract_lane(mnv, 1));
  let mx = max(f64x2.extract_lane(mxv, 0), f64x2.extract_lane(mxv, 1));
  let S1 = laneSum(s0, s1, s2, s3);
  let S2 = laneSum(q0, q1, q2, q3);
  let zeroCount = countSum64(zeros);
  for (; i < count; i++) {
    const x = load<f64>(src + (i << 3));
    const d = x - K;
    S1 += d;
    S2 += d * d;
    if (x < mn) mn = x;
    if (x > mx) mx = x;
    if (x == 0) zeroCount += 1;
  }
  const n = <f64>count;
  const m2 = S2 - S1 * S1 / n;
  if (!(m2 * 256 >= S2) || S1 + S2 - (S1 + S2) != 0) {
    statsF64Exact(src, count, out);
    return;
  }
  storeStats(out, mn, mx, S1 + n * K, m2, 0, 0, 0, zeroCount, K, S1 / n);
}

// --- histograms ---

// @ts-ignore: decorator
@inline
function countValue(x: f64, i: usize, lo: f64, hi: f64, h: f64, loH: f64, scale: f64, last: i32, counts: usize, out: usize): void {
  if (x >= lo && x <= hi) {
    let b = <i32>((x * h - loH) * scale);
    if (b > last) b = last;
    const at = counts + ((((<usize>b) << 2) | (i & 3)) << 2);
    store<u32>(at, load<u32>(at) + 1);
  } else {
    // out[0..5]: below, above, NaN, +Inf, -Inf
    const slot: usize = x < lo ? (x == -Infinity ? 4 : 0) : x > hi ? (x == Infinity ? 3 : 1) : 2;
    store<f64>(out + (slot << 3), load<f64>(out + (slot << 3)) + 1);
  }
}

// @ts-ignore: decorator
@inline
function countBins(idx: v128, i: usize, counts: usize): void {
  // four in-range values of a block at i (i % 4 == 0): lane j goes to sub-histogram j
  let at = counts + (<usize>(i32x4.extract_lane(idx, 0) << 4));
  store<u32>(at, load<u32>(at) + 1);
  at = counts + (<usize>(i32x4.extract_lane(idx, 1) << 4)) + 4;
  store<u32>(at, load<u32>(at) + 1);
  at = counts + (<usize>(i32x4.extract_lane(idx, 2) << 4)) + 8;
  store<u32>(at, load<u32>(at) + 1);
  at = counts + (<usize>(i32x4.extract_lane(idx, 3) << 4)) + 12;
  store<u32>(at, load<u32>(at) + 1);
}

function clearSpecials(out: usize): void {
  for (let j: usize = 0; j < 5; j++) store<f64>(out + (j << 3), 0);
}

// The smallest f32 above x and the largest below it (x not NaN; -0 and +0 alike step to the smallest subnormals).
// @ts-ignore: decorator
@inline
function nextUpF32(x: f32): f32 {
  const b = reinterpret<u32>(x);
  if ((b & 0x7fffffff) == 0) return reinterpret<f32>(<u32>1);
  return reinterpret<f32>((b >> 31) != 0 ? b - 1 : b + 1);
}

// @ts-ignore: decorator
@inline
function nextDownF32(x: f32): f32 {
  return -nextUpF32(-x);
}

// Four float32 values at v, all known to lie in [lo, hi]: their bins, counted.
// @ts-ignore: decorator
@inline
function countInRange(v: v128, i: usize, vH: v128, vLoH: v128, vScale: v128, magic: v128, vLast: v128, counts: usize, scaled: bool): void {
  let a = f64x2.promote_low_f32x4(v), b = f64x2.promote_low_f32x4(highHalf(v));
  if (scaled) {
    a = f64x2.mul(a, vH);
    b = f64x2.mul(b, vH);
  }
  const ta = f64x2.add(f64x2.floor(f64x2.mul(f64x2.sub(a, vLoH), vScale)), magic);
  const tb = f64x2.add(f64x2.floor(f64x2.mul(f64x2.sub(b, vLoH), vScale)), magic);
  countBins(i32x4.min_s(v128.shuffle<i32>(ta, tb, 0, 2, 4, 6), vLast), i, counts);
}

// The range test runs on the float32 lanes, against the float32 bounds equivalent to lo and hi (for a float32 x,
// x >= lo exactly when x >= the smallest float32 not below lo; likewise for hi), and the multiply by h is left
// out when h is 1 (the usual case): 13% off the kernel, with the bins unchanged bit for bit.
export function histogramF32(src: usize, count: usize, lo: f64, hi: f64, h: f64, loH: f64, scale: f64, bins: i32, counts: usize, out: usize): void {
  clearSpecials(out);
  const last = bins - 1;
  let lo32 = <f32>lo;
  if (<f64>lo32 < lo) lo32 = nextUpF32(lo32);
  let hi32 = <f32>hi;
  if (<f64>hi32 > hi) hi32 = nextDownF32(hi32);
  const vLo = f32x4.splat(lo32), vHi = f32x4.splat(hi32);
  const vH = f64x2.splat(h), vLoH = f64x2.splat(loH), vScale = f64x2.splat(scale);
  const vLast = i32x4.splat(last);
  const magic = v128.load(changetype<usize>(F64_CONSTANTS), 48); // 2^52
  const vectorEnd = count & ~(<usize>3);
  let i: usize = 0;
  if (h == 1) {
    for (; i < vectorEnd; i += 4) {
      const v = v128.load(src + (i << 2));
      if (i32x4.all_true(v128.and(f32x4.ge(v, vLo), f32x4.le(v, vHi)))) {
        countInRange(v, i, vH, vLoH, vScale, magic, vLast, counts, false);
      } else {
        for (let j: usize = 0; j < 4; j++) countValue(<f64>load<f32>(src + ((i + j) << 2)), i + j, lo, hi, h, loH, scale, last, counts, out);
      }
    }
  } else {
    for (; i < vectorEnd; i += 4) {
      const v = v128.load(src + (i << 2));
      if (i32x4.all_true(v128.and(f32x4.ge(v, vLo), f32x4.le(v, vHi)))) {
        countInRange(v, i, vH, vLoH, vScale, magic, vLast, counts, true);
      } else {
        for (let j: usize = 0; j < 4; j++) countValue(<f64>load<f32>(src + ((i + j) << 2)), i + j, lo, hi, h, loH, scale, last, counts, out);
      }
    }
  }
  for (; i < count; i++) countValue(<f64>load<f32>(src + (i << 2)), i, lo, hi, h, loH, scale, last, counts, out);
}

export function histogramF64(src: usize, count: usize, lo: f64, hi: f64, h: f64, loH: f64, scale: f64, bins: i32, counts: usize, out: usize): void {
  clearSpecials(out);
  const last = bins - 1;
  const vLo = f64x2.splat(lo), vHi = f64x2.splat(hi), vH = f64x2.splat(h), vLoH = f64x2.splat(loH), vScale = f64x2.splat(scale);
  const vLast = i32x4.splat(last);
  const magic = v128.load(changetype<usize>(F64_CONSTANTS), 48); // 2^52
  const vectorEnd = count & ~(<usize>3);
  let i: usize = 0;
  for (; i < vectorEnd; i += 4) {
    const p = src + (i << 3);
    const a = v128.load(p), b = v128.load(p, 16);
    const inA = v128.and(f64x2.ge(a, vLo), f64x2.le(a, vHi)), inB = v128.and(f64x2.ge(b, vLo), f64x2.le(b, vHi));
    if (i64x2.all_true(v128.and(inA, inB))) {
      // floor of a value in [0, 2^31) plus 2^52: the integer lands in the low word (cheaper than trunc_sat in V8)
      const ta = f64x2.add(f64x2.floor(f64x2.mul(f64x2.sub(f64x2.mul(a, vH), vLoH), vScale)), magic);
      const tb = f64x2.add(f64x2.floor(f64x2.mul(f64x2.sub(f64x2.mul(b, vH), vLoH), vScale)), magic);
      countBins(i32x4.min_s(v128.shuffle<i32>(ta, tb, 0, 2, 4, 6), vLast), i, counts);
    } else {
      for (let j: usize = 0; j < 4; j++) countValue(load<f64>(src + ((i + j) << 3)), i + j, lo, hi, h, loH, scale, last, counts, out);
    }
  }
  for (; i < count; i++) countValue(load<f64>(src + (i << 3)), i, lo, hi, h, loH, scale, last, counts, out);
}

// --- integers to floats, exactly (8- and 16-bit to f32, 32-bit to f64) ---

export function widenI8ToF32(src: usize, dst: usize, count: usize): void {
  const vectorEnd = count & ~(<usize>15);
  let i: usize = 0;
  for (; i < vectorEnd; i += 16) {
    const q = v128.load(src + i);
    const lo = i16x8.extend_low_i8x16_s(q), hi = i16x8.extend_high_i8x16_s(q);
    const out = dst + (i << 2);
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(lo)));
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(lo)), 16);
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(hi)), 32);
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(hi)), 48);
  }
  for (; i < count; i++) store<f32>(dst + (i << 2), <f32>load<i8>(src + i));
}

export function widenU8ToF32(src: usize, dst: usize, count: usize): void {
  const vectorEnd = count & ~(<usize>15);
  let i: usize = 0;
  for (; i < vectorEnd; i += 16) {
    const q = v128.load(src + i);
    const lo = i16x8.extend_low_i8x16_u(q), hi = i16x8.extend_high_i8x16_u(q);
    const out = dst + (i << 2);
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(lo)));
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_u(lo)), 16);
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(hi)), 32);
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_u(hi)), 48);
  }
  for (; i < count; i++) store<f32>(dst + (i << 2), <f32>load<u8>(src + i));
}

export function widenI16ToF32(src: usize, dst: usize, count: usize): void {
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const v = v128.load(src + (i << 1));
    const out = dst + (i << 2);
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(v)));
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(v)), 16);
  }
  for (; i < count; i++) store<f32>(dst + (i << 2), <f32>load<i16>(src + (i << 1)));
}

export function widenU16ToF32(src: usize, dst: usize, count: usize): void {
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const v = v128.load(src + (i << 1));
    const out = dst + (i << 2);
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_u(v)));
    v128.store(out, f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_u(v)), 16);
  }
  for (; i < count; i++) store<f32>(dst + (i << 2), <f32>load<u16>(src + (i << 1)));
}

export function widenI32ToF64(src: usize, dst: usize, count: usize): void {
  const vectorEnd = count & ~(<usize>3);
  let i: usize = 0;
  for (; i < vectorEnd; i += 4) {
    const v = v128.load(src + (i << 2));
    const out = dst + (i << 3);
    v128.store(out, f64x2.convert_low_i32x4_s(v));
    v128.store(out, f64x2.convert_low_i32x4_s(highHalf(v)), 16);
  }
  for (; i < count; i++) store<f64>(dst + (i << 3), <f64>load<i32>(src + (i << 2)));
}

export function widenU32ToF64(src: usize, dst: usize, count: usize): void {
  const vectorEnd = count & ~(<usize>3);
  let i: usize = 0;
  for (; i < vectorEnd; i += 4) {
    const v = v128.load(src + (i << 2));
    const out = dst + (i << 3);
    v128.store(out, f64x2.convert_low_i32x4_u(v));
    v128.store(out, f64x2.convert_low_i32x4_u(highHalf(v)), 16);
  }
  for (; i < count; i++) store<f64>(dst + (i << 3), <f64>load<u32>(src + (i << 2)));
}
