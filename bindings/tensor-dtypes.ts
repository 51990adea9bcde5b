/**
 * The tensor types (`DType`, `NamedTensor`, `TensorInfo`, `DecodeOptions`) and what is known of a dtype without
 * decoding anything: element sizes, typed arrays, byte lengths, whether a tensor is stored plainly. tensor.ts
 * re-exports all of it beside the decoding.
 */
import { copyBytes } from "./bytes/input.js";
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
export function arrayInfo(dtype: DType): DTypeInfo | undefined {
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
