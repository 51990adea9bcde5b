/**
 * The kernel families (one WebAssembly module each; scripts/wasm-families.mjs lists them with their static-data
 * slots). Each family is a plain object referring to its embedded bytes, so a bundler drops a family, bytes
 * included, when no code it keeps uses that family's kernels. The type of each module's exports is generated from
 * assembly/ by scripts/build-wasm.mjs (<name>.exports.ts beside this file).
 */
import type { KernelFamily } from "./instance.js";
import type { ConvertExports } from "./convert.exports.js";
import type { DiffExports } from "./diff.exports.js";
import type { StatsExports } from "./stats.exports.js";
import type { TransposeExports } from "./transpose.exports.js";
import type { TransposeF16Exports } from "./transposeF16.exports.js";
import { WASM_HEX as CONVERT } from "./convert.wasm.js";
import { WASM_HEX as DIFF } from "./diff.wasm.js";
import { WASM_HEX as STATS } from "./stats.wasm.js";
import { WASM_HEX as TRANSPOSE } from "./transpose.wasm.js";
import { WASM_HEX as TRANSPOSE_F16 } from "./transposeF16.wasm.js";

export type { ConvertExports, DiffExports, StatsExports, TransposeExports, TransposeF16Exports };

/** The element-wise conversions (byte swaps, fp16, int8 quantization, bfloat16/float8): one module. */
export const convertFamily: KernelFamily<ConvertExports> = { name: "convert", hex: CONVERT };
/** Strided 2-D transposes. */
export const transposeFamily: KernelFamily<TransposeExports> = { name: "transpose", hex: TRANSPOSE };
/** The fused column-major fp16 -> row-major f32 transpose (public kernels.transposeF16ToF32 only). */
export const transposeF16Family: KernelFamily<TransposeF16Exports> = { name: "transposeF16", hex: TRANSPOSE_F16 };
/** Statistics and histograms of float32/float64 values, and integer widenings. */
export const statsFamily: KernelFamily<StatsExports> = { name: "stats", hex: STATS };
/** Element-wise comparison statistics of two float32 arrays. */
export const diffFamily: KernelFamily<DiffExports> = { name: "diff", hex: DIFF };

/** Every family (tests and tools that want them all; bundles that use this keep every module). */
export const ALL_FAMILIES: readonly KernelFamily<unknown>[] = [
  convertFamily, transposeFamily, transposeF16Family, statsFamily, diffFamily,
];
