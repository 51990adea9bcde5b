// Narrow floats to float32, exact for every input (safetensors BF16, F8_E4M3, F8_E5M2).
// bf16ToF32: the 16 bits become the top half of the f32 (one shuffle against zero per 4 outputs).
// f8e4m3ToF32 (OCP E4M3 "fn": bias 7, no infinities, S.1111.111 is NaN -> quiet NaN with the sign): normals by
// re-biasing the exponent, subnormals m x 2^-9 through an exact int->float convert and multiply.
// f8e5m2ToF32 (OCP E5M2: bias 15, the top byte of a binary16): as f16ToF32 of (x << 8), done in 32-bit lanes.
// Sixteen bytes per step for float8: extended u8 -> u16 -> u32, four vectors of four lanes.
// Constants are loaded once per call from static memory (V8 re-materialises v128.const inside loops).

const MINIFLOAT_CONSTANTS = memory.data<u32>([
  0x80, 0x80, 0x80, 0x80, // 0: byte sign
  0x7f, 0x7f, 0x7f, 0x7f, // 16: byte exponent + mantissa
  0x3c000000, 0x3c000000, 0x3c000000, 0x3c000000, // 32: e4m3 exponent re-bias (127 - 7) << 23
  0x08, 0x08, 0x08, 0x08, // 48: e4m3 smallest normal
  0x3b000000, 0x3b000000, 0x3b000000, 0x3b000000, // 64: 2^-9 as f32
  0x7fc00000, 0x7fc00000, 0x7fc00000, 0x7fc00000, // 80: f32 quiet NaN
  0x38000000, 0x38000000, 0x38000000, 0x38000000, // 96: e5m2 exponent re-bias (127 - 15) << 23
  0x7b, 0x7b, 0x7b, 0x7b, // 112: e5m2 largest finite
  0x7c, 0x7c, 0x7c, 0x7c, // 128: e5m2 infinity
  0x00400000, 0x00400000, 0x00400000, 0x00400000, // 144: f32 quiet bit
  0x04, 0x04, 0x04, 0x04, // 160: e5m2 smallest normal
  0x37800000, 0x37800000, 0x37800000, 0x37800000, // 176: 2^-16 as f32
], 16);

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

// @ts-ignore: decorator
@inline
function e4m3Vector(x: v128, signMask: v128, emMask: v128, rebias: v128, minNormal: v128, subScale: v128, nan: v128): v128 {
  const sign = i32x4.shl(v128.and(x, signMask), 24);
  const em = v128.and(x, emMask);
  let bits = i32x4.add(i32x4.shl(em, 20), rebias);
  bits = v128.bitselect(f32x4.mul(f32x4.convert_i32x4_s(em), subScale), bits, i32x4.lt_s(em, minNormal));
  bits = v128.bitselect(nan, bits, i32x4.eq(em, emMask));
  return v128.or(bits, sign);
}

// @ts-ignore: decorator
@inline
function e5m2Vector(x: v128, signMask: v128, emMask: v128, rebias: v128, maxFinite: v128, inf: v128, quiet: v128,
                    minNormal: v128, subScale: v128): v128 {
  const sign = i32x4.shl(v128.and(x, signMask), 24);
  const em = v128.and(x, emMask);
  let bits = i32x4.add(i32x4.shl(em, 21), rebias);
  bits = i32x4.add(bits, v128.and(i32x4.gt_s(em, maxFinite), rebias));
  bits = v128.or(bits, v128.and(i32x4.gt_s(em, inf), quiet));
  bits = v128.bitselect(f32x4.mul(f32x4.convert_i32x4_s(em), subScale), bits, i32x4.lt_s(em, minNormal));
  return v128.or(bits, sign);
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

/** float8 e4m3fn bytes at `src` to float32 at `dst`, `count` elements. */
export function f8e4m3ToF32(src: usize, dst: usize, count: usize): void {
  const c = changetype<usize>(MINIFLOAT_CONSTANTS);
  const signMask = v128.load(c), emMask = v128.load(c, 16), rebias = v128.load(c, 32);
  const minNormal = v128.load(c, 48), subScale = v128.load(c, 64), nan = v128.load(c, 80);
  const vectorEnd = count & ~(<usize>15);
  let i: usize = 0;
  for (; i < vectorEnd; i += 16) {
    const b = v128.load(src + i);
    const lo = i16x8.extend_low_i8x16_u(b);
    const hi = i16x8.extend_high_i8x16_u(b);
    const out = dst + (i << 2);
    v128.store(out, e4m3Vector(i32x4.extend_low_i16x8_u(lo), signMask, emMask, rebias, minNormal, subScale, nan));
    v128.store(out, e4m3Vector(i32x4.extend_high_i16x8_u(lo), signMask, emMask, rebias, minNormal, subScale, nan), 16);
    v128.store(out, e4m3Vector(i32x4.extend_low_i16x8_u(hi), signMask, emMask, rebias, minNormal, subScale, nan), 32);
    v128.store(out, e4m3Vector(i32x4.extend_high_i16x8_u(hi), signMask, emMask, rebias, minNormal, subScale, nan), 48);
  }
  for (; i < count; i++) {
    store<u32>(dst + (i << 2), e4m3Bits(<u32>load<u8>(src + i)));
  }
}

/** float8 e5m2 bytes at `src` to float32 at `dst`, `count` elements. */
export function f8e5m2ToF32(src: usize, dst: usize, count: usize): void {
  const c = changetype<usize>(MINIFLOAT_CONSTANTS);
  const signMask = v128.load(c), emMask = v128.load(c, 16), rebias = v128.load(c, 96);
  const maxFinite = v128.load(c, 112), inf = v128.load(c, 128), quiet = v128.load(c, 144);
  const minNormal = v128.load(c, 160), subScale = v128.load(c, 176);
  const vectorEnd = count & ~(<usize>15);
  let i: usize = 0;
  for (; i < vectorEnd; i += 16) {
    const b = v128.load(src + i);
    const lo = i16x8.extend_low_i8x16_u(b);
    const hi = i16x8.extend_high_i8x16_u(b);
    const out = dst + (i << 2);
    v128.store(out, e5m2Vector(i32x4.extend_low_i16x8_u(lo), signMask, emMask, rebias, maxFinite, inf, quiet, minNormal, subScale));
    v128.store(out, e5m2Vector(i32x4.extend_high_i16x8_u(lo), signMask, emMask, rebias, maxFinite, inf, quiet, minNormal, subScale), 16);
    v128.store(out, e5m2Vector(i32x4.extend_low_i16x8_u(hi), signMask, emMask, rebias, maxFinite, inf, quiet, minNormal, subScale), 32);
    v128.store(out, e5m2Vector(i32x4.extend_high_i16x8_u(hi), signMask, emMask, rebias, maxFinite, inf, quiet, minNormal, subScale), 48);
  }
  for (; i < count; i++) {
    store<u32>(dst + (i << 2), e5m2Bits(<u32>load<u8>(src + i)));
  }
}
