/**
 * Transposes and column-major <-> row-major reorders (the transpose and transposeF16 families,
 * assembly/transpose.ts and transpose-f16.ts). TS twins in transpose-js.ts.
 */
import { copyBytes } from "../bytes/input.js";
import {
  type KernelFamily,
  DATA_OFFSET,
  MAX_MEMORY_BYTES,
  SCRATCH_BYTES,
  SCRATCH_OFFSET,
  familyModule,
  kernelsIn,
  memoryOf,
  sharedMemory,
  workMemory,
} from "../wasm/instance.js";
import {
  type TransposeExports,
  type TransposeF16Exports,
  convertFamily,
  transposeFamily,
  transposeF16Family,
} from "../wasm/families.js";
import { awayFrom, useWasm } from "./backend.js";
import { viewBytes, checkArgs, checkLength, elementSize, sameType } from "./checks.js";
import { f16ToF32 } from "./convert.js";
import * as js from "./transpose-js.js";

type TransposeCall<E> = (
  k: E,
  src: number,
  dst: number,
  rows: number,
  cols: number,
  srcStride: number,
  dstStride: number,
) => void;

/**
 * Element sizes in and out and the kernel: a plain transpose (n -> n bytes; the transpose family) or the fused
 * fp16 -> f32 widening one (2 -> 4; a family of its own, which only transposeF16ToF32, columnToRowMajorF16ToF32
 * and columnToRowMajorBytes with widenF16 reach: the readers' reorderColumnMajorBytes does not).
 */
interface TransposeKind<E> {
  srcBytes: number;
  dstBytes: number;
  family: KernelFamily<E>;
  call: TransposeCall<E>;
}

const FUSED_F16_KIND: TransposeKind<TransposeF16Exports> = {
  srcBytes: 2,
  dstBytes: 4,
  family: transposeF16Family,
  call: (k, s, d, r, c, ss, ds) => k.transposeF16ToF32(s, d, r, c, ss, ds),
};

function transposeKind(elementBytes: number): TransposeKind<TransposeExports> {
  const plain = (call: TransposeCall<TransposeExports>): TransposeKind<TransposeExports> => ({
    srcBytes: elementBytes,
    dstBytes: elementBytes,
    family: transposeFamily,
    call,
  });
  switch (elementBytes) {
    case 1:
      return plain((k, s, d, r, c, ss, ds) => k.transpose8(s, d, r, c, ss, ds));
    case 2:
      return plain((k, s, d, r, c, ss, ds) => k.transpose16(s, d, r, c, ss, ds));
    case 4:
      return plain((k, s, d, r, c, ss, ds) => k.transpose32(s, d, r, c, ss, ds));
    case 8:
      return plain((k, s, d, r, c, ss, ds) => k.transpose64(s, d, r, c, ss, ds));
    default:
      throw new RangeError(`tensorfile: transpose of ${elementBytes}-byte elements is not supported (1, 2, 4 or 8)`);
  }
}

/** One 2-D block of a permutation: a strided transpose at the given element offsets. */
interface TransposeBlock {
  srcOffset: number;
  dstOffset: number;
}

/**
 * Runs `blocks` strided transposes (rows x cols, strides in elements) from src to dst bytes, on WASM or TS.
 * Source row r of every block lies in the contiguous slab [r * srcStride, (r + 1) * srcStride) (true of
 * transpose() and columnToRowMajor()).
 * - both arrays in one dedicated memory: the kernels run in place;
 * - otherwise bands of whole source slabs are streamed through the scratch of the destination's memory (its own
 *   dedicated memory, or the reusable work memory holding only the result, copied out once at the end);
 * - slabs larger than the scratch: both arrays go through the work memory.
 */
