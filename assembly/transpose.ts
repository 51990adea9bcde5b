// Strided 2-D transposes: dst[j * dstStride + i] = src[i * srcStride + j] for i < rows, j < cols (strides and
// counts in elements).
//
// Layout of the work (the same for every element size): strips of source rows tall enough that each step writes
// one whole 64-byte line of every destination row it touches (f32: 16 rows, u16: 32, u64: 8), walked across
// column blocks of COLUMN_BLOCK so that the lines of one block's destination rows stay in cache between strips.
// Whole lines matter: a transpose reads lines but writes to many rows at a large stride, and half-written lines
// (the old 4-row steps) are read back from memory before being written. Measured on 4096x4096 f32: about twice
// the old 32x32-block kernel (bench/kernels.bench.mjs). Inside a step: SIMD 4x4 (f32), 8x8 (u16) or 2x2 (u64)
// register transposes; edges (rows or columns that do not fill a step) fall back to narrower steps and scalars.
// The fused fp16 -> f32 transpose is in transpose-f16.ts (a module of its own: see scripts/wasm-families.mjs).

export const COLUMN_BLOCK: usize = 512;

// @ts-ignore: decorator
@inline
export function min(a: usize, b: usize): usize { return a < b ? a : b; }

/** A 4x4 block of 32-bit elements: rows at s, s + sRow, … to columns at d, d + dRow, …. */
// @ts-ignore: decorator
@inline
export function block4x4(s: usize, sRow: usize, d: usize, dRow: usize): void {
  const r0 = v128.load(s), r1 = v128.load(s + sRow), r2 = v128.load(s + 2 * sRow), r3 = v128.load(s + 3 * sRow);
  const t0 = v128.shuffle<i32>(r0, r1, 0, 4, 1, 5), t1 = v128.shuffle<i32>(r0, r1, 2, 6, 3, 7);
  const t2 = v128.shuffle<i32>(r2, r3, 0, 4, 1, 5), t3 = v128.shuffle<i32>(r2, r3, 2, 6, 3, 7);
  v128.store(d, v128.shuffle<i64>(t0, t2, 0, 2));
  v128.store(d + dRow, v128.shuffle<i64>(t0, t2, 1, 3));
  v128.store(d + 2 * dRow, v128.shuffle<i64>(t1, t3, 0, 2));
  v128.store(d + 3 * dRow, v128.shuffle<i64>(t1, t3, 1, 3));
}

export function transpose32(src: usize, dst: usize, rows: usize, cols: usize, srcStride: usize, dstStride: usize): void {
  const sRow = srcStride << 2, dRow = dstStride << 2;
  const rows16 = rows & ~(<usize>15), rows4 = rows & ~(<usize>3), cols4 = cols & ~(<usize>3);
  for (let jb: usize = 0; jb < cols4; jb += COLUMN_BLOCK) {
    const jEnd = min(jb + COLUMN_BLOCK, cols4);
    // strips of 16 rows: each 4-column step writes 64 bytes (one line) to each of 4 destination rows
    for (let i: usize = 0; i < rows16; i += 16) {
      let s = src + i * sRow + (jb << 2);
      let d = dst + jb * dRow + (i << 2);
      for (let j = jb; j < jEnd; j += 4) {
        block4x4(s, sRow, d, dRow);
        block4x4(s + 4 * sRow, sRow, d + 16, dRow);
        block4x4(s + 8 * sRow, sRow, d + 32, dRow);
        block4x4(s + 12 * sRow, sRow, d + 48, dRow);
        s += 16;
        d += dRow << 2;
      }
    }
    for (let i = rows16; i < rows4; i += 4) {
      let s = src + i * sRow + (jb << 2);
      let d = dst + jb * dRow + (i << 2);
      for (let j = jb; j < jEnd; j += 4) {
        block4x4(s, sRow, d, dRow);
        s += 16;
        d += dRow << 2;
      }
    }
    for (let i = rows4; i < rows; i++) {
      for (let j = jb; j < jEnd; j++) store<u32>(dst + j * dRow + (i << 2), load<u32>(src + i * sRow + (j << 2)));
    }
  }
  for (let i: usize = 0; i < rows; i++) {
    for (let j = cols4; j < cols; j++) store<u32>(dst + j * dRow + (i << 2), load<u32>(src + i * sRow + (j << 2)));
  }
}

