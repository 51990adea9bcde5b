/**
 * SPRAAK reading: magic detection, the header (.spr, key header, external keys), the data part (binary,
 * ASCII, LIST, CUSTOM; gzip around the file or COMPRESS gzip on the data) and the originals write() reuses.
 */
import { CorruptDataError, TruncatedError, UnsupportedError } from "../../bytes/errors.js";
import { ByteReader, type ByteRange } from "../../bytes/byte-reader.js";
import { asBytes, asSource, bytesOrUndefined, copyBytes } from "../../bytes/input.js";
import * as lazy from "../../io/lazy.js";
import type { ByteSource } from "../../io/source.js";
import { type TypedArray, bytesOf } from "../../tensor.js";
import { INTEGER_TOKEN, gunzip, isGzip, parseFloatToken } from "./codecs.js";
import { type HeaderKind, type HeaderLine, scanHeader } from "./header.js";
import {
  type KeyLocation,
  type SpraakData,
  type SpraakFile,
  type SpraakHeaderKind,
  type SpraakMeta,
  type SpraakReadOptions,
  type SpraakType,
  TYPE_INFO,
  describe,
  hasKey,
  id,
  mapKeyHeader,
  setKey,
} from "./model.js";
import { type TextEncoding, decodeText } from "./text.js";

export const MAGIC_SPR = ".spr";
export const MAGIC_KEY = ".key";
const DEFAULT_MAX_HEADER = 16 * 1024 * 1024;
const DEFAULT_MAX_INFLATED = 1024 * 1024 * 1024;

/** Originals of gzip/COMPRESS/ASCII data: reused by write() when nothing changed, so round trips are exact. */
export const packedOrigins = new WeakMap<object, { plain: Uint8Array; packed: Uint8Array }>();
export const textOrigins = new WeakMap<
  object,
  { text: Uint8Array; snapshot: Uint8Array; type: SpraakType; rows: number; cols: number }
>();

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
  return lazy.parseFrom(checked, id, (backing) =>
    withTextEncoding(options, (resolved) => parse(new ByteReader(backing, id), resolved, false, true)),
  );
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
    const parsed = scanHeader(r, kind as HeaderKind, {
      encoding: resolved.encoding,
      maxHeaderBytes: resolved.maxHeaderBytes,
    });
    ({ lines, offsets, endLine } = parsed);
  }
  const header: Record<string, string> = {};
  const location = new Map<string, number>(); // (keys from the file: "__proto__" is one too)
  lines.forEach((line, i) => {
    if (line.key === "") return;
    setKey(header, line.key, line.value);
    location.set(line.key, offsets[i]!);
  });
  const external = options.header ? copyRecord(options.header) : null;
  const { keys, from } = effectiveKeys(kind, header, external);
  const where = (key: string): KeyLocation => {
    const original = hasKey(from, key) ? from[key]! : key;
    if (hasKey(header, original)) return { offset: location.get(original), field: `header.${original}` };
    return { offset: undefined, field: `external header ${key}` };
  };
  const { meta } = describe(keys, kind, where, id);
  const dataOffset = r.pos;
  return {
    kind,
    magicLine,
    lines,
    endLine,
    header,
    external,
    gzip: false,
    encoding: resolved.encoding,
    keys,
    meta,
    dataOffset,
    data: readData(r, { encoding: resolved.encoding }, meta, eager, resolved),
  };
}

export function copyRecord(record: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record)) setKey(out, k, String(v));
  return out;
}

export function effectiveKeys(
  kind: SpraakHeaderKind,
  header: Record<string, string>,
  external: Record<string, string> | null,
): { keys: Record<string, string>; from: Record<string, string> } {
  const own = kind === "key" ? mapKeyHeader(header) : { keys: copyRecord(header), from: {} as Record<string, string> };
  if (!external) return own;
  const keys = copyRecord(external);
  if (kind === "key") {
    // FORMAT defaulted by the key-header mapping should not override an external FORMAT
    const explicitFormat =
      hasKey(header, "FORMAT") || hasKey(header, "ENDIAN") || (hasKey(own.keys, "TYPE") && own.keys.TYPE === "STRING");
    for (const [k, v] of Object.entries(own.keys))
      if (k !== "FORMAT" || explicitFormat || !hasKey(keys, "FORMAT")) setKey(keys, k, v);
  } else {
    for (const [k, v] of Object.entries(own.keys)) setKey(keys, k, v);
  }
  return { keys, from: own.from };
}

