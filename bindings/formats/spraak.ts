/**
 * SPRAAK (KU Leuven / UGent speech toolkit) data files: `.spr` headers and the older key headers.
 *
 *   [gzip wrapper: 1F 8B … around everything below, header included]
 *   ".spr\n"                         magic (key header: optional ".key\n")
 *   KEY<ws>VALUE\n …                 header lines (see spraak/header.ts: quoting, continuation, padding)
 *   "#\n"                            end line (key header: "#…#\n")
 *   data                             [COMPRESS gzip: a gzip stream of what follows]
 *     LAYOUT MATRIX, FORMAT BIN01    DIM1 rows x DIM2 columns of TYPE, row-major, little-endian, no padding
 *     LAYOUT MATRIX, FORMAT BIN10    the same, big-endian
 *     LAYOUT MATRIX, FORMAT ASCII    decimal numbers separated by white space (one row a line when written)
 *     LAYOUT LIST                    text, one entry a line ('#' lines are data here)
 *     LAYOUT CUSTOM                  opaque bytes
 *   DIM1 -1 = as many rows as there are; NCHAN > 1 sample data is interleaved (DIM2 = NCHAN).
 *
 * Choices the public documentation leaves open are in spraak/provisional.ts (PROVISIONAL, KEY_HEADER_RULES).
 */
import { assertEager } from "../io/lazy.js";
import { type ByteSink, writePiecesTo } from "../export/stream.js";
import { copyBytes } from "../io/input.js";
import { asBytes, asSource, bytesOrUndefined } from "../io/input.js";
import { CorruptDataError, TruncatedError, UnsupportedError } from "../errors.js";
import { ByteReader, type ByteRange } from "../io/byte-reader.js";
import * as lazy from "../io/lazy.js";
import { type ByteSource, readExactly, sourceSize } from "../io/source.js";
import * as kernels from "../kernels.js";
import {
  type DecodeOptions, type NamedTensor, type TensorInfo, type TypedArray, asFloat32Tensor, bytesOf, decodeRowMajorTensor,
} from "../tensor.js";
import { decodeG711, encodeG711, formatF32, formatF64, gunzip, gzip, INTEGER_TOKEN, isGzip, parseFloatToken } from "./spraak/codecs.js";
import { type HeaderKind, type HeaderLine, type SeparatorStyle, renderLine, scanHeader, separatorStyle } from "./spraak/header.js";
import {
  type KeyLocation, type SpraakData, type SpraakFile, type SpraakFileParts, type SpraakFormat, type SpraakHeaderKind,
  type SpraakMeta, type SpraakType, TYPE_INFO, describe, hasKey, isMatrixType, mapKeyHeader, setKey, toKeyHeader,
} from "./spraak/model.js";
import { KEY_HEADER_RULES, PROVISIONAL } from "./spraak/provisional.js";
import { type TextEncoding, decodeText, encodeText, trimSpace } from "./spraak/text.js";
import type { EmbeddedBlob, InspectResult } from "./types.js";

export { KEY_HEADER_RULES, PROVISIONAL, decodeG711, encodeG711, mapKeyHeader, toKeyHeader };
export type { KeyHeaderRule } from "./spraak/provisional.js";
export type { HeaderLine } from "./spraak/header.js";
export type {
  SpraakAsciiMatrix, SpraakBinaryMatrix, SpraakCustom, SpraakData, SpraakFile, SpraakFileParts, SpraakFormat,
  SpraakHeaderKind, SpraakLayout, SpraakList, SpraakMeta, SpraakType,
} from "./spraak/model.js";
export type { TextEncoding } from "./spraak/text.js";

export const id = "spraak" as const;
/** .spr (generic), .trk (tracks), .sam (samples), .cor, .seg, .lex/.dic, .ci/.cd, .mvg/.hmm, .key. */
export const extensions: readonly string[] = [".spr", ".trk", ".sam", ".cor", ".seg", ".lex", ".dic", ".ci", ".cd", ".mvg", ".hmm", ".key"];

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

const MAGIC_SPR = ".spr";
const MAGIC_KEY = ".key";
const DEFAULT_MAX_HEADER = 16 * 1024 * 1024;
const DEFAULT_MAX_INFLATED = 1024 * 1024 * 1024;

/** Originals of gzip/COMPRESS/ASCII data: reused by write() when nothing changed, so round trips are exact. */
const packedOrigins = new WeakMap<object, { plain: Uint8Array; packed: Uint8Array }>();
const textOrigins = new WeakMap<object, { text: Uint8Array; snapshot: Uint8Array; type: SpraakType; rows: number; cols: number }>();

// ------------------------------------------------------------------------------------------------ detect

/** True when all of `head` (shorter than `text`) is the start of `text`. */
function isPrefixOf(head: Uint8Array, text: string): boolean {
  if (head.length >= text.length) return false;
  for (let i = 0; i < head.length; i++) if (head[i] !== text.charCodeAt(i)) return false;
  return true;
}

function startsWith(head: Uint8Array, text: string): boolean {
  if (head.length < text.length) return false;
  for (let i = 0; i < text.length; i++) if (head[i] !== text.charCodeAt(i)) return false;
  return true;
}

