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
import { copyBytes } from "./bytes/input.js";
import * as js from "./kernels-js.js";
// The WASM kernels come in families, one module each (wasm/families.ts), compiled on the first use of one of their
// kernels: every wrapper names the family it runs, and nothing here refers to all of them, so a bundle keeps only
// the modules of the wrappers it keeps.
import {
  type KernelFamily, type KernelMemory, DATA_OFFSET, SCRATCH_BYTES, SCRATCH_OFFSET,
  allocateDedicated, familyModule, kernelsIn, memoryOf, releaseWorkMemory, sharedMemory, workMemory,
} from "./wasm/instance.js";
import {
  type StatsExports, type TransposeExports, type TransposeF16Exports, convertFamily, diffFamily, statsFamily,
  transposeFamily, transposeF16Family,
} from "./wasm/families.js";

/**
 * Which twin of the kernels runs: `"wasm"` (WebAssembly SIMD), `"js"` (the TypeScript twins) or `"auto"` (WASM from
 * 256 elements where available).
 */
export type Backend = "wasm" | "js" | "auto";

let backend: Backend = "auto";
/** Below this many elements "auto" uses the TS twin. */
export const WASM_MIN_ELEMENTS = 256;

/** Forces a backend ("wasm" throws where WebAssembly is unavailable); "auto" is the default. */
export function setBackend(value: Backend): void {
  if (value !== "wasm" && value !== "js" && value !== "auto") throw new TypeError(`unknown backend ${String(value)}`);
  if (value === "wasm" && !sharedMemory()) throw new Error("tensorfile: WebAssembly kernels are unavailable here");
  backend = value;
}

/** The backend {@link setBackend} chose (`"auto"` unless changed). */
export function getBackend(): Backend {
  return backend;
}

/** True where the WASM SIMD kernels can run. */
export function wasmAvailable(): boolean {
  return sharedMemory() !== null;
}

/** The shared memory when `family`'s kernels should run on WASM for `count` elements, else null (TS twin). */
function useWasm(count: number, family: KernelFamily<unknown>): KernelMemory | null {
  if (backend === "js") return null;
  if (backend === "auto" && count < WASM_MIN_ELEMENTS) return null;
  return familyModule(family) ? sharedMemory() : null;
}

/** The bytes of a typed array (a view, no copy). */
export function bytesOf(data: ArrayBufferView): Uint8Array {
  checkArgs("bytesOf", "data:view", data);
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

// Argument checks: like the readers, the public kernels refuse what they are not made for (a TypeError for the
// wrong kind of value, a RangeError for an impossible one) instead of returning garbage. Typed arrays are told
// apart by their tag, so that arrays from another realm (a worker, vm) and Node Buffers (Uint8Arrays) pass.

function tagOf(value: unknown): string | undefined {
  return ArrayBuffer.isView(value) ? (value as unknown as { [Symbol.toStringTag]: string })[Symbol.toStringTag] : undefined;
}

/**
 * Checks the arguments of kernel `fn` against `spec`, one "name:kind" per value: kind is a typed array's name
 * (Uint16Array…), "view" (any typed array), "same" (the type of the first value), "number" (any number: a
 * file's NaN scale gives NaN values, as the formula says), "count" (a whole number >= 0) or "shape" (an array
 * of counts); a trailing "?" lets the value be undefined.
 */
function checkArgs(fn: string, spec: string, ...values: unknown[]): void {
  spec.split(" ").forEach((entry, i) => {
    const [what, kindSpec] = entry.split(":") as [string, string];
    const kind = kindSpec.replace("?", "");
    const value = values[i];
    if (value === undefined && kindSpec.endsWith("?")) return;
    const tag = tagOf(value);
    const want = kind === "same" ? tagOf(values[0]) : kind;
    let ok: boolean;
    if (kind === "number" || kind === "count") ok = typeof value === "number";
    else if (kind === "shape") ok = Array.isArray(value);
    else ok = kind === "view" ? tag !== undefined : tag === want;
    if (!ok) {
      const got = value === null ? "null" : Array.isArray(value) ? "an Array" : tag ?? (typeof value === "object" ? "an object" : `a ${typeof value}`);
      throw new TypeError(`tensorfile: ${fn}() takes ${kind === "view" ? "a typed array" : kind === "shape" ? "a shape array" : `a ${want}`} as ${what}, not ${got}`);
    }
    for (const n of kind === "count" ? [value] : kind === "shape" ? (value as unknown[]) : []) {
      if (!Number.isSafeInteger(n) || (n as number) < 0) throw new RangeError(`tensorfile: ${fn}() takes whole numbers >= 0 as ${what}, not ${String(n)}`);
    }
  });
}

/** The length of a default dst, before src is checked (0 for what is not an array: the check names it). */
function lengthOf(src: unknown): number {
  return ArrayBuffer.isView(src) ? ((src as unknown as { length?: number }).length ?? 0) : 0;
}

function checkLength(what: string, actual: number, expected: number): void {
  if (actual !== expected) throw new RangeError(`tensorfile: ${what} has ${actual} elements, expected ${expected}`);
}

type ElementwiseCall<E> = (k: E, src: number, dst: number, count: number) => void;

/**
 * Runs an element-wise kernel of `family` over `count` elements from `src` (srcSize bytes each) to `dst` (dstSize
 * bytes each). src and dst may be the same bytes (in-place kernels pass dst === src).
 */
function elementwise<E>(family: KernelFamily<E>, src: Uint8Array, srcSize: number, dst: Uint8Array, dstSize: number, count: number, call: ElementwiseCall<E>): void {
  if (count === 0) return;
  const srcHome = memoryOf(src.buffer);
  const dstHome = memoryOf(dst.buffer);
  if (dstHome && srcHome === dstHome) {
    call(kernelsIn(dstHome, family), src.byteOffset, dst.byteOffset, count);
    return;
  }
  if (dstHome) {
    // stream the source through the destination memory's scratch; results land in place
    const chunk = Math.floor(SCRATCH_BYTES / srcSize / 64) * 64;
    const heap = new Uint8Array(dstHome.memory.buffer);
    const k = kernelsIn(dstHome, family);
    for (let start = 0; start < count; start += chunk) {
      const n = Math.min(chunk, count - start);
      heap.set(src.subarray(start * srcSize, (start + n) * srcSize), SCRATCH_OFFSET);
      call(k, SCRATCH_OFFSET, dst.byteOffset + start * dstSize, n);
    }
    return;
  }
  const home = srcHome ?? sharedMemory()!;
  const heap = new Uint8Array(home.memory.buffer);
  const k = kernelsIn(home, family);
  const inPlace = src.buffer === dst.buffer && src.byteOffset === dst.byteOffset && srcSize === dstSize;
  if (srcHome) {
    // the source is in WASM memory already: compute into the scratch, copy out
    const chunk = Math.floor(SCRATCH_BYTES / dstSize / 64) * 64;
    for (let start = 0; start < count; start += chunk) {
      const n = Math.min(chunk, count - start);
      call(k, src.byteOffset + start * srcSize, SCRATCH_OFFSET, n);
      dst.set(heap.subarray(SCRATCH_OFFSET, SCRATCH_OFFSET + n * dstSize), start * dstSize);
    }
    return;
  }
  const chunk = Math.floor(SCRATCH_BYTES / (inPlace ? srcSize : srcSize + dstSize) / 64) * 64;
  const out = inPlace ? SCRATCH_OFFSET : SCRATCH_OFFSET + chunk * srcSize;
  for (let start = 0; start < count; start += chunk) {
    const n = Math.min(chunk, count - start);
    heap.set(src.subarray(start * srcSize, (start + n) * srcSize), SCRATCH_OFFSET);
    call(k, SCRATCH_OFFSET, out, n);
    dst.set(heap.subarray(out, out + n * dstSize), start * dstSize);
  }
}

/** A Uint32Array over the same bytes (for bit-exact TS twins of float kernels). */
function wordsOf(data: Float32Array): Uint32Array {
  return new Uint32Array(data.buffer, data.byteOffset, data.length);
}

/** IEEE binary16 (raw bits) to float32, exact for every half. */
export function f16ToF32(src: Uint16Array, dst: Float32Array = new Float32Array(lengthOf(src))): Float32Array {
  checkArgs("f16ToF32", "src:Uint16Array dst:Float32Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, bytesOf(src), 2, bytesOf(dst), 4, src.length, (k, s, d, n) => k.f16ToF32(s, d, n));
  } else {
    js.f16ToF32(src, wordsOf(dst));
  }
  return dst;
}

/** float32 to IEEE binary16 bits: round to nearest even, overflow to ±Inf, NaN stays NaN. */
export function f32ToF16(src: Float32Array, dst: Uint16Array = new Uint16Array(lengthOf(src))): Uint16Array {
  checkArgs("f32ToF16", "src:Float32Array dst:Uint16Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, bytesOf(src), 4, bytesOf(dst), 2, src.length, (k, s, d, n) => k.f32ToF16(s, d, n));
  } else {
    js.f32ToF16(wordsOf(src), dst);
  }
  return dst;
}

/** value = (q - offset) * scale, in float32. */
export function dequantizeI8(src: Int8Array, scale: number, offset: number, dst: Float32Array = new Float32Array(lengthOf(src))): Float32Array {
  checkArgs("dequantizeI8", "src:Int8Array scale:number offset:number dst:Float32Array", src, scale, offset, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, bytesOf(src), 1, bytesOf(dst), 4, src.length, (k, s, d, n) => k.dequantizeI8(s, d, n, scale, offset));
  } else {
    js.dequantizeI8(src, dst, scale, offset);
  }
  return dst;
}

