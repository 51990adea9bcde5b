/**
 * The SPRAAK file model (what read() returns and write() takes) and the typed view of a header's keys.
 */
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import type { ByteRange } from "../../bytes/byte-reader.js";
import type { DType, TensorInfo, TypedArray } from "../../tensor.js";
import type { HeaderLine } from "./header.js";
import { INTEGER_TOKEN } from "./codecs.js";
import { KEY_HEADER_RULES, PROVISIONAL } from "./provisional.js";
import type { TextEncoding } from "./text.js";

/** A matrix's element TYPE (ALAW and ULAW: G.711 codes, one byte a sample). */
export type SpraakType = "I8" | "U8" | "I16" | "U16" | "I32" | "U32" | "I64" | "U64" | "F32" | "F64" | "ALAW" | "ULAW";
/** FORMAT: binary little-endian (BIN01), binary big-endian (BIN10) or text (ASCII). */
export type SpraakFormat = "BIN01" | "BIN10" | "ASCII";
/** LAYOUT: a matrix of numbers, a list of text entries, or opaque bytes. */
export type SpraakLayout = "MATRIX" | "LIST" | "CUSTOM";
/** "spr": `.spr` header; "key": old key header; "none": header-less data described by an external header. */
export type SpraakHeaderKind = "spr" | "key" | "none";

export const TYPE_INFO: Record<SpraakType, { bytes: number; dtype: DType }> = {
  I8: { bytes: 1, dtype: "int8" },
  U8: { bytes: 1, dtype: "uint8" },
  I16: { bytes: 2, dtype: "int16" },
  U16: { bytes: 2, dtype: "uint16" },
  I32: { bytes: 4, dtype: "int32" },
  U32: { bytes: 4, dtype: "uint32" },
  I64: { bytes: 8, dtype: "int64" },
  U64: { bytes: 8, dtype: "uint64" },
  F32: { bytes: 4, dtype: "float32" },
  F64: { bytes: 8, dtype: "float64" },
  ALAW: { bytes: 1, dtype: "uint8" },
  ULAW: { bytes: 1, dtype: "uint8" },
};

export function isMatrixType(type: string): type is SpraakType {
  return Object.prototype.hasOwnProperty.call(TYPE_INFO, type);
}

/** A binary MATRIX: the stored bytes, in the file's byte order (a view of the input; a range after readFrom). */
export interface SpraakBinaryMatrix {
  /** The data's LAYOUT. */
  layout: "MATRIX";
  /** Binary data (FORMAT BIN01 or BIN10). */
  encoding: "binary";
  /** The element TYPE. */
  type: SpraakType;
  /** Rows (DIM1, resolved when declared -1). */
  rows: number;
  /** Columns (DIM2). */
  cols: number;
  /** Byte order: BIN01 little-endian, BIN10 big-endian. */
  byteOrder: "le" | "be";
  /** The rows' bytes as stored (a byte range from `readFrom()`). */
  bytes: Uint8Array | ByteRange;
  /** DIM1 -1 only: bytes after the last whole row (kept so nothing is lost; verify() warns). */
  trailing: Uint8Array | ByteRange | null;
}

/** An ASCII MATRIX: the values, parsed (row-major). */
export interface SpraakAsciiMatrix {
  /** The data's LAYOUT. */
  layout: "MATRIX";
  /** Text data (FORMAT ASCII). */
  encoding: "ascii";
  /** The element TYPE. */
  type: SpraakType;
  /** Rows (DIM1). */
  rows: number;
  /** Columns (DIM2). */
  cols: number;
  /** The parsed values, row-major, in the TYPE's typed array. */
  values: TypedArray;
}

/** A LIST: one entry a line, verbatim (fields are not split; see corpusEntry()). */
export interface SpraakList {
  /** The data's LAYOUT. */
  layout: "LIST";
  /** The entries, one a line, verbatim. */
  entries: string[];
  /** Whether the last entry ends with a line break. */
  finalNewline: boolean;
}

/** LAYOUT CUSTOM or TYPE CUSTOM: an opaque byte stream. */
export interface SpraakCustom {
  /** The data's LAYOUT. */
  layout: "CUSTOM";
  /** The data's bytes, kept as they are. */
  bytes: Uint8Array | ByteRange;
}

