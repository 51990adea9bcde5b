/**
 * Decoding tensors from a file straight into their final place, for loadFile.
 *
 * Each tensor is read from the file by positioned reads:
 *   - stored as the result (little-endian, row-major, no conversion): one read straight into an array of its own,
 *     allocated the way readFileSync allocates (Node's uninitialised memory, which the allocator may recycle);
 * the others are decoded by kernels into one WebAssembly memory holding all of them (an "arena", sized once; it
 * never grows, so the typed arrays over it stay valid), whose first megabyte is a scratch area:
 *   - byte swaps only: chunks read into their final place and swapped there while in cache;
 *   - widening / dequantization: chunks read into the scratch, converted by a kernel into the final place;
 *   - column-major: bands of whole stored slabs (the outermost stored axis) read into the scratch, transposed by
 *     a kernel into the final place (fp16 with dtype float32: the halves are transposed into a staging area after
 *     the tensors, then widened into place: faster than transposing float32 or the fused transposeF16ToF32).
 * So every byte is copied once from the page cache and touched once more at most, in cache, and the file is never
 * held whole. What this cannot do (no WebAssembly, slabs over 1 MiB, transposes of 16-byte elements, …) the
 * caller decodes the ordinary way.
 */
import {
  type DType,
  type NamedTensor,
  type TensorInfo,
  type TypedArray,
  allocateArray,
  decodedDType,
  dtypeBytes,
  elementCount,
  isStandardDType,
  swapWidth,
} from "../tensor.js";
import {
  type KernelFamily,
  type KernelMemory,
  DATA_OFFSET,
  MAX_MEMORY_BYTES,
  SCRATCH_BYTES,
  SCRATCH_OFFSET,
  allocateDedicated,
  familyModule,
  kernelsIn,
} from "../wasm/instance.js";
import { type ConvertExports, type TransposeExports, convertFamily, transposeFamily } from "../wasm/families.js";
import type { FileAccess } from "./file-access.js";

/** How one tensor goes from its stored bytes to its result, when the arena can do it. */
export interface ArenaPlan {
  info: TensorInfo;
  /** The result's dtype and element count. */
  dtype: DType;
  count: number;
  outBytes: number;
  /** Bytes per stored element. */
  storedSize: number;
  /** Byte-swap width (0: none). */
  swap: 0 | 2 | 4 | 8;
  convert: "none" | "widen" | "dequantize";
  /** Column-major axes longer than 1 (two or more), or undefined for row-major order. */
  columnDims: number[] | undefined;
}

/** Most axes longer than 1 a column-major tensor may have (as columnToRowMajor). */
const MAX_TRANSPOSE_AXES = 8;
/** Arena sizes: tensors are grouped into memories of at most this many bytes (one bigger tensor gets its own). */
const ARENA_GROUP_BYTES = 1 << 30;

/**
 * The arena plan for `info` decoded with `dtype` option, or undefined when the tensor must go the ordinary way
 * (the caller checks format-specific stored forms first).
 */
export function planArena(info: TensorInfo, float32: boolean): ArenaPlan | undefined {
  const count = elementCount(info.shape);
  const storedSize = dtypeBytes(info.dtype);
  if (!Number.isSafeInteger(count) || count === 0 || storedSize === 0 || info.byteLength !== count * storedSize)
    return undefined;
  const widen = float32 && info.dtype === "float16";
  const dequantize = float32 && info.dtype === "int8" && info.quantization !== undefined;
  // other conversions of dtype "float32" (casts of float64/integers/bool, bfloat16/float8) go the ordinary way
  if (float32 && !widen && !dequantize && decodedDType(info, { dtype: "float32" }) !== info.dtype) return undefined;
  const dtype: DType = widen || dequantize ? "float32" : info.dtype;
  const width = info.byteOrder === "be" ? swapWidth(info.dtype) : 1;
  const swap = width > 1 ? (width as 2 | 4 | 8) : 0;
  const dims = info.shape.filter((d) => d !== 1);
  let columnDims: number[] | undefined;
  if (info.layout === "column-major" && dims.length > 1) {
    if (dims.length > MAX_TRANSPOSE_AXES || dequantize) return undefined;
    if (![1, 2, 4, 8].includes(storedSize)) return undefined;
    // one stored slab (all axes but the outermost stored one) must fit in the scratch
    if ((count / dims[dims.length - 1]!) * storedSize > SCRATCH_BYTES) return undefined;
    columnDims = dims;
  }
  const outBytes = count * dtypeBytes(dtype);
  if (DATA_OFFSET + outBytes > MAX_MEMORY_BYTES) return undefined;
  return {
    info,
    dtype,
    count,
    outBytes,
    storedSize,
    swap,
    convert: widen ? "widen" : dequantize ? "dequantize" : "none",
    columnDims,
  };
}

