// IEEE binary16 <-> binary32, exact.
// f16ToF32: normal halves by an exact multiply by 2^112 (see scaled4), subnormals through an exact int->float convert and a
// multiply by 2^-24 (all operands normal, so no denormal-operand slow path), Inf kept, NaN quieted with its
// payload kept (bit 22 set, the 10 payload bits shifted up): the behaviour of x86 F16C and ARM FCVT.
// f32ToF16: round to nearest even, overflow to +-Inf, NaN -> quiet NaN keeping the top payload bits.
// Constants live in static memory and are loaded once per call: V8 re-materialises every v128.const
// inside a loop (see ../shared/notes/performance.md).

const HALF_CONSTANTS = memory.data<u32>([
  0x8000, 0x8000, 0x8000, 0x8000, // 0: sign
  0x7fff, 0x7fff, 0x7fff, 0x7fff, // 16: exponent + mantissa
  0x38000000, 0x38000000, 0x38000000, 0x38000000, // 32: exponent re-bias (127 - 15) << 23
  0x7bff, 0x7bff, 0x7bff, 0x7bff, // 48: largest finite half
  0x7c00, 0x7c00, 0x7c00, 0x7c00, // 64: infinity
  0x00400000, 0x00400000, 0x00400000, 0x00400000, // 80: f32 quiet bit
  0x0400, 0x0400, 0x0400, 0x0400, // 96: smallest normal half
  0x33800000, 0x33800000, 0x33800000, 0x33800000, // 112: 2^-24 as f32
  0x8fffe000, 0x8fffe000, 0x8fffe000, 0x8fffe000, // 128: sign and em << 13 of a sign-extended half << 13
  0x77800000, 0x77800000, 0x77800000, 0x77800000, // 144: 2^112 as f32 (f32 bias 127 - half bias 15)
], 16);

const FLOAT_CONSTANTS = memory.data<u32>([
  0x80000000, 0x80000000, 0x80000000, 0x80000000, // 0: sign
  0x47800000, 0x47800000, 0x47800000, 0x47800000, // 16: 65520.0, first value that rounds to Inf
  0x7f800000, 0x7f800000, 0x7f800000, 0x7f800000, // 32: f32 infinity
  0x38800000, 0x38800000, 0x38800000, 0x38800000, // 48: 2^-14, smallest normal half
  0x3f000000, 0x3f000000, 0x3f000000, 0x3f000000, // 64: subnormal rounding magic (0.5)
  0xc8000fff, 0xc8000fff, 0xc8000fff, 0xc8000fff, // 80: re-bias (15 - 127) << 23 plus rounding 0xfff
  0x7c00, 0x7c00, 0x7c00, 0x7c00, // 96: half infinity
  0x7e00, 0x7e00, 0x7e00, 0x7e00, // 112: half quiet NaN
  0x03ff, 0x03ff, 0x03ff, 0x03ff, // 128: half mantissa
  1, 1, 1, 1, // 144: one
], 16);

// @ts-ignore: decorator
@inline
export function halfBitsToFloatBits(h: u32): u32 {
  const sign = (h & 0x8000) << 16;
  const em = h & 0x7fff;
  if (em < 0x0400) return sign | reinterpret<u32>(<f32>em * reinterpret<f32>(<u32>0x33800000));
  let bits = (em << 13) + 0x38000000;
  if (em > 0x7bff) bits += 0x38000000;
  if (em > 0x7c00) bits |= 0x00400000;
  return sign | bits;
}

// @ts-ignore: decorator
@inline
export function floatBitsToHalfBits(x: u32): u32 {
  const sign = (x >> 16) & 0x8000;
  x &= 0x7fffffff;
  let h: u32;
  if (x >= 0x47800000) {
    h = x > 0x7f800000 ? 0x7e00 | ((x >> 13) & 0x3ff) : 0x7c00;
  } else if (x < 0x38800000) {
    h = reinterpret<u32>(reinterpret<f32>(x) + reinterpret<f32>(<u32>0x3f000000)) - 0x3f000000;
  } else {
    h = (x + 0xc8000fff + ((x >> 13) & 1)) >> 13;
  }
  return h | sign;
}

// @ts-ignore: decorator
@inline
function widen4(h: v128, signMask: v128, emMask: v128, rebias: v128, maxFinite: v128, inf: v128,
                quiet: v128, minNormal: v128, subScale: v128): v128 {
  const sign = i32x4.shl(v128.and(h, signMask), 16);
  const em = v128.and(h, emMask);
  let bits = i32x4.add(i32x4.shl(em, 13), rebias);
  bits = i32x4.add(bits, v128.and(i32x4.gt_s(em, maxFinite), rebias));
  bits = v128.or(bits, v128.and(i32x4.gt_s(em, inf), quiet));
  const sub = f32x4.mul(f32x4.convert_i32x4_s(em), subScale);
  bits = v128.bitselect(sub, bits, i32x4.lt_s(em, minNormal));
  return v128.or(bits, sign);
}

const HALF16_CONSTANTS = memory.data<u16>([
  0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x7fff, // 0: exponent + mantissa
  0x3800, 0x3800, 0x3800, 0x3800, 0x3800, 0x3800, 0x3800, 0x3800, // 16: exponent re-bias, in the high half
  0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff, 0x7bff, // 32: largest finite half
  0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00, 0x7c00, // 48: infinity
  0x0040, 0x0040, 0x0040, 0x0040, 0x0040, 0x0040, 0x0040, 0x0040, // 64: f32 quiet bit, in the high half
  0x8000, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000, 0x8000, // 80: sign
  0x0001, 0x0001, 0x0001, 0x0001, 0x0001, 0x0001, 0x0001, 0x0001, // 96: one
  0x03ff, 0x03ff, 0x03ff, 0x03ff, 0x03ff, 0x03ff, 0x03ff, 0x03ff, // 112: subnormal count
], 16);