/**
 * True for a `.spr` or `.key` magic line. Header-less data and key headers without `.key` cannot be sniffed
 * (false); gzip-wrapped files are false too (the first 64 bytes rarely inflate to the magic): pass them to
 * spraak.read() directly.
 */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  if (!head) return false;
  try {
    for (const magic of [MAGIC_SPR, MAGIC_KEY]) {
      if (startsWith(head, magic + "\n") || startsWith(head, magic + "\r\n")) return true;
    }
    return false;
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------------------------------------ read

interface Resolved {
  maxHeaderBytes: number;
  maxInflatedBytes: number;
  encoding: TextEncoding;
}

function resolveOptions(options: SpraakReadOptions): Resolved {
  return {
    maxHeaderBytes: options.maxHeaderBytes ?? DEFAULT_MAX_HEADER,
    maxInflatedBytes: options.maxInflatedBytes ?? DEFAULT_MAX_INFLATED,
    encoding: options.encoding ?? "latin1",
  };
}

/** Reads a whole SPRAAK file. Throws only FormatErrors for bad bytes. */
export function read(bytes: Uint8Array, options: SpraakReadOptions = {}): SpraakFile {
  const input = asBytes(bytes, "spraak.read");
  return withTextEncoding(options, (resolved) => parse(new ByteReader(input, id), resolved, true, true));
}

/**
 * SPRAAK text (headers, LIST and ASCII data) is bytes: UTF-8 or Latin-1, the documentation says. Without an
 * `encoding` option, a file whose text is valid UTF-8 is read as UTF-8 and any other as Latin-1 (every byte
 * string is valid Latin-1); `meta.encoding` says which. Either way write() gives back the exact bytes.
 */
function withTextEncoding<T>(options: SpraakReadOptions, parse: (options: SpraakReadOptions) => T): T {
  if (options.encoding !== undefined) return parse(options);
  try {
    return parse({ ...options, encoding: "utf-8" });
  } catch (error) {
    if (!(error instanceof CorruptDataError) || !/invalid UTF-8/.test(error.message)) throw error;
    return parse({ ...options, encoding: "latin1" });
  }
}

/**
 * Opens a file lazily: binary MATRIX data stays on disk (a ByteRange) and only the header is read. ASCII and
 * LIST data, COMPRESS gzip and gzip-wrapped files are read whole (they must be scanned or inflated).
 */
export async function readFrom(source: ByteSource, options: SpraakReadOptions = {}): Promise<SpraakFile> {
  const checked = asSource(source, "spraak.readFrom");
  return lazy.parseFrom(checked, id, (backing) => withTextEncoding(options, (resolved) => parse(new ByteReader(backing, id), resolved, false, true)));
}

function parse(r: ByteReader, options: SpraakReadOptions, eager: boolean, allowGzip: boolean): SpraakFile {
  const resolved = resolveOptions(options);
  const head = r.peek(8);
  if (isGzip(head)) {
    if (!allowGzip) throw new UnsupportedError(id, "a gzip wrapper inside a gzip wrapper", r.pos, "gzip");
    const packed = r.bytesView(r.remaining, "gzip");
    const plain = gunzip(packed, 0, id, "gzip", resolved.maxInflatedBytes);
    const file = parse(new ByteReader(plain, id), options, true, false);
    file.gzip = true;
    packedOrigins.set(file, { plain, packed });
    return file;
  }

  let kind: SpraakHeaderKind;
  let magicLine: string | null = null;
  for (const magic of [MAGIC_SPR, MAGIC_KEY]) {
    for (const ending of ["\n", "\r\n"]) {
      if (startsWith(head, magic + ending)) {
        magicLine = magic + ending.slice(0, -1);
        r.skip(magic.length + ending.length, "magic");
      }
    }
    if (magicLine !== null) break;
  }
  if (magicLine === MAGIC_SPR || magicLine === MAGIC_SPR + "\r") kind = "spr";
  else if (magicLine !== null) kind = "key";
  else if (options.headerFormat === "key") kind = "key";
  else if (options.headerFormat === "none" || options.header !== undefined) kind = "none";
  else {
    if ([MAGIC_SPR + "\n", MAGIC_KEY + "\n", "\x1f\x8b"].some((m) => isPrefixOf(head, m))) {
      throw new TruncatedError(id, 0, "magic", 5, head.length);
    }
    r.magic(MAGIC_SPR + "\n", "magic");
    throw new Error("unreachable");
  }

  let lines: HeaderLine[] = [];
  let offsets: number[] = [];
  let endLine: string | null = null;
  if (kind !== "none") {
    const parsed = scanHeader(r, kind as HeaderKind, { encoding: resolved.encoding, maxHeaderBytes: resolved.maxHeaderBytes });
    ({ lines, offsets, endLine } = parsed);
  }
  const header: Record<string, string> = {};
  const location: Record<string, number> = {};
  lines.forEach((line, i) => {
    if (line.key === "") return;
    setKey(header, line.key, line.value);
    location[line.key] = offsets[i]!;
  });
  const external = options.header ? copyRecord(options.header) : null;
  const { keys, from } = effectiveKeys(kind, header, external);
  const where = (key: string): KeyLocation => {
    const original = hasKey(from, key) ? from[key]! : key;
    if (hasKey(header, original)) return { offset: location[original], field: `header.${original}` };
    return { offset: undefined, field: `external header ${key}` };
  };
  const { meta } = describe(keys, kind, where, id);
  const dataOffset = r.pos;
  const file: SpraakFile = {
    kind, magicLine, lines, endLine, header, external, gzip: false, encoding: resolved.encoding,
    keys, meta, dataOffset,
    data: undefined as unknown as SpraakData,
  };
  file.data = readData(r, file, meta, eager, resolved);
  return file;
}

function copyRecord(record: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record)) setKey(out, k, String(v));
  return out;
}

