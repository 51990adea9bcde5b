/**
 * The element-wise conversions (the convert family, assembly/families/convert.ts): IEEE binary16 <-> float32,
 * int8 (de)quantization, byte swaps, bfloat16 and float8 to float32. TS twins in convert-js.ts.
 */
import { convertFamily } from "../wasm/families.js";
import { elementwise, useWasm } from "./backend.js";
import { viewBytes, checkArgs, checkLength, lengthOf, wordsOf } from "./checks.js";
import * as js from "./convert-js.js";

/** IEEE binary16 (raw bits) to float32, exact for every half. */
export function f16ToF32(src: Uint16Array, dst: Float32Array = new Float32Array(lengthOf(src))): Float32Array {
  checkArgs("f16ToF32", "src:Uint16Array dst:Float32Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, viewBytes(src), 2, viewBytes(dst), 4, src.length, (k, s, d, n) => k.f16ToF32(s, d, n));
  } else {
    js.f16ToF32(src, wordsOf(dst));
  }
  return dst;
}

/** float32 to IEEE binary16 bits: round to nearest even, overflow to ±Inf, NaN stays NaN. */
export function f32ToF16(src: Float32Array, dst: Uint16Array = new Uint16Array(lengthOf(src))): Uint16Array {
  checkArgs("f32ToF16", "src:Float32Array dst:Uint16Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, viewBytes(src), 4, viewBytes(dst), 2, src.length, (k, s, d, n) => k.f32ToF16(s, d, n));
  } else {
    js.f32ToF16(wordsOf(src), dst);
  }
  return dst;
}

/** value = (q - offset) * scale, in float32. */
export function dequantizeI8(
  src: Int8Array,
  scale: number,
  offset: number,
  dst: Float32Array = new Float32Array(lengthOf(src)),
): Float32Array {
  checkArgs("dequantizeI8", "src:Int8Array scale:number offset:number dst:Float32Array", src, scale, offset, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, viewBytes(src), 1, viewBytes(dst), 4, src.length, (k, s, d, n) =>
      k.dequantizeI8(s, d, n, scale, offset),
    );
  } else {
    js.dequantizeI8(src, dst, scale, offset);
  }
  return dst;
}

/** q = clamp(roundHalfEven(x / scale + offset), -128, 127), in float32; NaN becomes 0. */
export function quantizeI8(
  src: Float32Array,
  scale: number,
  offset: number,
  dst: Int8Array = new Int8Array(lengthOf(src)),
): Int8Array {
  checkArgs("quantizeI8", "src:Float32Array scale:number offset:number dst:Int8Array", src, scale, offset, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, viewBytes(src), 4, viewBytes(dst), 1, src.length, (k, s, d, n) =>
      k.quantizeI8(s, d, n, scale, offset),
    );
  } else {
    js.quantizeI8(src, dst, scale, offset);
  }
  return dst;
}

/** Reverses the byte order of every `width`-byte element, in place. Returns `data`. */
export function byteSwap<T extends ArrayBufferView>(data: T, width: 2 | 4 | 8): T {
  checkArgs("byteSwap", "data:view", data);
  if (width !== 2 && width !== 4 && width !== 8)
    throw new RangeError(`tensorfile: byteSwap width must be 2, 4 or 8, not ${String(width)}`);
  const bytes = viewBytes(data);
  if (bytes.byteLength % width !== 0) {
    throw new RangeError(`tensorfile: byteSwap of ${bytes.byteLength} bytes: not a multiple of ${width}`);
  }
  const count = bytes.byteLength / width;
  if (useWasm(count, convertFamily)) {
    elementwise(convertFamily, bytes, width, bytes, width, count, (k, s, d, n) => {
      if (s !== d) k.copy(s, d, n * width);
      if (width === 2) k.byteSwap16(d, n);
      else if (width === 4) k.byteSwap32(d, n);
      else k.byteSwap64(d, n);
    });
  } else {
    js.byteSwap(bytes, width);
  }
  return data;
}

// ---------------------------------------------------------------------------------------------------------
// Narrow floats to float32 (safetensors BF16, F8_E4M3, F8_E5M2): WASM SIMD in assembly/minifloat.ts, TS twins
// in convert-js.ts. Exact for every input; both backends give the same bits.

/** bfloat16 (raw bits) to float32: the bits become the top half of the float32 (exact; NaN payloads kept). */
export function bf16ToF32(src: Uint16Array, dst: Float32Array = new Float32Array(lengthOf(src))): Float32Array {
  checkArgs("bf16ToF32", "src:Uint16Array dst:Float32Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, viewBytes(src), 2, viewBytes(dst), 4, src.length, (k, s, d, n) => k.bf16ToF32(s, d, n));
  } else {
    js.bf16ToF32(src, wordsOf(dst));
  }
  return dst;
}

/**
 * float8 e4m3fn (raw bytes; OCP FP8 E4M3: bias 7, no infinities, 0x7f and 0xff are NaN) to float32, exact.
 * NaN becomes a quiet NaN with its sign (0x7fc00000 / 0xffc00000).
 */
export function f8e4m3ToF32(src: Uint8Array, dst: Float32Array = new Float32Array(lengthOf(src))): Float32Array {
  checkArgs("f8e4m3ToF32", "src:Uint8Array dst:Float32Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, src, 1, viewBytes(dst), 4, src.length, (k, s, d, n) => k.f8e4m3ToF32(s, d, n));
  } else {
    js.f8e4m3ToF32(src, wordsOf(dst));
  }
  return dst;
}

/**
 * float8 e5m2 (raw bytes; OCP FP8 E5M2: bias 15, IEEE-like with infinities and NaNs: the top byte of a
 * binary16) to float32, exact; NaN stays NaN, quieted, with its payload kept.
 */
export function f8e5m2ToF32(src: Uint8Array, dst: Float32Array = new Float32Array(lengthOf(src))): Float32Array {
  checkArgs("f8e5m2ToF32", "src:Uint8Array dst:Float32Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, src, 1, viewBytes(dst), 4, src.length, (k, s, d, n) => k.f8e5m2ToF32(s, d, n));
  } else {
    js.f8e5m2ToF32(src, wordsOf(dst));
  }
  return dst;
}