/** A 2x2 block of 64-bit elements. */
// @ts-ignore: decorator
@inline
function block2x2(s: usize, sRow: usize, d: usize, dRow: usize): void {
  const r0 = v128.load(s), r1 = v128.load(s + sRow);
  v128.store(d, v128.shuffle<i64>(r0, r1, 0, 2));
  v128.store(d + dRow, v128.shuffle<i64>(r0, r1, 1, 3));
}

export function transpose64(src: usize, dst: usize, rows: usize, cols: usize, srcStride: usize, dstStride: usize): void {
  const sRow = srcStride << 3, dRow = dstStride << 3;
  const rows8 = rows & ~(<usize>7), rows2 = rows & ~(<usize>1), cols2 = cols & ~(<usize>1);
  for (let jb: usize = 0; jb < cols2; jb += COLUMN_BLOCK) {
    const jEnd = min(jb + COLUMN_BLOCK, cols2);
    // strips of 8 rows: each 2-column step writes 64 bytes to each of 2 destination rows
    for (let i: usize = 0; i < rows8; i += 8) {
      let s = src + i * sRow + (jb << 3);
      let d = dst + jb * dRow + (i << 3);
      for (let j = jb; j < jEnd; j += 2) {
        block2x2(s, sRow, d, dRow);
        block2x2(s + 2 * sRow, sRow, d + 16, dRow);
        block2x2(s + 4 * sRow, sRow, d + 32, dRow);
        block2x2(s + 6 * sRow, sRow, d + 48, dRow);
        s += 16;
        d += dRow << 1;
      }
    }
    for (let i = rows8; i < rows2; i += 2) {
      let s = src + i * sRow + (jb << 3);
      let d = dst + jb * dRow + (i << 3);
      for (let j = jb; j < jEnd; j += 2) {
        block2x2(s, sRow, d, dRow);
        s += 16;
        d += dRow << 1;
      }
    }
    for (let i = rows2; i < rows; i++) {
      for (let j = jb; j < jEnd; j++) store<u64>(dst + j * dRow + (i << 3), load<u64>(src + i * sRow + (j << 3)));
    }
  }
  for (let i: usize = 0; i < rows; i++) {
    for (let j = cols2; j < cols; j++) store<u64>(dst + j * dRow + (i << 3), load<u64>(src + i * sRow + (j << 3)));
  }
}

/** An 8x8 block of 16-bit elements: interleave 16-, then 32-, then 64-bit lanes. */
// @ts-ignore: decorator
@inline
function block8x8(s: usize, sRow: usize, d: usize, dRow: usize): void {
  const r0 = v128.load(s), r1 = v128.load(s + sRow), r2 = v128.load(s + 2 * sRow), r3 = v128.load(s + 3 * sRow);
  const r4 = v128.load(s + 4 * sRow), r5 = v128.load(s + 5 * sRow), r6 = v128.load(s + 6 * sRow), r7 = v128.load(s + 7 * sRow);
  const a0 = v128.shuffle<i16>(r0, r1, 0, 8, 1, 9, 2, 10, 3, 11), a1 = v128.shuffle<i16>(r0, r1, 4, 12, 5, 13, 6, 14, 7, 15);
  const a2 = v128.shuffle<i16>(r2, r3, 0, 8, 1, 9, 2, 10, 3, 11), a3 = v128.shuffle<i16>(r2, r3, 4, 12, 5, 13, 6, 14, 7, 15);
  const a4 = v128.shuffle<i16>(r4, r5, 0, 8, 1, 9, 2, 10, 3, 11), a5 = v128.shuffle<i16>(r4, r5, 4, 12, 5, 13, 6, 14, 7, 15);
  const a6 = v128.shuffle<i16>(r6, r7, 0, 8, 1, 9, 2, 10, 3, 11), a7 = v128.shuffle<i16>(r6, r7, 4, 12, 5, 13, 6, 14, 7, 15);
  const b0 = v128.shuffle<i32>(a0, a2, 0, 4, 1, 5), b1 = v128.shuffle<i32>(a0, a2, 2, 6, 3, 7);
  const b2 = v128.shuffle<i32>(a1, a3, 0, 4, 1, 5), b3 = v128.shuffle<i32>(a1, a3, 2, 6, 3, 7);
  const b4 = v128.shuffle<i32>(a4, a6, 0, 4, 1, 5), b5 = v128.shuffle<i32>(a4, a6, 2, 6, 3, 7);
  const b6 = v128.shuffle<i32>(a5, a7, 0, 4, 1, 5), b7 = v128.shuffle<i32>(a5, a7, 2, 6, 3, 7);
  v128.store(d, v128.shuffle<i64>(b0, b4, 0, 2));
  v128.store(d + dRow, v128.shuffle<i64>(b0, b4, 1, 3));
  v128.store(d + 2 * dRow, v128.shuffle<i64>(b1, b5, 0, 2));
  v128.store(d + 3 * dRow, v128.shuffle<i64>(b1, b5, 1, 3));
  v128.store(d + 4 * dRow, v128.shuffle<i64>(b2, b6, 0, 2));
  v128.store(d + 5 * dRow, v128.shuffle<i64>(b2, b6, 1, 3));
  v128.store(d + 6 * dRow, v128.shuffle<i64>(b3, b7, 0, 2));
  v128.store(d + 7 * dRow, v128.shuffle<i64>(b3, b7, 1, 3));
}

