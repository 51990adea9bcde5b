/**
 * The .npy parser (NumPy format versions 1.0, 2.0, 3.0), shared by npy (a whole file) and npz (each member):
 *
 *   magic "\x93NUMPY" | major u8 (1, 2, 3) | minor u8 (0) | header_len u16 LE (1.0) or u32 LE (2.0, 3.0) |
 *   header: a Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } then spaces and "\n"
 *           (latin-1; UTF-8 in 3.0), so that magic + lengths + header is a multiple of 64 (16 before numpy 1.14) |
 *   data: product(shape) elements of descr, C order or (fortran_order) column-major, nothing after them.
 */
import {
  CorruptDataError,
  LimitError,
  TruncatedError,
  UnsupportedError,
  UnsupportedVersionError,
} from "../../bytes/errors.js";
import type { ByteRange, ByteReader } from "../../bytes/byte-reader.js";
import { decodeLatin1 } from "../../bytes/byte-reader.js";
import { copyBytes } from "../../bytes/input.js";
import type { DType } from "../../tensor.js";

export const MAGIC = Uint8Array.of(0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59);
export const SUPPORTED_MAJOR = [1, 2, 3] as const;
/** Headers longer than this are refused (numpy's own default limit is 10,000 bytes). */
export const MAX_HEADER_BYTES = 1 << 20;
/** The column-major to row-major kernel reorders at most this many axes longer than 1. */
export const MAX_FORTRAN_AXES = 8;

/** The `.npy` format versions read. */
export type NpyVersion = "1.0" | "2.0" | "3.0";

/** One `.npy` array: its header's fields and its data. */
export interface NpyArray {
  /** The format version. */
  version: NpyVersion;
  /** The header text exactly as stored, from "{" through the padding and the final "\n". */
  header: string;
  /** The dtype string as stored, e.g. "<f4", ">i8", "|b1". */
  descr: string;
  /** `fortran_order`: true when the data is column-major. */
  fortranOrder: boolean;
  /** The array's shape. */
  shape: number[];
  /** The data (read: a view of the input or a copy) or, after readFrom(), its absolute range. */
  data: Uint8Array | ByteRange;
}

/** What a descr means: the tensorfile dtype and the byte order of the stored elements. */
export interface DescrInfo {
  dtype: DType;
  byteOrder: "le" | "be";
  /** True when the descr names no byte order for a multi-byte type ("=" or none: numpy's native, read as little). */
  nativeOrder: boolean;
}

const KINDS: Record<string, DType> = {
  b1: "bool",
  i1: "int8",
  u1: "uint8",
  i2: "int16",
  u2: "uint16",
  i4: "int32",
  u4: "uint32",
  i8: "int64",
  u8: "uint64",
  f2: "float16",
  f4: "float32",
  f8: "float64",
  c8: "complex64",
  c16: "complex128",
  S1: "char8",
  // raw void types: what writeNpy emits for dtypes numpy has no name for
  V1: "unknown8",
  V2: "unknown16",
  V4: "unknown32",
  V8: "unknown64",
  V16: "unknown128",
};

/** The dtype a descr string stands for, or undefined for one tensorfile does not read. */
export function descrInfo(descr: string): DescrInfo | undefined {
  const match = /^([<>|=]?)([a-zA-Z]\d+)$/.exec(descr);
  if (!match) return undefined;
  const dtype = KINDS[match[2]!];
  if (!dtype) return undefined;
  const order = match[1]!;
  const singleByte = /^[biuSV]1$/.test(match[2]!) || match[2]!.startsWith("V");
  return {
    dtype,
    byteOrder: order === ">" && !singleByte ? "be" : "le",
    nativeOrder: !singleByte && (order === "=" || order === ""),
  };
}

/** The descr kinds tensorfile reads, for messages. */
export const KNOWN_DESCRS = "b1 i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8 c8 c16 S1 V1 V2 V4 V8 V16 (with <, > or |)";

export interface ParseOptions {
  eager: boolean;
  copy: boolean;
  /**
   * Header only: the whole .npy is this many bytes, of which the reader holds the start (an npz member being
   * inflated lazily). The data is checked against this size and returned as its range (relative to the .npy).
   */
  declaredSize?: number | undefined;
}

/** A Python literal value of the header dict: a string, a bool, an int or a tuple of ints. */
type Literal =
  | { kind: "string"; value: string; offset: number }
  | { kind: "bool"; value: boolean; offset: number }
  | { kind: "int"; value: number; offset: number }
  | { kind: "tuple"; items: { value: number; offset: number }[]; offset: number };