function effectiveKeys(kind: SpraakHeaderKind, header: Record<string, string>, external: Record<string, string> | null): { keys: Record<string, string>; from: Record<string, string> } {
  const own = kind === "key" ? mapKeyHeader(header) : { keys: copyRecord(header), from: {} as Record<string, string> };
  if (!external) return own;
  const keys = copyRecord(external);
  if (kind === "key") {
    // FORMAT defaulted by the key-header mapping should not override an external FORMAT
    const explicitFormat = hasKey(header, "FORMAT") || hasKey(header, "ENDIAN") || (hasKey(own.keys, "TYPE") && own.keys.TYPE === "STRING");
    for (const [k, v] of Object.entries(own.keys)) if (k !== "FORMAT" || explicitFormat || !hasKey(keys, "FORMAT")) setKey(keys, k, v);
  } else {
    for (const [k, v] of Object.entries(own.keys)) setKey(keys, k, v);
  }
  return { keys, from: own.from };
}

function readData(r: ByteReader, file: SpraakFile, meta: SpraakMeta, eager: boolean, resolved: Resolved): SpraakData {
  let dr = r;
  let packed = false;
  let plainPacked: { plain: Uint8Array; packed: Uint8Array } | null = null;
  if (meta.compress === "gzip") {
    const start = r.pos;
    const compressed = r.bytesView(r.remaining, "data (COMPRESS gzip)");
    const plain = gunzip(compressed, start, id, "data.gzip", resolved.maxInflatedBytes);
    dr = new ByteReader(plain, id);
    packed = true;
    plainPacked = { plain, packed: compressed };
  }
  const keepBytes = eager || packed;
  const dataStart = dr.pos;
  let data: SpraakData;
  if (meta.layout === "LIST") {
    const text = decodeText(dr.bytesView(dr.remaining, "data"), file.encoding, id, dataStart, "data");
    data = text === "" ? { layout: "LIST", entries: [], finalNewline: false } : splitList(text);
  } else if (meta.layout === "CUSTOM" || meta.type === "CUSTOM") {
    data = { layout: "CUSTOM", bytes: dr.payload(dr.remaining, keepBytes, "data") };
  } else {
    const type = meta.type as SpraakType;
    data = meta.format === "ASCII" ? readAsciiMatrix(dr, meta, type) : readBinaryMatrix(dr, meta, type, keepBytes);
  }
  if (plainPacked) packedOrigins.set(data, plainPacked);
  return data;
}

function splitList(text: string): SpraakData {
  const entries = text.split("\n");
  const finalNewline = entries[entries.length - 1] === "";
  if (finalNewline) entries.pop();
  return { layout: "LIST", entries, finalNewline };
}

function shortBy(need: bigint, available: number): string {
  const short = need - BigInt(available);
  return `${short} byte${short === 1n ? "" : "s"} short`;
}

function readBinaryMatrix(r: ByteReader, meta: SpraakMeta, type: SpraakType, keepBytes: boolean): SpraakData {
  const size = TYPE_INFO[type].bytes;
  const available = r.remaining;
  let { dim1: rows, dim2: cols } = meta;
  if (rows === -1 && cols === -1) throw new UnsupportedError(id, "DIM1 and DIM2 are both -1: the shape is unknown", r.pos, "DIM2");
  if (cols === -1) {
    const rowsBytes = rows * size;
    if (rowsBytes === 0 || available % rowsBytes !== 0) {
      throw new CorruptDataError(id, `DIM2 -1: ${available} data bytes are not a whole number of ${rows}-row columns of ${type}`, r.pos, "data");
    }
    cols = available / rowsBytes;
  }
  const rowBytes = cols * size;
  let trailing: Uint8Array | ByteRange | null = null;
  if (rows === -1) {
    rows = rowBytes === 0 ? 0 : Math.floor(available / rowBytes);
  } else {
    const need = BigInt(rows) * BigInt(rowBytes);
    const label = `DIM1 ${rows} x DIM2 ${cols} x ${size} bytes (${type}) = ${need} bytes`;
    if (need > BigInt(available)) {
      const error = new TruncatedError(id, r.pos, "data", need > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(need), available);
      const detail = `data is ${shortBy(need, available)}: ${label}, ${available} available`;
      Object.defineProperty(error, "detail", { value: detail });
      error.message = `${id}: ${detail} at offset ${r.pos} (0x${r.pos.toString(16)}) [data]`;
      throw error;
    }
    if (need < BigInt(available)) {
      throw new CorruptDataError(id, `${BigInt(available) - need} bytes after the data: ${label}, ${available} present`, r.pos + Number(need), "data");
    }
  }
  const length = rows * rowBytes;
  const bytes = r.payload(length, keepBytes, "data");
  if (r.remaining > 0) trailing = r.payload(r.remaining, keepBytes, "data.trailing");
  return { layout: "MATRIX", encoding: "binary", type, rows, cols, byteOrder: meta.format === "BIN10" ? "be" : "le", bytes, trailing };
}

type ArrayCtor = { new (length: number): TypedArray };
const CTORS: Record<SpraakType, ArrayCtor> = {
  I8: Int8Array, U8: Uint8Array, I16: Int16Array, U16: Uint16Array, I32: Int32Array, U32: Uint32Array,
  I64: BigInt64Array, U64: BigUint64Array, F32: Float32Array, F64: Float64Array, ALAW: Uint8Array, ULAW: Uint8Array,
};
const INT_RANGES: Partial<Record<SpraakType, [bigint, bigint]>> = {
  I8: [-128n, 127n], U8: [0n, 255n], ALAW: [0n, 255n], ULAW: [0n, 255n], I16: [-32768n, 32767n], U16: [0n, 65535n],
  I32: [-2147483648n, 2147483647n], U32: [0n, 4294967295n],
  I64: [-(2n ** 63n), 2n ** 63n - 1n], U64: [0n, 2n ** 64n - 1n],
};

