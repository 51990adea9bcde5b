/**
 * The uniform tensor types: `NamedTensor` (decoded, row-major, host little-endian) and `TensorInfo` (where a
 * tensor's bytes are in a file and how they are stored). Readers turn on-disk layouts into `NamedTensor`s
 * through `decodeTensor`, which runs the kernels (byte swap, fp16 widening, dequantization, transpose).
 */
import { copyBytes } from "./bytes/input.js";
import { CorruptDataError, UnsupportedError } from "./bytes/errors.js";
import * as kernels from "./kernels/index.js";

/** Element types every format maps onto. float16 data is a Uint16Array of raw halves. */
export type StandardDType =
  | "float16"
  | "float32"
  | "float64"
  | "int8"
  | "uint8"
  | "int16"
  | "uint16"
  | "int32"
  | "uint32"
  | "int64"
  | "uint64"
  | "bool";

/**
 * Element types only one format has (TenniS complex numbers, characters, opaque and quantized types). Their
 * data is the raw little-endian bytes as a Uint8Array; `inspect` names them as they are.
 */
export type FormatSpecificDType =
  | "complex32"
  | "complex64"
  | "complex128"
  | "char8"
  | "char16"
  | "char32"
  | "void"
  | "ptr"
  | "unknown8"
  | "unknown16"
  | "unknown32"
  | "unknown64"
  | "unknown128"
  | "sink8q0"
  | "sink8q1"
  | "sink8q2"
  | "sink8q3"
  | "sink8q4"
  | "sink8q5"
  | "sink8q6"
  | "sink8q7"
  | NarrowFloatDType;

/**
 * The narrow float types of safetensors (Hugging Face `BF16`, `F8_E4M3`, `F8_E5M2`): bfloat16 data is a
 * Uint16Array of the raw bits, the float8 kinds a Uint8Array of the raw bytes. `dtype: "float32"` widens all three
 * exactly (kernels.bf16ToF32, f8e4m3ToF32, f8e5m2ToF32).
 */
export type NarrowFloatDType = "bfloat16" | "float8_e4m3" | "float8_e5m2";

/** Every element type a tensor can have: the standard ones and the format-specific ones. */
export type DType = StandardDType | FormatSpecificDType;

/** The typed arrays tensor data comes in (which dtype gets which: {@link NamedTensor}). */
export type TypedArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

/** The typed array each dtype's data comes in (float16: the raw halves; format-specific types: raw bytes). */
export interface DTypeArrays {
  float16: Uint16Array;
  float32: Float32Array;
  float64: Float64Array;
  int8: Int8Array;
  uint8: Uint8Array;
  int16: Int16Array;
  uint16: Uint16Array;
  int32: Int32Array;
  uint32: Uint32Array;
  int64: BigInt64Array;
  uint64: BigUint64Array;
  bool: Uint8Array;
  bfloat16: Uint16Array;
  float8_e4m3: Uint8Array;
  float8_e5m2: Uint8Array;
}

/** One tensor of one dtype: `data` is that dtype's typed array. */
export interface TensorOf<D extends DType> {
  /** The tensor's name in its file (the contract's names: `layers.0.0`, a `<const>` node's `#name`, …). */
  name: string;
  /** The element type; narrows `data`. */
  dtype: D;
  /** Logical shape: element [i][j] of the source framework is element [i][j] here. A scalar is []. */
  shape: number[];
  /** Row-major (C order), host little-endian. */
  data: D extends keyof DTypeArrays ? DTypeArrays[D] : Uint8Array;
}

/**
 * A decoded tensor: a union discriminated by `dtype`, so that `if (t.dtype === "float32")` makes `t.data` a
 * Float32Array with no cast.
 */
export type NamedTensor = { [D in DType]: TensorOf<D> }[DType];

/** Affine int8 quantization: value = (q - offset) * scale. */
export interface Quantization {
  /** Multiplier of a stored int8 step. */
  scale: number;
  /** The stored int8 value that means 0. */
  offset: number;
}

