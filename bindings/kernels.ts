/**
 * The public kernel API over typed arrays. Each call picks the WASM SIMD kernel or its TS twin
 * (bindings/kernels-js.ts): the twin for tiny inputs (a JS->WASM call costs more than it saves below
 * ~256 elements), where WebAssembly is unavailable, or when forced with setBackend("js").
 *
 * How data reaches WASM memory:
 * - arrays from `allocate()` live in a WebAssembly.Memory of their own; a kernel whose source and destination
 *   are in one such memory runs in place, and one whose destination is there streams only the source in;
 * - ordinary arrays are streamed through a fixed 1 MiB scratch area in cache-sized chunks (copy in, kernel,
 *   copy out), which never grows memory and so never detaches a view;
 * - transposes of ordinary arrays need the whole array at once: they go through a reusable work memory.
 */
import { copyBytes } from "./io/input.js";
import * as js from "./kernels-js.js";
import {
  type KernelExports, type KernelInstance, DATA_OFFSET, SCRATCH_BYTES, SCRATCH_OFFSET,
  allocateDedicated, instanceOf, releaseWorkMemory, sharedInstance, workInstance,
} from "./wasm/instance.js";

export type Backend = "wasm" | "js" | "auto";

let backend: Backend = "auto";
/** Below this many elements "auto" uses the TS twin. */
export const WASM_MIN_ELEMENTS = 256;

/** Forces a backend ("wasm" throws where WebAssembly is unavailable); "auto" is the default. */
export function setBackend(value: Backend): void {
  if (value !== "wasm" && value !== "js" && value !== "auto") throw new TypeError(`unknown backend ${String(value)}`);
  if (value === "wasm" && !sharedInstance()) throw new Error("tensorfile: WebAssembly kernels are unavailable here");
  backend = value;
}

export function getBackend(): Backend {
  return backend;
}

/** True where the WASM SIMD kernels can run. */
export function wasmAvailable(): boolean {
  return sharedInstance() !== null;
}

function useWasm(count: number): KernelInstance | null {
  if (backend === "js") return null;
  if (backend === "auto" && count < WASM_MIN_ELEMENTS) return null;
  return sharedInstance();
}

/** The bytes of a typed array (a view, no copy). */
export function bytesOf(data: ArrayBufferView): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function checkLength(what: string, actual: number, expected: number): void {
  if (actual !== expected) throw new RangeError(`tensorfile: ${what} has ${actual} elements, expected ${expected}`);
}

type ElementwiseCall = (k: KernelExports, src: number, dst: number, count: number) => void;

/**
 * Runs an element-wise kernel over `count` elements from `src` (srcSize bytes each) to `dst` (dstSize bytes
 * each). src and dst may be the same bytes (in-place kernels pass dst === src).
 */
function elementwise(src: Uint8Array, srcSize: number, dst: Uint8Array, dstSize: number, count: number, call: ElementwiseCall): void {
  if (count === 0) return;
  const srcHome = instanceOf(src.buffer);
  const dstHome = instanceOf(dst.buffer);
  if (dstHome && srcHome === dstHome) {
    call(dstHome.exports, src.byteOffset, dst.byteOffset, count);
    return;
  }
  if (dstHome) {
    // stream the source through the destination memory's scratch; results land in place
    const chunk = Math.floor(SCRATCH_BYTES / srcSize / 64) * 64;
    const heap = new Uint8Array(dstHome.memory.buffer);
    for (let start = 0; start < count; start += chunk) {
      const n = Math.min(chunk, count - start);
      heap.set(src.subarray(start * srcSize, (start + n) * srcSize), SCRATCH_OFFSET);
      call(dstHome.exports, SCRATCH_OFFSET, dst.byteOffset + start * dstSize, n);
    }
    return;
  }
  const home = srcHome ?? sharedInstance()!;
  const heap = new Uint8Array(home.memory.buffer);
  const inPlace = src.buffer === dst.buffer && src.byteOffset === dst.byteOffset && srcSize === dstSize;
  if (srcHome) {
    // the source is in WASM memory already: compute into the scratch, copy out
    const chunk = Math.floor(SCRATCH_BYTES / dstSize / 64) * 64;
    for (let start = 0; start < count; start += chunk) {
      const n = Math.min(chunk, count - start);
      call(home.exports, src.byteOffset + start * srcSize, SCRATCH_OFFSET, n);
      dst.set(heap.subarray(SCRATCH_OFFSET, SCRATCH_OFFSET + n * dstSize), start * dstSize);
    }
    return;
  }
  const chunk = Math.floor(SCRATCH_BYTES / (inPlace ? srcSize : srcSize + dstSize) / 64) * 64;
  const out = inPlace ? SCRATCH_OFFSET : SCRATCH_OFFSET + chunk * srcSize;
  for (let start = 0; start < count; start += chunk) {
    const n = Math.min(chunk, count - start);
    heap.set(src.subarray(start * srcSize, (start + n) * srcSize), SCRATCH_OFFSET);
    call(home.exports, SCRATCH_OFFSET, out, n);
    dst.set(heap.subarray(out, out + n * dstSize), start * dstSize);
  }
}