/** Parses the dict literal of `bytes` (absolute offset `base`); `text` decodes string contents. */
function parseDict(
  bytes: Uint8Array,
  base: number,
  format: string,
  field: string,
  text: (b: Uint8Array) => string | undefined,
): { entries: Map<string, Literal>; end: number } {
  let pos = 0;
  const fail = (detail: string, at = pos): never => {
    throw new CorruptDataError(format, `header: ${detail}`, base + at, field);
  };
  const shown = (at: number) =>
    at >= bytes.length
      ? "the end of the header"
      : bytes[at]! >= 0x21 && bytes[at]! < 0x7f
        ? `"${String.fromCharCode(bytes[at]!)}"`
        : `byte 0x${bytes[at]!.toString(16).padStart(2, "0")}`;
  const space = () => {
    while (
      pos < bytes.length &&
      (bytes[pos] === 0x20 || bytes[pos] === 0x09 || bytes[pos] === 0x0a || bytes[pos] === 0x0d)
    )
      pos++;
  };
  const string = (): Literal => {
    const start = pos;
    const quote = bytes[pos]!;
    pos++;
    while (pos < bytes.length && bytes[pos] !== quote) {
      if (bytes[pos] === 0x5c) fail("escapes in header strings are not supported");
      if (bytes[pos] === 0x0a) fail("a string is not closed", start);
      pos++;
    }
    if (pos >= bytes.length) fail("a string is not closed", start);
    const value = text(bytes.subarray(start + 1, pos));
    if (value === undefined) fail("a string is not valid UTF-8 (a version 3.0 header is UTF-8)", start + 1);
    pos++;
    return { kind: "string", value: value!, offset: base + start };
  };
  const integer = (): { value: number; offset: number } => {
    const start = pos;
    if (bytes[pos] === 0x2d) fail("a negative dimension");
    while (pos < bytes.length && bytes[pos]! >= 0x30 && bytes[pos]! <= 0x39) pos++;
    if (pos === start) fail(`expected a whole number, found ${shown(pos)}`);
    const digits = String.fromCharCode(...bytes.subarray(start, Math.min(pos, start + 32)));
    if (digits.length > 1 && digits.startsWith("0")) fail(`${digits} is not a Python int (leading zero)`, start);
    const value = Number(digits);
    if (pos - start > 16 || !Number.isSafeInteger(value)) {
      throw new LimitError(
        format,
        `dimension ${digits}${pos - start > 32 ? "…" : ""} is larger than 2^53 - 1`,
        base + start,
        field,
      );
    }
    return { value, offset: base + start };
  };
  const value = (key: string): Literal => {
    space();
    const b = bytes[pos];
    if (b === 0x27 || b === 0x22) return string();
    if (b === 0x28) {
      const start = pos;
      pos++;
      const items: { value: number; offset: number }[] = [];
      space();
      let comma = false;
      while (bytes[pos] !== 0x29) {
        items.push(integer());
        space();
        comma = bytes[pos] === 0x2c;
        if (comma) {
          pos++;
          space();
        } else if (bytes[pos] !== 0x29) fail(`expected "," or ")" in the shape, found ${shown(pos)}`);
      }
      pos++;
      // (3) is the number 3 in Python, not a tuple
      if (items.length === 1 && !comma) fail("a one-element tuple needs a trailing comma: (n,)", start);
      return { kind: "tuple", items, offset: base + start };
    }
    for (const [word, v] of [
      ["True", true],
      ["False", false],
    ] as const) {
      if (word.split("").every((c, k) => bytes[pos + k] === c.charCodeAt(0))) {
        const start = pos;
        pos += word.length;
        return { kind: "bool", value: v, offset: base + start };
      }
    }
    if (b !== undefined && b >= 0x30 && b <= 0x39) {
      const n = integer();
      return { kind: "int", value: n.value, offset: n.offset };
    }
    if (b === 0x5b && key === "descr")
      throw new UnsupportedError(
        format,
        "a structured dtype (a list descr) is not read by tensorfile",
        base + pos,
        `${field}.descr`,
      );
    if (b === 0x5b) return fail(`'${key}' cannot be a list`);
    return fail(`unexpected ${shown(pos)} where a value should start`);
  };

  space();
  if (bytes[pos] !== 0x7b) fail(`the header must be a dict literal starting with "{", found ${shown(pos)}`);
  pos++;
  const entries = new Map<string, Literal>();
  for (;;) {
    space();
    if (bytes[pos] === 0x7d) break;
    if (bytes[pos] !== 0x27 && bytes[pos] !== 0x22) fail(`expected a key (a string) or "}", found ${shown(pos)}`);
    const keyAt = pos;
    const key = (string() as { value: string }).value;
    if (entries.has(key)) fail(`the key '${key}' appears twice`, keyAt);
    space();
    if (bytes[pos] !== 0x3a) fail(`expected ":" after '${key}', found ${shown(pos)}`);
    pos++;
    entries.set(key, value(key));
    space();
    if (bytes[pos] === 0x2c) {
      pos++;
      continue;
    }
    if (bytes[pos] !== 0x7d) fail(`expected "," or "}", found ${shown(pos)}`);
  }
  pos++;
  return { entries, end: pos };
}

