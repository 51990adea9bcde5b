/**
 * The public kernel API over typed arrays (the `tensorfile/kernels` entry, and `kernels` of the main entry). Each
 * call picks the WASM SIMD kernel or its TS twin (backend.ts). One module per kernel family, mirroring assembly/:
 * convert.ts, transpose.ts, stats.ts (with histogram.ts and stats-values.ts), diff.ts, each beside its TypeScript
 * twin (*-js.ts); memory.ts for arrays that live in WebAssembly memory.
 */
export { type Backend, WASM_MIN_ELEMENTS, getBackend, setBackend, wasmAvailable } from "./backend.js";
export { bytesOf } from "./checks.js";
export { allocate, isWasmResident, releaseMemory } from "./memory.js";
export {
  bf16ToF32,
  byteSwap,
  dequantizeI8,
  f16ToF32,
  f32ToF16,
  f8e4m3ToF32,
  f8e5m2ToF32,
  quantizeI8,
} from "./convert.js";
export {
  columnToRowMajor,
  columnToRowMajorBytes,
  columnToRowMajorF16ToF32,
  reorderColumnMajorBytes,
  rowToColumnMajor,
  transpose,
  transposeColumns,
  transposeF16ToF32,
} from "./transpose.js";
export { type DiffStatsResult, DIFF_CHUNK, diffStats, emptyDiffStats, mergeDiffStats } from "./diff.js";
export { type TensorStats, mergeStats, stats } from "./stats.js";
export { type StatsData, type StatsOptions, STATS_CHUNK } from "./stats-values.js";
export { type Histogram, MAX_WASM_BINS, histogram } from "./histogram.js";
