// The fused column-major fp16 -> row-major f32 transpose + widen (kernels.transposeF16ToF32), with the 4x4 block
// and column blocking of transpose.ts.
import { f16ToF32, halfBitsToFloatBits } from "./half";
import { COLUMN_BLOCK, block4x4, min } from "./transpose";

/**
 * The fused transpose + widen: src holds rows x cols IEEE halves (u16, stride srcStride), dst gets the cols x rows
 * transpose as f32 (stride dstStride): dst[j * dstStride + i] = f32(src[i * srcStride + j]), exact (as f16ToF32).
 * This is column-major fp16 to row-major f32 in one pass over memory: tiles of 16 rows x 128 (edges: 32) halves are
 * copied into a static tile (4 KiB), widened there by the f16ToF32 kernel (in L1), and written out as 4x4
 * transposes, each destination row getting one whole 64-byte line per tile.
 */
export function transposeF16ToF32(src: usize, dst: usize, rows: usize, cols: usize, srcStride: usize, dstStride: usize): void {
  const sRow = srcStride << 1, dRow = dstStride << 2;
  const rows16 = rows & ~(<usize>15), cols128 = cols & ~(<usize>127), cols32 = cols & ~(<usize>31);
  for (let i: usize = 0; i < rows16; i += 16) {
    // wide tiles (16 x 128 halves) where they fit, then narrow ones (16 x 32): fewer calls per element
    for (let jb: usize = 0; jb < cols128; jb += COLUMN_BLOCK) {
      const jEnd = min(jb + COLUMN_BLOCK, cols128);
      for (let j = jb; j < jEnd; j += 128) widenTile(src + i * sRow + (j << 1), sRow, dst + j * dRow + (i << 2), dRow, 128);
    }
    for (let j = cols128; j < cols32; j += 32) widenTile(src + i * sRow + (j << 1), sRow, dst + j * dRow + (i << 2), dRow, 32);
  }
  // edges: rows below the last 16-row strip, columns after the last 32-column tile
  for (let i = rows16; i < rows; i++) {
    for (let j: usize = 0; j < cols32; j++) store<u32>(dst + j * dRow + (i << 2), halfBitsToFloatBits(<u32>load<u16>(src + i * sRow + (j << 1))));
  }
  for (let i: usize = 0; i < rows; i++) {
    for (let j = cols32; j < cols; j++) store<u32>(dst + j * dRow + (i << 2), halfBitsToFloatBits(<u32>load<u16>(src + i * sRow + (j << 1))));
  }
}

/**
 * One tile of 16 rows x `width` halves (32 or 128) at `s`: copied into the narrow tile, widened into the wide tile
 * (rows of width * 4 bytes) by f16ToF32, written out 4 columns at a time as 4x4 transposes (each of 4 destination
 * rows gets one 64-byte line).
 */
// @ts-ignore: decorator
@inline
function widenTile(s: usize, sRow: usize, d: usize, dRow: usize, width: usize): void {
  const narrow = changetype<usize>(NARROW_TILE), wide = changetype<usize>(WIDE_TILE);
  const narrowRow = width << 1, wideRow = width << 2;
  for (let r: usize = 0; r < 16; r++) {
    const from = s + r * sRow, to = narrow + r * narrowRow;
    for (let k: usize = 0; k < narrowRow; k += 16) v128.store(to + k, v128.load(from + k));
  }
  f16ToF32(narrow, wide, width << 4);
  for (let c: usize = 0; c < width; c += 4) {
    const t = wide + (c << 2);
    const o = d + c * dRow;
    block4x4(t, wideRow, o, dRow);
    block4x4(t + 4 * wideRow, wideRow, o + 16, dRow);
    block4x4(t + 8 * wideRow, wideRow, o + 32, dRow);
    block4x4(t + 12 * wideRow, wideRow, o + 48, dRow);
  }
}

/** The fused kernel's tiles: up to 16 x 128 halves and the same as floats (one per memory: kernels do not nest). */
const NARROW_TILE = memory.data(4096, 16);
const WIDE_TILE = memory.data(8192, 16);
