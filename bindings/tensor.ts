/**
 * The uniform tensor types: `NamedTensor` (decoded, row-major, host little-endian) and `TensorInfo` (where a
 * tensor's bytes are in a file and how they are stored). Readers turn on-disk layouts into `NamedTensor`s
 * through `decodeTensor`, which runs the kernels (byte swap, fp16 widening, dequantization, transpose).
 */
import { copyBytes } from "./bytes/input.js";
import { CorruptDataError, UnsupportedError } from "./bytes/errors.js";
import * as kernels from "./kernels/index.js";
import {
  type DType,
  type TypedArray,
  type NamedTensor,
  type TensorInfo,
  type DecodeOptions,
  type Quantization,
  arrayInfo,
  isNarrowFloat,
  isStandardDType,
  dtypeBytes,
  swapWidth,
  elementCount,
  storedByteLength,
  allocateArray,
  viewAs,
  bytesOf,
} from "./tensor-dtypes.js";

export type {
  StandardDType,
  FormatSpecificDType,
  NarrowFloatDType,
  DType,
  TypedArray,
  DTypeArrays,
  TensorOf,
  NamedTensor,
  Quantization,
  TensorInfo,
  DecodeOptions,
} from "./tensor-dtypes.js";
export {
  isNarrowFloat,
  isStandardDType,
  dtypeBytes,
  swapWidth,
  elementCount,
  isPlainlyStored,
  storedByteLength,
  allocateArray,
  viewAs,
  bytesOf,
} from "./tensor-dtypes.js";

/**
 * Column-major to row-major for elements of any size: 1, 2, 4 and 8 bytes directly; multiples of 8 (complex128,
 * 16-byte opaque types) as 8-byte lanes: reorder [lanes, ...shape] (lanes vary fastest in the column-major
 * source), which leaves the lanes as the slowest axis, then transpose lanes x elements back into place.
 */
export function columnToRowMajorElements(
  src: Uint8Array,
  dst: Uint8Array,
  shape: readonly number[],
  size: number,
): void {
  if (size === 1 || size === 2 || size === 4 || size === 8 || src.byteLength === 0) {
    kernels.reorderColumnMajorBytes(src, dst, shape, Math.max(1, size));
    return;
  }
  if (size % 8 !== 0)
    throw new RangeError(
      `tensorfile: column-major ${size}-byte elements cannot be reordered (1, 2, 4 or multiples of 8)`,
    );
  const lanes = size / 8;
  const count = src.byteLength / size;
  const planes = new BigUint64Array(count * lanes);
  kernels.reorderColumnMajorBytes(src, bytesOf(planes), [lanes, ...shape], 8);
  const target =
    dst.byteOffset % 8 === 0
      ? new BigUint64Array(dst.buffer, dst.byteOffset, count * lanes)
      : new BigUint64Array(count * lanes);
  kernels.transpose(planes, lanes, count, target);
  if (target.buffer !== dst.buffer) dst.set(bytesOf(target));
}

/** True when options.dtype "float32" makes decodeTensor turn this tensor into float32 values. */
function convertsToFloat32(info: TensorInfo, options: DecodeOptions): boolean {
  return (
    options.dtype === "float32" &&
    info.dtype !== "float32" &&
    (isStandardDType(info.dtype) || isNarrowFloat(info.dtype))
  );
}

/**
 * The values of a real-valued typed array as float32 (into `out` when given): what `dtype: "float32"` does to
 * float64, integer and bool data. Float32Array#set converts numbers; 64-bit integers go through Number().
 */
export function toFloat32(data: TypedArray, out?: Float32Array): Float32Array {
  if (data instanceof Float32Array && (out === undefined || out === data)) return data;
  const target = out ?? new Float32Array(data.length);
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
    for (let i = 0; i < data.length; i++) target[i] = Number(data[i]!);
  } else {
    target.set(data);
  }
  return target;
}

/**
 * Applies `dtype: "float32"` to a tensor some format decoded on its own (not through decodeTensor): real-valued
 * dtypes become float32, float16 halves are widened; the rest is returned as it is.
 */
export function asFloat32Tensor(tensor: NamedTensor, options: DecodeOptions): NamedTensor {
  if (options.dtype !== "float32" || tensor.dtype === "float32") return tensor;
  if (!isStandardDType(tensor.dtype) && !isNarrowFloat(tensor.dtype)) return tensor;
  const data =
    tensor.dtype === "float16" || isNarrowFloat(tensor.dtype)
      ? widenToFloat32(tensor.data as TypedArray, tensor.dtype, options.out as Float32Array | undefined)
      : toFloat32(tensor.data as TypedArray, options.out as Float32Array | undefined);
  return { name: tensor.name, dtype: "float32", shape: tensor.shape, data };
}

