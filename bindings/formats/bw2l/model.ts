/** The plain objects a BW2L file reads into (and writes from), and the facts about its element types. */
import type { ByteRange } from "../../bytes/byte-reader.js";
import type { StandardDType } from "../../tensor.js";

/** The file format version: 1 (talonvoice/wav2letter) or 2 (libw2l: arrays carry their dims). */
export type Bw2lVersion = 1 | 2;

/** The element types a BW2L array may declare. */
export type Bw2lDType = "fp64" | "fp32" | "fp16" | "i64" | "i32" | "i16" | "i8";

/** The typed array each dtype reads into: fp16 is a Uint16Array of raw IEEE binary16 halves, i64 a BigInt64Array. */
export type Bw2lArrayData =
  Float64Array | Float32Array | Uint16Array | BigInt64Array | Int32Array | Int16Array | Int8Array;

type ArrayConstructorOf = { new (length: number): Bw2lArrayData; readonly BYTES_PER_ELEMENT: number };

export interface DTypeFacts {
  /** Bytes per element. */
  bytes: number;
  /** The contract's DType name. */
  standard: StandardDType;
  ctor: ArrayConstructorOf;
}

export const DTYPES: Readonly<Record<Bw2lDType, DTypeFacts>> = {
  fp64: { bytes: 8, standard: "float64", ctor: Float64Array },
  fp32: { bytes: 4, standard: "float32", ctor: Float32Array },
  fp16: { bytes: 2, standard: "float16", ctor: Uint16Array },
  i64: { bytes: 8, standard: "int64", ctor: BigInt64Array },
  i32: { bytes: 4, standard: "int32", ctor: Int32Array },
  i16: { bytes: 2, standard: "int16", ctor: Int16Array },
  i8: { bytes: 1, standard: "int8", ctor: Int8Array },
};

export function isBw2lDType(value: string): value is Bw2lDType {
  return Object.prototype.hasOwnProperty.call(DTYPES, value);
}

/** One array: an `array` section's content or one parameter of a layer. */
export interface Bw2lArray {
  /** The stored element type, as the file names it. */
  dtype: Bw2lDType;
  /**
   * v2 only: the stored dims (ArrayFire order, usually 4-D with trailing 1s; may be empty). v1 arrays have none.
   * The element count is the data's length, which a v2 file stores separately and need not match the dims.
   */
  dims?: number[] | undefined;
  /**
   * The elements in stored order (ArrayFire column-major), little-endian host order. A `readFrom()` result holds
   * the payload's byte range instead. `read()` may return views that share memory with its input.
   */
  data: Bw2lArrayData | ByteRange;
  /** Absolute offset of the first payload byte in the file this was read from (absent for built arrays). */
  byteOffset?: number | undefined;
}

/** One layer of a `layers` section: its arch line and its params. */
export interface Bw2lLayer {
  /** The layer's arch line, e.g. `C 8 4 3 1 -1 1` (without the newline). */
  arch: string;
  /** v1 only: f32. For int8 params, value = (q - offset) * scale (our convention; the reference writes 1 and ignores it). */
  scale?: number | undefined;
  /** v1 only: i64. */
  offset?: bigint | undefined;
  /** The layer's parameter arrays, in file order. */
  params: Bw2lArray[];
}

/** One key/value entry of a `keyval` section, in file order. */
export interface Bw2lEntry {
  /** The key (may be empty or repeated: kept as stored). */
  key: string;
  /** The value. */
  value: string;
}

interface SectionBase {
  /** The section's name (`flags`, `config`, `arch`, `tokens`, `layers`, …). */
  name: string;
  /** The section description (the exporter writes ""). */
  desc: string;
  /** Absolute offset of the section's first header byte in the file it was read from. */
  byteOffset?: number | undefined;
  /** Absolute offset of the section's data (after data_length). */
  dataOffset?: number | undefined;
}

/** A `utf8` section: text (arch lines, tokens). */
export interface Bw2lUtf8Section extends SectionBase {
  /** The section type. */
  type: "utf8";
  /** The text (invalid UTF-8 kept as lone surrogates U+DC80–U+DCFF, written back as the same bytes). */
  text: string;
}

/** A `keyval` section: key/value entries (flags, config). */
export interface Bw2lKeyvalSection extends SectionBase {
  /** The section type. */
  type: "keyval";
  /** Every entry in file order: duplicates and the empty key are kept. */
  entries: Bw2lEntry[];
}

/** An `array` section: one array (transitions). */
export interface Bw2lArraySection extends SectionBase {
  /** The section type. */
  type: "array";
  /** The array. */
  array: Bw2lArray;
}

/** A `layers` section: the network's layers and their params. */
export interface Bw2lLayersSection extends SectionBase {
  /** The section type. */
  type: "layers";
  /** The layers, in file order. */
  layers: Bw2lLayer[];
}

/** A `data` section, or a section of a type this library does not know (kept as raw bytes, written back unchanged). */
export interface Bw2lRawSection extends SectionBase {
  /** The section type as stored (`data`, or a type this library does not know). */
  type: string;
  /** The section's bytes, kept and written back unchanged (a byte range from `readFrom()`). */
  data: Uint8Array | ByteRange;
}

/** Any section of a BW2L file (discriminated by `type`). */
export type Bw2lSection = Bw2lUtf8Section | Bw2lKeyvalSection | Bw2lArraySection | Bw2lLayersSection | Bw2lRawSection;