/** q = clamp(roundHalfEven(x / scale + offset), -128, 127), in float32; NaN becomes 0. */
export function quantizeI8(src: Float32Array, scale: number, offset: number, dst: Int8Array = new Int8Array(lengthOf(src))): Int8Array {
  checkArgs("quantizeI8", "src:Float32Array scale:number offset:number dst:Int8Array", src, scale, offset, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, bytesOf(src), 4, bytesOf(dst), 1, src.length, (k, s, d, n) => k.quantizeI8(s, d, n, scale, offset));
  } else {
    js.quantizeI8(src, dst, scale, offset);
  }
  return dst;
}

/** Reverses the byte order of every `width`-byte element, in place. Returns `data`. */
export function byteSwap<T extends ArrayBufferView>(data: T, width: 2 | 4 | 8): T {
  checkArgs("byteSwap", "data:view", data);
  if (width !== 2 && width !== 4 && width !== 8) throw new RangeError(`tensorfile: byteSwap width must be 2, 4 or 8, not ${String(width)}`);
  const bytes = bytesOf(data);
  if (bytes.byteLength % width !== 0) {
    throw new RangeError(`tensorfile: byteSwap of ${bytes.byteLength} bytes: not a multiple of ${width}`);
  }
  const count = bytes.byteLength / width;
  if (useWasm(count, convertFamily)) {
    elementwise(convertFamily, bytes, width, bytes, width, count, (k, s, d, n) => {
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

type TransposeCall<E> = (k: E, src: number, dst: number, rows: number, cols: number, srcStride: number, dstStride: number) => void;

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
  srcBytes: 2, dstBytes: 4, family: transposeF16Family, call: (k, s, d, r, c, ss, ds) => k.transposeF16ToF32(s, d, r, c, ss, ds),
};

function transposeKind(elementBytes: number): TransposeKind<TransposeExports> {
  const plain = (call: TransposeCall<TransposeExports>): TransposeKind<TransposeExports> => ({ srcBytes: elementBytes, dstBytes: elementBytes, family: transposeFamily, call });
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
function runTransposes<E>(
  src: Uint8Array, dst: Uint8Array, kind: TransposeKind<E>, rows: number, cols: number,
  srcStride: number, dstStride: number, blocks: readonly TransposeBlock[], widen = false,
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
      kind.call(k, src.byteOffset + b.srcOffset * kind.srcBytes, dst.byteOffset + b.dstOffset * kind.dstBytes,
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
    const target = dstHome ?? (small ? wasm : workMemory(dst.byteLength));
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
        kernelsIn(target, convertFamily).f16ToF32(SCRATCH_OFFSET, wideAt, n * srcStride);
        const k = kernelsIn(target, transposeFamily);
        for (const b of blocks) k.transpose32(wideAt + b.srcOffset * 4, out + (b.dstOffset + a) * 4, n, cols, srcStride, dstStride);
        continue;
      }
      const k = kernelsIn(target, kind.family);
      for (const b of blocks) {
        kind.call(k, SCRATCH_OFFSET + b.srcOffset * kind.srcBytes, out + (b.dstOffset + a) * kind.dstBytes, n, cols, srcStride, dstStride);
      }
    }
    if (!dstHome) dst.set(heap.subarray(out, out + dst.byteLength));
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
    kind.call(k, base + b.srcOffset * kind.srcBytes, out + b.dstOffset * kind.dstBytes, rows, cols, srcStride, dstStride);
  }
  dst.set(heap.subarray(out, out + dst.byteLength));
}

function transposeJs(
  src: Uint8Array, dst: Uint8Array, kind: { srcBytes: number; dstBytes: number }, rows: number, cols: number,
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
export function transpose<T extends ArrayBufferView & {
  /** The element count. */
  length: number;
}>(src: T, rows: number, cols: number, dst?: T): T {
  checkArgs("transpose", "src:view rows:count cols:count dst:same?", src, rows, cols, dst);
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
  checkArgs("transposeF16ToF32", "src:Uint16Array rows:count cols:count dst:Float32Array", src, rows, cols, dst);
  checkLength("src", src.length, rows * cols);
  checkLength("dst", dst.length, rows * cols);
  if (rows * cols > 0) runTransposes(bytesOf(src), bytesOf(dst), FUSED_F16_KIND, rows, cols, cols, rows, [{ srcOffset: 0, dstOffset: 0 }], true);
  return dst;
}

/** columnToRowMajor of IEEE halves, widened to float32 in the same pass (see transposeF16ToF32). */
export function columnToRowMajorF16ToF32(src: Uint16Array, shape: readonly number[], dst?: Float32Array): Float32Array {
  checkArgs("columnToRowMajorF16ToF32", "src:Uint16Array shape:shape dst:Float32Array?", src, shape, dst);
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
export function columnToRowMajor<T extends ArrayBufferView & {
  /** The element count. */
  length: number;
}>(src: T, shape: readonly number[], dst?: T): T {
  checkArgs("columnToRowMajor", "src:view shape:shape dst:same?", src, shape, dst);
  const count = shape.reduce((a, b) => a * b, 1);
  checkLength("src", src.length, count);
  const out = dst ?? sameType(src, count);
  checkLength("dst", out.length, count);
  reorderColumnMajorBytes(bytesOf(src), bytesOf(out), shape, elementSize(src));
  return out;
}

/** rowToColumnMajor is the inverse of columnToRowMajor: the same permutation with the shape reversed. */
export function rowToColumnMajor<T extends ArrayBufferView & {
  /** The element count. */
  length: number;
}>(src: T, shape: readonly number[], dst?: T): T {
  checkArgs("rowToColumnMajor", "shape:shape", shape);
  return columnToRowMajor(src, shape.slice().reverse(), dst);
}

/**
 * columnToRowMajor over raw bytes (src may be unaligned, e.g. a view into a file). With `widenF16`, src holds
 * IEEE halves (elementBytes 2) and dst receives float32 (twice the bytes).
 */
export function columnToRowMajorBytes(src: Uint8Array, dst: Uint8Array, shape: readonly number[], elementBytes: number, widenF16 = false): void {
  checkArgs("columnToRowMajorBytes", "src:Uint8Array dst:Uint8Array shape:shape", src, dst, shape);
  if (elementBytes !== 1 && elementBytes !== 2 && elementBytes !== 4 && elementBytes !== 8) throw new RangeError(`tensorfile: columnToRowMajorBytes() takes elementBytes 1, 2, 4 or 8, not ${String(elementBytes)}`);
  if (!widenF16) {
    reorderColumnMajorBytes(src, dst, shape, elementBytes);
    return;
  }
  if (elementBytes !== 2) throw new RangeError("tensorfile: columnToRowMajorBytes widens 2-byte halves only");
  if (src.byteLength * 2 !== dst.byteLength) throw new RangeError("tensorfile: columnToRowMajor src and dst sizes differ");
  const plan = columnMajorPlan(shape);
  if (!plan || src.byteLength === 0) {
    const into = new Float32Array(dst.buffer, dst.byteOffset, dst.byteLength / 4);
    f16ToF32(new Uint16Array(src.byteOffset % 2 === 0 ? src.buffer : copyBytes(src).buffer, src.byteOffset % 2 === 0 ? src.byteOffset : 0, src.byteLength / 2), into);
    return;
  }
  runTransposes(src, dst, FUSED_F16_KIND, plan.last, plan.first, plan.srcStride, plan.dstStride, plan.blocks, true);
}

/**
 * columnToRowMajorBytes without widening: what the readers call, so that a bundle of them keeps the plain
 * transpose kernels only (not the fused fp16 -> f32 one).
 */
export function reorderColumnMajorBytes(src: Uint8Array, dst: Uint8Array, shape: readonly number[], elementBytes: number): void {
  checkArgs("reorderColumnMajorBytes", "src:Uint8Array dst:Uint8Array shape:shape", src, dst, shape);
  if (src.byteLength !== dst.byteLength) throw new RangeError("tensorfile: columnToRowMajor src and dst sizes differ");
  const plan = columnMajorPlan(shape);
  if (!plan || src.byteLength === 0) {
    dst.set(src);
    return;
  }
  runTransposes(src, dst, transposeKind(elementBytes), plan.last, plan.first, plan.srcStride, plan.dstStride, plan.blocks);
}

/** The strided 2-D transposes that take column-major `shape` to row-major order; null when nothing moves. */
function columnMajorPlan(shape: readonly number[]): { last: number; first: number; srcStride: number; dstStride: number; blocks: TransposeBlock[] } | null {
  // axes of extent 1 do not move anything
  const dims = shape.filter((d) => d !== 1);
  if (dims.length > 8) throw new RangeError(`tensorfile: columnToRowMajor supports up to 8 axes longer than 1, not ${dims.length}`);
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

type TypedArrayConstructor<T> = { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; new (length: number): T; BYTES_PER_ELEMENT: number };

/**
 * A typed array in a WebAssembly memory of its own (it never grows, so the array stays valid). Kernels whose
 * source and destination were allocated here run on them in place, with no copying: use it for large
 * buffers you convert repeatedly. Falls back to an ordinary array where WebAssembly is unavailable.
 */
export function allocate<T>(ctor: TypedArrayConstructor<T>, length: number): T {
  if (typeof ctor !== "function" || typeof (ctor as { BYTES_PER_ELEMENT?: unknown }).BYTES_PER_ELEMENT !== "number") throw new TypeError("tensorfile: allocate() takes a typed array constructor (Float32Array, …)");
  checkArgs("allocate", "length:count", length);
  const bytes = length * ctor.BYTES_PER_ELEMENT;
  const home = backend === "js" ? null : allocateDedicated(bytes);
  if (!home) return new ctor(length);
  return new ctor(home.memory.buffer, DATA_OFFSET, length);
}

/** True when `data` lives in memory from `allocate()`. */
export function isWasmResident(data: ArrayBufferView): boolean {
  checkArgs("isWasmResident", "data:view", data);
  return memoryOf(data.buffer) !== undefined;
}

/** Drops the reusable work memory kept for large transposes. */
export function releaseMemory(): void {
  releaseWorkMemory();
}

// ---------------------------------------------------------------------------------------------------------
// Narrow floats to float32 (safetensors BF16, F8_E4M3, F8_E5M2): WASM SIMD in assembly/minifloat.ts, TS twins
// in kernels-js.ts. Exact for every input; both backends give the same bits.

/** bfloat16 (raw bits) to float32: the bits become the top half of the float32 (exact; NaN payloads kept). */
export function bf16ToF32(src: Uint16Array, dst: Float32Array = new Float32Array(lengthOf(src))): Float32Array {
  checkArgs("bf16ToF32", "src:Uint16Array dst:Float32Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, bytesOf(src), 2, bytesOf(dst), 4, src.length, (k, s, d, n) => k.bf16ToF32(s, d, n));
  } else {
    js.bf16ToF32(src, wordsOf(dst));
  }
  return dst;
}

/**
 * float8 e4m3fn (raw bytes; OCP FP8 E4M3: bias 7, no infinities, 0x7f and 0xff are NaN) to float32, exact.
 * NaN becomes a quiet NaN with its sign (0x7fc00000 / 0xffc00000).
 */
export function f8e4m3ToF32(src: Uint8Array, dst: Float32Array = new Float32Array(lengthOf(src))): Float32Array {
  checkArgs("f8e4m3ToF32", "src:Uint8Array dst:Float32Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, src, 1, bytesOf(dst), 4, src.length, (k, s, d, n) => k.f8e4m3ToF32(s, d, n));
  } else {
    js.f8e4m3ToF32(src, wordsOf(dst));
  }
  return dst;
}

/**
 * float8 e5m2 (raw bytes; OCP FP8 E5M2: bias 15, IEEE-like with infinities and NaNs: the top byte of a
 * binary16) to float32, exact; NaN stays NaN, quieted, with its payload kept.
 */
export function f8e5m2ToF32(src: Uint8Array, dst: Float32Array = new Float32Array(lengthOf(src))): Float32Array {
  checkArgs("f8e5m2ToF32", "src:Uint8Array dst:Float32Array", src, dst);
  checkLength("dst", dst.length, src.length);
  if (useWasm(src.length, convertFamily)) {
    elementwise(convertFamily, src, 1, bytesOf(dst), 4, src.length, (k, s, d, n) => k.f8e5m2ToF32(s, d, n));
  } else {
    js.f8e5m2ToF32(src, wordsOf(dst));
  }
  return dst;
}

// issue 15 (diff): diffStats, the reduction behind `tensorfile diff` and diffTensors (assembly/diff.ts; TS twin
// js.diffStats). Both backends see the same DIFF_CHUNK-element chunks and combine them in the same order, so
// their results are bit-identical.

export type { DiffStatsResult } from "./kernels-js.js";

/** Elements per diffStats call: both inputs (256 KiB each) plus the results fit the 1 MiB scratch. */
export const DIFF_CHUNK = 65536;
const DIFF_RESULT_BYTES = 64;

/** Folds one chunk's statistics into a running total (maxima, count, sums in chunk order). */
export function mergeDiffStats(total: js.DiffStatsResult, chunk: js.DiffStatsResult): js.DiffStatsResult {
  return {
    maxAbs: Math.max(total.maxAbs, chunk.maxAbs),
    maxRel: Math.max(total.maxRel, chunk.maxRel),
    differing: total.differing + chunk.differing,
    dot: total.dot + chunk.dot,
    normA2: total.normA2 + chunk.normA2,
    normB2: total.normB2 + chunk.normB2,
  };
}

/** The statistics of nothing: the starting point for mergeDiffStats. */
export function emptyDiffStats(): js.DiffStatsResult {
  return { maxAbs: 0, maxRel: 0, differing: 0, dot: 0, normA2: 0, normB2: 0 };
}

/**
 * Compares a and b element by element (widened to f64): maxAbs = max |a - b|, maxRel = max |a - b| / |b|,
 * differing = how many are not within atol + rtol * |b| (numpy.isclose with b as the reference), and the sums
 * dot = Σ a·b, normA2 = Σ a², normB2 = Σ b² over the pairs where both are finite (for a cosine similarity).
 * NaN opposite NaN counts as equal; NaN opposite a number, or an infinity opposite anything but itself, is
 * differing and infinitely far (maxAbs and maxRel +Infinity). Sums accumulate in f64.
 */
export function diffStats(a: Float32Array, b: Float32Array, atol = 0, rtol = 0): js.DiffStatsResult {
  if (!(a instanceof Float32Array) || !(b instanceof Float32Array)) throw new TypeError("tensorfile: diffStats(a, b) takes two Float32Arrays");
  checkLength("b", b.length, a.length);
  if (typeof atol !== "number" || !(atol >= 0) || typeof rtol !== "number" || !(rtol >= 0)) {
    throw new RangeError(`tensorfile: diffStats atol and rtol are numbers >= 0, not ${String(atol)} and ${String(rtol)}`);
  }
  const n = a.length;
  const wasm = useWasm(n, diffFamily);
  let total = emptyDiffStats();
  if (!wasm) {
    for (let start = 0; start < n; start += DIFF_CHUNK) {
      const end = Math.min(n, start + DIFF_CHUNK);
      total = mergeDiffStats(total, js.diffStats(a.subarray(start, end), b.subarray(start, end), atol, rtol));
    }
    return total;
  }
  const aHome = memoryOf(a.buffer);
  const inPlace = aHome !== undefined && aHome === memoryOf(b.buffer);
  const home = inPlace ? aHome : wasm;
  const k = kernelsIn(home, diffFamily);
  const out = SCRATCH_OFFSET;
  const aAt = SCRATCH_OFFSET + DIFF_RESULT_BYTES;
  const bAt = aAt + DIFF_CHUNK * 4;
  for (let start = 0; start < n; start += DIFF_CHUNK) {
    const count = Math.min(n, start + DIFF_CHUNK) - start;
    if (inPlace) {
      k.diffStats(a.byteOffset + start * 4, b.byteOffset + start * 4, count, atol, rtol, out);
    } else {
      const heap = new Uint8Array(home.memory.buffer);
      heap.set(bytesOf(a.subarray(start, start + count)), aAt);
      heap.set(bytesOf(b.subarray(start, start + count)), bAt);
      k.diffStats(aAt, bAt, count, atol, rtol, out);
    }
    const r = new Float64Array(home.memory.buffer, out, 6);
    total = mergeDiffStats(total, { maxAbs: r[0]!, maxRel: r[1]!, differing: r[2]!, dot: r[3]!, normA2: r[4]!, normB2: r[5]! });
  }
  return total;
}

// issue 15 (patch): transposeColumns, one band of columns of a row-major matrix transposed, for writing a
// column-major tensor band by band (the existing transpose kernels with strides; no new WASM).

/**
 * Columns [c0, c0 + w) of the rows x cols row-major matrix `src`, transposed: the w x rows matrix whose row j is
 * column c0 + j (that band's bytes in column-major order). When `src` lives in kernels.allocate() memory the
 * WASM kernel reads it there, strided, into the scratch (bands of up to 1 MiB; larger ones and ordinary arrays
 * go through the TS twin, also strided). Elements of 1, 2, 4 or 8 bytes.
 */
export function transposeColumns<T extends ArrayBufferView & {
  /** The element count. */
  length: number;
}>(src: T, rows: number, cols: number, c0: number, w: number, dst?: T): T {
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
    bytesOf(out).set(new Uint8Array(home.memory.buffer, SCRATCH_OFFSET, bytes));
    return out;
  }
  transposeJs(bytesOf(src), bytesOf(out), kind, rows, w, cols, rows, [{ srcOffset: c0, dstOffset: 0 }], false);
  return out;
}

// ==== Statistics and histograms (issue 17) ====
// stats(), mergeStats() and histogram() over any numeric typed array. Values go through in chunks of
// STATS_CHUNK elements, on both backends alike, so a tensor of any size needs no second copy and the results
// are the same bits whichever backend runs:
// - WASM: each chunk is copied into the scratch area (or used in place when it lives in memory from
//   allocate()), widened there when it is not float32/float64 (float16 halves, int8 with a scale, integers),
//   then reduced by assembly/stats.ts. Scratch layout: raw chunk at +0 (<= 512 KiB), widened chunk at
//   +256 KiB (<= 512 KiB), results at +768 KiB, histogram counters after them.
// - TS: each chunk is widened to float64 and reduced by the twins in kernels-js.ts, lane for lane.
// Chunks combine with Chan's formula, so std comes from the sum of squared deviations, never from
// sumSquares - sum^2 / n (which cancels catastrophically when the mean is large next to the spread).

/** Per-tensor statistics. Non-finite values are counted apart and left out of min, max, sum and the moments. */
export interface TensorStats {
  /** Elements, finite or not. */
  count: number;
  /** Smallest finite value (NaN when there is none). -0 reads as 0. */
  min: number;
  /** Largest finite value (NaN when there is none). */
  max: number;
  /** Sum of the finite values, accumulated in float64. */
  sum: number;
  /** Sum of their squares (float64; from the deviations: m2 + sum * mean, so it is exact to a few ulps). */
  sumSquares: number;
  /** Mean of the finite values (NaN when there is none); kept as a shift plus an offset while summing, so it
   * equals sum / finite to rounding but is exact for constant data. */
  mean: number;
  /**
   * Population standard deviation (divisor: finite, like numpy's std), NaN when finite is 0. Right for any finite
   * float64 values (moments whose squares would overflow or underflow are redone on scaled values), while sum
   * and sumSquares may be ±Inf when the true value is beyond the largest float64.
   */
  std: number;
  /** Elements that are NaN. */
  nan: number;
  /** Elements that are +Infinity. */
  posInf: number;
  /** Elements that are -Infinity. */
  negInf: number;
  /** Elements equal to 0 (+0 and -0). */
  zeros: number;
  /** Finite elements: count - nan - posInf - negInf. */
  finite: number;
}

/** What the values of a stats()/histogram() array are, where the array type alone does not say. */
export interface StatsOptions {
  /**
   * The element type. Needed only for the narrow floats kept as raw bits: "float16" and "bfloat16" (a
   * Uint16Array), "float8_e4m3" and "float8_e5m2" (a Uint8Array); any other value must match the array ("bool"
   * goes with a Uint8Array), so a NamedTensor's dtype can always be passed along.
   */
  dtype?: string | undefined;
  /** int8 only: the values are (q - offset) * scale, computed in float32 as kernels.dequantizeI8 does. */
  scale?: number | undefined;
  /** int8 only, with or without scale (default 0). */
  offset?: number | undefined;
}

/** A histogram over [lo, hi]: `counts[i]` holds values in [lo + i * w, lo + (i + 1) * w), the last bin also hi. */
export interface Histogram {
  /** Elements per bin, `bins` of them, over [lo, hi] (the last bin includes hi). */
  counts: Float64Array;
  /** Finite values below lo / above hi. */
  below: number;
  /** Finite values above hi. */
  above: number;
  /** NaN values (not in any bin). */
  nan: number;
  /** +Infinity values (not in any bin). */
  posInf: number;
  /** -Infinity values (not in any bin). */
  negInf: number;
  /** The range used: as given, except that lo === hi is widened to a unit-wide (or relatively tiny) range. */
  lo: number;
  /** The upper end of the range used. */
  hi: number;
}

/** The arrays {@link stats} and {@link histogram} take (narrow floats as their raw bits, with the `dtype` option). */
export type StatsData =
  | Float32Array | Float64Array | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array
  | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;

/** Elements per chunk, on both backends (the results depend on it, bit for bit). */
export const STATS_CHUNK = 65536;
const STATS_RAW = SCRATCH_OFFSET;
const STATS_WIDE = SCRATCH_OFFSET + (256 << 10);
const STATS_RESULT = SCRATCH_OFFSET + (768 << 10);
const STATS_COUNTS = STATS_RESULT + 128;
/** Histograms with more bins than fit the scratch (four u32 counters a bin) run on the TS twin. */
export const MAX_WASM_BINS = Math.floor((SCRATCH_OFFSET + SCRATCH_BYTES - STATS_COUNTS) / 16);

/** How one array's values reach the float32/float64 kernels. */
interface ValuePlan {
  /** Bytes per stored element. */
  elementBytes: number;
  /** Which kernel reduces the widened values; null: TS only (64-bit integers). */
  wide: "f32" | "f64" | null;
  /**
   * WASM widening from raw to wide (none for float32/float64), by a kernel of `widenFamily` (stats, or the convert
   * family instantiated on the same memory).
   */
  widen: ((home: KernelMemory, src: number, dst: number, n: number) => void) | null;
  widenFamily?: KernelFamily<unknown> | undefined;
  /** TS: values [start, start + n) as float64 into dst. */
  toF64(start: number, n: number, dst: Float64Array): void;
}

const DTYPE_OF_ARRAY: Record<string, readonly string[]> = {
  Float32Array: ["float32"], Float64Array: ["float64"], Int8Array: ["int8"], Uint8Array: ["uint8", "bool", "float8_e4m3", "float8_e5m2"],
  Uint8ClampedArray: ["uint8"], Int16Array: ["int16"], Uint16Array: ["uint16", "float16", "bfloat16"], Int32Array: ["int32"],
  Uint32Array: ["uint32"], BigInt64Array: ["int64"], BigUint64Array: ["uint64"],
};

function arrayTypeName(data: unknown): string | undefined {
  if (!ArrayBuffer.isView(data) || data instanceof DataView) return undefined;
  const name = Object.prototype.toString.call(data).slice(8, -1);
  return Object.prototype.hasOwnProperty.call(DTYPE_OF_ARRAY, name) ? name : undefined;
}

let floatBitsChunk: Uint32Array | undefined;
let f32Chunk: Float32Array | undefined;

/** float16, bfloat16 and float8 values: widened to float32 exactly (WASM kernel, or TS twin into float32 bits). */
function narrowFloat<T extends Uint16Array | Uint8Array, E>(data: T, elementBytes: number, widenFamily: KernelFamily<E>,
  widen: (k: E, src: number, dst: number, n: number) => void, twin: (src: T, bits: Uint32Array) => void): ValuePlan {
  return {
    elementBytes, wide: "f32", widenFamily, widen: (home, s, d, n) => widen(kernelsIn(home, widenFamily), s, d, n),
    toF64: (start, n, dst) => {
      floatBitsChunk ??= new Uint32Array(STATS_CHUNK);
      const bits = floatBitsChunk.subarray(0, n);
      twin(data.subarray(start, start + n) as T, bits);
      dst.set(new Float32Array(bits.buffer, 0, n));
    },
  };
}

function planValues(data: StatsData, options: StatsOptions | undefined, what: string): ValuePlan {
  const type = arrayTypeName(data);
  if (type === undefined) {
    throw new TypeError(`tensorfile: ${what} takes a numeric typed array (Float32Array, Float64Array, Uint16Array of float16 halves, Int8Array, …), not ${data === null ? "null" : typeof data === "object" ? (data as object).constructor?.name ?? "an object" : typeof data}`);
  }
  const dtype = options?.dtype ?? DTYPE_OF_ARRAY[type]![0]!;
  if (!DTYPE_OF_ARRAY[type]!.includes(dtype)) {
    throw new TypeError(`tensorfile: ${what}: a ${type} cannot hold dtype ${String(dtype)} (it holds ${DTYPE_OF_ARRAY[type]!.join(" or ")}; float16 halves come as a Uint16Array)`);
  }
  const quantized = options?.scale !== undefined || options?.offset !== undefined;
  if (quantized && dtype !== "int8") throw new TypeError(`tensorfile: ${what}: scale and offset apply to int8 data (an Int8Array), not to ${dtype}`);
  const scale = options?.scale ?? 1;
  const offset = options?.offset ?? 0;
  if (quantized && (typeof scale !== "number" || typeof offset !== "number" || !Number.isFinite(scale) || !Number.isFinite(offset))) {
    throw new TypeError(`tensorfile: ${what}: scale and offset must be finite numbers, not ${String(options?.scale)} and ${String(options?.offset)}`);
  }
  const copyTo = (src: ArrayLike<number>) => (start: number, n: number, dst: Float64Array) => {
    dst.set((src as Float32Array).subarray(start, start + n));
  };
  switch (dtype) {
    case "float32": return { elementBytes: 4, wide: "f32", widen: null, toF64: copyTo(data as Float32Array) };
    case "float64": return { elementBytes: 8, wide: "f64", widen: null, toF64: copyTo(data as Float64Array) };
    case "float16": return narrowFloat(data as Uint16Array, 2, convertFamily, (k, s, d, n) => k.f16ToF32(s, d, n), js.f16ToF32);
    case "bfloat16": return narrowFloat(data as Uint16Array, 2, convertFamily, (k, s, d, n) => k.bf16ToF32(s, d, n), js.bf16ToF32);
    case "float8_e4m3": return narrowFloat(data as Uint8Array, 1, convertFamily, (k, s, d, n) => k.f8e4m3ToF32(s, d, n), js.f8e4m3ToF32);
    case "float8_e5m2": return narrowFloat(data as Uint8Array, 1, convertFamily, (k, s, d, n) => k.f8e5m2ToF32(s, d, n), js.f8e5m2ToF32);
    case "int8": {
      const q = data as Int8Array;
      if (quantized) {
        return {
          elementBytes: 1, wide: "f32", widenFamily: convertFamily,
          widen: (home, s, d, n) => kernelsIn(home, convertFamily).dequantizeI8(s, d, n, scale, offset),
          toF64: (start, n, dst) => {
            f32Chunk ??= new Float32Array(STATS_CHUNK);
            const values = f32Chunk.subarray(0, n);
            js.dequantizeI8(q.subarray(start, start + n), values, scale, offset);
            dst.set(values);
          },
        };
      }
      return { elementBytes: 1, wide: "f32", widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenI8ToF32(s, d, n), toF64: copyTo(q) };
    }
    case "uint8": case "bool": return { elementBytes: 1, wide: "f32", widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenU8ToF32(s, d, n), toF64: copyTo(data as Uint8Array) };
    case "int16": return { elementBytes: 2, wide: "f32", widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenI16ToF32(s, d, n), toF64: copyTo(data as Int16Array) };
    case "uint16": return { elementBytes: 2, wide: "f32", widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenU16ToF32(s, d, n), toF64: copyTo(data as Uint16Array) };
    case "int32": return { elementBytes: 4, wide: "f64", widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenI32ToF64(s, d, n), toF64: copyTo(data as Int32Array) };
    case "uint32": return { elementBytes: 4, wide: "f64", widen: (home, s, d, n) => kernelsIn(home, statsFamily).widenU32ToF64(s, d, n), toF64: copyTo(data as Uint32Array) };
    default: {
      // 64-bit integers: TS only, as float64 (exact up to 2^53)
      const big = data as BigInt64Array | BigUint64Array;
      return {
        elementBytes: 8, wide: null, widen: null,
        toF64: (start, n, dst) => {
          for (let i = 0; i < n; i++) dst[i] = Number(big[start + i]!);
        },
      };
    }
  }
}

/**
 * Calls `reduce` for every chunk of `data`'s values: on WASM with the address of the chunk's float32/float64
 * values, else with the values as a Float64Array.
 */
function forEachChunk(
  data: StatsData, plan: ValuePlan,
  onWasm: (k: StatsExports, home: KernelMemory, values: number, n: number) => void,
  onJs: (values: Float64Array, n: number) => void,
): void {
  const count = data.length;
  let wasm = plan.wide === null ? null : useWasm(count, statsFamily);
  if (wasm && plan.widenFamily && !familyModule(plan.widenFamily)) wasm = null;
  if (!wasm) {
    const values = new Float64Array(Math.min(STATS_CHUNK, count));
    for (let start = 0; start < count; start += STATS_CHUNK) {
      const n = Math.min(STATS_CHUNK, count - start);
      plan.toF64(start, n, values);
      onJs(values, n);
    }
    return;
  }
  const resident = memoryOf(data.buffer);
  const home = resident ?? wasm;
  const k = kernelsIn(home, statsFamily);
  const bytes = bytesOf(data);
  const size = plan.elementBytes;
  for (let start = 0; start < count; start += STATS_CHUNK) {
    const n = Math.min(STATS_CHUNK, count - start);
    let at: number;
    if (resident) {
      at = data.byteOffset + start * size;
    } else {
      new Uint8Array(home.memory.buffer).set(bytes.subarray(start * size, (start + n) * size), STATS_RAW);
      at = STATS_RAW;
    }
    if (plan.widen) {
      plan.widen(home, at, STATS_WIDE, n);
      at = STATS_WIDE;
    }
    onWasm(k, home, at, n);
  }
}

/**
 * Statistics of one chunk or more, before the finishing step (min/max still ±Inf when nothing is finite). The
 * mean is kept as shift + offset (the shift: a value of the data), so that merging loses no precision to a
 * large mean and constant data keeps m2 exactly 0.
 */
interface PartialStats {
  count: number;
  finite: number;
  min: number;
  max: number;
  sum: number;
  m2: number;
  shift: number;
  /** mean - shift */
  offset: number;
  nan: number;
  posInf: number;
  negInf: number;
  zeros: number;
}

function partialFrom(r: Float64Array, count: number): PartialStats {
  const nan = r[4]!;
  const posInf = r[5]!;
  const negInf = r[6]!;
  // -0 and +0 compare equal and the lanes see them in another order than a loop would: report 0
  const min = r[0]! === 0 ? 0 : r[0]!;
  const max = r[1]! === 0 ? 0 : r[1]!;
  return {
    count, finite: count - nan - posInf - negInf, min, max, sum: r[2]!, m2: r[3]!, shift: r[8]!, offset: r[9]!,
    nan, posInf, negInf, zeros: r[7]!,
  };
}

/** Chan et al.'s pairwise update: the moments of the union of two disjoint sets of values. */
function mergePartial(a: PartialStats, b: PartialStats): PartialStats {
  let { m2, shift, offset } = a;
  if (a.finite === 0) ({ m2, shift, offset } = b);
  else if (b.finite > 0) {
    const n = a.finite + b.finite;
    const delta = (b.shift - a.shift) + (b.offset - a.offset);
    offset = a.offset + delta * (b.finite / n);
    m2 = a.m2 + b.m2 + delta * delta * (a.finite * (b.finite / n));
  }
  return {
    count: a.count + b.count,
    finite: a.finite + b.finite,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    sum: a.sum + b.sum,
    m2,
    shift,
    offset,
    nan: a.nan + b.nan,
    posInf: a.posInf + b.posInf,
    negInf: a.negInf + b.negInf,
    zeros: a.zeros + b.zeros,
  };
}

const EMPTY_PARTIAL: PartialStats = {
  count: 0, finite: 0, min: Infinity, max: -Infinity, sum: 0, m2: 0, shift: 0, offset: 0, nan: 0, posInf: 0, negInf: 0, zeros: 0,
};

function finishStats(p: PartialStats): TensorStats {
  const none = p.finite === 0;
  const mean = none ? NaN : p.shift + p.offset;
  return {
    count: p.count,
    min: none ? NaN : p.min,
    max: none ? NaN : p.max,
    sum: p.sum,
    sumSquares: none ? 0 : p.m2 + p.sum * mean,
    mean,
    std: none ? NaN : Math.sqrt(p.m2 / p.finite),
    nan: p.nan,
    posInf: p.posInf,
    negInf: p.negInf,
    zeros: p.zeros,
    finite: p.finite,
  };
}

const chunkResult = new Float64Array(10);

/**
 * count, min, max, sum, sumSquares, mean, std and the NaN / +Inf / -Inf / zero counts of `data`'s values in one
 * streamed pass. float16: pass `{ dtype: "float16" }` with the raw halves; int8 with a scale:
 * `{ scale, offset }` (values (q - offset) * scale, as dequantizeI8 computes them). BigInt64/BigUint64 values
 * are taken as float64 (exact to 2^53) on the TS path.
 */
export function stats(data: StatsData, options?: StatsOptions): TensorStats {
  const plan = planValues(data, options, "stats()");
  let total = EMPTY_PARTIAL;
  forEachChunk(data, plan, (k, home, at, n) => {
    if (plan.wide === "f32") k.statsF32(at, n, STATS_RESULT);
    else k.statsF64(at, n, STATS_RESULT);
    total = mergePartial(total, partialFrom(new Float64Array(home.memory.buffer, STATS_RESULT, 10), n));
  }, (values, n) => {
    js.statsF64(values, n, chunkResult);
    total = mergePartial(total, partialFrom(chunkResult, n));
  });
  const result = finishStats(total);
  if (plan.wide === "f64" && result.finite > 0) {
    // float64 values beyond ~1e154 overflow the squares (beyond ~1e308 the sums); deviations below ~1e-150
    // underflow them: redo the moments on values scaled by 2^-600 or 2^600 (on the TS path, so both backends
    // agree) and scale back. Deviations that small only occur among values below ~1e-134, so 2^600 is safe.
    const overflow = !(Number.isFinite(result.mean) && Number.isFinite(result.std));
    const underflow = result.std < 1e-140 && result.min !== result.max;
    if (overflow || underflow) {
      const factor = overflow ? 2 ** -600 : 2 ** 600;
      let scaled = EMPTY_PARTIAL;
      forEachChunk(data, { ...plan, wide: null }, () => undefined, (values, n) => {
        for (let i = 0; i < n; i++) values[i]! *= factor;
        js.statsF64(values, n, chunkResult);
        scaled = mergePartial(scaled, partialFrom(chunkResult, n));
      });
      const moments = finishStats(scaled);
      result.sum = moments.sum / factor;
      result.sumSquares = moments.sumSquares / factor / factor;
      result.mean = moments.mean / factor;
      result.std = moments.std / factor;
    }
  }
  return result;
}

function checkStats(s: TensorStats, what: string): void {
  if (s === null || typeof s !== "object") throw new TypeError(`tensorfile: mergeStats() takes two TensorStats objects (from kernels.stats), not ${s === null ? "null" : typeof s} as ${what}`);
  for (const key of ["count", "finite", "nan", "posInf", "negInf", "zeros", "sum", "mean", "std"] as const) {
    if (typeof s[key] !== "number") throw new TypeError(`tensorfile: mergeStats(): ${what}.${key} must be a number (pass what kernels.stats returns)`);
  }
}

/**
 * The statistics of the union of two disjoint parts (chunks, shards, streamed pieces): equal, up to rounding,
 * to stats() of the parts' values together. The moments combine with Chan's formula written for standard
 * deviations, scaled by the largest of the two stds and the means' difference, so values near the largest
 * float64 (std up to ~1e308) merge without overflow.
 */
export function mergeStats(a: TensorStats, b: TensorStats): TensorStats {
  checkStats(a, "a");
  checkStats(b, "b");
  const finite = a.finite + b.finite;
  const merged: TensorStats = {
    count: a.count + b.count,
    min: Math.min(a.finite > 0 ? a.min : Infinity, b.finite > 0 ? b.min : Infinity),
    max: Math.max(a.finite > 0 ? a.max : -Infinity, b.finite > 0 ? b.max : -Infinity),
    sum: a.sum + b.sum,
    sumSquares: a.sumSquares + b.sumSquares,
    mean: NaN,
    std: NaN,
    nan: a.nan + b.nan,
    posInf: a.posInf + b.posInf,
    negInf: a.negInf + b.negInf,
    zeros: a.zeros + b.zeros,
    finite,
  };
  if (finite === 0) {
    merged.min = NaN;
    merged.max = NaN;
    return merged;
  }
  if (a.finite === 0 || b.finite === 0) {
    const only = a.finite === 0 ? b : a;
    merged.mean = only.mean;
    merged.std = only.std;
    return merged;
  }
  const wa = a.finite / finite;
  const wb = b.finite / finite;
  // in halves, so that neither the difference of two means near ±1e308 nor the scale can overflow
  const halfDelta = b.mean / 2 - a.mean / 2;
  merged.mean = Number.isFinite(2 * halfDelta) ? a.mean + 2 * halfDelta * wb : a.mean * wa + b.mean * wb;
  const scale = Math.max(a.std / 2, b.std / 2, Math.abs(halfDelta));
  if (scale === 0) {
    merged.std = 0;
  } else {
    const ra = a.std / 2 / scale;
    const rb = b.std / 2 / scale;
    const rd = halfDelta / scale;
    merged.std = scale * (2 * Math.sqrt(wa * ra * ra + wb * rb * rb + wa * wb * rd * rd));
  }
  return merged;
}

const histogramSpecials = new Float64Array(5);

/**
 * Counts `data`'s finite values in `bins` equal bins over [lo, hi] (finite, lo <= hi): value x goes to bin
 * min(trunc((x - lo) * (bins / (hi - lo))), bins - 1), computed in float64 (for a range wider than the
 * largest float64, with x, lo and hi halved first). Values outside [lo, hi] and non-finite values are counted
 * apart (below, above, nan, posInf, negInf). A range too narrow for that arithmetic (lo === hi, a constant
 * tensor, included) is widened around its middle, as numpy does: the result's lo and hi say what was used.
 * Same options as stats().
 */
export function histogram(data: StatsData, bins: number, lo: number, hi: number, options?: StatsOptions): Histogram {
  const plan = planValues(data, options, "histogram()");
  if (!Number.isInteger(bins) || bins < 1 || bins > 1 << 24) throw new RangeError(`tensorfile: histogram() bins must be an integer from 1 to 16777216, not ${String(bins)}`);
  if (typeof lo !== "number" || typeof hi !== "number" || !Number.isFinite(lo) || !Number.isFinite(hi) || !(lo <= hi)) {
    throw new RangeError(`tensorfile: histogram() needs finite lo <= hi, not ${String(lo)} and ${String(hi)} (the min and max from stats() will do)`);
  }
  // halve everything when hi - lo overflows (exact: such a range has no subnormal ends)
  const h = Number.isFinite(hi - lo) ? 1 : 0.5;
  if (!Number.isFinite(bins / (hi * h - lo * h)) || hi === lo) {
    const middle = lo / 2 + hi / 2;
    const half = Math.max(0.5, Math.abs(middle) * 2 ** -20);
    lo = Math.max(-Number.MAX_VALUE, middle - half);
    hi = Math.min(Number.MAX_VALUE, middle + half);
  }
  const loH = lo * h;
  const scale = bins / (hi * h - loH);
  const counts = new Float64Array(bins);
  const result: Histogram = { counts, below: 0, above: 0, nan: 0, posInf: 0, negInf: 0, lo, hi };
  const addSpecials = (r: ArrayLike<number>) => {
    result.below += r[0]!;
    result.above += r[1]!;
    result.nan += r[2]!;
    result.posInf += r[3]!;
    result.negInf += r[4]!;
  };
  const onJs = (values: Float64Array, n: number) => {
    js.histogramF64(values, n, lo, hi, h, loH, scale, counts, histogramSpecials);
    addSpecials(histogramSpecials);
  };
  if (bins > MAX_WASM_BINS) {
    forEachChunk(data, { ...plan, wide: null }, () => undefined, onJs);
    return result;
  }
  let home: KernelMemory | undefined;
  forEachChunk(data, plan, (k, instance, at, n) => {
    if (!home) {
      home = instance;
      new Uint32Array(instance.memory.buffer, STATS_COUNTS, bins * 4).fill(0);
    }
    if (plan.wide === "f32") k.histogramF32(at, n, lo, hi, h, loH, scale, bins, STATS_COUNTS, STATS_RESULT);
    else k.histogramF64(at, n, lo, hi, h, loH, scale, bins, STATS_COUNTS, STATS_RESULT);
    addSpecials(new Float64Array(instance.memory.buffer, STATS_RESULT, 5));
  }, onJs);
  if (home) {
    const lanes = new Uint32Array(home.memory.buffer, STATS_COUNTS, bins * 4);
    for (let b = 0; b < bins; b++) counts[b] = lanes[4 * b]! + lanes[4 * b + 1]! + lanes[4 * b + 2]! + lanes[4 * b + 3]!;
  }
  return result;
}
