/**
 * Byte-exact text for SPRAAK headers and LIST data. "latin1" here is ISO-8859-1 (one byte = one code point,
 * so every byte string round-trips), not the WHATWG "latin1" label, which is windows-1252.
 */
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import { decodeLatin1 } from "../../bytes/byte-reader.js";

/** The text encoding of a header and LIST data: latin-1 (byte-exact, the default) or UTF-8. */
export type TextEncoding = "latin1" | "utf-8";

const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

export function decodeText(
  bytes: Uint8Array,
  encoding: TextEncoding,
  format: string,
  offset: number,
  field: string,
): string {
  if (encoding === "utf-8") {
    try {
      return utf8Decoder.decode(bytes);
    } catch (cause) {
      throw new CorruptDataError(format, "invalid UTF-8 (read with encoding latin1 to keep the bytes)", offset, field, {
        cause,
      });
    }
  }
  return decodeLatin1(bytes);
}

export function encodeText(text: string, encoding: TextEncoding, format: string, field: string): Uint8Array {
  if (encoding === "utf-8") return utf8Encoder.encode(text);
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0xff) {
      throw new UnsupportedError(
        format,
        `character U+${c.toString(16).padStart(4, "0")} cannot be written as latin1 (use encoding "utf-8")`,
        undefined,
        field,
      );
    }
    out[i] = c;
  }
  return out;
}

/** SPRAAK white space inside a line: space, TAB, and the CR/VT/FF a line may carry. */
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0b || c === 0x0c;
}

export function isSpaceChar(ch: string): boolean {
  return isSpace(ch.charCodeAt(0));
}

export function trimSpace(text: string): string {
  let a = 0;
  let b = text.length;
  while (a < b && isSpace(text.charCodeAt(a))) a++;
  while (b > a && isSpace(text.charCodeAt(b - 1))) b--;
  return text.slice(a, b);
}
