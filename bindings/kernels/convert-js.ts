/**
 * Pure-TS twins of the convert family's kernels (assembly/half.ts, quant.ts, bswap.ts, minifloat.ts): the fallback
 * for tiny inputs and hosts without WebAssembly SIMD, and the oracle the tests compare the WASM kernels against.
 * Each loop is monomorphic (one typed-array type per function), which keeps V8 from de-optimising them. Results
 * are bit-identical to the WASM kernels.
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
    h = ((x + 0xc8000fff + ((x >>> 13) & 1)) >>> 13) & 0xffff;
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
export function halfToFloatTable(): Uint32Array {
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
