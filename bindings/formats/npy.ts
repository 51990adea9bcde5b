/**
 * NumPy .npy (format versions 1.0, 2.0, 3.0): an input format. One array per file.
 *
 *   magic "\x93NUMPY" | major u8 | minor u8 (0) | header_len u16 LE (1.0) / u32 LE (2.0, 3.0) |
 *   header: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } + spaces + "\n", padded to 64 |
 *   data: the elements, C order or (fortran_order True) column-major, in descr's byte order.
 *
 * Checked: magic, version, header_len (at most 1 MiB), the dict literal (exactly the three keys, a descr
 * tensorfile reads, a bool, a tuple of whole numbers), padding (spaces, then "\n", total a multiple of 16;
 * verify warns below 64), data length exactly elements x itemsize. Big-endian data is byte-swapped and Fortran
 * order transposed by tensors()/loadTensor. The tensor is named `array` (the `name` option changes it).
 * To write .npy from any tensor use writeNpy.
 */
import { ByteReader } from "../bytes/byte-reader.js";
import { asBytes, asSource, bytesOrUndefined } from "../bytes/input.js";
import * as lazy from "../io/lazy.js";
import type { ByteSource } from "../io/source.js";
import type { DecodeOptions, NamedTensor, TensorInfo } from "../tensor.js";
import type { EmbeddedBlob, InspectResult } from "./types.js";
import { type NpyArray, MAGIC, encodeHeader, parseNpy, writeNpyArray } from "./npy/parse.js";
import { arrayInfo, arrayWarnings, decodeArray, headerMeta, inspectRow } from "./npy/view.js";
import { checkWriterInput } from "../bytes/arguments.js";

/** The format's id. */
export const id = "npy" as const;
/** The file extensions this format is written with. */
export const extensions: readonly string[] = [".npy"];
/** An input format: read, converted, inspected, never written as a re-encode target. */
export const inputOnly = true;

export type { NpyArray, NpyVersion } from "./npy/parse.js";
export { descrInfo } from "./npy/parse.js";

/** What read() returns: the array as stored, and the name its tensor gets. */
export interface NpyFile extends NpyArray {
  /** The tensor's name in tensors()/tensorInfos() (the `name` option; default "array"). */
  name: string;
}

/** Options of {@link read} and {@link readFrom}. */
export interface ReadOptions {
  /** The tensor's name (a .npy file stores none). Default "array". */
  name?: string | undefined;
  /** read() only: copy the data instead of returning a view of the input. Default false. */
  copy?: boolean | undefined;
}

/** The name of a `.npy`'s one tensor unless {@link ReadOptions.name} says otherwise. */
export const DEFAULT_NAME = "array";

/** True when `head` starts with the .npy magic. Never throws. */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  return head !== undefined && head.length >= 6 && MAGIC.every((b, i) => head[i] === b);
}

function nameOf(options: ReadOptions): string {
  const name = options.name ?? DEFAULT_NAME;
  if (typeof name !== "string" || name === "") throw new TypeError("npy: the name option takes a non-empty string");
  return name;
}

/** The whole file: every check, the data as a view of the input (or a copy). Throws only FormatErrors. */
export function read(bytes: Uint8Array, options: ReadOptions = {}): NpyFile {
  const name = nameOf(options);
  const array = parseNpy(new ByteReader(asBytes(bytes, "npy.read"), id), { eager: true, copy: options.copy ?? false });
  return { ...array, name };
}

/** The same object as read() with the data left as its byte range: reads the header only. */
export async function readFrom(source: ByteSource, options: ReadOptions = {}): Promise<NpyFile> {
  const name = nameOf(options);
  const array = await lazy.parseFrom(asSource(source, "npy.readFrom"), id, (backing) =>
    parseNpy(new ByteReader(backing, id), { eager: false, copy: false }),
  );
  return lazy.markLazy({ ...array, name });
}

/** The file's bytes again (byte-identical for anything read()). */
export function write(file: NpyFile): Uint8Array {
  checkWriterInput(file, "npy.write", "an npy file (from read(); writeNpy() writes a tensor)");
  return writeNpyArray(file);
}

function headerBytes(file: NpyArray): number {
  return (file.version === "1.0" ? 10 : 12) + encodeHeader(file.header, file.version).length;
}

/** The one tensor's info. */
export function tensorInfos(file: NpyFile): TensorInfo[] {
  const offset = file.data instanceof Uint8Array ? headerBytes(file) : file.data.byteOffset;
  return [arrayInfo(file, file.name, offset, id)];
}

/** The one tensor, row-major little-endian (big-endian swapped, Fortran order transposed). Needs read(). */
export function tensors(file: NpyFile, options: DecodeOptions = {}): NamedTensor[] {
  lazy.assertEager(file, id);
  if (!(file.data instanceof Uint8Array))
    throw new TypeError("npy: the data is not loaded (a readFrom() result); use loadTensor");
  return [decodeArray(file.data, tensorInfos(file)[0]!, options, id)];
}

/** Reads and decodes the tensor of a readFrom() result. */
export function loadTensor(source: ByteSource, info: TensorInfo, options: DecodeOptions = {}): Promise<NamedTensor> {
  return lazy.loadTensor(source, info, { ...options, format: id });
}

/** What `tensorfile inspect --json` prints. */
export function inspect(file: NpyFile): InspectResult {
  const size = headerBytes(file);
  return {
    format: id,
    version: file.version,
    meta: headerMeta(file),
    tensors: [inspectRow(file, file.name)],
    headerLength: size,
    dataOffset: size,
  };
}

/** Warnings: padding numpy no longer writes, a descr without byte order, raw void data. */
export function verify(file: NpyFile): string[] {
  return arrayWarnings(file, headerBytes(file), "");
}

/** None: a `.npy` is one tensor. */
export function blobs(_file: NpyFile): EmbeddedBlob[] {
  return [];
}
