/**
 * Codecs SPRAAK data goes through: gzip (whole-file wrapper and `COMPRESS gzip` on the data part, via fflate),
 * G.711 A-law / µ-law (TYPE ALAW / ULAW), and the decimal text of `FORMAT ASCII` matrices.
 *
 * gzip member: 1F 8B 08 FLG MTIME(4) XFL OS [XLEN(2) extra] [name\0] [comment\0] [CRC16(2)] deflate CRC32(4) ISIZE(4)
 * gzip stream: one or more members back to back (RFC 1952 2.2; `gzip` and Python read them all, concatenated)
 */
import { Gunzip, Inflate, gzipSync } from "fflate";
import { CorruptDataError, LimitError, TruncatedError, UnsupportedError } from "../../bytes/errors.js";
import { concatBytes } from "../../bytes/input.js";

export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

let crcTable: Uint32Array | undefined;
function crc32(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Deflate cannot expand data by more than about 1032:1; a larger ISIZE is a lie. */
const MAX_DEFLATE_RATIO = 1032;

/**
 * Decompresses a gzip stream of one or more members (RFC 1952: their data concatenated) that spans all of
 * `bytes` (at absolute offset `base` in the file). Checks each member's header, CRC32 and ISIZE; never produces
 * more than `maxBytes` in all (LIMIT) or more than deflate can expand to.
 */
export function gunzip(bytes: Uint8Array, base: number, format: string, field: string, maxBytes: number): Uint8Array {
  const { starts, total: inflated } = memberStarts(bytes, base, format, field, maxBytes);
  if (inflated !== undefined) {
    // the scan knows the size: one output array, each member inflated straight into its place
    const out = new Uint8Array(inflated);
    let at = 0;
    for (let k = 0; k < starts.length; k++) {
      const start = starts[k]!;
      const end = starts[k + 1] ?? bytes.length;
      const name = starts.length === 1 ? field : `${field}.member${k}`;
      at += gunzipMember(bytes.subarray(start, end), base + start, format, name, maxBytes - at, { out, at }).length;
    }
    if (at !== inflated)
      throw new CorruptDataError(
        format,
        `gzip members inflate to ${at} bytes, not the ${inflated} of the first pass`,
        base,
        field,
      );
    return out;
  }
  if (starts.length === 1) return gunzipMember(bytes, base, format, field, maxBytes);
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let k = 0; k < starts.length; k++) {
    const start = starts[k]!;
    const end = starts[k + 1] ?? bytes.length;
    const part = gunzipMember(
      bytes.subarray(start, end),
      base + start,
      format,
      `${field}.member${k}`,
      maxBytes - total,
    );
    total += part.length;
    parts.push(part);
  }
  return concatBytes(parts);
}

/**
 * Where each member of a gzip stream starts (a first pass that counts, and drops, what they inflate to: a bomb
 * stops at `maxBytes` with LIMIT). The members are then checked one by one, strictly, by gunzipMember.
 */
function memberStarts(
  bytes: Uint8Array,
  base: number,
  format: string,
  field: string,
  maxBytes: number,
): { starts: number[]; total?: number } {
  const starts = [0];
  let total = 0;
  const scanner = new Gunzip((chunk) => {
    total += chunk.length;
    if (total > maxBytes) {
      throw new LimitError(
        format,
        `gzip data inflates to more than maxInflatedBytes ${maxBytes} (all members together)`,
        base,
        `${field}`,
        total,
        maxBytes,
      );
    }
  });
  scanner.onmember = (offset) => {
    starts.push(offset);
  };
  const SLICE = 64 * 1024;
  try {
    for (let p = 0; p < bytes.length; p += SLICE) {
      const end = Math.min(bytes.length, p + SLICE);
      scanner.push(bytes.subarray(p, end), end === bytes.length);
    }
  } catch (cause) {
    if (cause instanceof LimitError) throw cause;
    // not a clean stream of members: the strict per-member pass says what is wrong, and where
    return { starts };
  }
  return { starts: starts.filter((s) => s < bytes.length), total };
}

/**
 * Decompresses one gzip member that spans all of `bytes` (at absolute offset `base` in the file). Checks the
 * header, the CRC32 and ISIZE; never produces more than `maxBytes` (LIMIT) or more than deflate can expand to.
 */