/** A Uint32Array over the same bytes (for bit-exact TS twins of float kernels). */
function wordsOf(data: Float32Array): Uint32Array {
  return new Uint32Array(data.buffer, data.byteOffset, data.length);
}

/** IEEE binary16 (raw bits) to float32, exact for every half. */
export function f16ToF32(src: Uint16Array, dst: Float32Array = new Float32Array(src.length)): Float32Array {
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length)) {
    elementwise(bytesOf(src), 2, bytesOf(dst), 4, src.length, (k, s, d, n) => k.f16ToF32(s, d, n));
  } else {
    js.f16ToF32(src, wordsOf(dst));
  }
  return dst;
}

/** float32 to IEEE binary16 bits: round to nearest even, overflow to ±Inf, NaN stays NaN. */
export function f32ToF16(src: Float32Array, dst: Uint16Array = new Uint16Array(src.length)): Uint16Array {
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length)) {
    elementwise(bytesOf(src), 4, bytesOf(dst), 2, src.length, (k, s, d, n) => k.f32ToF16(s, d, n));
  } else {
    js.f32ToF16(wordsOf(src), dst);
  }
  return dst;
}

/** value = (q - offset) * scale, in float32. */
export function dequantizeI8(src: Int8Array, scale: number, offset: number, dst: Float32Array = new Float32Array(src.length)): Float32Array {
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length)) {
    elementwise(bytesOf(src), 1, bytesOf(dst), 4, src.length, (k, s, d, n) => k.dequantizeI8(s, d, n, scale, offset));
  } else {
    js.dequantizeI8(src, dst, scale, offset);
  }
  return dst;
}

/** q = clamp(roundHalfEven(x / scale + offset), -128, 127), in float32; NaN becomes 0. */
export function quantizeI8(src: Float32Array, scale: number, offset: number, dst: Int8Array = new Int8Array(src.length)): Int8Array {
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length)) {
    elementwise(bytesOf(src), 4, bytesOf(dst), 1, src.length, (k, s, d, n) => k.quantizeI8(s, d, n, scale, offset));
  } else {
    js.quantizeI8(src, dst, scale, offset);
  }
  return dst;
}

/** Reverses the byte order of every `width`-byte element, in place. Returns `data`. */
export function byteSwap<T extends ArrayBufferView>(data: T, width: 2 | 4 | 8): T {
  if (width !== 2 && width !== 4 && width !== 8) throw new RangeError(`tensorfile: byteSwap width must be 2, 4 or 8, not ${String(width)}`);
  const bytes = bytesOf(data);
  if (bytes.byteLength % width !== 0) {
    throw new RangeError(`tensorfile: byteSwap of ${bytes.byteLength} bytes: not a multiple of ${width}`);
  }
  const count = bytes.byteLength / width;
  if (useWasm(count)) {
    elementwise(bytes, width, bytes, width, count, (k, s, d, n) => {
      if (s !== d) k.copy(s, d, n * width);
      if (width === 2) k.byteSwap16(d, n);
      else if (width === 4) k.byteSwap32(d, n);
      else k.byteSwap64(d, n);
    });
  } else {
    js.byteSwap(bytes, width);
  }
  return data;
}

