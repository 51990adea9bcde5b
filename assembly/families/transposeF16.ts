// WASM module "transposeF16": the fused column-major fp16 -> row-major f32 transpose (with its own copy of
// f16ToF32, which widens its tiles). A module of its own: the readers reorder fp16 in two passes (transpose, then
// f16ToF32), so only the public kernels.transposeF16ToF32 / columnToRowMajorF16ToF32 need it.
export { transposeF16ToF32 } from "../transpose-f16";
export { staticEnd } from "./common";