/** Widens float16, bfloat16 or float8 data (host order) to float32, into `out` when given. */
function widenToFloat32(data: TypedArray, dtype: DType, out: Float32Array | undefined): Float32Array {
  switch (dtype) {
    case "bfloat16":
      return kernels.bf16ToF32(data as Uint16Array, out);
    case "float8_e4m3":
      return kernels.f8e4m3ToF32(data as Uint8Array, out);
    case "float8_e5m2":
      return kernels.f8e5m2ToF32(data as Uint8Array, out);
    default:
      return kernels.f16ToF32(data as Uint16Array, out);
  }
}

/** The dtype that tensors()/loadTensor give for `info` with these options (to plan an output before decoding). */
export function decodedDType(info: TensorInfo, options: DecodeOptions = {}): DType {
  return convertsToFloat32(info, options) || (options.dtype === "float32" && info.decodesToFloat32)
    ? "float32"
    : info.dtype;
}

/**
 * Decodes the stored bytes of one tensor into a NamedTensor: byte swap (big-endian sources), widening or
 * dequantization (options.dtype "float32"), column-major to row-major. Little-endian row-major data that is
 * already aligned comes back as a view sharing memory with `bytes` unless `options.copy`.
 */
export function decodeTensor(
  bytes: Uint8Array,
  info: TensorInfo,
  options: DecodeOptions = {},
  format = "tensorfile",
): NamedTensor {
  if (!ArrayBuffer.isView(bytes) || Reflect.get(bytes, Symbol.toStringTag) !== "Uint8Array")
    throw new TypeError(
      `tensorfile: decodeTensor() takes the tensor's bytes as a Uint8Array, not ${bytes === null ? "null" : typeof bytes === "object" ? "another object" : typeof bytes}`,
    );
  if (info === null || typeof info !== "object" || !Array.isArray(info.shape) || typeof info.dtype !== "string")
    throw new TypeError(
      "tensorfile: decodeTensor() takes a TensorInfo ({ name, dtype, shape, … }, from tensorInfos())",
    );
  return decodeWith(bytes, info, options, format, decodeColumnMajor);
}

/**
 * decodeTensor for the formats whose tensors are always row-major (SPRAAK, TenniS, april, safetensors): the same
 * result, without the transpose kernels (a bundle importing only such a format leaves them out). A column-major
 * info is an UnsupportedError.
 */
export function decodeRowMajorTensor(
  bytes: Uint8Array,
  info: TensorInfo,
  options: DecodeOptions = {},
  format = "tensorfile",
): NamedTensor {
  return decodeWith(bytes, info, options, format, undefined);
}

/** Column-major stored bytes into a row-major `target`, with the byte swap, fp16 widening or dequantization. */
type ColumnMajorDecoder = (
  bytes: Uint8Array,
  info: TensorInfo,
  target: TypedArray,
  swap: boolean,
  widen: boolean,
  dequantize: Quantization | undefined,
) => void;

/** decodeTensor's column-major branch: the only code of decoding that needs the transpose kernels. */
function decodeColumnMajor(
  bytes: Uint8Array,
  info: TensorInfo,
  target: TypedArray,
  swap: boolean,
  widen: boolean,
  dequantize: Quantization | undefined,
): void {
  const count = target.length;
  if (!widen && dequantize === undefined) {
    // one pass straight from the (possibly unaligned) stored bytes into the row-major result, then the swap in
    // place (a transpose moves whole elements, so the order of the two does not matter); elements of any size
    columnToRowMajorElements(bytes, bytesOf(target), info.shape, dtypeBytes(info.dtype));
    if (swap) kernels.byteSwap(bytesOf(target), swapWidth(info.dtype) as 2 | 4 | 8);
  } else if (widen) {
    // column-major fp16: reorder the halves (half the bytes of the result), then widen them sequentially into the
    // result (measured faster than transposing float32, or the fused transposeF16ToF32, in bench/kernels.bench.mjs)
    const halves = swap ? kernels.byteSwap(copyBytes(bytes), 2) : bytes;
    const reordered = new Uint16Array(count);
    kernels.reorderColumnMajorBytes(halves, bytesOf(reordered), info.shape, 2);
    kernels.f16ToF32(reordered, target as Float32Array);
  } else if (dequantize !== undefined) {
    // int8: reorder the stored bytes (a quarter of the result's), then dequantize into the result
    const reordered = kernels.columnToRowMajor(viewAs(info.dtype, bytes) as Int8Array, info.shape);
    kernels.dequantizeI8(reordered, dequantize.scale, dequantize.offset, target as Float32Array);
  }
}