function runTransposes<E>(
  src: Uint8Array,
  dst: Uint8Array,
  kind: TransposeKind<E>,
  rows: number,
  cols: number,
  srcStride: number,
  dstStride: number,
  blocks: readonly TransposeBlock[],
  widen = false,
): void {
  const count = src.byteLength / kind.srcBytes;
  // widening bands run f16ToF32 (convert family) then transpose32 (transpose family); only the in-place and
  // whole-array paths run the fused kernel (kind.family), whose module is compiled only when one of those runs
  const wasm = useWasm(count, transposeFamily) && (!widen || familyModule(convertFamily)) ? sharedMemory() : null;
  if (!wasm) {
    transposeJs(src, dst, kind, rows, cols, srcStride, dstStride, blocks, widen);
    return;
  }
  const srcHome = memoryOf(src.buffer);
  const dstHome = memoryOf(dst.buffer);
  if (srcHome && srcHome === dstHome && familyModule(kind.family)) {
    const k = kernelsIn(srcHome, kind.family);
    for (const b of blocks) {
      kind.call(
        k,
        src.byteOffset + b.srcOffset * kind.srcBytes,
        dst.byteOffset + b.dstOffset * kind.dstBytes,
        rows,
        cols,
        srcStride,
        dstStride,
      );
    }
    return;
  }
  const slabBytes = srcStride * kind.srcBytes;
  // a small result shares the shared instance's scratch with the bands (bands in the first half). Every copy in or
  // out keeps 2 KiB from its array modulo 4 KiB (awayFrom: no 4 KiB-aliased memcpy), hence the 4 KiB of slack.
  const small = !dstHome && dst.byteLength <= SCRATCH_BYTES / 2 - 4096;
  const bandBytes = (small ? SCRATCH_BYTES / 2 : SCRATCH_BYTES) - 4096;
  // widening: a band of halves in the first third, widened into the other two thirds, transposed as f32 from there
  const narrowCap = widen ? Math.floor(bandBytes / 3 / 16) * 16 : bandBytes;
  if (slabBytes <= narrowCap && rows * slabBytes <= src.byteLength) {
    // A plain 2-D result whose rows are a multiple of 256 bytes (512 or more) is built in the work memory with
    // rows 64 bytes longer than its own, then copied out row by row: at such a pitch the destination rows the
    // kernel writes in one strip fall into a few cache sets (4096x4096 float32: 16 KiB apart, all in one), and
    // the lines it fills are evicted before the next strip completes them. Bench, float32, whole transposes:
    // 4096x4096 15-20% faster, 512x32768 (rows of 2 KiB) 7.6x -> 4.1x memcpy of the output, 128x131072 (512
    // bytes) 14x -> 7x; at other pitches (1000x3000: rows of 4000 bytes) the rows spread over the sets anyway and
    // the row-by-row copy only costs (2.8x -> 3.5x).
    const rowBytes = rows * kind.dstBytes;
    const padded =
      !dstHome &&
      !small &&
      blocks.length === 1 &&
      dstStride === rows &&
      rowBytes >= 512 &&
      rowBytes % 256 === 0 &&
      // the padding must not push a result that fits a 4 GiB memory out of it
      DATA_OFFSET + dst.byteLength + cols * 64 + 4096 <= MAX_MEMORY_BYTES;
    const outStride = padded ? dstStride + 64 / kind.dstBytes : dstStride;
    const workBytes = padded ? cols * outStride * kind.dstBytes : dst.byteLength;
    const target = dstHome ?? (small ? wasm : workMemory(workBytes + 4096));
    if (!target) {
      transposeJs(src, dst, kind, rows, cols, srcStride, dstStride, blocks, widen);
      return;
    }
    const out = dstHome
      ? dst.byteOffset
      : awayFrom(small ? SCRATCH_OFFSET + SCRATCH_BYTES / 2 : DATA_OFFSET, dst.byteOffset);
    const heap = target.bytes;
    const band = bandRows(Math.floor(narrowCap / slabBytes), widen ? 4 : kind.srcBytes);
    for (let a = 0; a < rows; a += band) {
      const n = Math.min(band, rows - a);
      const at = awayFrom(SCRATCH_OFFSET, src.byteOffset + a * slabBytes);
      heap.subarray(at, at + n * slabBytes).set(src.subarray(a * slabBytes, (a + n) * slabBytes));
      if (widen) {
        const wideAt = at + narrowCap;
        kernelsIn(target, convertFamily).f16ToF32(at, wideAt, n * srcStride);
        const k = kernelsIn(target, transposeFamily);
        for (const b of blocks)
          k.transpose32(wideAt + b.srcOffset * 4, out + (b.dstOffset + a) * 4, n, cols, srcStride, outStride);
        continue;
      }
      const k = kernelsIn(target, kind.family);
      for (const b of blocks) {
        kind.call(
          k,
          at + b.srcOffset * kind.srcBytes,
          out + (b.dstOffset + a) * kind.dstBytes,
          n,
          cols,
          srcStride,
          outStride,
        );
      }
    }
    if (padded) {
      const pitch = outStride * kind.dstBytes;
      for (let j = 0; j < cols; j++) dst.set(heap.subarray(out + j * pitch, out + j * pitch + rowBytes), j * rowBytes);
    } else if (!dstHome) dst.set(heap.subarray(out, out + dst.byteLength));
    return;
  }
  const total = src.byteLength + dst.byteLength;
  const home = !familyModule(kind.family) ? null : total <= SCRATCH_BYTES ? wasm : workMemory(total);
  if (!home) {
    transposeJs(src, dst, kind, rows, cols, srcStride, dstStride, blocks, widen);
    return;
  }
  const base = home === wasm ? SCRATCH_OFFSET : DATA_OFFSET;
  const heap = new Uint8Array(home.memory.buffer);
  heap.set(src, base);
  const out = base + src.byteLength;
  const k = kernelsIn(home, kind.family);
  for (const b of blocks) {
    kind.call(
      k,
      base + b.srcOffset * kind.srcBytes,
      out + b.dstOffset * kind.dstBytes,
      rows,
      cols,
      srcStride,
      dstStride,
    );
  }
  dst.set(heap.subarray(out, out + dst.byteLength));
}