function readAsciiMatrix(r: ByteReader, meta: SpraakMeta, type: SpraakType): SpraakData {
  const start = r.pos;
  const raw = r.bytesView(r.remaining, "data");
  const text = decodeText(raw, "latin1", id, start, "data");
  const tokens: string[] = [];
  const positions: number[] = [];
  const pattern = /[^ \t\r\n\v\f]+/g;
  for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
    tokens.push(m[0]);
    positions.push(m.index);
  }
  let { dim1: rows, dim2: cols } = meta;
  if (cols === -1) {
    if (rows === -1) {
      // one row a line: the first line that has values gives the row length
      const firstLineEnd = tokens.length > 0 ? text.indexOf("\n", positions[0]) : -1;
      cols = positions.filter((p) => firstLineEnd < 0 || p < firstLineEnd).length;
    } else {
      cols = rows === 0 ? 0 : tokens.length / rows;
    }
    if (!Number.isInteger(cols) || (cols === 0 && tokens.length > 0)) {
      throw new CorruptDataError(id, `DIM2 -1: ${tokens.length} ASCII values do not make DIM1 ${rows} whole rows`, start, "data");
    }
  }
  if (rows === -1) {
    if (cols === 0 ? tokens.length > 0 : tokens.length % cols !== 0) {
      throw new CorruptDataError(id, `${tokens.length} ASCII values are not a whole number of ${cols}-value rows`, start, "data");
    }
    rows = cols === 0 ? 0 : tokens.length / cols;
  }
  const expected = rows * cols;
  if (tokens.length < expected) {
    const error = new TruncatedError(id, start + raw.length, "data", expected, tokens.length);
    const detail = `ASCII data has ${tokens.length} of DIM1 ${rows} x DIM2 ${cols} = ${expected} values`;
    Object.defineProperty(error, "detail", { value: detail });
    error.message = `${id}: ${detail} at offset ${start + raw.length} (0x${(start + raw.length).toString(16)}) [data]`;
    throw error;
  }
  if (tokens.length > expected) {
    throw new CorruptDataError(id, `${tokens.length - expected} ASCII values after DIM1 ${rows} x DIM2 ${cols}`, start + positions[expected]!, "data");
  }
  const values = new CTORS[type](expected);
  const isFloat = type === "F32" || type === "F64";
  const range = INT_RANGES[type];
  for (let i = 0; i < expected; i++) {
    const token = tokens[i]!;
    const at = start + positions[i]!;
    if (isFloat) {
      const v = parseFloatToken(token);
      if (v === undefined) throw new CorruptDataError(id, `${JSON.stringify(token)} is not a number`, at, `data[${i}]`);
      (values as Float32Array)[i] = v;
    } else {
      if (!INTEGER_TOKEN.test(token)) throw new CorruptDataError(id, `${JSON.stringify(token)} is not an integer`, at, `data[${i}]`);
      const v = BigInt(token);
      if (v < range![0] || v > range![1]) throw new CorruptDataError(id, `${token} is out of range for ${type}`, at, `data[${i}]`);
      if (type === "I64" || type === "U64") (values as BigInt64Array)[i] = v;
      else (values as Int32Array)[i] = Number(v);
    }
  }
  const data: SpraakData = { layout: "MATRIX", encoding: "ascii", type, rows, cols, values };
  textOrigins.set(data, { text: raw, snapshot: copyBytes(bytesOf(values)), type, rows, cols });
  return data;
}

// ------------------------------------------------------------------------------------------------ write

function writeError(detail: string, field: string): never {
  throw new CorruptDataError(id, detail, undefined, field);
}

/** The file's bytes. `write(read(x))` is byte-identical to x; edited headers keep their style. */
export function write(file: SpraakFileParts): Uint8Array {
  return concat(pieces(file));
}

/**
 * write() into a sink (a function, a WritableStream or a Node Writable): the header, then the data as it is
 * stored (little-endian binary data without a copy). Resolves to the byte count.
 */
export async function writeTo(file: SpraakFileParts, sink: ByteSink, options: { end?: boolean | undefined } = {}): Promise<number> {
  return writePiecesTo(sink, pieces(file), { end: options.end, caller: "spraak.writeTo" });
}

