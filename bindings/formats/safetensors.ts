/**
 * safetensors (Hugging Face): an input format. Little-endian, row-major.
 *
 *   header_size u64 | header: UTF-8 JSON, first byte "{", padded with spaces (writers align the data to 8) |
 *   data: the tensors' bytes back to back
 *   header = { "<name>": { "dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end] }, …,
 *              "__metadata__": { "<key>": "<string>", … } }   (offsets relative to the data's first byte)
 *
 * Checked: header_size <= 100,000,000 and inside the file, strict JSON (UTF-8, no duplicate keys), known dtype
 * names, shapes of whole numbers >= 0, data_offsets that tile the data section exactly (sorted by begin: no hole,
 * no overlap, nothing after the last) and hold elements x dtype size bytes, __metadata__ string to string.
 * Dtypes: BOOL U8 I8 I16 U16 I32 U32 I64 U64 F16 F32 F64 C64, BF16 (bfloat16), F8_E4M3 / F8_E5M2 (float8_*);
 * F4, F6_* and F8_E8M0 are UNSUPPORTED. To write safetensors from any tensors use writeSafetensors.
 */
import { ByteReader } from "../bytes/byte-reader.js";
import { asBytes, asSource, bytesOrUndefined } from "../bytes/input.js";
import * as lazy from "../io/lazy.js";
import type { ByteSource } from "../io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "../tensor.js";
import { type SafetensorsFile, isLoaded } from "./safetensors/model.js";
import { MAX_HEADER_BYTES, parseFile } from "./safetensors/reader.js";
import { checkWriterInput } from "../bytes/arguments.js";

/** The format's id. */
export const id = "safetensors" as const;
/** The file extensions this format is written with. */
export const extensions: readonly string[] = [".safetensors"];
/** An input format: read, converted, inspected, never written as a re-encode target. */
export const inputOnly = true;

export type { SafetensorsDType, SafetensorsFile, SafetensorsTensor } from "./safetensors/model.js";
export { blobs, inspect, logicalType, tensorInfos, tensors, verify } from "./safetensors/view.js";
export { MAX_HEADER_BYTES } from "./safetensors/reader.js";

/** Options of {@link read}. */
export interface ReadOptions {
  /** read() only: copy tensor bytes instead of returning views of the input. Default false. */
  copy?: boolean | undefined;
}

/**
 * True for a plausible safetensors start: a header_size of 2..100,000,000, then "{", optional white space and
 * `"` or `}`, and only printable text (or UTF-8) in what the head shows of the header. Never throws.
 */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  if (!head || head.length < 10) return false;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const size = view.getBigUint64(0, true);
  if (size < 2n || size > BigInt(MAX_HEADER_BYTES)) return false;
  if (head[8] !== 0x7b) return false;
  // only the first 64 bytes (detectFormat's DETECT_BYTES) decide, so a head and the whole file agree
  const end = Math.min(head.length, 8 + Number(size), 64);
  let i = 9;
  while (i < end && (head[i] === 0x20 || head[i] === 0x0a || head[i] === 0x0d || head[i] === 0x09)) i++;
  if (i < end && head[i] !== 0x22 && head[i] !== 0x7d) return false;
  for (let k = 9; k < end; k++) {
    const b = head[k]!;
    if (b < 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
    if (b === 0x7f) return false;
  }
  return true;
}

/** The whole file: every check, tensor bytes as views of the input (or copies). Throws only FormatErrors. */
export function read(bytes: Uint8Array, options: ReadOptions = {}): SafetensorsFile {
  return parseFile(new ByteReader(asBytes(bytes, "safetensors.read"), id), {
    eager: true,
    copy: options.copy ?? false,
  });
}

/** The same object as read() with every tensor left as its byte range: reads the header only. */
export async function readFrom(source: ByteSource, _options: ReadOptions = {}): Promise<SafetensorsFile> {
  return lazy.parseFrom(asSource(source, "safetensors.readFrom"), id, (backing) =>
    parseFile(new ByteReader(backing, id), { eager: false, copy: false }),
  );
}

/**
 * The file's bytes again: header_size, the header text as stored, then every tensor's bytes in data_offsets
 * order (byte-identical for anything read()). Needs the tensors' bytes (a read() result).
 */
export function write(file: SafetensorsFile): Uint8Array {
  checkWriterInput(file, "safetensors.write", "a safetensors file (from read(); writeSafetensors() writes tensors)", {
    arrays: ["tensors"],
    strings: ["header"],
  });
  const header = new TextEncoder().encode(file.header);
  const ordered = file.tensors
    .slice()
    .sort((a, b) => a.dataOffsets[0] - b.dataOffsets[0] || a.dataOffsets[1] - b.dataOffsets[1]);
  let size = 0;
  for (const t of ordered) {
    if (!isLoaded(t.data))
      throw new TypeError(`safetensors: tensor ${t.name} is not loaded (a readFrom() result); write() needs read()`);
    if (t.data.byteLength !== t.dataOffsets[1] - t.dataOffsets[0] || t.dataOffsets[0] !== size) {
      throw new RangeError(
        `safetensors: tensor ${t.name} has ${t.data.byteLength} bytes at data_offsets [${t.dataOffsets.join(", ")}], which do not follow on from ${size}`,
      );
    }
    size += t.data.byteLength;
  }
  const out = new Uint8Array(8 + header.length + size);
  new DataView(out.buffer).setBigUint64(0, BigInt(header.length), true);
  out.set(header, 8);
  let at = 8 + header.length;
  for (const t of ordered) {
    out.set(t.data as Uint8Array, at);
    at += (t.data as Uint8Array).byteLength;
  }
  return out;
}

/** Reads and decodes one tensor of a readFrom() result. */
export function loadTensor(source: ByteSource, info: TensorInfo, options: DecodeOptions = {}): Promise<NamedTensor> {
  return lazy.loadRowMajorTensor(source, info, { ...options, format: id });
}
