// WASM module "minifloat": bfloat16 and float8 (e4m3fn, e5m2) to float32.
export { bf16ToF32, f8e4m3ToF32, f8e5m2ToF32 } from "../minifloat";
export { staticEnd } from "./common";