/**
 * Source rows per band: at most `fit` (what the scratch holds), rounded down to a whole number of the kernel's row
 * strips (16 rows of 4-byte elements, 32 of 1 and 2 bytes, 8 of 8: the rows whose 4x4, 8x8 or 2x2 steps fill one
 * 64-byte line of every destination row). A band that ends mid-strip leaves every destination row a partial line
 * and runs its last rows in the kernel's scalar edge loop, a store per element at the destination's row stride:
 * 4096x4096 float32 in bands of 63 rows (the scratch's fit) took twice as long in the kernel as in bands of 48.
 */
function bandRows(fit: number, elementBytes: number): number {
  const strip = elementBytes === 8 ? 8 : elementBytes === 4 ? 16 : 32;
  return fit >= strip ? fit - (fit % strip) : Math.max(1, fit);
}

function transposeJs(
  src: Uint8Array,
  dst: Uint8Array,
  kind: { srcBytes: number; dstBytes: number },
  rows: number,
  cols: number,
  srcStride: number,
  dstStride: number,
  blocks: readonly TransposeBlock[],
  widen: boolean,
): void {
  // TS twins need aligned element views: copy unaligned bytes first
  const aligned = (b: Uint8Array, size: number) => (b.byteOffset % size === 0 ? b : copyBytes(b));
  const s = aligned(src, kind.srcBytes);
  const d = dst.byteOffset % kind.dstBytes === 0 ? dst : new Uint8Array(dst.byteLength);
  const view = (b: Uint8Array, size: number) => {
    switch (size) {
      case 1:
        return b;
      case 2:
        return new Uint16Array(b.buffer, b.byteOffset, b.byteLength / 2);
      default:
        return new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    }
  };
  const sv = view(s, kind.srcBytes);
  const dv = view(d, kind.dstBytes);
  for (const b of blocks) {
    if (widen) {
      js.transposeF16ToF32(
        (sv as Uint16Array).subarray(b.srcOffset),
        (dv as Uint32Array).subarray(b.dstOffset),
        rows,
        cols,
        srcStride,
        dstStride,
      );
    } else if (kind.srcBytes === 8) {
      js.transpose64(
        (sv as Uint32Array).subarray(b.srcOffset * 2),
        (dv as Uint32Array).subarray(b.dstOffset * 2),
        rows,
        cols,
        srcStride,
        dstStride,
      );
    } else {
      js.transpose(
        sv.subarray(b.srcOffset) as Uint32Array,
        dv.subarray(b.dstOffset) as Uint32Array,
        rows,
        cols,
        srcStride,
        dstStride,
      );
    }
  }
  if (d !== dst) dst.set(d);
}

/** The rows x cols row-major matrix `src` transposed (cols x rows). Elements of 1, 2, 4 or 8 bytes. */
export function transpose<
  T extends ArrayBufferView & {
    /** The element count. */
    length: number;
  },
>(src: T, rows: number, cols: number, dst?: T): T {
  checkArgs("transpose", "src:view rows:count cols:count dst:same?", src, rows, cols, dst);
  checkLength("src", src.length, rows * cols);
  const out = dst ?? sameType(src, rows * cols);
  checkLength("dst", out.length, rows * cols);
  const size = elementSize(src);
  if (rows * cols > 0)
    runTransposes(viewBytes(src), viewBytes(out), transposeKind(size), rows, cols, cols, rows, [
      { srcOffset: 0, dstOffset: 0 },
    ]);
  return out;
}

/**
 * The rows x cols matrix of IEEE halves `src` transposed (cols x rows) and widened to float32 in one pass (exact,
 * as f16ToF32): column-major fp16 weights to row-major float32.
 */