export function transpose16(src: usize, dst: usize, rows: usize, cols: usize, srcStride: usize, dstStride: usize): void {
  const sRow = srcStride << 1, dRow = dstStride << 1;
  const rows32 = rows & ~(<usize>31), rows8 = rows & ~(<usize>7), cols8 = cols & ~(<usize>7);
  for (let jb: usize = 0; jb < cols8; jb += COLUMN_BLOCK) {
    const jEnd = min(jb + COLUMN_BLOCK, cols8);
    // strips of 32 rows: each 8-column step writes 64 bytes to each of 8 destination rows
    for (let i: usize = 0; i < rows32; i += 32) {
      let s = src + i * sRow + (jb << 1);
      let d = dst + jb * dRow + (i << 1);
      for (let j = jb; j < jEnd; j += 8) {
        block8x8(s, sRow, d, dRow);
        block8x8(s + 8 * sRow, sRow, d + 16, dRow);
        block8x8(s + 16 * sRow, sRow, d + 32, dRow);
        block8x8(s + 24 * sRow, sRow, d + 48, dRow);
        s += 16;
        d += dRow << 3;
      }
    }
    for (let i = rows32; i < rows8; i += 8) {
      let s = src + i * sRow + (jb << 1);
      let d = dst + jb * dRow + (i << 1);
      for (let j = jb; j < jEnd; j += 8) {
        block8x8(s, sRow, d, dRow);
        s += 16;
        d += dRow << 3;
      }
    }
    for (let i = rows8; i < rows; i++) {
      for (let j = jb; j < jEnd; j++) store<u16>(dst + j * dRow + (i << 1), load<u16>(src + i * sRow + (j << 1)));
    }
  }
  for (let i: usize = 0; i < rows; i++) {
    for (let j = cols8; j < cols; j++) store<u16>(dst + j * dRow + (i << 1), load<u16>(src + i * sRow + (j << 1)));
  }
}

const BYTE_BLOCK: usize = 32;

export function transpose8(src: usize, dst: usize, rows: usize, cols: usize, srcStride: usize, dstStride: usize): void {
  for (let ib: usize = 0; ib < rows; ib += BYTE_BLOCK) {
    const iEnd = min(ib + BYTE_BLOCK, rows);
    for (let jb: usize = 0; jb < cols; jb += BYTE_BLOCK) {
      const jEnd = min(jb + BYTE_BLOCK, cols);
      for (let i = ib; i < iEnd; i++) {
        const s = src + i * srcStride;
        for (let j = jb; j < jEnd; j++) store<u8>(dst + j * dstStride + i, load<u8>(s + j));
      }
    }
  }
}
