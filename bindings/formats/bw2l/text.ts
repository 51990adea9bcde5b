/**
 * Lossless text for BW2L strings. The reference never validates UTF-8, so a name, key, value or utf8 section
 * may hold any bytes. We decode valid UTF-8 as usual (a leading BOM is kept, not swallowed) and turn each byte
 * that is not part of a valid sequence into the lone surrogate U+DC00 + byte (Python's "surrogateescape").
 * Valid UTF-8 never decodes to a lone surrogate, so encodeText() restores the exact bytes.
 */

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/** A lone low surrogate in U+DC80..U+DCFF: an escaped invalid byte. */
const ESCAPED_BYTE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;

/** Length of the valid UTF-8 sequence starting at bytes[i], or 0 when there is none. */
function validSequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => {
    const b = bytes[i + k];
    return b !== undefined && b >= lo && b <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xe1 && b0 <= 0xec) || b0 === 0xee || b0 === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0; // no UTF-16 surrogates
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** The text of `bytes`; bytes that are not valid UTF-8 become U+DC80..U+DCFF (see encodeText). */
export function decodeText(bytes: Uint8Array): string {
  if (bytes.length === 0) return "";
  try {
    return strictDecoder.decode(bytes);
  } catch {
    // fall through to the escaping decoder
  }
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const n = validSequenceLength(bytes, i);
    if (n === 0) {
      out += String.fromCharCode(0xdc00 + bytes[i]!);
      i += 1;
    } else {
      out += strictDecoder.decode(bytes.subarray(i, i + n));
      i += n;
    }
  }
  return out;
}

/** True when `text` carries bytes that were not valid UTF-8 (escaped by decodeText). */
export function hasEscapedBytes(text: string): boolean {
  return ESCAPED_BYTE.test(text);
}

/** The bytes of `text`: UTF-8, with the escapes made by decodeText turned back into their bytes. */
export function encodeText(text: string): Uint8Array {
  if (!hasEscapedBytes(text)) return encoder.encode(text);
  const parts: number[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xdc80 && code <= 0xdcff) parts.push(code - 0xdc00);
    else for (const b of encoder.encode(ch)) parts.push(b);
  }
  return Uint8Array.from(parts);
}
