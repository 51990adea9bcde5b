/**
 * safetensors writer (huggingface/safetensors format):
 *   header_size u64 LE | header: UTF-8 JSON { "<name>": { "dtype": "F32", "shape": [..], "data_offsets": [begin, end] },
 *   …, "__metadata__": { string: string } }, padded with spaces so 8 + header_size is a multiple of 8 |
 *   data: the tensors back to back (no holes), row-major little-endian; offsets are relative to the data start.
 * Tensors are laid out widest element first, so every tensor starts at a multiple of its element size.
 * __metadata__ always has "format": "pt" (transformers and diffusers refuse any other value); what the caller
 * passes (the CLI: "tensorfile.source") is added. complex64 is safetensors' C64; bfloat16, float8_e4m3 and
 * float8_e5m2 are BF16, F8_E4M3 and F8_E5M2. Types safetensors has no name
 * for (complex128, complex32, TenniS char/opaque types) are written as U8 with one more axis of the element
 * size, and their real dtype is kept in __metadata__ under "tensorfile.dtype.<name>".
 */
import type { DType, NamedTensor } from "../tensor.js";
import { dtypeBytes, storedByteLength } from "../tensor.js";
import { checkMetadata } from "../bytes/arguments.js";
import { checkEntry, checkTensor } from "./check.js";
import { dictionary } from "../bytes/names.js";

const SAFETENSORS_DTYPE: Partial<Record<DType, string>> = {
  float16: "F16",
  float32: "F32",
  float64: "F64",
  int8: "I8",
  uint8: "U8",
  int16: "I16",
  uint16: "U16",
  int32: "I32",
  uint32: "U32",
  int64: "I64",
  uint64: "U64",
  bool: "BOOL",
  complex64: "C64",
  bfloat16: "BF16",
  float8_e4m3: "F8_E4M3",
  float8_e5m2: "F8_E5M2",
};

export interface SafetensorsEntry {
  name: string;
  dtype: DType;
  shape: number[];
}

export interface SafetensorsPlan {
  /** header_size + header JSON + padding: write this first. */
  header: Uint8Array;
  /** Where each tensor's bytes go, relative to the end of `header`, in the order to write them. */
  layout: { name: string; begin: number; end: number; index: number }[];
  /** Total file size. */
  size: number;
}

/** Plans a safetensors file for these tensors (shapes and dtypes only), so data can be streamed after it. */
export function planSafetensors(
  entries: readonly SafetensorsEntry[],
  metadata: Record<string, string> = {},
): SafetensorsPlan {
  if (!Array.isArray(entries as unknown))
    throw new TypeError("tensorfile: planSafetensors() takes an array of { name, dtype, shape }");
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    checkEntry(e, `tensor ${i}`);
    if (seen.has(e.name))
      throw new RangeError(`tensorfile: two tensors are named "${e.name}"; safetensors needs unique names`);
    if (e.name === "__metadata__")
      throw new RangeError('tensorfile: a tensor cannot be named "__metadata__" in safetensors');
    seen.add(e.name);
  });
  for (const [key, value] of Object.entries(metadata)) {
    if (typeof value !== "string")
      throw new TypeError(`tensorfile: safetensors __metadata__ values are strings; "${key}" is ${typeof value}`);
  }
  const order = entries
    .map((e, index) => ({ e, index }))
    .sort((a, b) => dtypeBytes(b.e.dtype) - dtypeBytes(a.e.dtype) || a.index - b.index);
  const layout: SafetensorsPlan["layout"] = [];
  let offset = 0;
  const offsets = new Map<number, [number, number]>();
  for (const { e, index } of order) {
    const bytes = storedByteLength(e.shape, e.dtype);
    layout.push({ name: e.name, begin: offset, end: offset + bytes, index });
    offsets.set(index, [offset, offset + bytes]);
    offset += bytes;
  }
  const meta: Record<string, string> = { format: "pt", ...metadata };
  const json = dictionary<unknown>(); // a tensor named "__proto__" is a key like any other
  entries.forEach((e, index) => {
    const name = SAFETENSORS_DTYPE[e.dtype];
    const shape = name ? e.shape : [...e.shape, dtypeBytes(e.dtype)];
    if (!name) meta[`tensorfile.dtype.${e.name}`] = e.dtype;
    json[e.name] = { dtype: name ?? "U8", shape, data_offsets: offsets.get(index) };
  });
  if (Object.keys(meta).length > 0) json.__metadata__ = meta;
  const text = new TextEncoder().encode(JSON.stringify(json));
  const padded = Math.ceil(text.length / 8) * 8;
  const header = new Uint8Array(8 + padded);
  new DataView(header.buffer).setBigUint64(0, BigInt(padded), true);
  header.set(text, 8);
  header.fill(0x20, 8 + text.length);
  return { header, layout, size: header.length + offset };
}

/** A whole safetensors file in memory. */
export function writeSafetensors(tensors: readonly NamedTensor[], metadata?: Record<string, string>): Uint8Array {
  if (!Array.isArray(tensors as unknown))
    throw new TypeError("tensorfile: writeSafetensors() takes an array of NamedTensors ({ name, dtype, shape, data })");
  tensors.forEach((t, i) => checkTensor(t, `tensor ${i}`));
  checkMetadata(metadata, "writeSafetensors");
  const plan = planSafetensors(tensors, metadata);
  const out = new Uint8Array(plan.size);
  out.set(plan.header);
  for (const slot of plan.layout) {
    const data = tensors[slot.index]!.data;
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), plan.header.length + slot.begin);
  }
  return out;
}
