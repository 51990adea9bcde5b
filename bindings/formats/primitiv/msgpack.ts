/**
 * The MessagePack subset primitiv's file code reads and writes, over ByteReader / ByteWriter (big-endian).
 *
 *   uint32  ce XXXXXXXX          (the only integer form: no fixint, uint8, uint16)
 *   float32 ca XXXXXXXX          (the only float form: no float64)
 *   str     a0-bf | d9 L | da LL | db LLLL, then the bytes
 *   bin     c4 L | c5 LL | c6 LLLL, then the bytes
 *   array   90-9f | dc NN | dd NNNN
 *   map     80-8f | de NN | df NNNN
 *
 * Readers accept every length form primitiv's reader accepts (a str16 holding 3 bytes is legal) and report
 * the non-minimal ones through `onLoose`; writers always emit the smallest form, as primitiv's writer does.
 * Strings are raw bytes in primitiv; we decode UTF-8 and keep every byte that is not valid UTF-8 as a lone
 * surrogate U+DC80..U+DCFF (Python's "surrogateescape"), so any key round-trips byte for byte.
 */
import { CorruptDataError, LimitError } from "../../bytes/errors.js";
import type { ByteReader } from "../../bytes/byte-reader.js";
import type { ByteWriter } from "../../bytes/byte-writer.js";

export const FORMAT = "primitiv";

/** Called for a length written in a wider form than needed (primitiv reads it; our writer would not emit it). */
export type LooseHandler = (offset: number, field: string, what: string) => void;

/** A readable name for a MessagePack type byte, for "expected …, found …" messages. */
export function describeTypeByte(b: number): string {
  const hex = `0x${b.toString(16).padStart(2, "0")}`;
  if (b <= 0x7f) return `positive fixint (${hex})`;
  if (b <= 0x8f) return `fixmap (${hex})`;
  if (b <= 0x9f) return `fixarray (${hex})`;
  if (b <= 0xbf) return `fixstr (${hex})`;
  if (b >= 0xe0) return `negative fixint (${hex})`;
  const names: Record<number, string> = {
    0xc0: "nil",
    0xc1: "never-used byte",
    0xc2: "false",
    0xc3: "true",
    0xc4: "bin8",
    0xc5: "bin16",
    0xc6: "bin32",
    0xc7: "ext8",
    0xc8: "ext16",
    0xc9: "ext32",
    0xca: "float32",
    0xcb: "float64",
    0xcc: "uint8",
    0xcd: "uint16",
    0xce: "uint32",
    0xcf: "uint64",
    0xd0: "int8",
    0xd1: "int16",
    0xd2: "int32",
    0xd3: "int64",
    0xd4: "fixext1",
    0xd5: "fixext2",
    0xd6: "fixext4",
    0xd7: "fixext8",
    0xd8: "fixext16",
    0xd9: "str8",
    0xda: "str16",
    0xdb: "str32",
    0xdc: "array16",
    0xdd: "array32",
    0xde: "map16",
    0xdf: "map32",
  };
  return `${names[b] ?? "type"} (${hex})`;
}

function wrongType(at: number, field: string, expected: string, found: number): CorruptDataError {
  return new CorruptDataError(FORMAT, `expected ${expected}, found ${describeTypeByte(found)}`, at, field);
}

/** A uint32 object (`ce` + 4 bytes BE). */
export function readUint32(r: ByteReader, field: string): number {
  const at = r.pos;
  const type = r.u8(field);
  if (type !== 0xce) throw wrongType(at, field, "uint32 (0xce)", type);
  return r.u32(field);
}

/** The raw bits of a float32 object (`ca` + 4 bytes BE). Bits, not a number, so NaN payloads survive. */
export function readFloat32Bits(r: ByteReader, field: string): number {
  const at = r.pos;
  const type = r.u8(field);
  if (type !== 0xca) throw wrongType(at, field, "float32 (0xca)", type);
  return r.u32(field);
}

/**
 * The length of a variable-size object: `fix` is the 3- or 4-bit short form's tag (mask `fixMask`),
 * `wide` the 8/16/32-bit forms' type bytes (undefined where the family has no 8-bit form).
 */
function readLength(
  r: ByteReader,
  field: string,
  what: string,
  expected: string,
  fixTag: number,
  fixMask: number,
  wide: readonly [number | undefined, number, number],
  onLoose?: LooseHandler,
): number {
  const at = r.pos;
  const type = r.u8(field);
  let length: number;
  let minimum: number;
  if (fixMask !== 0 && (type & ~fixMask & 0xff) === fixTag) {
    return type & fixMask;
  } else if (wide[0] !== undefined && type === wide[0]) {
    length = r.u8(field);
    minimum = fixMask === 0 ? 0 : fixMask + 1;
  } else if (type === wide[1]) {
    length = r.u16(field);
    minimum = wide[0] !== undefined ? 0x100 : fixMask + 1;
  } else if (type === wide[2]) {
    length = r.u32(field);
    minimum = 0x10000;
  } else {
    throw wrongType(at, field, expected, type);
  }
  if (length < minimum && onLoose)
    onLoose(at, field, `${what} of length ${length} in the ${describeTypeByte(type)} form`);
  return length;
}

export function readStrLength(r: ByteReader, field: string, onLoose?: LooseHandler): number {
  return readLength(r, field, "str", "str (0xa0-0xbf, 0xd9, 0xda or 0xdb)", 0xa0, 0x1f, [0xd9, 0xda, 0xdb], onLoose);
}

