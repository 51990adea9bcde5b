// WASM module "transpose": strided 2-D transposes of 1/2/4/8-byte elements and the fused fp16 -> f32 one. It holds
// the f16ToF32 kernel anyway (the fused transpose widens its tiles with it), so it exports it too: transposes
// that widen in two steps need no second module.
export { transpose8, transpose16, transpose32, transpose64, transposeF16ToF32 } from "../transpose";
export { f16ToF32 } from "../half";
export { staticEnd } from "./common";