function pieces(file: SpraakFileParts): Uint8Array[] {
  const { keys } = effectiveKeys(file.kind, file.header, file.external);
  const { meta } = describe(keys, file.kind, (key) => ({ offset: undefined, field: key }), id);
  const headerBytes = file.kind === "none" ? new Uint8Array(0) : encodeText(renderHeader(file), file.encoding, id, "header");
  let dataBytes = encodeData(file, meta);
  if (meta.compress === "gzip") dataBytes = reuseOrGzip(file.data, dataBytes);
  const parts = [headerBytes, ...(Array.isArray(dataBytes) ? dataBytes : [dataBytes])];
  return file.gzip ? [reuseOrGzip(file, concat(parts))] : parts;
}

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  if (a === b) return true;
  const n = a.length;
  let i = 0;
  if (a.byteOffset % 4 === 0 && b.byteOffset % 4 === 0) {
    const words = n >>> 2;
    const wa = new Uint32Array(a.buffer, a.byteOffset, words);
    const wb = new Uint32Array(b.buffer, b.byteOffset, words);
    for (let w = 0; w < words; w++) if (wa[w] !== wb[w]) return false;
    i = words * 4;
  }
  for (; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

function reuseOrGzip(owner: object, plain: Uint8Array | Uint8Array[]): Uint8Array {
  const bytes = Array.isArray(plain) ? concat(plain) : plain;
  const origin = packedOrigins.get(owner);
  if (origin && sameBytes(origin.plain, bytes)) return origin.packed;
  return gzip(bytes);
}

/** Header text: magic, lines (unchanged ones verbatim, edited ones in their own style), new keys, end line. */
function renderHeader(file: SpraakFileParts): string {
  const kind = file.kind as HeaderKind;
  const style: SeparatorStyle = separatorStyle(file.lines, kind === "key" ? "\t" : "align");
  const header = file.header;
  const lastIndex = new Map<string, number>();
  file.lines.forEach((line, i) => {
    if (line.key !== "") lastIndex.set(line.key, i);
  });
  const out: string[] = [];
  if (file.magicLine !== null || kind === "spr") out.push(file.magicLine ?? MAGIC_SPR);
  const rendered: string[] = [];
  let insertAt = 0; // new keys go after the last key line, before trailing padding
  file.lines.forEach((line, i) => {
    if (line.key === "") {
      rendered.push(line.raw ?? line.value);
      return;
    }
    if (!hasKey(header, line.key)) return; // deleted
    const value = lastIndex.get(line.key) === i ? String(header[line.key]) : line.value;
    rendered.push(line.raw !== undefined && value === line.value ? line.raw : renderLine(kind, line.key, value, style, line.raw, writeError));
    insertAt = rendered.length;
  });
  const fresh: string[] = [];
  for (const [key, value] of Object.entries(header)) {
    if (!lastIndex.has(key)) fresh.push(renderLine(kind, key, String(value), style, undefined, writeError));
  }
  rendered.splice(insertAt, 0, ...fresh);
  out.push(...rendered);
  const endLine = file.endLine ?? "#";
  if (kind === "spr" ? endLine !== "#" : !/^#+$/.test(endLine)) writeError(`end line ${JSON.stringify(endLine)} is not ${kind === "spr" ? '"#"' : "a line of '#'"}`, "endLine");
  out.push(endLine);
  return out.join("\n") + "\n";
}

function loaded(bytes: Uint8Array | ByteRange, what: string): Uint8Array {
  if (bytes instanceof Uint8Array) return bytes;
  throw new UnsupportedError(id, `${what} was not loaded (a readFrom() result): use loadTensor(), or read() the file`, bytes.byteOffset, "data");
}

function encodeData(file: SpraakFileParts, meta: SpraakMeta): Uint8Array | Uint8Array[] {
  const data = file.data;
  const layout = data.layout === "MATRIX" ? "MATRIX" : data.layout;
  if (meta.layout !== layout && !(layout === "CUSTOM" && meta.type === "CUSTOM")) {
    writeError(`the header says LAYOUT ${meta.layout} (TYPE ${meta.type}) but the data is ${data.layout}`, "LAYOUT");
  }
  if (data.layout === "LIST") {
    for (const entry of data.entries) if (entry.includes("\n")) writeError("a LIST entry contains a line break", "data");
    const text = data.entries.join("\n") + (data.finalNewline && data.entries.length > 0 ? "\n" : "");
    return encodeText(text, file.encoding, id, "data");
  }
  if (data.layout === "CUSTOM") return loaded(data.bytes, "the data");
  const type = meta.type;
  if (type !== data.type) writeError(`the header says TYPE ${type} but the data is ${data.type}`, "TYPE");
  if (meta.dim1 !== -1 && meta.dim1 !== data.rows) writeError(`the header says DIM1 ${meta.dim1} but the data has ${data.rows} rows`, "DIM1");
  if (meta.dim2 !== -1 && meta.dim2 !== data.cols) writeError(`the header says DIM2 ${meta.dim2} but the data has ${data.cols} columns`, "DIM2");
  const size = TYPE_INFO[data.type].bytes;
  const count = data.rows * data.cols;
  if (meta.format === "ASCII") {
    if (data.encoding === "ascii") {
      if (data.values.length !== count) writeError(`${data.values.length} values for ${data.rows} x ${data.cols}`, "data");
      const origin = textOrigins.get(data);
      if (origin && origin.type === data.type && origin.rows === data.rows && origin.cols === data.cols && sameBytes(origin.snapshot, bytesOf(data.values))) {
        return origin.text;
      }
      return encodeText(formatAscii(data.values, data.type, data.rows, data.cols), "latin1", id, "data");
    }
    if (data.trailing && loaded(data.trailing, "the trailing data").length > 0) {
      writeError("bytes after the last whole row (DIM1 -1) cannot be written as ASCII", "data.trailing");
    }
    const values = decodeRowMajorTensor(loaded(data.bytes, "the data"), matrixInfo(data.type, data.rows, data.cols, 0, data.byteOrder), {}, id).data;
    return encodeText(formatAscii(values, data.type, data.rows, data.cols), "latin1", id, "data");
  }
  const order = meta.format === "BIN10" ? "be" : "le";
  let stored: Uint8Array;
  let storedOrder: "le" | "be";
  const parts: Uint8Array[] = [];
  if (data.encoding === "binary") {
    stored = loaded(data.bytes, "the data");
    storedOrder = data.byteOrder;
    if (data.trailing) parts.push(loaded(data.trailing, "the trailing data"));
  } else {
    stored = bytesOf(data.values);
    storedOrder = "le";
  }
  if (stored.length !== count * size) writeError(`${stored.length} data bytes for ${data.rows} x ${data.cols} ${data.type}`, "data");
  if (storedOrder !== order && size > 1) {
    stored = copyBytes(stored);
    kernels.byteSwap(stored, size as 2 | 4 | 8);
  }
  return parts.length > 0 ? [stored, ...parts] : stored;
}

function formatAscii(values: TypedArray, type: SpraakType, rows: number, cols: number): string {
  const format = type === "F32" ? formatF32 : type === "F64" ? formatF64 : (v: number | bigint) => String(v);
  const lines: string[] = new Array(rows);
  const row: string[] = new Array(cols);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) row[j] = format(values[i * cols + j]! as number);
    lines[i] = row.join(" ");
  }
  return rows === 0 ? "" : lines.join("\n") + "\n";
}