// The f32 bits sign | (em << 13) for four halves: the sign-extended half shifted left by 13 has the sign in bits
// 28..31; the mask keeps bit 31 and em (bits 13..27). Times 2^112 (an exact power-of-two multiply), that f32 is
// the half's value for every normal half and for zero.
// @ts-ignore: decorator
@inline
function scaled4(h32: v128, keep: v128, magic: v128): v128 {
  return f32x4.mul(v128.and(i32x4.shl(h32, 13), keep), magic);
}

/**
 * Eight halves at a time: zero and normal halves (the whole of real weights, nearly) by one exact multiply,
 * sign | (em << 13) as f32 times 2^112; groups holding a subnormal, Inf or NaN half take the exact lane-wise
 * path (widen4) for those lanes, so no denormal ever reaches the multiply.
 */
export function f16ToF32(src: usize, dst: usize, count: usize): void {
  const c = changetype<usize>(HALF16_CONSTANTS);
  const emMask = v128.load(c), maxFinite16 = v128.load(c, 32), one16 = v128.load(c, 96), subCount = v128.load(c, 112);
  const w = changetype<usize>(HALF_CONSTANTS);
  const signMask = v128.load(w), emMask32 = v128.load(w, 16), rebias = v128.load(w, 32);
  const maxFinite = v128.load(w, 48), inf = v128.load(w, 64), quiet = v128.load(w, 80);
  const minNormal = v128.load(w, 96), subScale = v128.load(w, 112), keep = v128.load(w, 128), magic = v128.load(w, 144);
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const h = v128.load(src + (i << 1));
    let out0 = scaled4(i32x4.extend_low_i16x8_s(h), keep, magic);
    let out1 = scaled4(i32x4.extend_high_i16x8_s(h), keep, magic);
    const em = v128.and(h, emMask);
    const special = v128.or(i16x8.lt_u(i16x8.sub(em, one16), subCount), i16x8.gt_u(em, maxFinite16));
    if (v128.any_true(special)) {
      out0 = v128.bitselect(widen4(i32x4.extend_low_i16x8_u(h), signMask, emMask32, rebias, maxFinite, inf, quiet, minNormal, subScale),
        out0, i32x4.extend_low_i16x8_s(special));
      out1 = v128.bitselect(widen4(i32x4.extend_high_i16x8_u(h), signMask, emMask32, rebias, maxFinite, inf, quiet, minNormal, subScale),
        out1, i32x4.extend_high_i16x8_s(special));
    }
    const out = dst + (i << 2);
    v128.store(out, out0);
    v128.store(out, out1, 16);
  }
  for (; i < count; i++) {
    store<u32>(dst + (i << 2), halfBitsToFloatBits(<u32>load<u16>(src + (i << 1))));
  }
}

// @ts-ignore: decorator
@inline
function narrow4(v: v128, signMask: v128, overflow: v128, f32Inf: v128, minNormal: v128, magic: v128,
                 rebias: v128, halfInf: v128, halfNaN: v128, mantissa: v128, one: v128): v128 {
  const sign = i32x4.shr_u(v128.and(v, signMask), 16);
  const x = v128.andnot(v, signMask);
  // Inf or NaN or overflow
  const nan = v128.or(halfNaN, v128.and(i32x4.shr_u(x, 13), mantissa));
  const big = v128.bitselect(nan, halfInf, i32x4.gt_s(x, f32Inf));
  // subnormal halves: let the FPU round by adding 0.5 and taking the low bits
  const small = i32x4.sub(f32x4.add(x, magic), magic);
  // normal halves: re-bias, round to nearest even
  const odd = v128.and(i32x4.shr_u(x, 13), one);
  const normal = i32x4.shr_u(i32x4.add(i32x4.add(x, rebias), odd), 13);
  let h = v128.bitselect(small, normal, i32x4.lt_s(x, minNormal));
  h = v128.bitselect(big, h, i32x4.ge_s(x, overflow));
  return v128.or(h, sign);
}

export function f32ToF16(src: usize, dst: usize, count: usize): void {
  const c = changetype<usize>(FLOAT_CONSTANTS);
  const signMask = v128.load(c), overflow = v128.load(c, 16), f32Inf = v128.load(c, 32);
  const minNormal = v128.load(c, 48), magic = v128.load(c, 64), rebias = v128.load(c, 80);
  const halfInf = v128.load(c, 96), halfNaN = v128.load(c, 112), mantissa = v128.load(c, 128), one = v128.load(c, 144);
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const p = src + (i << 2);
    const lo = narrow4(v128.load(p), signMask, overflow, f32Inf, minNormal, magic, rebias, halfInf, halfNaN, mantissa, one);
    const hi = narrow4(v128.load(p, 16), signMask, overflow, f32Inf, minNormal, magic, rebias, halfInf, halfNaN, mantissa, one);
    v128.store(dst + (i << 1), i16x8.narrow_i32x4_u(lo, hi));
  }
  for (; i < count; i++) {
    store<u16>(dst + (i << 1), <u16>floatBitsToHalfBits(load<u32>(src + (i << 2))));
  }
}