/** A whole BW2L file, as {@link read} gives it and {@link write} takes it. */
export interface Bw2lFile {
  /** The format version. */
  version: Bw2lVersion;
  /** The file's short-string name (the exporter leaves it ""). */
  name: string;
  /** The sections in file order (repeated names and unknown types kept). */
  sections: Bw2lSection[];
  /** Bytes after the last section (the reference ignores them; kept so the file round-trips). Absent when none. */
  trailing?: Uint8Array | ByteRange | undefined;
}

/** True for a `utf8` section. */
export function isUtf8Section(s: Bw2lSection): s is Bw2lUtf8Section {
  return s.type === "utf8" && "text" in s;
}
/** True for a `keyval` section. */
export function isKeyvalSection(s: Bw2lSection): s is Bw2lKeyvalSection {
  return s.type === "keyval" && "entries" in s;
}
/** True for an `array` section. */
export function isArraySection(s: Bw2lSection): s is Bw2lArraySection {
  return s.type === "array" && "array" in s;
}
/** True for a `layers` section. */
export function isLayersSection(s: Bw2lSection): s is Bw2lLayersSection {
  return s.type === "layers" && "layers" in s;
}
/** `data` sections and sections of unknown types. */
export function isRawSection(s: Bw2lSection): s is Bw2lRawSection {
  return "data" in s && !isUtf8Section(s) && !isKeyvalSection(s) && !isArraySection(s) && !isLayersSection(s);
}

export function isByteRange(value: unknown): value is ByteRange {
  return (
    typeof value === "object" &&
    value !== null &&
    !ArrayBuffer.isView(value) &&
    typeof (value as ByteRange).byteOffset === "number" &&
    typeof (value as ByteRange).byteLength === "number"
  );
}

/**
 * Payloads read() left as stored: an unaligned payload cannot be a typed-array view of the input, and copying it
 * in read() would copy it twice for tensors() (which decodes and transposes into a new array anyway). Such an
 * array's `data` is a getter that makes the aligned copy on first access; until then tensors() and write() use the
 * stored bytes directly.
 */
const pendingPayloads = new WeakMap<Bw2lArray, Uint8Array>();

/**
 * Gives `array` a `data` made by `make` on first read (then kept as a plain property); `forget` runs once `data`
 * is settled, by that first read or by an assignment.
 */
function deferData(array: Bw2lArray, make: () => Bw2lArrayData, forget: () => void): void {
  const settle = (value: Bw2lArrayData | ByteRange): void => {
    forget();
    Object.defineProperty(array, "data", { value, writable: true, enumerable: true, configurable: true });
  };
  Object.defineProperty(array, "data", {
    enumerable: true,
    configurable: true,
    get(): Bw2lArrayData {
      const data = make();
      settle(data);
      return data;
    },
    set(value: Bw2lArrayData | ByteRange) {
      settle(value);
    },
  });
}

/** An array whose `data` is an aligned copy of `stored` (unaligned bytes of the input), made on first access. */
export function deferredArray(dtype: Bw2lDType, stored: Uint8Array): Bw2lArray {
  const array = { dtype } as Bw2lArray;
  deferData(
    array,
    () => {
      const copy = new DTYPES[dtype].ctor(stored.byteLength / DTYPES[dtype].bytes);
      new Uint8Array(copy.buffer).set(stored);
      return copy;
    },
    () => pendingPayloads.delete(array),
  );
  pendingPayloads.set(array, stored);
  return array;
}

/**
 * The array's payload without materialising a deferred copy: its stored bytes (a Uint8Array view of the input)
 * while `data` has not been touched, else `data` itself.
 */
export function peekPayload(array: Bw2lArray): { stored: Uint8Array } | { data: Bw2lArrayData | ByteRange } {
  const stored = pendingPayloads.get(array);
  return stored ? { stored } : { data: array.data };
}

/**
 * An array create() built from row-major data of two or more axes longer than 1, whose stored (column-major)
 * payload is made only when needed: write() and writeTo() emit it band by band (bw2l/transpose.ts), straight into
 * the output or the sink, so no whole transposed copy is ever made; reading `data` makes it whole, once.
 */
export interface RowMajorPayload {
  /** The caller's data, row-major for `dims` (not copied: it is read when the file is written). */
  rowMajor: Bw2lArrayData;
  dims: number[];
  /** The stored payload's bytes, in order, in bands of bounded size (fresh arrays). */
  bands(): Iterable<Uint8Array>;
}

const rowMajorPayloads = new WeakMap<Bw2lArray, RowMajorPayload>();

/** An array whose `data` (column-major) is made from `payload` on first access by `materialize`. */
export function deferredColumnMajor(
  dtype: Bw2lDType,
  dims: number[] | undefined,
  payload: RowMajorPayload,
  materialize: () => Bw2lArrayData,
): Bw2lArray {
  const array = { dtype } as Bw2lArray;
  deferData(array, materialize, () => rowMajorPayloads.delete(array));
  if (dims) array.dims = dims;
  rowMajorPayloads.set(array, payload);
  return array;
}

/** The row-major source of an array whose column-major `data` has not been made yet (see deferredColumnMajor). */
export function peekRowMajor(array: Bw2lArray): RowMajorPayload | undefined {
  return rowMajorPayloads.get(array);
}

/** Byte length of an array's payload. */
export function arrayByteLength(array: Bw2lArray): number {
  const rowMajor = rowMajorPayloads.get(array);
  if (rowMajor) return rowMajor.rowMajor.byteLength;
  return pendingPayloads.get(array)?.byteLength ?? array.data.byteLength;
}

/** Element count of an array (from its data or byte range). */
export function arrayLength(array: Bw2lArray): number {
  return arrayByteLength(array) / DTYPES[array.dtype].bytes;
}
