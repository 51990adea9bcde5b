// WASM module "transpose": strided 2-D transposes of 1, 2, 4 and 8-byte elements.
export { transpose8, transpose16, transpose32, transpose64 } from "../transpose";
export { staticEnd } from "./common";
