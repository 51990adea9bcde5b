/**
 * SPRAAK builders: new MATRIX and LIST files, and conversion between data formats.
 */
import type { TypedArray } from "../../tensor.js";
import {
  type SpraakData,
  type SpraakFile,
  type SpraakFileParts,
  type SpraakFormat,
  type SpraakHeaderKind,
  type SpraakReadOptions,
  type SpraakType,
  hasKey,
  id,
  isMatrixType,
  setKey,
  toKeyHeader,
} from "./model.js";
import { CTORS, MAGIC_KEY, MAGIC_SPR, copyRecord, read } from "./reader.js";
import { type TextEncoding, encodeText } from "./text.js";
import { rereadOptions } from "./view.js";
import { renderHeader, write } from "./writer.js";

// ------------------------------------------------------------------------------------------------ builders

/** Options of every SPRAAK builder: the header, compression and text encoding. */
export interface BuildOptions {
  /** Extra header keys, in order (FORMAT/TYPE/LAYOUT/DIM1/DIM2/COMPRESS set by the builder win). */
  header?: Record<string, string> | undefined;
  /** The DATA key (TRACK, SAMPLE, CORPUS, …). */
  data?: string | undefined;
  /** COMPRESS gzip on the data part. */
  compress?: "gzip" | undefined;
  /** gzip the whole file. */
  gzip?: boolean | undefined;
  /** "spr" (default), "key" (keys written with their key-header names) or "none" (data only). */
  kind?: SpraakHeaderKind | undefined;
  /** Text encoding of the header and LIST entries (default latin-1). */
  encoding?: TextEncoding | undefined;
  /**
   * `.spr` binary matrices: pad the header with a whitespace line so the data starts at a multiple of this
   * (default 64, as SPRAAK's own files; 0 or 1: no padding). Aligned data is returned as views, not copies.
   */
  align?: number | undefined;
}

/** Options of {@link matrix}. */
export interface MatrixOptions extends BuildOptions {
  /** Columns (DIM2) of a flat array; default: the rows' length for number[][], else 1. */
  cols?: number | undefined;
  /** Element TYPE; default from the array (Float32Array: F32, …; number[][]: F32). ALAW/ULAW take Uint8Array codes. */
  type?: SpraakType | undefined;
  /** BIN01 (default), BIN10 or ASCII. */
  format?: SpraakFormat | undefined;
  /** Write DIM1 -1 instead of the row count. */
  openEnded?: boolean | undefined;
}

function typeOfArray(values: TypedArray): SpraakType {
  if (values instanceof Float32Array) return "F32";
  if (values instanceof Float64Array) return "F64";
  if (values instanceof Int8Array) return "I8";
  if (values instanceof Uint8Array) return "U8";
  if (values instanceof Int16Array) return "I16";
  if (values instanceof Uint16Array) return "U16";
  if (values instanceof Int32Array) return "I32";
  if (values instanceof Uint32Array) return "U32";
  if (values instanceof BigInt64Array) return "I64";
  return "U64";
}

function assemble(keys: [string, string][], options: BuildOptions, data: SpraakData): SpraakFile {
  const kind = options.kind ?? "spr";
  let record: Record<string, string> = {};
  for (const [k, v] of Object.entries(options.header ?? {})) setKey(record, k, String(v));
  for (const [k, v] of keys) setKey(record, k, v);
  if (options.data !== undefined) setKey(record, "DATA", options.data);
  if (options.compress) setKey(record, "COMPRESS", options.compress);
  let external: Record<string, string> | null = null;
  if (kind === "key") record = toKeyHeader(record);
  if (kind === "none") {
    external = record;
    record = {};
  }
  const parts: SpraakFileParts = {
    kind,
    magicLine: kind === "spr" ? MAGIC_SPR : kind === "key" ? MAGIC_KEY : null,
    lines: Object.entries(record).map(([key, value]) => ({ key, value })),
    endLine: kind === "none" ? null : "#",
    header: record,
    external,
    gzip: options.gzip ?? false,
    encoding: options.encoding ?? "latin1",
    data,
  };
  const align = options.align ?? 64;
  if (kind === "spr" && align > 1 && data.layout === "MATRIX" && !options.compress && record.FORMAT !== "ASCII") {
    // like SPRAAK's own files: a padding line so that the data starts at a multiple of `align` (zero-copy views)
    const headerBytes = encodeText(renderHeader(parts), parts.encoding, id, "header").length + 1;
    parts.lines.push({ key: "", value: "", raw: " ".repeat((align - (headerBytes % align)) % align) });
  }
  const readOptions: SpraakReadOptions = { encoding: parts.encoding };
  if (external) readOptions.header = external;
  return read(write(parts), readOptions);
}

