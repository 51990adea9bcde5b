// Narrow floats to float32, exact for every input (safetensors BF16, F8_E4M3, F8_E5M2).
// bf16ToF32: the 16 bits become the top half of the f32 (one shuffle against zero per 4 outputs).
// f8e4m3ToF32 (OCP E4M3 "fn": bias 7, no infinities, S.1111.111 is NaN -> quiet NaN with the sign) and
// f8e5m2ToF32 (OCP E5M2: bias 15, the top byte of a binary16, so as f16ToF32 of x << 8): every float8 value
// widens to an f32 whose low 16 bits are zero, so sixteen elements at a time compute the two bytes of the top
// half in byte lanes (exponent re-bias, subnormals from a swizzle table, NaN), then interleave them with zeros.
// Constants are loaded once per call from static memory (V8 re-materialises v128.const inside loops).


// @ts-ignore: decorator
@inline
function e4m3Bits(x: u32): u32 {
  const sign = (x & 0x80) << 24;
  const em = x & 0x7f;
  if (em == 0x7f) return sign | 0x7fc00000;
  if (em < 0x08) return sign | reinterpret<u32>(<f32>em * reinterpret<f32>(<u32>0x3b000000));
  return sign | ((em << 20) + 0x3c000000);
}

// @ts-ignore: decorator
@inline
function e5m2Bits(x: u32): u32 {
  const sign = (x & 0x80) << 24;
  const em = x & 0x7f;
  if (em < 0x04) return sign | reinterpret<u32>(<f32>em * reinterpret<f32>(<u32>0x37800000));
  let bits = (em << 21) + 0x38000000;
  if (em > 0x7b) bits += 0x38000000;
  if (em > 0x7c) bits |= 0x00400000;
  return sign | bits;
}

/** bfloat16 bits at `src` to float32 at `dst`, `count` elements. */
export function bf16ToF32(src: usize, dst: usize, count: usize): void {
  const zero = i32x4.splat(0);
  const vectorEnd = count & ~(<usize>15);
  let i: usize = 0;
  for (; i < vectorEnd; i += 16) {
    const p = src + (i << 1);
    const a = v128.load(p);
    const b = v128.load(p, 16);
    const out = dst + (i << 2);
    v128.store(out, v128.shuffle<i16>(zero, a, 0, 8, 1, 9, 2, 10, 3, 11));
    v128.store(out, v128.shuffle<i16>(zero, a, 4, 12, 5, 13, 6, 14, 7, 15), 16);
    v128.store(out, v128.shuffle<i16>(zero, b, 0, 8, 1, 9, 2, 10, 3, 11), 32);
    v128.store(out, v128.shuffle<i16>(zero, b, 4, 12, 5, 13, 6, 14, 7, 15), 48);
  }
  for (; i < count; i++) {
    store<u32>(dst + (i << 2), <u32>load<u16>(src + (i << 1)) << 16);
  }
}

// Byte-lane constants for the float8 kernels: every f8 value widens to an f32 whose low 16 bits are zero, so
// the top 16 bits are computed as a low and a high byte for 16 elements at once, then interleaved with zeros.
const F8_CONSTANTS = memory.data<u8>([
  // 0: 0x7f (exponent + mantissa; e4m3 NaN)
  0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f,
  // 16: 0x80 (sign)
  0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
  // 32: 0x3c (e4m3 exponent re-bias in the high byte)
  0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c, 0x3c,
  // 48: 0x08 (e4m3 smallest normal)
  0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08, 0x08,
  // 64: 0xc0 (low byte of the quiet NaN 0x7fc0)
  0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0,
  // 80, 96: e4m3 subnormals m x 2^-9 (m = 0..7): low and high bytes of the f32's top half
  0x00, 0x00, 0x80, 0xc0, 0x00, 0x20, 0x40, 0x60, 0, 0, 0, 0, 0, 0, 0, 0,
  0x00, 0x3b, 0x3b, 0x3b, 0x3c, 0x3c, 0x3c, 0x3c, 0, 0, 0, 0, 0, 0, 0, 0,
  // 112: 0x38 (e5m2 exponent re-bias in the high byte)
  0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38,
  // 128: 0x7b (e5m2 largest finite)
  0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b, 0x7b,
  // 144: 0x7c (e5m2 infinity)
  0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c, 0x7c,
  // 160: 0x40 (the f32 quiet bit in the low byte)
  0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40,
  // 176: 0x04 (e5m2 smallest normal)
  0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04,
  // 192, 208: e5m2 subnormals m x 2^-16 (m = 0..3): low and high bytes of the f32's top half
  0x00, 0x80, 0x00, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0x00, 0x37, 0x38, 0x38, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
], 16);