/** Where a tensor's bytes are and how they are stored; nothing is decoded. */
export interface TensorInfo {
  /** The tensor's name, as in {@link NamedTensor}. */
  name: string;
  /** The stored element type (float16 stays float16: widening is a decode option). */
  dtype: DType;
  /** Logical shape, as in NamedTensor. */
  shape: number[];
  /** Absolute offset of the first byte in the file. */
  byteOffset: number;
  /** Bytes the stored tensor occupies from `byteOffset`. */
  byteLength: number;
  /** Byte order of the stored elements (`"be"`: SPRAAK BIN10, big-endian `.npy`); decoding swaps to little-endian. */
  byteOrder: "le" | "be";
  /** "column-major": element [i0][i1]… is stored at i0 + d0 * (i1 + d1 * …) (Fortran / ArrayFire order). */
  layout: "row-major" | "column-major";
  /** Set for int8 stored with a scale and offset (bw2l version 1): `dtype: "float32"` dequantizes. */
  quantization?: Quantization | undefined;
  /**
   * The format whose `loadTensor` decodes this info (every format's tensorInfos sets it). Some stored forms need
   * their format: a .csta's obfuscated bytes, primitiv's batch-last samples, SPRAAK ASCII/gzip/G.711 data.
   */
  format?: string | undefined;
  /**
   * Set when `dtype: "float32"` decodes this tensor to float32 in a way only its format knows (SPRAAK G.711
   * codes). float16 widening and int8 dequantization need no flag.
   */
  decodesToFloat32?: boolean | undefined;
}

/** How a tensor is decoded: as stored, or with every real-valued dtype as float32. */
export interface DecodeOptions {
  /**
   * "float32": every real-valued tensor comes back as a Float32Array of its values: float16, bfloat16 and float8
   * are widened, int8 with a quantization dequantized, and float64, the integer types and bool converted to the
   * nearest float32 (float64 and integers beyond 2^24 lose precision, as a cast in numpy or PyTorch would). Complex
   * and format-specific dtypes (TenniS char/opaque types) stay as stored. Without it every tensor comes back as stored.
   */
  dtype?: "float32" | undefined;
  /** Always copy, even where a zero-copy view of the input would do. Default false. */
  copy?: boolean | undefined;
  /** Decode into this array (of the result's type and length) instead of a new one. */
  out?: TypedArray | undefined;
}

interface DTypeInfo {
  bytes: number;
  ctor: {
    new (buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray;
    new (length: number): TypedArray;
  };
}

const STANDARD: Record<StandardDType, DTypeInfo> = {
  float16: { bytes: 2, ctor: Uint16Array },
  float32: { bytes: 4, ctor: Float32Array },
  float64: { bytes: 8, ctor: Float64Array },
  int8: { bytes: 1, ctor: Int8Array },
  uint8: { bytes: 1, ctor: Uint8Array },
  int16: { bytes: 2, ctor: Int16Array },
  uint16: { bytes: 2, ctor: Uint16Array },
  int32: { bytes: 4, ctor: Int32Array },
  uint32: { bytes: 4, ctor: Uint32Array },
  int64: { bytes: 8, ctor: BigInt64Array },
  uint64: { bytes: 8, ctor: BigUint64Array },
  bool: { bytes: 1, ctor: Uint8Array },
};

const SPECIFIC_BYTES: Record<FormatSpecificDType, number> = {
  complex32: 4,
  complex64: 8,
  complex128: 16,
  char8: 1,
  char16: 2,
  char32: 4,
  void: 0,
  ptr: 8,
  unknown8: 1,
  unknown16: 2,
  unknown32: 4,
  unknown64: 8,
  unknown128: 16,
  sink8q0: 1,
  sink8q1: 1,
  sink8q2: 1,
  sink8q3: 1,
  sink8q4: 1,
  sink8q5: 1,
  sink8q6: 1,
  sink8q7: 1,
  bfloat16: 2,
  float8_e4m3: 1,
  float8_e5m2: 1,
};

/** Format-specific types whose data is not raw bytes (bfloat16: a Uint16Array of the bits). */
const SPECIFIC_ARRAYS: Partial<Record<FormatSpecificDType, DTypeInfo>> = {
  bfloat16: { bytes: 2, ctor: Uint16Array },
};

/** The typed array a dtype's data comes in, and its element size (raw bytes: Uint8Array, size 1). */
function arrayInfo(dtype: DType): DTypeInfo | undefined {
  return isStandardDType(dtype) ? STANDARD[dtype] : SPECIFIC_ARRAYS[dtype];
}

/** The narrow float types (bfloat16, float8) that `dtype: "float32"` widens. */
export function isNarrowFloat(dtype: DType): dtype is NarrowFloatDType {
  return dtype === "bfloat16" || dtype === "float8_e4m3" || dtype === "float8_e5m2";
}

export function isStandardDType(dtype: DType): dtype is StandardDType {
  return Object.prototype.hasOwnProperty.call(STANDARD, dtype);
}

/** Bytes per element. */
export function dtypeBytes(dtype: DType): number {
  return isStandardDType(dtype) ? STANDARD[dtype].bytes : SPECIFIC_BYTES[dtype];
}

/** The width byte swaps work in: the element size, or the component size for complex types. */
export function swapWidth(dtype: DType): 1 | 2 | 4 | 8 {
  switch (dtype) {
    case "complex32":
      return 2;
    case "complex64":
      return 4;
    case "complex128":
      return 8;
    case "unknown128":
      return 1;
    default: {
      const b = dtypeBytes(dtype);
      return b === 2 || b === 4 || b === 8 ? b : 1;
    }
  }
}

/** Number of elements of a shape ([] is a scalar: 1). */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  // a zero dim after dims whose product overflowed to Infinity: 0 elements, not Infinity * 0 = NaN
  return Number.isNaN(n) && shape.includes(0) ? 0 : n;
}