/** The data part of a SPRAAK file (discriminated by `layout`). */
export type SpraakData = SpraakBinaryMatrix | SpraakAsciiMatrix | SpraakList | SpraakCustom;

/** Typed header values, with SPRAAK's defaults filled in (`defaults` names the keys that were absent). */
export interface SpraakMeta {
  /** FORMAT. */
  format: SpraakFormat;
  /** LAYOUT. */
  layout: SpraakLayout;
  /** TYPE: a base type, STRING (lists) or CUSTOM; aliases (INT) already resolved. */
  type: string;
  /** DATA: TRACK, SAMPLE, CORPUS, SEG, … (null when absent). */
  data: string | null;
  /** As declared; -1 = "till the end of the file". */
  dim1: number;
  /** DIM2: columns. */
  dim2: number;
  /** NCHAN: interleaved channels (default 1). */
  nchan: number;
  /** CHANLEN, when given. */
  chanlen: number | null;
  /** Hz (default 8000). */
  sampleFreq: number | null;
  /** Seconds (default FLENGTH, else 0.01). */
  fshift: number | null;
  /** FLENGTH: frame length in seconds, when given. */
  flength: number | null;
  /** FOFFSET: the first frame's offset in seconds, when given. */
  foffset: number | null;
  /** TIMEBASE: DISCRETE (frames, the default) or CONTINUOUS (seconds). */
  timebase: string;
  /** COMPRESS on the data part (null: none). */
  compress: "gzip" | null;
  /** Keys that were absent and took their default. */
  defaults: string[];
}

/** What write() needs; read() returns a SpraakFile, which has these and the derived views. */
export interface SpraakFileParts {
  /** Which kind of header the file has. */
  kind: SpraakHeaderKind;
  /** The magic line as written (".spr", ".key"; a trailing CR is kept), null when absent. */
  magicLine: string | null;
  /** Every header line in order (padding lines included), as written. */
  lines: HeaderLine[];
  /** The end line as written ("#", or "#…#" in key headers), null for header-less data. */
  endLine: string | null;
  /**
   * The header's keys in file order with their original spelling (key headers: DATATYPE, NFR, …). Edit this
   * record: write() re-renders changed lines in their own style, drops deleted keys, appends new ones.
   */
  header: Record<string, string>;
  /** Keys given with read(bytes, { header }) (not written; they fill in what the file's header lacks). */
  external: Record<string, string> | null;
  /** The whole file is gzip-wrapped (written back wrapped). */
  gzip: boolean;
  /** Text encoding of header and LIST data. */
  encoding: TextEncoding;
  /** The data part. */
  data: SpraakData;
}

export interface SpraakFile extends SpraakFileParts {
  /** The effective SPRAAK key set: key-header keys mapped (KEY_HEADER_RULES), external keys merged. */
  keys: Record<string, string>;
  /** Typed view of `keys` (recomputed by write(); editing it has no effect). */
  meta: SpraakMeta;
  /** Offset of the first data byte (in the decompressed stream when the whole file is gzip-wrapped). */
  dataOffset: number;
}

/** Sets an own property (also for keys such as "__proto__"). */
export function setKey(record: Record<string, string>, key: string, value: string): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}

export function hasKey(record: Record<string, string>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(record, key);
}

/** Key header keys to SPRAAK keys (unknown keys pass through). */
export function mapKeyHeader(header: Record<string, string>): {
  /** The SPRAAK keys and their values. */
  keys: Record<string, string>;
  /** For each SPRAAK key, the key-header key it came from. */
  from: Record<string, string>;
} {
  const keys: Record<string, string> = {};
  const from: Record<string, string> = {};
  const hasNseg = hasKey(header, "NSEG");
  for (const [key, value] of Object.entries(header)) {
    const rule = KEY_HEADER_RULES.find((r) => r.key === key);
    let to = rule?.to ?? key;
    if (key === "NENTRY" && hasNseg) to = "DIM2"; // SEG: NSEG lines over NENTRY files
    const mapped = rule?.values?.[String(value).toUpperCase()] ?? String(value);
    if (rule && hasKey(keys, to)) continue; // the first old key for a SPRAAK key wins
    setKey(keys, to, mapped);
    setKey(from, to, key);
  }
  const type = hasKey(keys, "TYPE") ? keys.TYPE : undefined;
  if (type === "STRING") {
    if (!hasKey(keys, "FORMAT")) setKey(keys, "FORMAT", "ASCII");
    if (!hasKey(keys, "LAYOUT")) setKey(keys, "LAYOUT", "LIST");
  }
  if (!hasKey(keys, "FORMAT")) setKey(keys, "FORMAT", PROVISIONAL.keyHeaderFormat);
  return { keys, from };
}