function readData(
  r: ByteReader,
  file: Pick<SpraakFile, "encoding">,
  meta: SpraakMeta,
  eager: boolean,
  resolved: Resolved,
): SpraakData {
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
  if (rows === -1 && cols === -1)
    throw new UnsupportedError(id, "DIM1 and DIM2 are both -1: the shape is unknown", r.pos, "DIM2");
  if (cols === -1) {
    const rowsBytes = rows * size;
    if (rowsBytes === 0 || available % rowsBytes !== 0) {
      throw new CorruptDataError(
        id,
        `DIM2 -1: ${available} data bytes are not a whole number of ${rows}-row columns of ${type}`,
        r.pos,
        "data",
      );
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
      const error = new TruncatedError(
        id,
        r.pos,
        "data",
        need > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(need),
        available,
      );
      const detail = `data is ${shortBy(need, available)}: ${label}, ${available} available`;
      Object.defineProperty(error, "detail", { value: detail });
      error.message = `${id}: ${detail} at offset ${r.pos} (0x${r.pos.toString(16)}) [data]`;
      throw error;
    }
    if (need < BigInt(available)) {
      throw new CorruptDataError(
        id,
        `${BigInt(available) - need} bytes after the data: ${label}, ${available} present`,
        r.pos + Number(need),
        "data",
      );
    }
  }
  const length = rows * rowBytes;
  const bytes = r.payload(length, keepBytes, "data");
  if (r.remaining > 0) trailing = r.payload(r.remaining, keepBytes, "data.trailing");
  return {
    layout: "MATRIX",
    encoding: "binary",
    type,
    rows,
    cols,
    byteOrder: meta.format === "BIN10" ? "be" : "le",
    bytes,
    trailing,
  };
}

type ArrayCtor = { new (length: number): TypedArray };
export const CTORS: Record<SpraakType, ArrayCtor> = {
  I8: Int8Array,
  U8: Uint8Array,
  I16: Int16Array,
  U16: Uint16Array,
  I32: Int32Array,
  U32: Uint32Array,
  I64: BigInt64Array,
  U64: BigUint64Array,
  F32: Float32Array,
  F64: Float64Array,
  ALAW: Uint8Array,
  ULAW: Uint8Array,
};
const INT_RANGES: Partial<Record<SpraakType, [bigint, bigint]>> = {
  I8: [-128n, 127n],
  U8: [0n, 255n],
  ALAW: [0n, 255n],
  ULAW: [0n, 255n],
  I16: [-32768n, 32767n],
  U16: [0n, 65535n],
  I32: [-2147483648n, 2147483647n],
  U32: [0n, 4294967295n],
  I64: [-(2n ** 63n), 2n ** 63n - 1n],
  U64: [0n, 2n ** 64n - 1n],
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
      throw new CorruptDataError(
        id,
        `DIM2 -1: ${tokens.length} ASCII values do not make DIM1 ${rows} whole rows`,
        start,
        "data",
      );
    }
  }
  if (rows === -1) {
    if (cols === 0 ? tokens.length > 0 : tokens.length % cols !== 0) {
      throw new CorruptDataError(
        id,
        `${tokens.length} ASCII values are not a whole number of ${cols}-value rows`,
        start,
        "data",
      );
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
    throw new CorruptDataError(
      id,
      `${tokens.length - expected} ASCII values after DIM1 ${rows} x DIM2 ${cols}`,
      start + positions[expected]!,
      "data",
    );
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
      if (!INTEGER_TOKEN.test(token))
        throw new CorruptDataError(id, `${JSON.stringify(token)} is not an integer`, at, `data[${i}]`);
      const v = BigInt(token);
      if (v < range![0] || v > range![1])
        throw new CorruptDataError(id, `${token} is out of range for ${type}`, at, `data[${i}]`);
      if (type === "I64" || type === "U64") (values as BigInt64Array)[i] = v;
      else (values as Int32Array)[i] = Number(v);
    }
  }
  const data: SpraakData = { layout: "MATRIX", encoding: "ascii", type, rows, cols, values };
  textOrigins.set(data, { text: raw, snapshot: copyBytes(bytesOf(values)), type, rows, cols });
  return data;
}
