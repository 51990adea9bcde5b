// WASM module "stats": statistics and histograms of float32/float64 values, and the integer widenings that feed
// them (float16, bfloat16, float8 and int8 with a scale are widened by the half, minifloat and quant modules,
// instantiated on the same memory).
export {
  statsF32, statsF64, histogramF32, histogramF64,
  widenI8ToF32, widenU8ToF32, widenI16ToF32, widenU16ToF32, widenI32ToF64, widenU32ToF64,
} from "../stats";
export { staticEnd } from "./common";
