// Cache-blocked 2-D transposes with strides: dst[j * dstStride + i] = src[i * srcStride + j] for i < rows,
// j < cols (strides and counts in elements). Inside 32x32 blocks: 2-byte elements use a SIMD 8x8 micro-kernel,
// 4-byte elements a 4x4 one, 8-byte elements a 2x2 one; 1-byte elements a scalar blocked loop.

const BLOCK: usize = 32;

// @ts-ignore: decorator
@inline
function min(a: usize, b: usize): usize { return a < b ? a : b; }

export function transpose32(src: usize, dst: usize, rows: usize, cols: usize, srcStride: usize, dstStride: usize): void {
  const sRow = srcStride << 2, dRow = dstStride << 2;
  for (let ib: usize = 0; ib < rows; ib += BLOCK) {
    const iEnd = min(ib + BLOCK, rows);
    const iVec = ib + ((iEnd - ib) & ~(<usize>3));
    for (let jb: usize = 0; jb < cols; jb += BLOCK) {
      const jEnd = min(jb + BLOCK, cols);
      const jVec = jb + ((jEnd - jb) & ~(<usize>3));
      for (let i = ib; i < iVec; i += 4) {
        let s = src + i * sRow + (jb << 2);
        let d = dst + jb * dRow + (i << 2);
        for (let j = jb; j < jVec; j += 4) {
          const r0 = v128.load(s), r1 = v128.load(s + sRow), r2 = v128.load(s + 2 * sRow), r3 = v128.load(s + 3 * sRow);
          const t0 = v128.shuffle<i32>(r0, r1, 0, 4, 1, 5), t1 = v128.shuffle<i32>(r0, r1, 2, 6, 3, 7);
          const t2 = v128.shuffle<i32>(r2, r3, 0, 4, 1, 5), t3 = v128.shuffle<i32>(r2, r3, 2, 6, 3, 7);
          v128.store(d, v128.shuffle<i64>(t0, t2, 0, 2));
          v128.store(d + dRow, v128.shuffle<i64>(t0, t2, 1, 3));
          v128.store(d + 2 * dRow, v128.shuffle<i64>(t1, t3, 0, 2));
          v128.store(d + 3 * dRow, v128.shuffle<i64>(t1, t3, 1, 3));
          s += 16;
          d += dRow << 2;
        }
        for (let j = jVec; j < jEnd; j++) {
          for (let k: usize = 0; k < 4; k++) store<u32>(dst + j * dRow + ((i + k) << 2), load<u32>(src + (i + k) * sRow + (j << 2)));
        }
      }
      for (let i = iVec; i < iEnd; i++) {
        for (let j = jb; j < jEnd; j++) store<u32>(dst + j * dRow + (i << 2), load<u32>(src + i * sRow + (j << 2)));
      }
    }
  }
}

export function transpose64(src: usize, dst: usize, rows: usize, cols: usize, srcStride: usize, dstStride: usize): void {
  const sRow = srcStride << 3, dRow = dstStride << 3;
  for (let ib: usize = 0; ib < rows; ib += BLOCK) {
    const iEnd = min(ib + BLOCK, rows);
    const iVec = ib + ((iEnd - ib) & ~(<usize>1));
    for (let jb: usize = 0; jb < cols; jb += BLOCK) {
      const jEnd = min(jb + BLOCK, cols);
      const jVec = jb + ((jEnd - jb) & ~(<usize>1));
      for (let i = ib; i < iVec; i += 2) {
        let s = src + i * sRow + (jb << 3);
        let d = dst + jb * dRow + (i << 3);
        for (let j = jb; j < jVec; j += 2) {
          const r0 = v128.load(s), r1 = v128.load(s + sRow);
          v128.store(d, v128.shuffle<i64>(r0, r1, 0, 2));
          v128.store(d + dRow, v128.shuffle<i64>(r0, r1, 1, 3));
          s += 16;
          d += dRow << 1;
        }
        if (jVec < jEnd) {
          store<u64>(dst + jVec * dRow + (i << 3), load<u64>(src + i * sRow + (jVec << 3)));
          store<u64>(dst + jVec * dRow + ((i + 1) << 3), load<u64>(src + (i + 1) * sRow + (jVec << 3)));
        }
      }
      if (iVec < iEnd) {
        for (let j = jb; j < jEnd; j++) store<u64>(dst + j * dRow + (iVec << 3), load<u64>(src + iVec * sRow + (j << 3)));
      }
    }
  }
}

export function transpose16(src: usize, dst: usize, rows: usize, cols: usize, srcStride: usize, dstStride: usize): void {
  const sRow = srcStride << 1, dRow = dstStride << 1;
  for (let ib: usize = 0; ib < rows; ib += BLOCK) {
    const iEnd = min(ib + BLOCK, rows);
    const iVec = ib + ((iEnd - ib) & ~(<usize>7));
    for (let jb: usize = 0; jb < cols; jb += BLOCK) {
      const jEnd = min(jb + BLOCK, cols);
      const jVec = jb + ((jEnd - jb) & ~(<usize>7));
      for (let i = ib; i < iVec; i += 8) {
        let s = src + i * sRow + (jb << 1);
        let d = dst + jb * dRow + (i << 1);
        for (let j = jb; j < jVec; j += 8) {
          // 8x8 block: interleave 16-, then 32-, then 64-bit lanes
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
          s += 16;
          d += dRow << 3;
        }
        for (let j = jVec; j < jEnd; j++) {
          for (let k: usize = 0; k < 8; k++) store<u16>(dst + j * dRow + ((i + k) << 1), load<u16>(src + (i + k) * sRow + (j << 1)));
        }
      }
      for (let i = iVec; i < iEnd; i++) {
        for (let j = jb; j < jEnd; j++) store<u16>(dst + j * dRow + (i << 1), load<u16>(src + i * sRow + (j << 1)));
      }
    }
  }
}

export function transpose8(src: usize, dst: usize, rows: usize, cols: usize, srcStride: usize, dstStride: usize): void {
  for (let ib: usize = 0; ib < rows; ib += BLOCK) {
    const iEnd = min(ib + BLOCK, rows);
    for (let jb: usize = 0; jb < cols; jb += BLOCK) {
      const jEnd = min(jb + BLOCK, cols);
      for (let i = ib; i < iEnd; i++) {
        const s = src + i * srcStride;
        for (let j = jb; j < jEnd; j++) store<u8>(dst + j * dstStride + i, load<u8>(s + j));
      }
    }
  }
}