// ------------------------------------------------------------------------------------------------ tensors

function matrixInfo(type: SpraakType, rows: number, cols: number, byteOffset: number, byteOrder: "le" | "be"): SpraakTensorInfo {
  const info: SpraakTensorInfo = {
    name: "data",
    dtype: TYPE_INFO[type].dtype,
    shape: [rows, cols],
    byteOffset,
    byteLength: rows * cols * TYPE_INFO[type].bytes,
    byteOrder,
    layout: "row-major",
    format: id,
  };
  if (type === "ALAW" || type === "ULAW") {
    info.g711 = type;
    info.decodesToFloat32 = true;
  }
  return info;
}

function rereadOptions(file: SpraakFile): SpraakReadOptions {
  const options: SpraakReadOptions = {};
  if (file.external) options.header = copyRecord(file.external);
  if (file.kind === "none") options.headerFormat = "none";
  if (file.kind === "key" && file.magicLine === null) options.headerFormat = "key";
  if (file.encoding !== "latin1") options.encoding = file.encoding;
  return options;
}

/** Where the MATRIX data is: absolute offsets for plain binary files; `wholeFile` for gzip/COMPRESS/ASCII. */
export function tensorInfos(file: SpraakFile): SpraakTensorInfo[] {
  const data = file.data;
  if (data.layout !== "MATRIX") return [];
  if (data.encoding === "binary" && !file.gzip && file.meta.compress === null) {
    const offset = data.bytes instanceof Uint8Array ? file.dataOffset : data.bytes.byteOffset;
    return [matrixInfo(data.type, data.rows, data.cols, offset, data.byteOrder)];
  }
  const info = matrixInfo(data.type, data.rows, data.cols, file.dataOffset, "le");
  info.wholeFile = rereadOptions(file);
  return [info];
}

/** The MATRIX data as `data` [DIM1, DIM2] (LIST and CUSTOM files have no tensors). */
export function tensors(file: SpraakFile, options: DecodeOptions = {}): NamedTensor[] {
  assertEager(file, id);
  const data = file.data;
  if (data.layout !== "MATRIX") return [];
  const info = matrixInfo(data.type, data.rows, data.cols, file.dataOffset, data.encoding === "binary" ? data.byteOrder : "le");
  let tensor: NamedTensor;
  if (data.encoding === "binary") tensor = decodeRowMajorTensor(loaded(data.bytes, "the data"), info, storedOptions(info.g711, options), id);
  else tensor = { name: "data", dtype: info.dtype, shape: [data.rows, data.cols], data: options.copy ? data.values.slice() : data.values } as NamedTensor;
  return [widenG711(tensor, info.g711, options)];
}

/** G.711 codes are decoded as stored (no generic float32 cast), then widenG711 turns the codes into samples. */
function storedOptions(law: "ALAW" | "ULAW" | undefined, options: DecodeOptions): DecodeOptions {
  return law && options.dtype === "float32" ? { copy: options.copy } : options;
}

function widenG711(tensor: NamedTensor, law: "ALAW" | "ULAW" | undefined, options: DecodeOptions): NamedTensor {
  if (!law || options.dtype !== "float32") return asFloat32Tensor(tensor, options);
  const samples = decodeG711(tensor.data as Uint8Array, law);
  const out = options.out;
  if (out !== undefined) {
    if (!(out instanceof Float32Array) || out.length !== samples.length) {
      throw new RangeError(`tensorfile: options.out must be a Float32Array of ${samples.length} elements for tensor "${tensor.name}"`);
    }
    out.set(samples);
  }
  return { name: tensor.name, shape: tensor.shape, dtype: "float32", data: out ?? samples };
}

export async function loadTensor(source: ByteSource, info: TensorInfo, options: DecodeOptions = {}): Promise<NamedTensor> {
  const spraakInfo = info as SpraakTensorInfo;
  if (spraakInfo.wholeFile) {
    const { size } = await sourceSize(source);
    const bytes = await readExactly(source, 0, size, id, info.name);
    const tensor = tensors(read(bytes, spraakInfo.wholeFile), options)[0];
    if (!tensor) throw new CorruptDataError(id, "the file has no MATRIX data", 0, info.name);
    return tensor;
  }
  const tensor = await lazy.loadRowMajorTensor(source, info, { ...storedOptions(spraakInfo.g711, options), format: id });
  return widenG711(tensor, spraakInfo.g711, options);
}

// ------------------------------------------------------------------------------------------------ inspect / verify / blobs

export function inspect(file: SpraakFile): InspectResult {
  const tensorRows = tensorInfos(file).map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape.slice(), byteLength: t.byteLength }));
  const result: InspectResult = {
    format: id,
    version: file.kind === "none" ? null : file.kind === "spr" ? ".spr" : ".key",
    meta: { ...file.meta, defaults: file.meta.defaults.slice(), dataOffset: file.dataOffset, encoding: file.encoding },
    tensors: tensorRows,
    header: {
      kind: file.kind,
      keys: file.lines.filter((l) => l.key !== "").map((l) => ({ key: l.key, value: l.value })),
      paddingLines: file.lines.filter((l) => l.key === "").length,
      spraakKeys: { ...file.keys },
      external: file.external ? { ...file.external } : null,
    },
    compression: { file: file.gzip ? "gzip" : null, data: file.meta.compress },
  };
  if (file.data.layout === "LIST") result.entries = file.data.entries.slice();
  if (file.data.layout === "CUSTOM") result.custom = { byteLength: byteLengthOf(file.data.bytes) };
  return result;
}

function byteLengthOf(bytes: Uint8Array | ByteRange): number {
  return bytes instanceof Uint8Array ? bytes.length : bytes.byteLength;
}