export function transposeF16ToF32(
  src: Uint16Array,
  rows: number,
  cols: number,
  dst: Float32Array = new Float32Array(rows * cols),
): Float32Array {
  checkArgs("transposeF16ToF32", "src:Uint16Array rows:count cols:count dst:Float32Array", src, rows, cols, dst);
  checkLength("src", src.length, rows * cols);
  checkLength("dst", dst.length, rows * cols);
  if (rows * cols > 0)
    runTransposes(
      viewBytes(src),
      viewBytes(dst),
      FUSED_F16_KIND,
      rows,
      cols,
      cols,
      rows,
      [{ srcOffset: 0, dstOffset: 0 }],
      true,
    );
  return dst;
}

/** columnToRowMajor of IEEE halves, widened to float32 in the same pass (see transposeF16ToF32). */
export function columnToRowMajorF16ToF32(src: Uint16Array, shape: readonly number[], dst?: Float32Array): Float32Array {
  checkArgs("columnToRowMajorF16ToF32", "src:Uint16Array shape:shape dst:Float32Array?", src, shape, dst);
  const count = shape.reduce((a, b) => a * b, 1);
  checkLength("src", src.length, count);
  const out = dst ?? new Float32Array(count);
  checkLength("dst", out.length, count);
  columnToRowMajorBytes(viewBytes(src), viewBytes(out), shape, 2, true);
  return out;
}

/**
 * Column-major (Fortran / ArrayFire) data of logical shape `shape` to row-major (C) order, any rank up to 8:
 * element [i0][i1]… is read from i0 + d0 * (i1 + d1 * …) and written to ((i0 * d1 + i1) * d2 + …).
 */
export function columnToRowMajor<
  T extends ArrayBufferView & {
    /** The element count. */
    length: number;
  },
>(src: T, shape: readonly number[], dst?: T): T {
  checkArgs("columnToRowMajor", "src:view shape:shape dst:same?", src, shape, dst);
  const count = shape.reduce((a, b) => a * b, 1);
  checkLength("src", src.length, count);
  const out = dst ?? sameType(src, count);
  checkLength("dst", out.length, count);
  reorderColumnMajorBytes(viewBytes(src), viewBytes(out), shape, elementSize(src));
  return out;
}

/** rowToColumnMajor is the inverse of columnToRowMajor: the same permutation with the shape reversed. */
export function rowToColumnMajor<
  T extends ArrayBufferView & {
    /** The element count. */
    length: number;
  },
>(src: T, shape: readonly number[], dst?: T): T {
  checkArgs("rowToColumnMajor", "shape:shape", shape);
  return columnToRowMajor(src, shape.slice().reverse(), dst);
}

/**
 * columnToRowMajor over raw bytes (src may be unaligned, e.g. a view into a file). With `widenF16`, src holds
 * IEEE halves (elementBytes 2) and dst receives float32 (twice the bytes).
 */
export function columnToRowMajorBytes(
  src: Uint8Array,
  dst: Uint8Array,
  shape: readonly number[],
  elementBytes: number,
  widenF16 = false,
): void {
  checkArgs("columnToRowMajorBytes", "src:Uint8Array dst:Uint8Array shape:shape", src, dst, shape);
  if (elementBytes !== 1 && elementBytes !== 2 && elementBytes !== 4 && elementBytes !== 8)
    throw new RangeError(
      `tensorfile: columnToRowMajorBytes() takes elementBytes 1, 2, 4 or 8, not ${String(elementBytes)}`,
    );
  if (!widenF16) {
    reorderColumnMajorBytes(src, dst, shape, elementBytes);
    return;
  }
  if (elementBytes !== 2) throw new RangeError("tensorfile: columnToRowMajorBytes widens 2-byte halves only");
  if (src.byteLength * 2 !== dst.byteLength)
    throw new RangeError("tensorfile: columnToRowMajor src and dst sizes differ");
  const plan = columnMajorPlan(shape);
  if (!plan || src.byteLength === 0) {
    const into = new Float32Array(dst.buffer, dst.byteOffset, dst.byteLength / 4);
    f16ToF32(
      new Uint16Array(
        src.byteOffset % 2 === 0 ? src.buffer : copyBytes(src).buffer,
        src.byteOffset % 2 === 0 ? src.byteOffset : 0,
        src.byteLength / 2,
      ),
      into,
    );
    return;
  }
  runTransposes(src, dst, FUSED_F16_KIND, plan.last, plan.first, plan.srcStride, plan.dstStride, plan.blocks, true);
}

/**
 * columnToRowMajorBytes without widening: what the readers call, so that a bundle of them keeps the plain
 * transpose kernels only (not the fused fp16 -> f32 one).
 */