/**
 * Parses one .npy at the reader's position (its magic) to the end of the reader (the data must fill it
 * exactly). `name` labels errors' fields (npz: the member).
 */
export function parseNpy(r: ByteReader, options: ParseOptions, field = ""): NpyArray {
  const at = (f: string) => (field ? `${field}.${f}` : f);
  const format = r.format;
  const start = r.pos;
  r.magic(MAGIC, at("magic"));
  const versionAt = r.pos;
  const major = r.version(r.u8(at("version.major")), SUPPORTED_MAJOR, versionAt, at("version.major"));
  const minorAt = r.pos;
  const minor = r.u8(at("version.minor"));
  if (minor !== 0)
    throw new UnsupportedVersionError(format, minorAt, at("version.minor"), `${major}.${minor}`, ["1.0", "2.0", "3.0"]);
  const lengthAt = r.pos;
  const headerLength = major === 1 ? r.u16(at("header_len")) : r.u32(at("header_len"));
  if (headerLength > MAX_HEADER_BYTES) {
    throw new LimitError(
      format,
      `header_len ${headerLength} is over the ${MAX_HEADER_BYTES}-byte limit`,
      lengthAt,
      at("header_len"),
      headerLength,
      MAX_HEADER_BYTES,
    );
  }
  const headerAt = r.pos;
  const bytes = r.bytesView(headerLength, at("header"));
  const decode = major === 3 ? decodeUtf8 : decodeLatin1;
  const { entries, end } = parseDict(bytes, headerAt, format, at("header"), decode);
  // after the dict: spaces, then the final newline
  for (let k = end; k < bytes.length - 1; k++) {
    if (bytes[k] !== 0x20)
      throw new CorruptDataError(
        format,
        `header: only spaces may pad the dict, found byte 0x${bytes[k]!.toString(16).padStart(2, "0")}`,
        headerAt + k,
        at("header.padding"),
      );
  }
  if (bytes.length === 0 || bytes[bytes.length - 1] !== 0x0a || end > bytes.length - 1) {
    throw new CorruptDataError(
      format,
      'header: the header must end with "\\n" after the dict',
      headerAt + Math.max(0, bytes.length - 1),
      at("header.padding"),
    );
  }
  if ((r.pos - start) % 16 !== 0) {
    throw new CorruptDataError(
      format,
      `header: magic, lengths and header take ${r.pos - start} bytes, not a multiple of 64 (or 16, as numpy wrote before 1.14)`,
      headerAt + bytes.length - 1,
      at("header.padding"),
    );
  }
  const keys = [...entries.keys()];
  const expected = ["descr", "fortran_order", "shape"];
  const missing = expected.filter((k) => !entries.has(k));
  const extra = keys.filter((k) => !expected.includes(k));
  if (missing.length > 0 || extra.length > 0) {
    const what = [
      missing.length > 0 ? `no ${missing.map((k) => `'${k}'`).join(", ")}` : "",
      extra.length > 0 ? `unexpected ${extra.map((k) => `'${k}'`).join(", ")}` : "",
    ]
      .filter(Boolean)
      .join("; ");
    throw new CorruptDataError(
      format,
      `header: the dict must have exactly 'descr', 'fortran_order' and 'shape' (${what})`,
      headerAt,
      at("header"),
    );
  }
  const descrValue = entries.get("descr")!;
  if (descrValue.kind !== "string")
    throw new CorruptDataError(format, `header: 'descr' must be a string`, descrValue.offset, at("header.descr"));
  const descr = descrValue.value;
  const info = descrInfo(descr);
  if (!info)
    throw new UnsupportedError(
      format,
      `descr '${descr}' is not read by tensorfile (it reads ${KNOWN_DESCRS})`,
      descrValue.offset,
      at("header.descr"),
    );
  const fortranValue = entries.get("fortran_order")!;
  if (fortranValue.kind !== "bool")
    throw new CorruptDataError(
      format,
      "header: 'fortran_order' must be True or False",
      fortranValue.offset,
      at("header.fortran_order"),
    );
  const shapeValue = entries.get("shape")!;
  if (shapeValue.kind !== "tuple")
    throw new CorruptDataError(
      format,
      "header: 'shape' must be a tuple of whole numbers",
      shapeValue.offset,
      at("header.shape"),
    );
  const shape = shapeValue.items.map((d) => d.value);
  const fortranOrder = fortranValue.value;
  // the reorder kernel takes 8 axes longer than 1; elements wider than 8 bytes use one of them for their lanes
  const maxAxes = itemBytes(descr) > 8 ? MAX_FORTRAN_AXES - 1 : MAX_FORTRAN_AXES;
  if (fortranOrder && shape.filter((d) => d > 1).length > maxAxes) {
    throw new UnsupportedError(
      format,
      `a Fortran-order array with ${shape.filter((d) => d > 1).length} axes longer than 1; at most ${maxAxes} can be reordered`,
      shapeValue.offset,
      at("header.shape"),
    );
  }
  const header = decode(bytes);
  if (header === undefined)
    throw new CorruptDataError(format, "a version 3.0 header must be UTF-8", headerAt, at("header"));

  // the data fills the rest exactly: elements x itemsize, multiplied step by step (no overflow)
  const itemSize = itemBytes(descr);
  const dataAt = r.pos;
  const headerOnly = options.declaredSize !== undefined;
  const available = headerOnly ? Math.max(0, options.declaredSize! - (dataAt - start)) : r.remaining;
  let need = itemSize;
  if (shape.includes(0)) need = 0;
  else for (const d of shape) if ((need *= d) > available) break;
  if (need > available) {
    const total = shape.reduce((a, d) => a * d, itemSize);
    throw new TruncatedError(
      format,
      dataAt,
      at("data"),
      Number.isSafeInteger(total) ? total : Number.MAX_SAFE_INTEGER,
      available,
    );
  }
  if (need < available) {
    throw new CorruptDataError(
      format,
      `${available - need} bytes after the data (${descr} [${shape.join(", ")}] is ${need} bytes)`,
      dataAt + need,
      at("data"),
    );
  }
  let data: NpyArray["data"];
  if (headerOnly) data = { byteOffset: dataAt - start, byteLength: need };
  else if (options.eager) {
    const view = r.bytesView(need, at("data"));
    data = options.copy ? copyBytes(view) : view;
  } else data = r.range(need, at("data"));
  return { version: `${major}.0` as NpyVersion, header, descr, fortranOrder, shape, data };
}

