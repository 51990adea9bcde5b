// Cache-blocked 2-D transposes with strides: dst[j * dstStride + i] = src[i * srcStride + j] for i < rows,
// j < cols (strides and counts in elements). 4-byte elements use a SIMD 4x4 micro-kernel, 8-byte elements
// a 2x2 one, inside 32x32 blocks; 1- and 2-byte elements a scalar blocked loop.

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
  for (let ib: usize = 0; ib < rows; ib += BLOCK) {
    const iEnd = min(ib + BLOCK, rows);
    for (let jb: usize = 0; jb < cols; jb += BLOCK) {
      const jEnd = min(jb + BLOCK, cols);
      for (let i = ib; i < iEnd; i++) {
        const s = src + ((i * srcStride) << 1);
        for (let j = jb; j < jEnd; j++) store<u16>(dst + ((j * dstStride + i) << 1), load<u16>(s + (j << 1)));
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