/** SPRAAK keys to key-header keys (the reverse of KEY_HEADER_RULES; the first rule for a key wins). */
export function toKeyHeader(keys: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const isList = (hasKey(keys, "TYPE") && keys.TYPE === "STRING") || (hasKey(keys, "LAYOUT") && keys.LAYOUT === "LIST");
  for (const [key, value] of Object.entries(keys)) {
    if (key === "LAYOUT" && (value === "MATRIX" || (value === "LIST" && isList))) continue; // implied
    if (key === "FORMAT" && value === "ASCII") {
      if (!isList) setKey(out, "FORMAT", value); // no key-header spelling: kept as FORMAT
      continue;
    }
    const rule =
      key === "DIM1" && isList
        ? KEY_HEADER_RULES.find((r) => r.key === "NENTRY")
        : KEY_HEADER_RULES.find((r) => r.to === key);
    if (!rule) {
      setKey(out, key, value);
      continue;
    }
    const back = rule.values ? Object.entries(rule.values).find(([, v]) => v === value)?.[0] : value;
    setKey(out, rule.key, back ?? value);
  }
  return out;
}

export interface KeyLocation {
  offset: number | undefined;
  field: string;
}

export interface Described {
  meta: SpraakMeta;
  warnings: string[];
}

/** Typed metadata of a key set. Throws UNSUPPORTED for unknown FORMAT/LAYOUT/TYPE/COMPRESS, CORRUPT for bad dims. */
export function describe(
  keys: Record<string, string>,
  kind: SpraakHeaderKind,
  where: (key: string) => KeyLocation,
  format: string,
): Described {
  const defaults: string[] = [];
  const warnings: string[] = [];
  const get = (key: string): string | undefined => (hasKey(keys, key) ? keys[key] : undefined);
  const unsupported = (key: string, detail: string): never => {
    const at = where(key);
    throw new UnsupportedError(format, detail, at.offset, at.field);
  };

  const formatValue =
    get("FORMAT") ??
    (defaults.push("FORMAT"), kind === "key" ? PROVISIONAL.keyHeaderFormat : PROVISIONAL.defaultFormat);
  if (formatValue !== "BIN01" && formatValue !== "BIN10" && formatValue !== "ASCII") {
    unsupported("FORMAT", `unknown FORMAT ${JSON.stringify(formatValue)} (BIN01, BIN10 or ASCII)`);
  }
  const data = get("DATA") ?? null;
  let type = get("TYPE");
  if (type !== undefined && hasKey(PROVISIONAL.typeAliases, type)) type = PROVISIONAL.typeAliases[type]!;
  let layout = get("LAYOUT");
  if (layout === undefined) {
    defaults.push("LAYOUT");
    const listy =
      type === "STRING" ||
      (data !== null && (PROVISIONAL.listData as readonly string[]).includes(data) && type === undefined);
    layout = listy ? "LIST" : "MATRIX";
  }
  if (layout !== "MATRIX" && layout !== "LIST" && layout !== "CUSTOM") {
    unsupported("LAYOUT", `unknown LAYOUT ${JSON.stringify(layout)} (MATRIX, LIST or CUSTOM)`);
  }
  if (type === undefined) {
    defaults.push("TYPE");
    type = layout === "LIST" ? "STRING" : layout === "CUSTOM" ? "CUSTOM" : PROVISIONAL.defaultMatrixType;
  }
  if (!isMatrixType(type) && type !== "STRING" && type !== "CUSTOM") {
    unsupported(
      "TYPE",
      `unknown TYPE ${JSON.stringify(type)} (I8 U8 I16 U16 I32 U32 I64 U64 F32 F64 ALAW ULAW STRING CUSTOM)`,
    );
  }
  if (layout === "MATRIX" && type === "STRING") unsupported("TYPE", "TYPE STRING in a LAYOUT MATRIX file");

  const compressValue = get("COMPRESS");
  let compress: "gzip" | null = null;
  if (compressValue !== undefined && compressValue !== "" && compressValue.toLowerCase() !== "none") {
    if (compressValue.toLowerCase() !== "gzip")
      unsupported("COMPRESS", `unknown COMPRESS ${JSON.stringify(compressValue)} (only gzip is known)`);
    compress = "gzip";
  }

  const dimension = (key: string, fallback: number): number => {
    const text = get(key);
    if (text === undefined) {
      defaults.push(key);
      return fallback;
    }
    const n = INTEGER_TOKEN.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n < -1) {
      const at = where(key);
      throw new CorruptDataError(
        format,
        `${key} ${JSON.stringify(text)} is not a count (an integer >= -1)`,
        at.offset,
        at.field,
      );
    }
    return n;
  };
  const dim1 = dimension("DIM1", PROVISIONAL.defaultDim1);
  const dim2 = dimension("DIM2", PROVISIONAL.defaultDim2);
  const nchanText = get("NCHAN");
  const nchan = nchanText === undefined ? (defaults.push("NCHAN"), 1) : dimension("NCHAN", 1);
  if (nchan < 1) {
    const at = where("NCHAN");
    throw new CorruptDataError(format, `NCHAN ${nchan} is not a channel count`, at.offset, at.field);
  }

  const number = (key: string, fallback: number | null): number | null => {
    const text = get(key);
    if (text === undefined) {
      defaults.push(key);
      return fallback;
    }
    const n = Number(text);
    if (text.trim() === "" || !Number.isFinite(n)) {
      warnings.push(`${key} ${JSON.stringify(text)} is not a number`);
      return null;
    }
    return n;
  };
  const flength = number("FLENGTH", null);
  const fshift = number("FSHIFT", flength ?? PROVISIONAL.defaultFshift);
  const sampleFreq = number("SAMPLEFREQ", PROVISIONAL.defaultSampleFreq);
  const foffset = number("FOFFSET", null);
  const chanlen = number("CHANLEN", null);
  const timebase = get("TIMEBASE") ?? (defaults.push("TIMEBASE"), PROVISIONAL.defaultTimebase);
  if (timebase !== "DISCRETE" && timebase !== "CONTINUOUS")
    warnings.push(`TIMEBASE ${JSON.stringify(timebase)} is neither DISCRETE nor CONTINUOUS`);

  const meta: SpraakMeta = {
    format: formatValue as SpraakFormat,
    layout: layout as SpraakLayout,
    type,
    data,
    dim1,
    dim2,
    nchan,
    chanlen,
    sampleFreq,
    fshift,
    flength,
    foffset,
    timebase,
    compress,
    defaults,
  };
  return { meta, warnings };
}