export function readBinLength(r: ByteReader, field: string, onLoose?: LooseHandler): number {
  return readLength(r, field, "bin", "bin (0xc4, 0xc5 or 0xc6)", 0, 0, [0xc4, 0xc5, 0xc6], onLoose);
}

export function readArrayLength(r: ByteReader, field: string, onLoose?: LooseHandler): number {
  return readLength(r, field, "array", "array (0x90-0x9f, 0xdc or 0xdd)", 0x90, 0x0f, [undefined, 0xdc, 0xdd], onLoose);
}

export function readMapLength(r: ByteReader, field: string, onLoose?: LooseHandler): number {
  return readLength(r, field, "map", "map (0x80-0x8f, 0xde or 0xdf)", 0x80, 0x0f, [undefined, 0xde, 0xdf], onLoose);
}

/** A str object as text (bytes that are not UTF-8 become U+DC80..U+DCFF, see decodeKeyBytes). */
export function readStr(r: ByteReader, field: string, onLoose?: LooseHandler): string {
  const length = readStrLength(r, field, onLoose);
  return decodeKeyBytes(r.bytesView(r.count(length, 1, field), field));
}

// ---------------------------------------------------------------------------------------------------------
// strings: UTF-8 with surrogate escapes

const strictDecoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** UTF-8 bytes to text; every byte that is not part of a valid sequence becomes U+DC00 + byte. Lossless. */
export function decodeKeyBytes(bytes: Uint8Array): string {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return decodeEscaping(bytes);
  }
}

function decodeEscaping(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let need = 0;
    let cp = 0;
    let min = 0;
    if (b < 0x80) {
      out += String.fromCharCode(b);
      i++;
      continue;
    } else if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      cp = b & 0x1f;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      cp = b & 0x0f;
      min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      cp = b & 0x07;
      min = 0x10000;
    }
    let ok = need > 0 && i + need < bytes.length;
    for (let k = 1; ok && k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || (c & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (c & 0x3f);
    }
    if (ok && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) ok = false;
    if (ok) {
      out += String.fromCodePoint(cp);
      i += need + 1;
    } else {
      out += String.fromCharCode(0xdc00 + b);
      i++;
    }
  }
  return out;
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** True when `text` holds escaped (non-UTF-8) bytes. */
export function hasEscapedBytes(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/** The inverse of decodeKeyBytes. A lone surrogate outside U+DC80..U+DCFF cannot be written: CORRUPT. */
export function encodeKey(text: string, field: string): Uint8Array {
  if (!LONE_SURROGATE.test(text)) return encoder.encode(text);
  const parts: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xdc80 && cp <= 0xdcff) {
      parts.push(cp - 0xdc00);
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      throw new CorruptDataError(
        FORMAT,
        `key ${JSON.stringify(text)} holds a lone surrogate U+${cp.toString(16).toUpperCase()}`,
        undefined,
        field,
      );
    } else {
      for (const byte of encoder.encode(ch)) parts.push(byte);
    }
  }
  return Uint8Array.from(parts);
}

// ---------------------------------------------------------------------------------------------------------
// writing (always the smallest form, big-endian)

const MAX_U32 = 0xffffffff;

function checkU32(value: number, field: string): void {
  if (!Number.isInteger(value) || value < 0 || value > MAX_U32) {
    throw new LimitError(FORMAT, `${String(value)} is not a uint32`, undefined, field, value, MAX_U32);
  }
}

export function uint32Size(): number {
  return 5;
}

export function writeUint32(w: ByteWriter, value: number, field: string): void {
  checkU32(value, field);
  w.u8(0xce).u32(value);
}

export function writeFloat32Bits(w: ByteWriter, bits: number): void {
  w.u8(0xca).u32(bits >>> 0);
}

export function strHeaderSize(length: number): number {
  return length < 32 ? 1 : length < 0x100 ? 2 : length < 0x10000 ? 3 : 5;
}

export function writeStrHeader(w: ByteWriter, length: number, field: string): void {
  checkU32(length, field);
  if (length < 32) w.u8(0xa0 | length);
  else if (length < 0x100) w.u8(0xd9).u8(length);
  else if (length < 0x10000) w.u8(0xda).u16(length);
  else w.u8(0xdb).u32(length);
}

export function binHeaderSize(length: number): number {
  return length < 0x100 ? 2 : length < 0x10000 ? 3 : 5;
}

export function writeBinHeader(w: ByteWriter, length: number, field: string): void {
  checkU32(length, field);
  if (length < 0x100) w.u8(0xc4).u8(length);
  else if (length < 0x10000) w.u8(0xc5).u16(length);
  else w.u8(0xc6).u32(length);
}

/** Array and map headers have the same widths. */
export function containerHeaderSize(count: number): number {
  return count < 16 ? 1 : count < 0x10000 ? 3 : 5;
}

export function writeArrayHeader(w: ByteWriter, count: number, field: string): void {
  checkU32(count, field);
  if (count < 16) w.u8(0x90 | count);
  else if (count < 0x10000) w.u8(0xdc).u16(count);
  else w.u8(0xdd).u32(count);
}

export function writeMapHeader(w: ByteWriter, count: number, field: string): void {
  checkU32(count, field);
  if (count < 16) w.u8(0x80 | count);
  else if (count < 0x10000) w.u8(0xde).u16(count);
  else w.u8(0xdf).u32(count);
}
