// In-place byte swaps of 2-, 4- and 8-byte elements. The swizzle masks stay literal constants: only then can
// V8 prove the indices < 16 and emit one pshufb (see ../shared/notes/performance.md).

export function byteSwap16(ptr: usize, count: usize): void {
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const p = ptr + (i << 1);
    v128.store(p, i8x16.swizzle(v128.load(p), i8x16(1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14)));
  }
  for (; i < count; i++) {
    const p = ptr + (i << 1);
    store<u16>(p, bswap<u16>(load<u16>(p)));
  }
}

export function byteSwap32(ptr: usize, count: usize): void {
  const vectorEnd = count & ~(<usize>7);
  let i: usize = 0;
  for (; i < vectorEnd; i += 8) {
    const p = ptr + (i << 2);
    v128.store(p, i8x16.swizzle(v128.load(p), i8x16(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12)));
    v128.store(p, i8x16.swizzle(v128.load(p, 16), i8x16(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12)), 16);
  }
  for (; i < count; i++) {
    const p = ptr + (i << 2);
    store<u32>(p, bswap<u32>(load<u32>(p)));
  }
}

export function byteSwap64(ptr: usize, count: usize): void {
  const vectorEnd = count & ~(<usize>3);
  let i: usize = 0;
  for (; i < vectorEnd; i += 4) {
    const p = ptr + (i << 3);
    v128.store(p, i8x16.swizzle(v128.load(p), i8x16(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8)));
    v128.store(p, i8x16.swizzle(v128.load(p, 16), i8x16(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8)), 16);
  }
  for (; i < count; i++) {
    const p = ptr + (i << 3);
    store<u64>(p, bswap<u64>(load<u64>(p)));
  }
}