/** Warnings: what parses but looks wrong, or what a SPRAAK tool may read differently. */
export function verify(file: SpraakFile): string[] {
  const warnings: string[] = [];
  const { keys } = effectiveKeys(file.kind, file.header, file.external);
  const { meta, warnings: keyWarnings } = describe(keys, file.kind, (key) => ({ offset: undefined, field: key }), id);
  warnings.push(...keyWarnings);
  const seen = new Set<string>();
  for (const line of file.lines) {
    if (line.key === "") continue;
    if (seen.has(line.key)) warnings.push(`key ${line.key} appears more than once (the last value is used)`);
    seen.add(line.key);
    if (line.raw !== undefined && line.raw.endsWith("\r")) warnings.push(`header line ${line.key} ends with CR (CRLF?)`);
  }
  if (file.magicLine?.endsWith("\r")) warnings.push("the magic line ends with CR (CRLF?)");
  if (file.kind === "key") {
    for (const key of Object.keys(file.header)) {
      const rule = KEY_HEADER_RULES.find((r) => r.key === key);
      if (rule && rule.confidence !== "high") warnings.push(`key header ${key} -> ${rule.to} is a ${rule.confidence}-confidence mapping`);
    }
  }
  for (const key of ["FORMAT", "TYPE", "LAYOUT"]) {
    if (file.kind !== "none" && meta.defaults.includes(key)) warnings.push(`no ${key} key: assumed ${key === "FORMAT" ? meta.format : key === "TYPE" ? meta.type : meta.layout} (provisional default)`);
  }
  const data = file.data;
  if (data.layout === "LIST") {
    if (meta.dim1 !== -1 && meta.dim1 !== data.entries.length) warnings.push(`DIM1 ${meta.dim1} but the list has ${data.entries.length} entries`);
    if (data.entries.length > 0 && !data.finalNewline) warnings.push("the last list entry has no line break");
  }
  if (data.layout === "MATRIX") {
    if (data.encoding === "binary" && data.trailing) warnings.push(`${byteLengthOf(data.trailing)} bytes after the last whole row (DIM1 -1)`);
    if (meta.nchan > 1 && data.cols !== meta.nchan && data.cols !== 1) warnings.push(`NCHAN ${meta.nchan} but DIM2 ${data.cols}`);
    if (meta.nchan > 1 && data.cols === 1 && data.rows % meta.nchan !== 0) warnings.push(`NCHAN ${meta.nchan} does not divide ${data.rows} samples`);
    if (data.encoding === "ascii") {
      const origin = textOrigins.get(data);
      if (origin && origin.text.length > 0 && origin.text[origin.text.length - 1] !== 0x0a) warnings.push("the ASCII data does not end with a line break");
    }
  }
  return warnings;
}

/** LIST data as `list.txt`, CUSTOM data as `data.bin` (MATRIX data is a tensor). */
export function blobs(file: SpraakFile): EmbeddedBlob[] {
  const data = file.data;
  if (data.layout === "CUSTOM") return [{ name: "data.bin", bytes: data.bytes }];
  if (data.layout === "LIST") {
    const text = data.entries.join("\n") + (data.finalNewline && data.entries.length > 0 ? "\n" : "");
    return [{ name: "list.txt", bytes: encodeText(text, file.encoding, id, "data") }];
  }
  return [];
}

// ------------------------------------------------------------------------------------------------ builders

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
  encoding?: TextEncoding | undefined;
  /**
   * `.spr` binary matrices: pad the header with a whitespace line so the data starts at a multiple of this
   * (default 64, as SPRAAK's own files; 0 or 1: no padding). Aligned data is returned as views, not copies.
   */
  align?: number | undefined;
}

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
  let flat: TypedArray;
  let cols: number;
  let type: SpraakType;
  if (Array.isArray(values)) {
    const rowsIn = values as readonly (readonly number[])[];
    type = options.type ?? "F32";
    cols = options.cols ?? rowsIn[0]?.length ?? 0;
    if (rowsIn.some((row) => row.length !== cols)) throw new RangeError(`${id}: matrix rows must all have ${cols} values`);
    flat = new CTORS[type](rowsIn.length * cols);
    rowsIn.forEach((row, i) => row.forEach((v, j) => ((flat as Float64Array)[i * cols + j] = v)));
  } else {
    const given = values as TypedArray;
    const natural = typeOfArray(given);
    type = options.type ?? natural;
    if (!isMatrixType(type)) throw new RangeError(`${id}: unknown TYPE ${String(type)}`);
    const wantCtor = CTORS[type];
    if (given instanceof (wantCtor as unknown as typeof Uint8Array)) flat = given;
    else {
      flat = new wantCtor(given.length);
      const big = type === "I64" || type === "U64";
      for (let i = 0; i < given.length; i++) (flat as Float64Array)[i] = (big ? BigInt(given[i]!) : Number(given[i]!)) as number;
    }
    cols = options.cols ?? 1;
  }
  if (!Number.isInteger(cols) || cols < 0 || (cols === 0 ? flat.length !== 0 : flat.length % cols !== 0)) {
    throw new RangeError(`${id}: ${flat.length} values do not make rows of ${cols}`);
  }
  const rows = cols === 0 ? 0 : flat.length / cols;
  const format = options.format ?? "BIN01";
  const keys: [string, string][] = [
    ["FORMAT", format], ["TYPE", type], ["LAYOUT", "MATRIX"],
    ["DIM1", options.openEnded ? "-1" : String(rows)], ["DIM2", String(cols)],
  ];
  return assemble(keys, options, { layout: "MATRIX", encoding: "ascii", type, rows, cols, values: flat });
}