/** TensorInfo fields of plainly stored tensors; any other field set means only the tensor's format decodes its bytes. */
const PLAIN_STORAGE_KEYS = new Set([
  "name",
  "dtype",
  "shape",
  "byteOffset",
  "byteLength",
  "byteOrder",
  "layout",
  "format",
  "quantization",
  "batch",
]);

/**
 * True when a tensor's stored bytes are its elements one after another and nothing else: byteLength is the
 * element count × the element size (of at least one byte), and no field says only its format can decode them (a
 * .csta's obfuscation, SPRAAK gzip/ASCII/G.711 data, a deflated npz member, primitiv's batch-last samples unless
 * `batches`). Such bytes may still need a byte swap, widening, dequantization or, column-major, a transpose: the
 * one test behind loadFile's arena, the streamed writers' chunks and bands, and the inspector's streamed reads.
 */
export function isPlainlyStored(info: TensorInfo, options: { batches?: boolean | undefined } = {}): boolean {
  for (const [key, value] of Object.entries(info)) {
    if (value === undefined || PLAIN_STORAGE_KEYS.has(key)) continue;
    // an npz member stored uncompressed: byteOffset is its array's absolute offset in the file
    if (key === "member" && (value as { method?: unknown }).method === "stored") continue;
    return false;
  }
  const batch = (info as TensorInfo & { batch?: unknown }).batch ?? 1;
  if (typeof batch !== "number" || !Number.isSafeInteger(batch) || batch < 1 || (batch > 1 && !options.batches))
    return false;
  const size = dtypeBytes(info.dtype);
  return size > 0 && info.byteLength === elementCount(info.shape) * size;
}

/** Bytes that `shape` elements of `dtype` take: 0 for 0-byte elements (TenniS void) whatever the shape. */
export function storedByteLength(shape: readonly number[], dtype: DType): number {
  const size = dtypeBytes(dtype);
  return size === 0 ? 0 : elementCount(shape) * size;
}

/** A typed array of `dtype` (raw Uint8Array for format-specific types) of `length` elements. */
export function allocateArray(dtype: DType, length: number): TypedArray {
  const typed = arrayInfo(dtype);
  if (typed) return new typed.ctor(length);
  return new Uint8Array(length * dtypeBytes(dtype));
}

/** A typed array of `dtype` over `bytes`: a view when aligned (sharing memory), otherwise a copy. */
export function viewAs(dtype: DType, bytes: Uint8Array, copy = false): TypedArray {
  const typed = arrayInfo(dtype);
  if (!typed) return copy ? copyBytes(bytes) : bytes;
  const { bytes: size, ctor } = typed;
  const length = bytes.byteLength / size;
  if (!copy && bytes.byteOffset % size === 0) return new ctor(bytes.buffer, bytes.byteOffset, length);
  const out = new ctor(length);
  new Uint8Array(out.buffer, out.byteOffset, out.byteLength).set(bytes);
  return out;
}

/** The bytes of a typed array (a view, no copy). */
export const bytesOf = kernels.bytesOf;

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
  dequantize: boolean,
) => void;

/** decodeTensor's column-major branch: the only code of decoding that needs the transpose kernels. */
function decodeColumnMajor(
  bytes: Uint8Array,
  info: TensorInfo,
  target: TypedArray,
  swap: boolean,
  widen: boolean,
  dequantize: boolean,
): void {
  const count = target.length;
  if (!widen && !dequantize) {
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
  } else {
    // int8: reorder the stored bytes (a quarter of the result's), then dequantize into the result
    const reordered = kernels.columnToRowMajor(viewAs(info.dtype, bytes) as Int8Array, info.shape);
    kernels.dequantizeI8(reordered, info.quantization!.scale, info.quantization!.offset, target as Float32Array);
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
  const dequantize = converts && info.dtype === "int8" && info.quantization !== undefined;
  const cast = converts && !widen && !dequantize;
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
  dequantize: boolean,
): void {
  const size = dtypeBytes(info.dtype);
  const width = swapWidth(info.dtype) as 2 | 4 | 8;
  const count = bytes.byteLength / size;
  if (!widen && !dequantize) {
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
    else kernels.dequantizeI8(src as Int8Array, info.quantization!.scale, info.quantization!.offset, dst);
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
