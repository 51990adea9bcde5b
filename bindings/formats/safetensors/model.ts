/** The safetensors file object and its dtype table. */
import type { ByteRange } from "../../bytes/byte-reader.js";
import type { DType } from "../../tensor.js";

/** The dtype names safetensors files use that tensorfile reads (Hugging Face `Dtype`). */
export type SafetensorsDType =
  | "BOOL"
  | "U8"
  | "I8"
  | "F8_E5M2"
  | "F8_E4M3"
  | "I16"
  | "U16"
  | "F16"
  | "BF16"
  | "I32"
  | "U32"
  | "F32"
  | "F64"
  | "I64"
  | "U64"
  | "C64";

/** Each stored dtype's tensorfile dtype (the element size is dtypeBytes of it). */
export const DTYPES: Record<SafetensorsDType, DType> = {
  BOOL: "bool",
  U8: "uint8",
  I8: "int8",
  F8_E5M2: "float8_e5m2",
  F8_E4M3: "float8_e4m3",
  I16: "int16",
  U16: "uint16",
  F16: "float16",
  BF16: "bfloat16",
  I32: "int32",
  U32: "uint32",
  F32: "float32",
  F64: "float64",
  I64: "int64",
  U64: "uint64",
  C64: "complex64",
};

/** Dtypes of the safetensors spec that tensorfile does not decode (sub-byte and scale-only floats). */
export const UNSUPPORTED_DTYPES: readonly string[] = ["F4", "F6_E2M3", "F6_E3M2", "F8_E8M0"];

export function isSafetensorsDType(name: string): name is SafetensorsDType {
  return Object.prototype.hasOwnProperty.call(DTYPES, name);
}

/** One tensor entry of the header, with its bytes. */
export interface SafetensorsTensor {
  /** The tensor's name (the header key). */
  name: string;
  /** The dtype as stored. */
  dtype: SafetensorsDType;
  /** The shape as stored. */
  shape: number[];
  /** [begin, end) in the data section (which starts right after the header). */
  dataOffsets: [number, number];
  /** The tensor's bytes (read(): a view of the input, or a copy) or, after readFrom(), their absolute range. */
  data: Uint8Array | ByteRange;
  /** Keys of the header entry besides dtype, shape and data_offsets (kept, reported by verify). */
  otherKeys?: string[] | undefined;
}

/** A whole safetensors file, as {@link read} gives it. */
export interface SafetensorsFile {
  /** The JSON header exactly as stored, padding included (write() puts it back byte for byte). */
  header: string;
  /** `__metadata__` (string to string), when present. */
  metadata?: Record<string, string> | undefined;
  /** The tensors in header order. */
  tensors: SafetensorsTensor[];
}

/** True when the tensor's bytes are loaded (a read() result), false for a readFrom() range. */
export function isLoaded(data: Uint8Array | ByteRange): data is Uint8Array {
  return data instanceof Uint8Array;
}