/** Builds a LIST file (corpus, segmentation, lexicon, unit list): one entry a line. */
export function list(entries: readonly string[], options: BuildOptions = {}): SpraakFile {
  const keys: [string, string][] = [["FORMAT", "ASCII"], ["TYPE", "STRING"], ["LAYOUT", "LIST"], ["DIM1", String(entries.length)]];
  return assemble(keys, options, { layout: "LIST", entries: entries.slice(), finalNewline: true });
}

/** The same file with another FORMAT (BIN01 <-> BIN10 <-> ASCII); every value is kept. */
export function convert(file: SpraakFile, format: SpraakFormat): SpraakFile {
  const header = copyRecord(file.header);
  if (file.kind === "key" && format !== "ASCII") {
    setKey(header, hasKey(header, "FORMAT") ? "FORMAT" : "ENDIAN", hasKey(header, "FORMAT") ? format : format === "BIN10" ? "BIG" : "LITTLE");
  } else if (file.kind === "none") {
    const external = copyRecord(file.external ?? {});
    setKey(external, "FORMAT", format);
    return read(write({ ...file, external }), { ...rereadOptions(file), header: external });
  } else {
    setKey(header, "FORMAT", format);
  }
  return read(write({ ...file, header }), rereadOptions(file));
}

// ------------------------------------------------------------------------------------------------ samples

/** NCHAN interleaved sample data split into one array per channel (G.711 decoded with { dtype: "float32" }). */
export function channels(file: SpraakFile, options: DecodeOptions = {}): { sampleFreq: number | null; channels: TypedArray[] } {
  const tensor = tensors(file, options)[0];
  if (!tensor) throw new UnsupportedError(id, "channels() needs MATRIX data", file.dataOffset, "data");
  const nchan = file.meta.nchan;
  const [rows, cols] = tensor.shape as [number, number];
  let stride: number;
  let frames: number;
  if (cols === nchan) {
    stride = nchan;
    frames = rows;
  } else if (cols === 1 && rows % nchan === 0) {
    stride = nchan;
    frames = rows / nchan;
  } else {
    throw new CorruptDataError(id, `NCHAN ${nchan} does not fit DIM1 ${rows} x DIM2 ${cols}`, file.dataOffset, "NCHAN");
  }
  const ctor = tensor.data.constructor as { new (n: number): TypedArray };
  const out: TypedArray[] = [];
  for (let c = 0; c < nchan; c++) {
    const channel = new ctor(frames);
    for (let t = 0; t < frames; t++) (channel as Float64Array)[t] = (tensor.data as Float64Array)[t * stride + c]!;
    out.push(channel);
  }
  return { sampleFreq: file.meta.sampleFreq, channels: out };
}

// ------------------------------------------------------------------------------------------------ LIST helpers

/** The white-space separated fields of a LIST entry. */
export function listFields(entry: string): string[] {
  const trimmed = trimSpace(entry);
  return trimmed === "" ? [] : trimmed.split(/[ \t\r\v\f]+/);
}

/** A corpus / segmentation entry: FILENAME TRANSCRIPTION F1 F2 [OPT…], fields verbatim. */
export interface CorpusEntry {
  /** As written; "-" = the previous entry's file. */
  file: string;
  /** `file` with "-" replaced by the previous entry's file (corpusEntries()). */
  resolvedFile: string;
  transcription: string;
  f1: string;
  f2: string;
  extra: string[];
}

/** Splits one corpus/segmentation entry; undefined when it has fewer than 4 fields. */
export function corpusEntry(entry: string, previousFile = ""): CorpusEntry | undefined {
  const fields = listFields(entry);
  if (fields.length < 4) return undefined;
  const [file, transcription, f1, f2, ...extra] = fields as [string, string, string, string, ...string[]];
  return { file, resolvedFile: file === "-" ? previousFile : file, transcription, f1, f2, extra };
}

/** Every entry of a LIST file as a CorpusEntry ("-" resolved); entries with fewer than 4 fields are skipped. */
export function corpusEntries(file: SpraakFile): CorpusEntry[] {
  if (file.data.layout !== "LIST") return [];
  const out: CorpusEntry[] = [];
  let previous = "";
  for (const line of file.data.entries) {
    const entry = corpusEntry(line, previous);
    if (!entry) continue;
    previous = entry.resolvedFile;
    out.push(entry);
  }
  return out;
}

/** F1 F2 read as start frame and length in frames (TIMEBASE DISCRETE, the default); -1 = till the end. */
export function asStartLength(entry: CorpusEntry, fshift: number = PROVISIONAL.defaultFshift): { startFrame: number; frames: number | null; begin: number; end: number | null } {
  const startFrame = Number(entry.f1);
  const frames = entry.f2 === "-1" ? null : Number(entry.f2);
  return { startFrame, frames, begin: startFrame * fshift, end: frames === null ? null : (startFrame + frames) * fshift };
}

/** F1 F2 read as begin and end time in seconds (TIMEBASE CONTINUOUS); -1 = till the end. */
export function asBeginEnd(entry: CorpusEntry): { begin: number; end: number | null } {
  return { begin: Number(entry.f1), end: entry.f2 === "-1" ? null : Number(entry.f2) };
}

/** Begin and end in seconds by the file's TIMEBASE (DISCRETE: start/length frames x FSHIFT). */
export function entryTimes(file: SpraakFile, entry: CorpusEntry): { begin: number; end: number | null } {
  if (file.meta.timebase === "CONTINUOUS") return asBeginEnd(entry);
  const { begin, end } = asStartLength(entry, file.meta.fshift ?? PROVISIONAL.defaultFshift);
  return { begin, end };
}
// issue 15: replace tensors by name (patch)
export { replaceTensors } from "./spraak/patch.js";