/** Stores 16 f32s whose top halves are the byte pairs (lo[i], hi[i]) and whose low halves are zero. */
// @ts-ignore: decorator
@inline
function storeTopHalves(out: usize, lo: v128, hi: v128, zero: v128): void {
  const h0 = v128.shuffle<u8>(lo, hi, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const h1 = v128.shuffle<u8>(lo, hi, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  v128.store(out, v128.shuffle<i16>(zero, h0, 0, 8, 1, 9, 2, 10, 3, 11));
  v128.store(out, v128.shuffle<i16>(zero, h0, 4, 12, 5, 13, 6, 14, 7, 15), 16);
  v128.store(out, v128.shuffle<i16>(zero, h1, 0, 8, 1, 9, 2, 10, 3, 11), 32);
  v128.store(out, v128.shuffle<i16>(zero, h1, 4, 12, 5, 13, 6, 14, 7, 15), 48);
}

/**
 * float8 e4m3fn bytes at `src` to float32 at `dst`, `count` elements. Normal values: the f32's top half is
 * (em << 4) + 0x3c00 (low byte em << 4, high byte (em >> 4) + 0x3c); subnormals from an 8-entry swizzle table;
 * S.1111.111 becomes the quiet NaN 0x7fc0; the sign goes into the high byte.
 */
export function f8e4m3ToF32(src: usize, dst: usize, count: usize): void {
  const c = changetype<usize>(F8_CONSTANTS);
  const low7 = v128.load(c), signMask = v128.load(c, 16), rebias = v128.load(c, 32), minNormal = v128.load(c, 48);
  const nanLo = v128.load(c, 64), subLo = v128.load(c, 80), subHi = v128.load(c, 96);
  const zero = i32x4.splat(0);
  const vectorEnd = count & ~(<usize>15);
  let i: usize = 0;
  for (; i < vectorEnd; i += 16) {
    const b = v128.load(src + i);
    const em = v128.and(b, low7);
    let lo = i8x16.shl(em, 4);
    let hi = i8x16.add(i8x16.shr_u(em, 4), rebias);
    const sub = i8x16.lt_u(em, minNormal);
    lo = v128.bitselect(i8x16.swizzle(subLo, em), lo, sub);
    hi = v128.bitselect(i8x16.swizzle(subHi, em), hi, sub);
    const nan = i8x16.eq(em, low7);
    lo = v128.bitselect(nanLo, lo, nan);
    hi = v128.bitselect(low7, hi, nan);
    storeTopHalves(dst + (i << 2), lo, v128.or(hi, v128.and(b, signMask)), zero);
  }
  for (; i < count; i++) {
    store<u32>(dst + (i << 2), e4m3Bits(<u32>load<u8>(src + i)));
  }
}

/**
 * float8 e5m2 bytes at `src` to float32 at `dst`, `count` elements. Normal values: the f32's top half is
 * (em << 5) + 0x3800; infinities and NaNs get the exponent re-biased once more (0x7f80) and NaNs the quiet bit;
 * subnormals from a 4-entry swizzle table; the sign goes into the high byte.
 */
export function f8e5m2ToF32(src: usize, dst: usize, count: usize): void {
  const c = changetype<usize>(F8_CONSTANTS);
  const low7 = v128.load(c), signMask = v128.load(c, 16), rebias = v128.load(c, 112), maxFinite = v128.load(c, 128);
  const inf = v128.load(c, 144), quiet = v128.load(c, 160), minNormal = v128.load(c, 176);
  const subLo = v128.load(c, 192), subHi = v128.load(c, 208);
  const zero = i32x4.splat(0);
  const vectorEnd = count & ~(<usize>15);
  let i: usize = 0;
  for (; i < vectorEnd; i += 16) {
    const b = v128.load(src + i);
    const em = v128.and(b, low7);
    let lo = i8x16.shl(em, 5);
    let hi = i8x16.add(i8x16.shr_u(em, 3), rebias);
    hi = i8x16.add(hi, v128.and(i8x16.gt_u(em, maxFinite), rebias));
    lo = v128.or(lo, v128.and(i8x16.gt_u(em, inf), quiet));
    const sub = i8x16.lt_u(em, minNormal);
    lo = v128.bitselect(i8x16.swizzle(subLo, em), lo, sub);
    hi = v128.bitselect(i8x16.swizzle(subHi, em), hi, sub);
    storeTopHalves(dst + (i << 2), lo, v128.or(hi, v128.and(b, signMask)), zero);
  }
  for (; i < count; i++) {
    store<u32>(dst + (i << 2), e5m2Bits(<u32>load<u8>(src + i)));
  }
}