export function reorderColumnMajorBytes(
  src: Uint8Array,
  dst: Uint8Array,
  shape: readonly number[],
  elementBytes: number,
): void {
  checkArgs("reorderColumnMajorBytes", "src:Uint8Array dst:Uint8Array shape:shape", src, dst, shape);
  if (src.byteLength !== dst.byteLength) throw new RangeError("tensorfile: columnToRowMajor src and dst sizes differ");
  const plan = columnMajorPlan(shape);
  if (!plan || src.byteLength === 0) {
    dst.set(src);
    return;
  }
  runTransposes(
    src,
    dst,
    transposeKind(elementBytes),
    plan.last,
    plan.first,
    plan.srcStride,
    plan.dstStride,
    plan.blocks,
  );
}

/** The strided 2-D transposes that take column-major `shape` to row-major order; null when nothing moves. */
function columnMajorPlan(
  shape: readonly number[],
): { last: number; first: number; srcStride: number; dstStride: number; blocks: TransposeBlock[] } | null {
  // axes of extent 1 do not move anything
  const dims = shape.filter((d) => d !== 1);
  if (dims.length > 8)
    throw new RangeError(`tensorfile: columnToRowMajor supports up to 8 axes longer than 1, not ${dims.length}`);
  if (dims.length <= 1) return null;
  // Stored order is row-major [dk … d1 d0]; we want [d0 … dk]. For every index of the middle axes d1…d(k-1)
  // this is one transpose of a dk x d0 block (source rows strided by d0…d(k-1), destination rows by d1…dk).
  const k = dims.length - 1;
  const first = dims[0]!;
  const last = dims[k]!;
  const middle = dims.slice(1, k);
  const srcStride = dims.slice(0, k).reduce((a, b) => a * b, 1);
  const dstStride = dims.slice(1).reduce((a, b) => a * b, 1);
  const blocks: TransposeBlock[] = [];
  const index = new Array<number>(middle.length).fill(0);
  const total = middle.reduce((a, b) => a * b, 1);
  for (let n = 0; n < total; n++) {
    let srcOffset = 0;
    let dstOffset = 0;
    let srcScale = first;
    for (let m = 0; m < middle.length; m++) {
      srcOffset += index[m]! * srcScale;
      srcScale *= middle[m]!;
    }
    let dstScale = last;
    for (let m = middle.length - 1; m >= 0; m--) {
      dstOffset += index[m]! * dstScale;
      dstScale *= middle[m]!;
    }
    blocks.push({ srcOffset, dstOffset });
    for (let m = 0; m < middle.length; m++) {
      if (++index[m]! < middle[m]!) break;
      index[m] = 0;
    }
  }
  return { last, first, srcStride, dstStride, blocks };
}

// issue 15 (patch): transposeColumns, one band of columns of a row-major matrix transposed, for writing a
// column-major tensor band by band (the existing transpose kernels with strides; no new WASM).

/**
 * Columns [c0, c0 + w) of the rows x cols row-major matrix `src`, transposed: the w x rows matrix whose row j is
 * column c0 + j (that band's bytes in column-major order). When `src` lives in kernels.allocate() memory the
 * WASM kernel reads it there, strided, into the scratch (bands of up to 1 MiB; larger ones and ordinary arrays
 * go through the TS twin, also strided). Elements of 1, 2, 4 or 8 bytes.
 */
export function transposeColumns<
  T extends ArrayBufferView & {
    /** The element count. */
    length: number;
  },
>(src: T, rows: number, cols: number, c0: number, w: number, dst?: T): T {
  checkArgs("transposeColumns", "src:view rows:count cols:count dst:same?", src, rows, cols, dst);
  checkLength("src", src.length, rows * cols);
  if (!Number.isInteger(c0) || !Number.isInteger(w) || c0 < 0 || w < 0 || c0 + w > cols) {
    throw new RangeError(`tensorfile: transposeColumns: columns ${c0}..${c0 + w} are not inside 0..${cols}`);
  }
  const out = dst ?? sameType(src, rows * w);
  checkLength("dst", out.length, rows * w);
  const size = elementSize(src);
  const kind = transposeKind(size);
  if (rows * w === 0) return out;
  const home = memoryOf(src.buffer);
  const bytes = rows * w * size;
  if (home && useWasm(rows * w, transposeFamily) && bytes <= SCRATCH_BYTES) {
    kind.call(kernelsIn(home, transposeFamily), src.byteOffset + c0 * size, SCRATCH_OFFSET, rows, w, cols, rows);
    viewBytes(out).set(new Uint8Array(home.memory.buffer, SCRATCH_OFFSET, bytes));
    return out;
  }
  transposeJs(viewBytes(src), viewBytes(out), kind, rows, w, cols, rows, [{ srcOffset: c0, dstOffset: 0 }], false);
  return out;
}
