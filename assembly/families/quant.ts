// WASM module "quant": int8 (de)quantization.
export { dequantizeI8, quantizeI8 } from "../quant";
export { staticEnd } from "./common";