function decodeWith(
  bytes: Uint8Array,
  info: TensorInfo,
  options: DecodeOptions,
  format: string,
  columnMajorDecoder: ColumnMajorDecoder | undefined,
): NamedTensor {
  const count = elementCount(info.shape);
  // 0-byte elements (TenniS void) need no bytes whatever the shape (Infinity * 0 would be NaN)
  const needed = storedByteLength(info.shape, info.dtype);
  if (bytes.byteLength !== needed) {
    throw new CorruptDataError(
      format,
      `tensor "${info.name}" has ${bytes.byteLength} bytes; its ${info.dtype} shape [${info.shape.join(", ")}] needs ${needed}`,
      info.byteOffset,
      info.name,
    );
  }
  const converts = convertsToFloat32(info, options);
  const widen = converts && (info.dtype === "float16" || isNarrowFloat(info.dtype));
  // the int8 quantization a float32 decode applies (only int8 that carries one is dequantized)
  const dequantize = converts && info.dtype === "int8" ? info.quantization : undefined;
  const cast = converts && !widen && dequantize === undefined;
  const dtype: DType = converts ? "float32" : info.dtype;
  const swap = info.byteOrder === "be" && swapWidth(info.dtype) > 1;
  const columnMajor = info.layout === "column-major" && info.shape.filter((d) => d > 1).length > 1;
  if (columnMajor && !columnMajorDecoder) {
    throw new UnsupportedError(
      format,
      `tensor "${info.name}" is stored column-major; only decodeTensor reorders it`,
      info.byteOffset,
      info.name,
    );
  }
  const out = options.out;
  if (out) {
    const want = allocateArray(dtype, 0).constructor;
    if (out.constructor !== want || out.byteLength !== count * dtypeBytes(dtype)) {
      throw new RangeError(
        `tensorfile: options.out must be a ${want.name} of ${arrayInfo(dtype) ? count : count * dtypeBytes(dtype)} elements for tensor "${info.name}"`,
      );
    }
  }
  const result = (data: TypedArray): NamedTensor =>
    ({ name: info.name, dtype, shape: info.shape.slice(), data }) as NamedTensor;

  if (!converts && !swap && !columnMajor) {
    if (!out) return result(viewAs(info.dtype, bytes, options.copy));
    bytesOf(out).set(bytes);
    return result(out);
  }
  if (cast || (widen && info.dtype !== "float16")) {
    // float32 casts and bfloat16/float8 widening: reorder and swap as stored first, then convert into the result
    const stored = decodeWith(bytes, info, {}, format, columnMajorDecoder).data;
    const into = out as Float32Array | undefined;
    return result(cast ? toFloat32(stored, into) : widenToFloat32(stored, info.dtype, into));
  }
  // from here `widen` is float16 only
  const target = out ?? allocateArray(dtype, count);
  if (!columnMajor || !columnMajorDecoder) decodeRows(bytes, info, target, swap, widen, dequantize);
  else columnMajorDecoder(bytes, info, target, swap, widen, dequantize);
  return result(target);
}

/** Elements per step when stored bytes must be staged (unaligned, or swapped): small enough to stay in cache. */
const STAGE_ELEMENTS = 64 * 1024;

/**
 * Row-major stored bytes (any alignment) into `target`: byte swap, fp16 widening or int8 dequantization in one
 * pass. Bytes that can be viewed as elements go to the kernel directly; others are staged a cache-sized piece at
 * a time (never a second full copy).
 */
function decodeRows(
  bytes: Uint8Array,
  info: TensorInfo,
  target: TypedArray,
  swap: boolean,
  widen: boolean,
  dequantize: Quantization | undefined,
): void {
  const size = dtypeBytes(info.dtype);
  const width = swapWidth(info.dtype) as 2 | 4 | 8;
  const count = bytes.byteLength / size;
  if (!widen && dequantize === undefined) {
    // copy a piece into its place and swap it there while it is in cache
    const out = bytesOf(target);
    const step = STAGE_ELEMENTS * size;
    for (let at = 0; at < bytes.byteLength; at += step) {
      const piece = out.subarray(at, Math.min(at + step, bytes.byteLength));
      piece.set(bytes.subarray(at, at + piece.byteLength));
      if (swap) kernels.byteSwap(piece, width);
    }
    return;
  }
  const convert = (src: Uint16Array | Int8Array, from: number): void => {
    const dst = (target as Float32Array).subarray(from, from + src.length);
    if (widen) kernels.f16ToF32(src as Uint16Array, dst);
    else if (dequantize !== undefined) kernels.dequantizeI8(src as Int8Array, dequantize.scale, dequantize.offset, dst);
  };
  const ctor = widen ? Uint16Array : Int8Array;
  if (!swap && bytes.byteOffset % size === 0) {
    convert(new ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset, count), 0);
    return;
  }
  const stage = new ctor(Math.min(count, STAGE_ELEMENTS));
  const stageBytes = bytesOf(stage);
  for (let start = 0; start < count; start += STAGE_ELEMENTS) {
    const n = Math.min(STAGE_ELEMENTS, count - start);
    stageBytes.set(bytes.subarray(start * size, (start + n) * size));
    const piece = stage.subarray(0, n);
    if (swap) kernels.byteSwap(piece, width);
    convert(piece, start);
  }
}