function gunzipMember(
  bytes: Uint8Array,
  base: number,
  format: string,
  field: string,
  maxBytes: number,
  into?: { out: Uint8Array; at: number },
): Uint8Array {
  const need = (n: number, at: number, what: string): void => {
    if (at + n > bytes.length)
      throw new TruncatedError(format, base + at, `${field}.${what}`, n, Math.max(0, bytes.length - at));
  };
  need(10, 0, "header");
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) throw new CorruptDataError(format, "not a gzip stream", base, field);
  if (bytes[2] !== 8)
    throw new UnsupportedError(
      format,
      `gzip compression method ${bytes[2]} (only deflate, 8)`,
      base + 2,
      `${field}.method`,
    );
  const flags = bytes[3]!;
  if (flags & 0xe0)
    throw new CorruptDataError(
      format,
      `reserved gzip flag bits set (0x${flags.toString(16)})`,
      base + 3,
      `${field}.flags`,
    );
  let at = 10;
  if (flags & 4) {
    need(2, at, "extra.length");
    const xlen = bytes[at]! | (bytes[at + 1]! << 8);
    need(2 + xlen, at, "extra");
    at += 2 + xlen;
  }
  for (const bit of [8, 16]) {
    if (flags & bit) {
      const zero = bytes.indexOf(0, at);
      if (zero < 0)
        throw new TruncatedError(format, base + bytes.length, `${field}.${bit === 8 ? "name" : "comment"}`, 1, 0);
      at = zero + 1;
    }
  }
  if (flags & 2) {
    need(2, at, "headerCrc");
    at += 2;
  }
  need(8, at, "trailer");
  const trailer = bytes.length - 8;
  // a deflate stream is at least 2 bytes (an empty final block); fflate accepts an empty input silently
  if (trailer - at < 2)
    throw new TruncatedError(format, base + bytes.length, `${field}.deflate`, at + 10 - bytes.length, 0);
  // Inflate in input slices so that output is counted as it grows (a bomb stops at the cap, not in memory);
  // ISIZE is only compared afterwards, so a cut stream says TRUNCATED rather than trusting a garbage trailer.
  const cap = Math.min(maxBytes, (trailer - at) * MAX_DEFLATE_RATIO + 1024);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const inflater = new Inflate((chunk) => {
    total += chunk.length;
    if (total > cap) {
      if (cap === maxBytes) {
        throw new LimitError(
          format,
          `gzip data inflates to more than maxInflatedBytes ${maxBytes}`,
          base + at,
          `${field}.deflate`,
          total,
          maxBytes,
        );
      }
      throw new CorruptDataError(
        format,
        `gzip data inflates past ${cap} bytes (impossible for ${trailer - at} compressed bytes)`,
        base + at,
        `${field}.deflate`,
      );
    }
    if (into) {
      if (into.at + total > into.out.length)
        throw new CorruptDataError(
          format,
          "gzip data inflates to more than its first pass found",
          base + at,
          `${field}.deflate`,
        );
      into.out.set(chunk, into.at + total - chunk.length);
    } else chunks.push(chunk);
  });
  const SLICE = 64 * 1024;
  try {
    for (let p = at; p < trailer || p === at; p += SLICE) {
      const end = Math.min(trailer, p + SLICE);
      inflater.push(bytes.subarray(p, end), end === trailer);
      if (end === trailer) break;
    }
  } catch (cause) {
    if (cause instanceof LimitError || cause instanceof CorruptDataError) throw cause;
    const code = (cause as { code?: number }).code;
    if (code === 0)
      throw new TruncatedError(format, base + trailer, `${field}.deflate (the stream is cut short)`, 1, 0);
    throw new CorruptDataError(format, `gzip: ${(cause as Error).message}`, base + at, `${field}.deflate`, { cause });
  }
  const out = into
    ? into.out.subarray(into.at, into.at + total)
    : chunks.length === 1
      ? chunks[0]!
      : new Uint8Array(total);
  if (!into && chunks.length !== 1) {
    let o = 0;
    for (const c of chunks) {
      out.set(c, o);
      o += c.length;
    }
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset + trailer, 8);
  const expectedCrc = view.getUint32(0, true);
  const size = view.getUint32(4, true);
  if (out.length % 2 ** 32 !== size) {
    throw new CorruptDataError(
      format,
      `gzip data inflates to ${out.length} bytes, ISIZE says ${size}`,
      base + trailer + 4,
      `${field}.isize`,
    );
  }
  const crc = crc32(out);
  if (crc !== expectedCrc) {
    throw new CorruptDataError(
      format,
      `gzip CRC32 mismatch (0x${crc.toString(16)} computed, 0x${expectedCrc.toString(16)} stored)`,
      base + trailer,
      `${field}.crc32`,
    );
  }
  return out;
}