/** A typed array of `dtype` over `count` elements of `buffer` at `byteOffset`. */
function arrayAt(dtype: DType, buffer: ArrayBufferLike, byteOffset: number, count: number): TypedArray {
  if (!isStandardDType(dtype)) return new Uint8Array(buffer, byteOffset, count * dtypeBytes(dtype));
  const ctor = allocateArray(dtype, 0).constructor as new (
    buffer: ArrayBufferLike,
    byteOffset: number,
    length: number,
  ) => TypedArray;
  return new ctor(buffer, byteOffset, count);
}

const align64 = (n: number): number => Math.ceil(n / 64) * 64;

/**
 * Decodes every planned tensor from `file` into arenas; returns the tensors in plan order. Null when WebAssembly is
 * unavailable (the caller decodes the ordinary way).
 */
export function decodeIntoArenas(file: FileAccess, plans: readonly ArenaPlan[], format: string): NamedTensor[] | null {
  const results = new Array<NamedTensor>(plans.length);
  // tensors stored as their result need no kernel: each is read straight into memory of its own, allocated as
  // readFileSync allocates (the allocator may reuse mapped pages, where a WebAssembly memory is always fresh)
  const isPlain = (plan: ArenaPlan) => plan.swap === 0 && plan.convert === "none" && !plan.columnDims;
  plans.forEach((plan, index) => {
    if (!isPlain(plan)) return;
    const bytes = file.allocateForRead(plan.outBytes);
    file.readExactlyInto(bytes, plan.info.byteOffset, format, plan.info.name);
    results[index] = {
      name: plan.info.name,
      dtype: plan.dtype,
      shape: plan.info.shape.slice(),
      data: arrayAt(plan.dtype, bytes.buffer, bytes.byteOffset, plan.count),
    } as NamedTensor;
  });
  // the others: grouped into memories of at most ARENA_GROUP_BYTES (a bigger tensor alone)
  const groups: { plans: { plan: ArenaPlan; index: number; offset: number }[]; bytes: number }[] = [];
  let current: (typeof groups)[number] | undefined;
  plans.forEach((plan, index) => {
    if (isPlain(plan)) return;
    const size = align64(plan.outBytes);
    if (!current || (current.bytes + size > ARENA_GROUP_BYTES && current.bytes > 0)) {
      current = { plans: [], bytes: 0 };
      groups.push(current);
    }
    current.plans.push({ plan, index, offset: current.bytes });
    current.bytes += size;
  });
  // the kernel families the plans need (instantiated on each arena when first used there)
  const families = new Set<KernelFamily<unknown>>();
  for (const { plans: planned } of groups) {
    for (const { plan } of planned) {
      if (plan.swap || plan.convert !== "none") families.add(convertFamily);
      if (plan.columnDims) families.add(transposeFamily);
    }
  }
  for (const family of families) if (!familyModule(family)) return null;
  for (const group of groups) {
    // after the tensors: staging for the largest column-major fp16 tensor widened to f32 (its halves, reordered)
    let staging = 0; // (a loop, not Math.max(...): any number of tensors)
    for (const p of group.plans)
      if (p.plan.convert === "widen" && p.plan.columnDims) staging = Math.max(staging, align64(p.plan.info.byteLength));
    const arena = allocateDedicated(group.bytes + staging);
    if (!arena) return null;
    // file order: sequential reads
    const ordered = group.plans.slice().sort((a, b) => a.plan.info.byteOffset - b.plan.info.byteOffset);
    for (const { plan, index, offset } of ordered) {
      const address = DATA_OFFSET + offset;
      decodeOne(file, arena, plan, address, DATA_OFFSET + group.bytes, format);
      const { info } = plan;
      results[index] = {
        name: info.name,
        dtype: plan.dtype,
        shape: info.shape.slice(),
        data: arrayAt(plan.dtype, arena.memory.buffer, address, plan.count),
      } as NamedTensor;
    }
  }
  return results;
}

function swapCall(k: ConvertExports, width: 2 | 4 | 8): (ptr: number, count: number) => void {
  return width === 2
    ? (p, n) => k.byteSwap16(p, n)
    : width === 4
      ? (p, n) => k.byteSwap32(p, n)
      : (p, n) => k.byteSwap64(p, n);
}

type TransposeCall = (
  src: number,
  dst: number,
  rows: number,
  cols: number,
  srcStride: number,
  dstStride: number,
) => void;

