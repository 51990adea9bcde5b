/** The uniform view of a safetensors file (tensors, tensorInfos) and inspect / verify / blobs. */
import { assertEager } from "../../io/lazy.js";
import {
  type DType,
  type DecodeOptions,
  type NamedTensor,
  type TensorInfo,
  decodeRowMajorTensor,
  dtypeBytes,
} from "../../tensor.js";
import type { EmbeddedBlob, InspectResult } from "../types.js";
import { DTYPES, type SafetensorsFile, type SafetensorsTensor, isLoaded } from "./model.js";

const FORMAT = "safetensors";

/**
 * Types tensorfile's writeSafetensors stores as U8 with one more axis of the element size, naming the real type in
 * `__metadata__["tensorfile.dtype.<name>"]` (safetensors has no name for them). Reading such a file gives the
 * real dtype and shape back.
 */
const RESTORABLE = new Set<string>([
  "complex32",
  "complex128",
  "char8",
  "char16",
  "char32",
  "void",
  "ptr",
  "unknown8",
  "unknown16",
  "unknown32",
  "unknown64",
  "unknown128",
  "sink8q0",
  "sink8q1",
  "sink8q2",
  "sink8q3",
  "sink8q4",
  "sink8q5",
  "sink8q6",
  "sink8q7",
]);

export const DTYPE_METADATA_PREFIX = "tensorfile.dtype.";

/** The dtype and logical shape of a stored tensor (with the tensorfile.dtype.<name> convention applied). */
export function logicalType(
  file: SafetensorsFile,
  tensor: SafetensorsTensor,
): {
  /** The tensor's dtype (a type safetensors has no name for, stored as U8, comes back as itself). */
  dtype: DType;
  /** Its logical shape (without the extra axis such a type is stored with). */
  shape: number[];
} {
  const declared = file.metadata?.[`${DTYPE_METADATA_PREFIX}${tensor.name}`];
  if (declared !== undefined && restorable(tensor, declared)) {
    return { dtype: declared as DType, shape: tensor.shape.slice(0, -1) };
  }
  return { dtype: DTYPES[tensor.dtype], shape: tensor.shape.slice() };
}

function restorable(tensor: SafetensorsTensor, declared: string): boolean {
  return (
    RESTORABLE.has(declared) &&
    tensor.dtype === "U8" &&
    tensor.shape.length > 0 &&
    tensor.shape[tensor.shape.length - 1] === dtypeBytes(declared as DType)
  );
}

function dataStart(file: SafetensorsFile): number {
  return 8 + new TextEncoder().encode(file.header).length;
}

function infoOf(file: SafetensorsFile, tensor: SafetensorsTensor, start: number): TensorInfo {
  const { dtype, shape } = logicalType(file, tensor);
  return {
    name: tensor.name,
    dtype,
    shape,
    byteOffset: isLoaded(tensor.data) ? start + tensor.dataOffsets[0] : tensor.data.byteOffset,
    byteLength: tensor.dataOffsets[1] - tensor.dataOffsets[0],
    byteOrder: "le",
    layout: "row-major",
    format: FORMAT,
  };
}

/** Where each tensor is (header order), for read() and readFrom() results alike. */
export function tensorInfos(file: SafetensorsFile): TensorInfo[] {
  const start = dataStart(file);
  return file.tensors.map((t) => infoOf(file, t, start));
}

/** Every tensor, row-major little-endian as stored (views of the input where aligned). Needs a read() result. */
export function tensors(file: SafetensorsFile, options: DecodeOptions = {}): NamedTensor[] {
  assertEager(file, FORMAT);
  const start = dataStart(file);
  return file.tensors.map((t) => {
    if (!isLoaded(t.data))
      throw new TypeError(`safetensors: tensor ${t.name} is not loaded (a readFrom() result); use loadTensor`);
    return decodeRowMajorTensor(t.data, infoOf(file, t, start), options, FORMAT);
  });
}

const DTYPE_NOTES: Partial<Record<DType, string>> = {
  bfloat16: "bfloat16 (raw bits; --dtype float32 widens)",
  float8_e4m3: "float8_e4m3 (raw bytes; --dtype float32 widens)",
  float8_e5m2: "float8_e5m2 (raw bytes; --dtype float32 widens)",
  complex64: "complex64 (raw bytes: float32 pairs)",
};

/** What `tensorfile inspect --json` prints. */
export function inspect(file: SafetensorsFile): InspectResult {
  const headerSize = new TextEncoder().encode(file.header).length;
  const dtypes: Record<string, string> = {};
  for (const t of file.tensors) dtypes[t.dtype] ??= DTYPE_NOTES[DTYPES[t.dtype]] ?? DTYPES[t.dtype];
  return {
    format: FORMAT,
    version: null,
    meta: { ...(file.metadata ?? {}) },
    tensors: file.tensors.map((t) => {
      const { dtype, shape } = logicalType(file, t);
      return { name: t.name, dtype, shape, byteLength: t.dataOffsets[1] - t.dataOffsets[0] };
    }),
    headerSize,
    dataOffset: 8 + headerSize,
    dtypes,
  };
}

/** Warnings: what Hugging Face loaders refuse or what looks wrong but is readable. */
export function verify(file: SafetensorsFile): string[] {
  const warnings: string[] = [];
  const headerSize = new TextEncoder().encode(file.header).length;
  if ((8 + headerSize) % 8 !== 0)
    warnings.push(
      `the data starts at byte ${8 + headerSize}, not a multiple of 8 (the safetensors writer pads the header with spaces; unaligned data cannot be mapped zero-copy)`,
    );
  const format = file.metadata?.format;
  if (file.metadata && format !== undefined && !["pt", "tf", "flax", "mlx", "np"].includes(format)) {
    warnings.push(
      `__metadata__.format is ${JSON.stringify(format)}; Hugging Face loaders expect "pt", "tf", "flax", "mlx" or "np"`,
    );
  }
  for (const t of file.tensors) {
    if (t.otherKeys)
      warnings.push(
        `tensor ${JSON.stringify(t.name)} has keys besides dtype, shape and data_offsets: ${t.otherKeys.join(", ")} (ignored)`,
      );
    const declared = file.metadata?.[`${DTYPE_METADATA_PREFIX}${t.name}`];
    if (declared !== undefined && !restorable(t, declared)) {
      warnings.push(
        `__metadata__ names dtype ${JSON.stringify(declared)} for tensor ${JSON.stringify(t.name)}, which does not fit its stored ${t.dtype} [${t.shape.join(", ")}]; read as stored`,
      );
    }
    const start = t.dataOffsets[0] + 8 + headerSize;
    const size = dtypeBytes(DTYPES[t.dtype]);
    if (size > 1 && start % size !== 0 && t.dataOffsets[1] > t.dataOffsets[0]) {
      warnings.push(
        `tensor ${JSON.stringify(t.name)} starts at byte ${start}, not a multiple of its ${size}-byte elements (read through a copy)`,
      );
    }
  }
  const names = new Set(file.tensors.map((t) => t.name));
  const keys = Object.keys(file.metadata ?? {}).filter(
    (k) => k.startsWith(DTYPE_METADATA_PREFIX) && !names.has(k.slice(DTYPE_METADATA_PREFIX.length)),
  );
  for (const k of keys) warnings.push(`__metadata__ key ${JSON.stringify(k)} names no tensor`);
  return warnings;
}

/** safetensors files embed nothing but tensors. */
export function blobs(_file: SafetensorsFile): EmbeddedBlob[] {
  return [];
}