/** The format id (also `spraak.id`). */
export const id = "spraak" as const;

/** Options of {@link read} and {@link readFrom}. */
export interface SpraakReadOptions {
  /**
   * External header: keys for header-less data (then the file is read as data only), or keys that fill in
   * what the file's own header lacks (the file's keys win).
   */
  header?: Record<string, string> | undefined;
  /**
   * What a file without magic holds: "key" = a key header without its `.key` line, "none" = header-less data
   * (the default when `header` is given). Without either, a file without magic is BAD_MAGIC.
   */
  headerFormat?: "key" | "none" | undefined;
  /**
   * Text encoding of the header and LIST/ASCII data, "latin1" or "utf-8" (both byte-exact). Default: UTF-8
   * when the text is valid UTF-8, else Latin-1 (`meta.encoding` says which was used).
   */
  encoding?: TextEncoding | undefined;
  /** LIMIT for a header without its end line (default 16 MiB). */
  maxHeaderBytes?: number | undefined;
  /** LIMIT for gzip data (whole-file wrapper or COMPRESS gzip), default 1 GiB. */
  maxInflatedBytes?: number | undefined;
}

/** A TensorInfo with what SPRAAK adds: G.711 codes, and data that is not stored as-is at byteOffset. */
export interface SpraakTensorInfo extends TensorInfo {
  /** ALAW/ULAW: the bytes are G.711 codes; loadTensor/tensors decode them to float32 with { dtype: "float32" }. */
  g711?: "ALAW" | "ULAW" | undefined;
  /**
   * The data is gzip-compressed or ASCII text: byteOffset is where it starts in the decoded stream, and
   * loadTensor reads and parses the whole file (with these read options).
   */
  wholeFile?: SpraakReadOptions | undefined;
}
