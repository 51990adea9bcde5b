// WASM module "convert": the element-wise conversions: byte swaps (and a bulk copy, for swaps out of place),
// IEEE binary16 <-> float32, int8 (de)quantization, bfloat16 and float8 to float32. One module because every
// bundle that reaches one of them reaches all (decodeTensor, stats and diff dispatch over every dtype), so separate
// modules would only add per-module bytes and compile/instantiate calls.
export { byteSwap16, byteSwap32, byteSwap64 } from "../bswap";
export { f16ToF32, f32ToF16 } from "../half";
export { dequantizeI8, quantizeI8 } from "../quant";
export { bf16ToF32, f8e4m3ToF32, f8e5m2ToF32 } from "../minifloat";
export { staticEnd } from "./common";

/** Bulk copy inside linear memory (memory.copy). */
export function copy(src: usize, dst: usize, bytes: usize): void {
  memory.copy(dst, src, bytes);
}
