// The tensorfile kernels: the list of every kernel. Pointer-style: every argument is a byte address in linear
// memory (imported, so each caller-owned WebAssembly.Memory can get its own instance) or a count in elements. No
// allocation.
//
// This file is not built as one module: the kernels ship as one small module per family (assembly/families/*.ts,
// scripts/wasm-families.mjs), so that bundles keep only the families they use. `npm run build` fails when a kernel
// exported here is exported by no family: add a new kernel here AND to its family's file in assembly/families/.
export { f16ToF32, f32ToF16 } from "./half";
export { dequantizeI8, quantizeI8 } from "./quant";
export { byteSwap16, byteSwap32, byteSwap64 } from "./bswap";
export { transpose8, transpose16, transpose32, transpose64 } from "./transpose";
export { transposeF16ToF32 } from "./transpose-f16";
export { bf16ToF32, f8e4m3ToF32, f8e5m2ToF32 } from "./minifloat";

// statistics and histograms (issue 17)
export {
  statsF32, statsF64, histogramF32, histogramF64,
  widenI8ToF32, widenU8ToF32, widenI16ToF32, widenU16ToF32, widenI32ToF64, widenU32ToF64,
} from "./stats";

/** First byte after the module's static data: callers lay out their buffers above it. */
export function staticEnd(): usize {
  return __heap_base;
}

/** Bulk copy inside linear memory (memory.copy). */
export function copy(src: usize, dst: usize, bytes: usize): void {
  memory.copy(dst, src, bytes);
}
// issue 15 (diff): element-wise comparison statistics of two float32 arrays
export { diffStats } from "./diff";