/** Bytes per element of a descr tensorfile reads. */
export function itemBytes(descr: string): number {
  const size = /(\d+)$/.exec(descr);
  return size ? Number(size[1]) : 0;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** UTF-8 text, or undefined when the bytes are not valid UTF-8. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The bytes of a header string as stored (latin-1 for 1.0 and 2.0, UTF-8 for 3.0). */
export function encodeHeader(header: string, version: NpyVersion): Uint8Array {
  if (version === "3.0") return new TextEncoder().encode(header);
  const out = new Uint8Array(header.length);
  for (let i = 0; i < header.length; i++) {
    const c = header.charCodeAt(i);
    if (c > 0xff)
      throw new RangeError(
        `npy: a version ${version} header is latin-1; character U+${c.toString(16)} needs version 3.0`,
      );
    out[i] = c;
  }
  return out;
}

/** The whole .npy again: magic, version, header_len, header as stored, data. */
export function writeNpyArray(array: NpyArray): Uint8Array {
  if (!(array.data instanceof Uint8Array))
    throw new TypeError("npy: the data is not loaded (a readFrom() result); write() needs read()");
  const header = encodeHeader(array.header, array.version);
  const prefix = array.version === "1.0" ? 10 : 12;
  if (array.version === "1.0" && header.length > 0xffff)
    throw new RangeError("npy: a version 1.0 header is at most 65535 bytes");
  const out = new Uint8Array(prefix + header.length + array.data.byteLength);
  out.set(MAGIC);
  out[6] = Number(array.version[0]);
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (prefix === 10) view.setUint16(8, header.length, true);
  else view.setUint32(8, header.length, true);
  out.set(header, prefix);
  out.set(array.data, prefix + header.length);
  return out;
}