/** Builds a MATRIX file (features, samples, any DIM1 x DIM2 table) ready for write(). */
export function matrix(values: TypedArray | readonly (readonly number[])[], options: MatrixOptions = {}): SpraakFile {
  if (!Array.isArray(values) && !ArrayBuffer.isView(values))
    throw new TypeError(
      `tensorfile: spraak.matrix() takes a typed array or an array of rows, not ${values === null ? "null" : typeof values}`,
    );
  if (options === null || typeof options !== "object")
    throw new TypeError("tensorfile: spraak.matrix() takes options as an object");
  let flat: TypedArray;
  let cols: number;
  let type: SpraakType;
  if (Array.isArray(values)) {
    const rowsIn = values as readonly (readonly number[])[];
    type = options.type ?? "F32";
    cols = options.cols ?? rowsIn[0]?.length ?? 0;
    if (rowsIn.some((row) => row.length !== cols))
      throw new RangeError(`${id}: matrix rows must all have ${cols} values`);
    flat = new CTORS[type](rowsIn.length * cols);
    rowsIn.forEach((row, i) => row.forEach((v, j) => ((flat as Float64Array)[i * cols + j] = v)));
  } else {
    const given = values as TypedArray;
    const natural = typeOfArray(given);
    type = options.type ?? natural;
    if (!isMatrixType(type)) throw new RangeError(`${id}: unknown TYPE ${String(type)}`);
    const wantCtor = CTORS[type];
    if (given instanceof wantCtor) flat = given;
    else {
      flat = new wantCtor(given.length);
      const big = type === "I64" || type === "U64";
      for (let i = 0; i < given.length; i++)
        (flat as Float64Array)[i] = (big ? BigInt(given[i]!) : Number(given[i]!)) as number;
    }
    cols = options.cols ?? 1;
  }
  if (!Number.isInteger(cols) || cols < 0 || (cols === 0 ? flat.length !== 0 : flat.length % cols !== 0)) {
    throw new RangeError(`${id}: ${flat.length} values do not make rows of ${cols}`);
  }
  const rows = cols === 0 ? 0 : flat.length / cols;
  const format = options.format ?? "BIN01";
  const keys: [string, string][] = [
    ["FORMAT", format],
    ["TYPE", type],
    ["LAYOUT", "MATRIX"],
    ["DIM1", options.openEnded ? "-1" : String(rows)],
    ["DIM2", String(cols)],
  ];
  return assemble(keys, options, { layout: "MATRIX", encoding: "ascii", type, rows, cols, values: flat });
}

/** Builds a LIST file (corpus, segmentation, lexicon, unit list): one entry a line. */
export function list(entries: readonly string[], options: BuildOptions = {}): SpraakFile {
  const keys: [string, string][] = [
    ["FORMAT", "ASCII"],
    ["TYPE", "STRING"],
    ["LAYOUT", "LIST"],
    ["DIM1", String(entries.length)],
  ];
  return assemble(keys, options, { layout: "LIST", entries: entries.slice(), finalNewline: true });
}

/** The same file with another FORMAT (BIN01 <-> BIN10 <-> ASCII); every value is kept. */
export function convert(file: SpraakFile, format: SpraakFormat): SpraakFile {
  const header = copyRecord(file.header);
  if (file.kind === "key" && format !== "ASCII") {
    setKey(
      header,
      hasKey(header, "FORMAT") ? "FORMAT" : "ENDIAN",
      hasKey(header, "FORMAT") ? format : format === "BIN10" ? "BIG" : "LITTLE",
    );
  } else if (file.kind === "none") {
    const external = copyRecord(file.external ?? {});
    setKey(external, "FORMAT", format);
    return read(write({ ...file, external }), { ...rereadOptions(file), header: external });
  } else {
    setKey(header, "FORMAT", format);
  }
  return read(write({ ...file, header }), rereadOptions(file));
}
