// int8 affine quantization: value = (q - offset) * scale, computed in f32 (exact same bits as the TS twin,
// which rounds the f64 result of each step to f32: products and differences of two f32 are exact in f64).
// quantizeI8: q = clamp(roundHalfEven(x / scale + offset), -128, 127); NaN -> 0.

export function dequantizeI8(src: usize, dst: usize, count: usize, scale: f32, offset: f32): void {
  const vScale = f32x4.splat(scale), vOffset = f32x4.splat(offset);
  const vectorEnd = count & ~(<usize>15);
  let i: usize = 0;
  for (; i < vectorEnd; i += 16) {
    const q = v128.load(src + i);
    const lo = i16x8.extend_low_i8x16_s(q), hi = i16x8.extend_high_i8x16_s(q);
    const out = dst + (i << 2);
    v128.store(out, f32x4.mul(f32x4.sub(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(lo)), vOffset), vScale));
    v128.store(out, f32x4.mul(f32x4.sub(f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(lo)), vOffset), vScale), 16);
    v128.store(out, f32x4.mul(f32x4.sub(f32x4.convert_i32x4_s(i32x4.extend_low_i16x8_s(hi)), vOffset), vScale), 32);
    v128.store(out, f32x4.mul(f32x4.sub(f32x4.convert_i32x4_s(i32x4.extend_high_i16x8_s(hi)), vOffset), vScale), 48);
  }
  for (; i < count; i++) {
    store<f32>(dst + (i << 2), (<f32>load<i8>(src + i) - offset) * scale);
  }
}

// @ts-ignore: decorator
@inline
function quantize4(p: usize, vScale: v128, vOffset: v128): v128 {
  return i32x4.trunc_sat_f32x4_s(f32x4.nearest(f32x4.add(f32x4.div(v128.load(p), vScale), vOffset)));
}

export function quantizeI8(src: usize, dst: usize, count: usize, scale: f32, offset: f32): void {
  const vScale = f32x4.splat(scale), vOffset = f32x4.splat(offset);
  const vectorEnd = count & ~(<usize>15);
  let i: usize = 0;
  for (; i < vectorEnd; i += 16) {
    const p = src + (i << 2);
    const a = i16x8.narrow_i32x4_s(quantize4(p, vScale, vOffset), quantize4(p + 16, vScale, vOffset));
    const b = i16x8.narrow_i32x4_s(quantize4(p + 32, vScale, vOffset), quantize4(p + 48, vScale, vOffset));
    v128.store(dst + i, i8x16.narrow_i16x8_s(a, b));
  }
  for (; i < count; i++) {
    const v = nearest<f32>(load<f32>(src + (i << 2)) / scale + offset);
    let q: i32 = v != v ? 0 : v >= 127 ? 127 : v <= -128 ? -128 : <i32>v;
    store<i8>(dst + i, <i8>q);
  }
}
