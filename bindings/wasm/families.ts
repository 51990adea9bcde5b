/**
 * The kernel families (one WebAssembly module each; scripts/wasm-families.mjs lists them with their static-data
 * slots) and the exports each module has. Each family is a plain object referring to its embedded bytes, so a
 * bundler drops a family, bytes included, when no code it keeps uses that family's kernels. Pointer-style
 * signatures: addresses are byte offsets in the memory the instance runs on, counts are in elements.
 */
import type { FamilyCommonExports, KernelFamily } from "./instance.js";
import { WASM_HEX as CONVERT } from "./convert.wasm.js";
import { WASM_HEX as DIFF } from "./diff.wasm.js";
import { WASM_HEX as STATS } from "./stats.wasm.js";
import { WASM_HEX as TRANSPOSE } from "./transpose.wasm.js";
import { WASM_HEX as TRANSPOSE_F16 } from "./transposeF16.wasm.js";

type Elementwise = (src: number, dst: number, count: number) => void;
type Transpose = (src: number, dst: number, rows: number, cols: number, srcStride: number, dstStride: number) => void;

/**
 * The element-wise conversions, one module (every bundle reaching one reaches all): in-place byte swaps and
 * memory.copy (swaps out of place), IEEE binary16 <-> float32, int8 (de)quantization (value = (q - offset) *
 * scale), bfloat16 and float8 to float32.
 */
export interface ConvertExports extends FamilyCommonExports {
  byteSwap16(ptr: number, count: number): void;
  byteSwap32(ptr: number, count: number): void;
  byteSwap64(ptr: number, count: number): void;
  copy(src: number, dst: number, bytes: number): void;
  f16ToF32: Elementwise;
  f32ToF16: Elementwise;
  dequantizeI8(src: number, dst: number, count: number, scale: number, offset: number): void;
  quantizeI8(src: number, dst: number, count: number, scale: number, offset: number): void;
  bf16ToF32: Elementwise;
  f8e4m3ToF32: Elementwise;
  f8e5m2ToF32: Elementwise;
}
export const convertFamily: KernelFamily<ConvertExports> = { name: "convert", hex: CONVERT };

/** Strided 2-D transposes. */
export interface TransposeExports extends FamilyCommonExports {
  transpose8: Transpose;
  transpose16: Transpose;
  transpose32: Transpose;
  transpose64: Transpose;
}
export const transposeFamily: KernelFamily<TransposeExports> = { name: "transpose", hex: TRANSPOSE };

/** The fused column-major fp16 -> row-major f32 transpose (public kernels.transposeF16ToF32 only). */
export interface TransposeF16Exports extends FamilyCommonExports {
  transposeF16ToF32: Transpose;
}
export const transposeF16Family: KernelFamily<TransposeF16Exports> = { name: "transposeF16", hex: TRANSPOSE_F16 };

/** Statistics and histograms of float32/float64 values, and integer widenings. */
export interface StatsExports extends FamilyCommonExports {
  statsF32(src: number, count: number, out: number): void;
  statsF64(src: number, count: number, out: number): void;
  histogramF32(src: number, count: number, lo: number, hi: number, h: number, loH: number, scale: number, bins: number, counts: number, out: number): void;
  histogramF64(src: number, count: number, lo: number, hi: number, h: number, loH: number, scale: number, bins: number, counts: number, out: number): void;
  widenI8ToF32: Elementwise;
  widenU8ToF32: Elementwise;
  widenI16ToF32: Elementwise;
  widenU16ToF32: Elementwise;
  widenI32ToF64: Elementwise;
  widenU32ToF64: Elementwise;
}
export const statsFamily: KernelFamily<StatsExports> = { name: "stats", hex: STATS };

/** Element-wise comparison statistics of two float32 arrays. */
export interface DiffExports extends FamilyCommonExports {
  diffStats(a: number, b: number, count: number, atol: number, rtol: number, out: number): void;
}
export const diffFamily: KernelFamily<DiffExports> = { name: "diff", hex: DIFF };

/** Every family (tests and tools that want them all; bundles that use this keep every module). */
export const ALL_FAMILIES: readonly KernelFamily<unknown>[] = [
  convertFamily, transposeFamily, transposeF16Family, statsFamily, diffFamily,
];
