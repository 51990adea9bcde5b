// WASM module "half": IEEE binary16 <-> float32.
export { f16ToF32, f32ToF16 } from "../half";
export { staticEnd } from "./common";
