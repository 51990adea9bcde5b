// WASM module "diff": element-wise comparison statistics of two float32 arrays.
export { diffStats } from "../diff";
export { staticEnd } from "./common";