type TransposeCall = (k: KernelExports, src: number, dst: number, rows: number, cols: number, srcStride: number, dstStride: number) => void;

/** Element sizes in and out: a plain transpose (n -> n bytes) or the fused fp16 -> f32 widening one (2 -> 4). */
interface TransposeKind {
  srcBytes: number;
  dstBytes: number;
  call: TransposeCall;
}

function transposeKind(elementBytes: number, widen = false): TransposeKind {
  if (widen) return { srcBytes: 2, dstBytes: 4, call: (k, s, d, r, c, ss, ds) => k.transposeF16ToF32(s, d, r, c, ss, ds) };
  const plain = (call: TransposeCall): TransposeKind => ({ srcBytes: elementBytes, dstBytes: elementBytes, call });
  switch (elementBytes) {
    case 1: return plain((k, s, d, r, c, ss, ds) => k.transpose8(s, d, r, c, ss, ds));
    case 2: return plain((k, s, d, r, c, ss, ds) => k.transpose16(s, d, r, c, ss, ds));
    case 4: return plain((k, s, d, r, c, ss, ds) => k.transpose32(s, d, r, c, ss, ds));
    case 8: return plain((k, s, d, r, c, ss, ds) => k.transpose64(s, d, r, c, ss, ds));
    default: throw new RangeError(`tensorfile: transpose of ${elementBytes}-byte elements is not supported (1, 2, 4 or 8)`);
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
function runTransposes(
  src: Uint8Array, dst: Uint8Array, kind: TransposeKind, rows: number, cols: number,
  srcStride: number, dstStride: number, blocks: readonly TransposeBlock[], widen = false,
): void {
  const count = src.byteLength / kind.srcBytes;
  const wasm = useWasm(count);
  if (!wasm) {
    transposeJs(src, dst, kind, rows, cols, srcStride, dstStride, blocks, widen);
    return;
  }
  const srcHome = instanceOf(src.buffer);
  const dstHome = instanceOf(dst.buffer);
  if (srcHome && srcHome === dstHome) {
    for (const b of blocks) {
      kind.call(srcHome.exports, src.byteOffset + b.srcOffset * kind.srcBytes, dst.byteOffset + b.dstOffset * kind.dstBytes,
        rows, cols, srcStride, dstStride);
    }
    return;
  }
  const slabBytes = srcStride * kind.srcBytes;
  // a small result shares the shared instance's scratch with the bands (bands in the first half)
  const small = !dstHome && dst.byteLength <= SCRATCH_BYTES / 2;
  const bandBytes = small ? SCRATCH_BYTES / 2 : SCRATCH_BYTES;
  // widening: a band of halves in the first third, widened into the other two thirds, transposed as f32 from there
  const narrowCap = widen ? Math.floor(bandBytes / 3 / 16) * 16 : bandBytes;
  if (slabBytes <= narrowCap && rows * slabBytes <= src.byteLength) {
    const target = dstHome ?? (small ? wasm : workInstance(dst.byteLength));
    if (!target) {
      transposeJs(src, dst, kind, rows, cols, srcStride, dstStride, blocks, widen);
      return;
    }
    const out = dstHome ? dst.byteOffset : small ? SCRATCH_OFFSET + bandBytes : DATA_OFFSET;
    const heap = new Uint8Array(target.memory.buffer);
    const band = Math.max(1, Math.floor(narrowCap / slabBytes));
    const wideAt = SCRATCH_OFFSET + narrowCap;
    for (let a = 0; a < rows; a += band) {
      const n = Math.min(band, rows - a);
      heap.set(src.subarray(a * slabBytes, (a + n) * slabBytes), SCRATCH_OFFSET);
      if (widen) {
        target.exports.f16ToF32(SCRATCH_OFFSET, wideAt, n * srcStride);
        for (const b of blocks) target.exports.transpose32(wideAt + b.srcOffset * 4, out + (b.dstOffset + a) * 4, n, cols, srcStride, dstStride);
        continue;
      }
      for (const b of blocks) {
        kind.call(target.exports, SCRATCH_OFFSET + b.srcOffset * kind.srcBytes, out + (b.dstOffset + a) * kind.dstBytes, n, cols, srcStride, dstStride);
      }
    }
    if (!dstHome) dst.set(heap.subarray(out, out + dst.byteLength));
    return;
  }
  const total = src.byteLength + dst.byteLength;
  const home = total <= SCRATCH_BYTES ? wasm : workInstance(total);
  if (!home) {
    transposeJs(src, dst, kind, rows, cols, srcStride, dstStride, blocks, widen);
    return;
  }
  const base = home === wasm ? SCRATCH_OFFSET : DATA_OFFSET;
  const heap = new Uint8Array(home.memory.buffer);
  heap.set(src, base);
  const out = base + src.byteLength;
  for (const b of blocks) {
    kind.call(home.exports, base + b.srcOffset * kind.srcBytes, out + b.dstOffset * kind.dstBytes, rows, cols, srcStride, dstStride);
  }
  dst.set(heap.subarray(out, out + dst.byteLength));
}

function transposeJs(
  src: Uint8Array, dst: Uint8Array, kind: TransposeKind, rows: number, cols: number,
  srcStride: number, dstStride: number, blocks: readonly TransposeBlock[], widen: boolean,
): void {
  // TS twins need aligned element views: copy unaligned bytes first
  const aligned = (b: Uint8Array, size: number) => (b.byteOffset % size === 0 ? b : copyBytes(b));
  const s = aligned(src, kind.srcBytes);
  const d = dst.byteOffset % kind.dstBytes === 0 ? dst : new Uint8Array(dst.byteLength);
  const view = (b: Uint8Array, size: number) => {
    switch (size) {
      case 1: return b;
      case 2: return new Uint16Array(b.buffer, b.byteOffset, b.byteLength / 2);
      default: return new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    }
  };
  const sv = view(s, kind.srcBytes);
  const dv = view(d, kind.dstBytes);
  for (const b of blocks) {
    if (widen) {
      js.transposeF16ToF32((sv as Uint16Array).subarray(b.srcOffset), (dv as Uint32Array).subarray(b.dstOffset), rows, cols, srcStride, dstStride);
    } else if (kind.srcBytes === 8) {
      js.transpose64((sv as Uint32Array).subarray(b.srcOffset * 2), (dv as Uint32Array).subarray(b.dstOffset * 2),
        rows, cols, srcStride, dstStride);
    } else {
      js.transpose(sv.subarray(b.srcOffset) as Uint32Array, dv.subarray(b.dstOffset) as Uint32Array, rows, cols, srcStride, dstStride);
    }
  }
  if (d !== dst) dst.set(d);
}

function elementSize(data: ArrayBufferView): number {
  return (data as unknown as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
}

function sameType<T extends ArrayBufferView>(src: T, length: number): T {
  const ctor = src.constructor as new (length: number) => T;
  return new ctor(length);
}

/** The rows x cols row-major matrix `src` transposed (cols x rows). Elements of 1, 2, 4 or 8 bytes. */
export function transpose<T extends ArrayBufferView & { length: number }>(src: T, rows: number, cols: number, dst?: T): T {
  checkLength("src", src.length, rows * cols);
  const out = dst ?? sameType(src, rows * cols);
  checkLength("dst", out.length, rows * cols);
  const size = elementSize(src);
  if (rows * cols > 0) runTransposes(bytesOf(src), bytesOf(out), transposeKind(size), rows, cols, cols, rows, [{ srcOffset: 0, dstOffset: 0 }]);
  return out;
}

/**
 * The rows x cols matrix of IEEE halves `src` transposed (cols x rows) and widened to float32 in one pass (exact,
 * as f16ToF32): column-major fp16 weights to row-major float32.
 */
export function transposeF16ToF32(src: Uint16Array, rows: number, cols: number, dst: Float32Array = new Float32Array(rows * cols)): Float32Array {
  checkLength("src", src.length, rows * cols);
  checkLength("dst", dst.length, rows * cols);
  if (rows * cols > 0) runTransposes(bytesOf(src), bytesOf(dst), transposeKind(2, true), rows, cols, cols, rows, [{ srcOffset: 0, dstOffset: 0 }], true);
  return dst;
}

/** columnToRowMajor of IEEE halves, widened to float32 in the same pass (see transposeF16ToF32). */
export function columnToRowMajorF16ToF32(src: Uint16Array, shape: readonly number[], dst?: Float32Array): Float32Array {
  const count = shape.reduce((a, b) => a * b, 1);
  checkLength("src", src.length, count);
  const out = dst ?? new Float32Array(count);
  checkLength("dst", out.length, count);
  columnToRowMajorBytes(bytesOf(src), bytesOf(out), shape, 2, true);
  return out;
}

/**
 * Column-major (Fortran / ArrayFire) data of logical shape `shape` to row-major (C) order, any rank up to 8:
 * element [i0][i1]… is read from i0 + d0 * (i1 + d1 * …) and written to ((i0 * d1 + i1) * d2 + …).
 */
export function columnToRowMajor<T extends ArrayBufferView & { length: number }>(src: T, shape: readonly number[], dst?: T): T {
  const count = shape.reduce((a, b) => a * b, 1);
  checkLength("src", src.length, count);
  const out = dst ?? sameType(src, count);
  checkLength("dst", out.length, count);
  columnToRowMajorBytes(bytesOf(src), bytesOf(out), shape, elementSize(src));
  return out;
}

/** rowToColumnMajor is the inverse of columnToRowMajor: the same permutation with the shape reversed. */
export function rowToColumnMajor<T extends ArrayBufferView & { length: number }>(src: T, shape: readonly number[], dst?: T): T {
  return columnToRowMajor(src, shape.slice().reverse(), dst);
}

/**
 * columnToRowMajor over raw bytes (src may be unaligned, e.g. a view into a file). With `widenF16`, src holds
 * IEEE halves (elementBytes 2) and dst receives float32 (twice the bytes).
 */
export function columnToRowMajorBytes(src: Uint8Array, dst: Uint8Array, shape: readonly number[], elementBytes: number, widenF16 = false): void {
  if (widenF16 && elementBytes !== 2) throw new RangeError("tensorfile: columnToRowMajorBytes widens 2-byte halves only");
  if (src.byteLength * (widenF16 ? 2 : 1) !== dst.byteLength) throw new RangeError("tensorfile: columnToRowMajor src and dst sizes differ");
  // axes of extent 1 do not move anything
  const dims = shape.filter((d) => d !== 1);
  if (dims.length > 8) throw new RangeError(`tensorfile: columnToRowMajor supports up to 8 axes longer than 1, not ${dims.length}`);
  if (dims.length <= 1 || src.byteLength === 0) {
    if (!widenF16) dst.set(src);
    else if (src.byteOffset % 2 === 0) f16ToF32(new Uint16Array(src.buffer, src.byteOffset, src.byteLength / 2), new Float32Array(dst.buffer, dst.byteOffset, dst.byteLength / 4));
    else f16ToF32(new Uint16Array(copyBytes(src).buffer), new Float32Array(dst.buffer, dst.byteOffset, dst.byteLength / 4));
    return;
  }
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
  runTransposes(src, dst, transposeKind(elementBytes, widenF16), last, first, srcStride, dstStride, blocks, widenF16);
}

type TypedArrayConstructor<T> = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; new (length: number): T; BYTES_PER_ELEMENT: number };

/**
 * A typed array in a WebAssembly memory of its own (it never grows, so the array stays valid). Kernels whose
 * source and destination were allocated here run on them in place, with no copying: use it for large
 * buffers you convert repeatedly. Falls back to an ordinary array where WebAssembly is unavailable.
 */
export function allocate<T>(ctor: TypedArrayConstructor<T>, length: number): T {
  const bytes = length * ctor.BYTES_PER_ELEMENT;
  const home = backend === "js" ? null : allocateDedicated(bytes);
  if (!home) return new ctor(length);
  return new ctor(home.memory.buffer, DATA_OFFSET, length);
}

/** True when `data` lives in memory from `allocate()`. */
export function isWasmResident(data: ArrayBufferView): boolean {
  return instanceOf(data.buffer) !== undefined;
}

/** Drops the reusable work memory kept for large transposes. */
export function releaseMemory(): void {
  releaseWorkMemory();
}