function transposeCall(k: TransposeExports, plan: ArenaPlan): TransposeCall {
  switch (
    plan.storedSize // fp16 being widened is transposed as 2-byte elements into the staging area
  ) {
    case 1:
      return (s, d, r, c, ss, ds) => k.transpose8(s, d, r, c, ss, ds);
    case 2:
      return (s, d, r, c, ss, ds) => k.transpose16(s, d, r, c, ss, ds);
    case 4:
      return (s, d, r, c, ss, ds) => k.transpose32(s, d, r, c, ss, ds);
    default:
      return (s, d, r, c, ss, ds) => k.transpose64(s, d, r, c, ss, ds);
  }
}

function decodeOne(
  file: FileAccess,
  arena: KernelMemory,
  plan: ArenaPlan,
  address: number,
  staging: number,
  format: string,
): void {
  const { info, storedSize, count } = plan;
  const heap = (at: number, length: number) => new Uint8Array(arena.memory.buffer, at, length);
  const read = (at: number, length: number, position: number) =>
    file.readExactlyInto(heap(at, length), position, format, info.name);
  const outSize = plan.outBytes / count;
  const swap = plan.swap ? swapCall(kernelsIn(arena, convertFamily), plan.swap) : undefined;

  if (!plan.columnDims) {
    if (plan.convert === "none") {
      if (!swap) {
        read(address, info.byteLength, info.byteOffset);
        return;
      }
      // read a chunk into its place, swap it there while it is in cache
      const chunk = Math.floor(SCRATCH_BYTES / storedSize);
      for (let start = 0; start < count; start += chunk) {
        const n = Math.min(chunk, count - start);
        read(address + start * storedSize, n * storedSize, info.byteOffset + start * storedSize);
        swap(address + start * storedSize, n);
      }
      return;
    }
    const chunk = Math.floor(SCRATCH_BYTES / storedSize / 64) * 64;
    const q = info.quantization;
    for (let start = 0; start < count; start += chunk) {
      const n = Math.min(chunk, count - start);
      read(SCRATCH_OFFSET, n * storedSize, info.byteOffset + start * storedSize);
      swap?.(SCRATCH_OFFSET, n);
      if (plan.convert === "widen")
        kernelsIn(arena, convertFamily).f16ToF32(SCRATCH_OFFSET, address + start * outSize, n);
      else
        kernelsIn(arena, convertFamily).dequantizeI8(SCRATCH_OFFSET, address + start * outSize, n, q!.scale, q!.offset);
    }
    return;
  }

  // Column-major [d0 … dk] is stored row-major as [dk][…][d0]: dk slabs of S = d0·…·d(k-1) elements. Element
  // (i0 … ik) goes to row-major ((i0·d1 + i1)·d2 + …)·dk + ik. For each index of the middle axes d1 … d(k-1), the
  // slab rows ik by columns i0 form one strided 2-D transpose (as kernels.columnToRowMajor splits it); a band of
  // whole slabs read into the scratch is that transpose's rows [a, a + n).
  const dims = plan.columnDims;
  const kIndex = dims.length - 1;
  const first = dims[0]!;
  const last = dims[kIndex]!;
  const middle = dims.slice(1, kIndex);
  const slab = count / last;
  const dstStride = count / first;
  const blocks: { src: number; dst: number }[] = [];
  const index = middle.map(() => 0);
  const blockCount = middle.reduce((a, b) => a * b, 1);
  for (let b = 0; b < blockCount; b++) {
    let src = 0;
    let scale = first;
    for (let m = 0; m < middle.length; m++) {
      src += index[m]! * scale;
      scale *= middle[m]!;
    }
    let dst = 0;
    scale = last;
    for (let m = middle.length - 1; m >= 0; m--) {
      dst += index[m]! * scale;
      scale *= middle[m]!;
    }
    blocks.push({ src, dst });
    for (let m = 0; m < middle.length; m++) {
      if (++index[m]! < middle[m]!) break;
      index[m] = 0;
    }
  }
  const slabBytes = slab * storedSize;
  // fp16 widened: the halves are transposed into the staging area (half the result's bytes), then widened
  // sequentially into place (measured faster than transposing float32 or the fused transposeF16ToF32)
  const widen = plan.convert === "widen";
  const into = widen ? staging : address;
  const intoSize = widen ? storedSize : outSize;
  const transpose = transposeCall(kernelsIn(arena, transposeFamily), plan);
  const band = Math.max(1, Math.floor(SCRATCH_BYTES / slabBytes));
  for (let a = 0; a < last; a += band) {
    const n = Math.min(band, last - a);
    read(SCRATCH_OFFSET, n * slabBytes, info.byteOffset + a * slabBytes);
    swap?.(SCRATCH_OFFSET, n * slab);
    for (const block of blocks) {
      transpose(SCRATCH_OFFSET + block.src * storedSize, into + (block.dst + a) * intoSize, n, first, slab, dstStride);
    }
  }
  if (widen) kernelsIn(arena, convertFamily).f16ToF32(staging, address, count);
}
