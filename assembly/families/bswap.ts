// WASM module "bswap": in-place byte swaps, and a bulk copy inside linear memory (out-of-place swaps).
export { byteSwap16, byteSwap32, byteSwap64 } from "../bswap";
export { staticEnd } from "./common";

/** Bulk copy inside linear memory (memory.copy). */
export function copy(src: usize, dst: usize, bytes: usize): void {
  memory.copy(dst, src, bytes);
}