/** gzip with a zero MTIME, so the same input always gives the same bytes. */
export function gzip(bytes: Uint8Array): Uint8Array {
  return gzipSync(bytes, { mtime: 0, level: 6 });
}

// ---------------------------------------------------------------- G.711

/** µ-law code to 16-bit linear (±32124). */
function ulawToLinear(code: number): number {
  const u = ~code & 0xff;
  const t = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 7)) - 0x84;
  return u & 0x80 ? -t : t;
}

/** A-law code to 16-bit linear (±32256). */
function alawToLinear(code: number): number {
  const a = code ^ 0x55;
  const segment = (a >> 4) & 7;
  let t = (a & 0x0f) << 4;
  if (segment === 0) t += 8;
  else t = (t + 0x108) << (segment - 1);
  return a & 0x80 ? t : -t;
}

const LAW_TABLES: Partial<Record<"ALAW" | "ULAW", Int16Array>> = {};
/** The 256 linear values of a G.711 law. */
export function g711Table(law: "ALAW" | "ULAW"): Int16Array {
  let table = LAW_TABLES[law];
  if (!table) {
    table = new Int16Array(256);
    for (let i = 0; i < 256; i++) table[i] = law === "ALAW" ? alawToLinear(i) : ulawToLinear(i);
    LAW_TABLES[law] = table;
  }
  return table;
}

/** G.711 codes to float32 in [-1, 1) (linear value / 32768). */
export function decodeG711(codes: Uint8Array, law: "ALAW" | "ULAW"): Float32Array {
  const table = g711Table(law);
  const out = new Float32Array(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = table[codes[i]!]! / 32768;
  return out;
}

function linearToUlaw(sample: number): number {
  const BIAS = 0x84;
  let sign = 0;
  let s = sample;
  if (s < 0) {
    s = -s;
    sign = 0x80;
  }
  s = Math.min(s, 32635) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

function linearToAlaw(sample: number): number {
  let s = sample;
  let sign = 0x80;
  if (s < 0) {
    s = -s - 1;
    sign = 0;
  }
  s = Math.min(s, 32767);
  let code: number;
  if (s < 256) code = s >> 4;
  else {
    let segment = 1;
    while (segment < 7 && s >= 256 << segment) segment++;
    code = (segment << 4) | ((s >> (segment + 3)) & 0x0f);
  }
  return (code | sign) ^ 0x55;
}

/** float samples in [-1, 1] to G.711 codes (nearest segment value; clipped). */
export function encodeG711(samples: Float32Array | Float64Array | readonly number[], law: "ALAW" | "ULAW"): Uint8Array {
  const out = new Uint8Array(samples.length);
  const encode = law === "ALAW" ? linearToAlaw : linearToUlaw;
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i]!;
    const linear = Number.isNaN(v) ? 0 : Math.max(-32768, Math.min(32767, Math.round(v * 32768)));
    out[i] = encode(linear);
  }
  return out;
}

// ---------------------------------------------------------------- ASCII numbers

/** The shortest decimal text that reads back to the same float32. */
export function formatF32(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  for (let p = 1; p <= 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return tidy(s);
  }
  return tidy(v.toPrecision(9));
}

/** The shortest decimal text that reads back to the same float64. */
export function formatF64(v: number): string {
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (Object.is(v, -0)) return "-0";
  return String(v);
}

/** toPrecision output without trailing fraction zeros ("1.50000e+5" -> "1.5e+5"). */
function tidy(s: string): string {
  const e = s.indexOf("e");
  let mantissa = e < 0 ? s : s.slice(0, e);
  const exponent = e < 0 ? "" : s.slice(e);
  if (mantissa.includes(".")) mantissa = mantissa.replace(/0+$/, "").replace(/\.$/, "");
  return mantissa + exponent;
}

const FLOAT_TOKEN = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL_FLOATS: Record<string, number> = {
  nan: NaN,
  "+nan": NaN,
  "-nan": NaN,
  inf: Infinity,
  "+inf": Infinity,
  "-inf": -Infinity,
  infinity: Infinity,
  "+infinity": Infinity,
  "-infinity": -Infinity,
};

/** A float token (C printf style, with nan/inf), or undefined when it is not a number. */
export function parseFloatToken(token: string): number | undefined {
  if (FLOAT_TOKEN.test(token)) return Number(token);
  const special = SPECIAL_FLOATS[token.toLowerCase()];
  return special;
}

export const INTEGER_TOKEN = /^[+-]?\d+$/;
