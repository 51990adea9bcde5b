/**
 * Pure-TS twins of the transpose families' kernels (assembly/transpose.ts, transpose-f16.ts): strided 2-D
 * transposes blocked by 32, bit-identical to the WASM kernels.
 */
import { halfToFloatTable } from "./convert-js.js";

type Elements = Uint8Array | Uint16Array | Uint32Array;

/** dst[j * dstStride + i] = src[i * srcStride + j] (strides in elements), blocked by 32. */
export function transpose<T extends Elements>(
  src: T,
  dst: T,
  rows: number,
  cols: number,
  srcStride = cols,
  dstStride = rows,
): void {
  const block = 32;
  for (let ib = 0; ib < rows; ib += block) {
    const iEnd = Math.min(ib + block, rows);
    for (let jb = 0; jb < cols; jb += block) {
      const jEnd = Math.min(jb + block, cols);
      for (let i = ib; i < iEnd; i++) {
        const s = i * srcStride;
        for (let j = jb; j < jEnd; j++) dst[j * dstStride + i] = src[s + j]!;
      }
    }
  }
}

/** transpose() of IEEE halves widened to f32 bits in the same pass (the fused column-major fp16 -> row-major f32). */
export function transposeF16ToF32(
  src: Uint16Array,
  dst: Uint32Array,
  rows: number,
  cols: number,
  srcStride = cols,
  dstStride = rows,
): void {
  const table = halfToFloatTable();
  const block = 32;
  for (let ib = 0; ib < rows; ib += block) {
    const iEnd = Math.min(ib + block, rows);
    for (let jb = 0; jb < cols; jb += block) {
      const jEnd = Math.min(jb + block, cols);
      for (let i = ib; i < iEnd; i++) {
        const s = i * srcStride;
        for (let j = jb; j < jEnd; j++) dst[j * dstStride + i] = table[src[s + j]!]!;
      }
    }
  }
}

/** transpose() for 8-byte elements held as pairs of 32-bit words (no float64 round trip, so NaN bits stay). */
export function transpose64(
  src: Uint32Array,
  dst: Uint32Array,
  rows: number,
  cols: number,
  srcStride = cols,
  dstStride = rows,
): void {
  const block = 32;
  for (let ib = 0; ib < rows; ib += block) {
    const iEnd = Math.min(ib + block, rows);
    for (let jb = 0; jb < cols; jb += block) {
      const jEnd = Math.min(jb + block, cols);
      for (let i = ib; i < iEnd; i++) {
        const s = i * srcStride;
        for (let j = jb; j < jEnd; j++) {
          const from = (s + j) * 2;
          const to = (j * dstStride + i) * 2;
          dst[to] = src[from]!;
          dst[to + 1] = src[from + 1]!;
        }
      }
    }
  }
}
