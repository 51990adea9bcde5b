/**
 * SPRAAK headers, byte-based (the data after the header is never decoded as text):
 *
 *   `.spr` header:  ".spr\n"  { line "\n" }  "#\n"  data...
 *     line = [ws] KEY ws VALUE [ws]      KEY: printable ASCII '!'..'~'; VALUE trimmed; a VALUE that starts with
 *                                        ws or '"', or ends with ws or '\', is a C-quoted string
 *          | [ws]                        empty or padding line (real files have a line of 149 spaces)
 *     a line ending in '\' continues on the next one (the '\' + LF pair is removed, C style)
 *     the end line is exactly "#"; the first such line ends the header ('#' later is data)
 *
 *   key header (old ESAT HMM package):  [".key\n"]  { KEY ws VALUE "\n" }  "#"+ "\n"  data...
 *     no quoting, no continuation; ended by a line of one or more '#'
 *
 * Every line is kept as it was (`raw`) so that an unchanged header is written back byte for byte.
 */
import { CorruptDataError, LimitError, TruncatedError } from "../../bytes/errors.js";
import type { ByteReader } from "../../bytes/byte-reader.js";
import { PROVISIONAL } from "./provisional.js";
import { type TextEncoding, decodeText, isSpace, isSpaceChar, trimSpace } from "./text.js";

export type HeaderKind = "spr" | "key";

/** One header line. Empty and whitespace-only (padding) lines have key "". */
export interface HeaderLine {
  /** The key as written. */
  key: string;
  /** The value: trimmed, unquoted, continuation lines spliced. */
  value: string;
  /** The line exactly as in the file (continuations included, without its final "\n"); absent for new lines. */
  raw?: string | undefined;
}

export interface ParsedHeader {
  lines: HeaderLine[];
  /** Absolute offset of each line. */
  offsets: number[];
  endLine: string;
  /** Absolute offset of the first data byte (just after the end line's "\n"). */
  dataStart: number;
}

export interface HeaderScanOptions {
  encoding: TextEncoding;
  /** The longest header accepted before LIMIT (default 16 MiB). */
  maxHeaderBytes: number;
}

const LF = 0x0a;
const HASH = 0x23;
const BACKSLASH = 0x5c;
/** Small enough that scanning a header stays inside the lazy reader's first 64 KiB fetch. */
const SCAN_CHUNK = 4096;

/** Absolute offset of the next LF at or after `from`, or -1 before `r.end`. Reads in chunks (lazy-friendly). */
function findLineFeed(r: ByteReader, from: number, limit: number): number {
  let at = from;
  const end = Math.min(r.end, limit);
  while (at < end) {
    const n = Math.min(SCAN_CHUNK, end - at);
    const chunk = r.viewOf({ byteOffset: at, byteLength: n });
    const i = chunk.indexOf(LF);
    if (i >= 0) return at + i;
    at += n;
  }
  return -1;
}

/** Reads header lines from `r.pos` to the end line; leaves `r.pos` at the first data byte. */
export function scanHeader(r: ByteReader, kind: HeaderKind, options: HeaderScanOptions): ParsedHeader {
  const format = r.format;
  const lines: HeaderLine[] = [];
  const offsets: number[] = [];
  const limit = r.pos + options.maxHeaderBytes;
  let lineStart = r.pos;
  // physical lines of the logical line being assembled (continuations)
  let pendingStart = -1;
  let sawCrEndLine = -1;
  for (;;) {
    const lf = findLineFeed(r, lineStart, limit);
    if (lf < 0) {
      if (r.end > limit) {
        throw new LimitError(
          format,
          `no header end line "#" in the first ${options.maxHeaderBytes} bytes`,
          lineStart,
          "header",
          options.maxHeaderBytes,
        );
      }
      if (sawCrEndLine >= 0) {
        throw new CorruptDataError(
          format,
          'the header end line is "#\\r", not "#" (CRLF line ends?)',
          sawCrEndLine,
          "header.end",
        );
      }
      const what = kind === "spr" ? '"#"' : 'of "#"';
      throw new TruncatedError(format, r.end, `header: no end line ${what}`, 2, 0);
    }
    const bytes = r.viewOf({ byteOffset: lineStart, byteLength: lf - lineStart });
    const continues = kind === "spr" && bytes.length > 0 && bytes[bytes.length - 1] === BACKSLASH;
    if (pendingStart < 0) {
      if (isEndLine(bytes, kind)) {
        r.seek(lf + 1);
        return {
          lines,
          offsets,
          endLine: decodeText(bytes, "latin1", format, lineStart, "header.end"),
          dataStart: lf + 1,
        };
      }
      if (bytes.length === 2 && bytes[0] === HASH && bytes[1] === 0x0d && sawCrEndLine < 0) sawCrEndLine = lineStart;
    }
    if (continues) {
      if (pendingStart < 0) pendingStart = lineStart;
      lineStart = lf + 1;
      continue;
    }
    const start = pendingStart >= 0 ? pendingStart : lineStart;
    pendingStart = -1;
    const rawBytes = r.viewOf({ byteOffset: start, byteLength: lf - start });
    const raw = decodeText(rawBytes, options.encoding, format, start, `header line ${lines.length + 1}`);
    lines.push(parseLine(raw, kind, format, start, lines.length + 1));
    offsets.push(start);
    lineStart = lf + 1;
  }
}

function isEndLine(bytes: Uint8Array, kind: HeaderKind): boolean {
  if (bytes.length === 0) return false;
  if (kind === "spr") return bytes.length === 1 && bytes[0] === HASH;
  for (const b of bytes) if (b !== HASH) return false;
  return true;
}

/** Splits one logical line into key and value. */
export function parseLine(
  raw: string,
  kind: HeaderKind,
  format: string,
  offset: number,
  lineNumber: number,
): HeaderLine {
  const text = kind === "spr" ? raw.replace(/\\\n/g, "") : raw;
  let i = 0;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (i === text.length) return { key: "", value: "", raw };
  const keyStart = i;
  while (i < text.length && !isSpace(text.charCodeAt(i))) {
    const c = text.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) {
      throw new CorruptDataError(
        format,
        `header key has a byte 0x${c.toString(16)} outside '!'..'~'`,
        offset,
        `header line ${lineNumber}`,
      );
    }
    i++;
  }
  const key = text.slice(keyStart, i);
  const valueText = trimSpace(text.slice(i));
  let value = valueText;
  if (kind === "spr" && valueText.startsWith('"')) value = unquote(valueText, format, offset, key);
  return { key, value, raw };
}

const SIMPLE_ESCAPES: Record<string, string> = {
  "\\": "\\",
  '"': '"',
  "'": "'",
  "?": "?",
  a: "\x07",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
};

/** A C-quoted value ("..." with escapes) to its text; CORRUPT when malformed. */
export function unquote(quoted: string, format: string, offset: number, key: string): string {
  let out = "";
  let i = 1;
  while (i < quoted.length) {
    const ch = quoted[i]!;
    if (ch === '"') {
      if (i !== quoted.length - 1)
        throw new CorruptDataError(format, `text after the closing quote of ${key}'s value`, offset, key);
      return out;
    }
    if (ch !== "\\") {
      out += ch;
      i++;
      continue;
    }
    const next = quoted[i + 1];
    if (next === undefined) break;
    if (SIMPLE_ESCAPES[next] !== undefined) {
      out += SIMPLE_ESCAPES[next];
      i += 2;
    } else if (next >= "0" && next <= "7") {
      let j = i + 1;
      while (j < quoted.length && j < i + 4 && quoted[j]! >= "0" && quoted[j]! <= "7") j++;
      out += String.fromCharCode(parseInt(quoted.slice(i + 1, j), 8) & 0xff);
      i = j;
    } else if (next === "x" && /[0-9a-fA-F]/.test(quoted[i + 2] ?? "")) {
      let j = i + 2;
      while (j < quoted.length && j < i + 4 && /[0-9a-fA-F]/.test(quoted[j]!)) j++;
      out += String.fromCharCode(parseInt(quoted.slice(i + 2, j), 16));
      i = j;
    } else {
      throw new CorruptDataError(format, `unknown escape "\\${next}" in ${key}'s quoted value`, offset, key);
    }
  }
  throw new CorruptDataError(format, `${key}'s quoted value has no closing quote`, offset, key);
}

/** True when a `.spr` value must be written as a quoted C string. */
export function mustQuote(value: string): boolean {
  if (value.length === 0) return true;
  if (isSpaceChar(value[0]!) || value[0] === '"') return true;
  const last = value[value.length - 1]!;
  if (isSpaceChar(last) || last === "\\") return true;
  return /[\x00-\x08\x0a-\x1f\x7f]/.test(value);
}

export function quote(value: string): string {
  let out = '"';
  for (const ch of value) {
    const c = ch.charCodeAt(0);
    if (ch === "\\" || ch === '"') out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (c < 0x20 || c === 0x7f) out += "\\" + c.toString(8).padStart(3, "0");
    else out += ch;
  }
  return out + '"';
}

/** TABs that take a key of `length` characters to the value column (tab stops every 8), at least one. */
export function alignTabs(length: number, column: number = PROVISIONAL.valueColumn): string {
  let col = length;
  let tabs = "";
  do {
    col = (Math.floor(col / 8) + 1) * 8;
    tabs += "\t";
  } while (col < column);
  return tabs;
}

/** How new lines are written: "align" = TABs to the value column (SPRAAK style), else this separator. */
export type SeparatorStyle = "align" | (string & {});

/** The leading white space, the key and the separator of an existing line (first physical line). */
function lineParts(raw: string): { lead: string; sep: string } {
  const m = /^([ \t\r\v\f]*)([^ \t\r\v\f]+)([ \t\v\f]*)/.exec(raw);
  return { lead: m?.[1] ?? "", sep: m?.[3] || "\t" };
}

/**
 * The style existing entry lines use: "align" when all are TAB-aligned to the value column, else the first
 * line's separator; `fallback` when there are none (SPRAAK: "align"; key headers: one TAB, as the key tools write).
 */
export function separatorStyle(lines: readonly HeaderLine[], fallback: SeparatorStyle): SeparatorStyle {
  const seps = lines
    .filter((l) => l.key !== "" && l.raw !== undefined)
    .map((l) => ({ key: l.key, sep: lineParts(l.raw!).sep }));
  if (seps.length === 0) return fallback;
  if (seps.every((s) => s.sep === alignTabs(s.key.length))) return "align";
  return seps[0]!.sep;
}

export interface RenderError {
  (detail: string, field: string): never;
}

/** Writes one entry line (no "\n"), keeping the look of `previous` (its indent and separator) when given. */
export function renderLine(
  kind: HeaderKind,
  key: string,
  value: string,
  style: SeparatorStyle,
  previous: string | undefined,
  fail: RenderError,
): string {
  if (!/^[!-~]+$/.test(key))
    fail(`header key ${JSON.stringify(key)} must be printable ASCII '!'..'~' without spaces`, key);
  if (kind === "key" && /^#+$/.test(key)) fail(`key header key ${JSON.stringify(key)} would end the header`, key);
  if (kind === "spr" && key === "#" && value === "") fail('a key "#" with an empty value would end the header', key);
  let text = value;
  if (kind === "spr") {
    if (mustQuote(value)) text = quote(value);
  } else {
    if (/[\n]/.test(value) || trimSpace(value) !== value) {
      fail(
        `key header value of ${key} cannot have line breaks or leading/trailing white space (key headers have no quoting)`,
        key,
      );
    }
  }
  const parts =
    previous !== undefined ? lineParts(previous) : { lead: "", sep: style === "align" ? alignTabs(key.length) : style };
  if (kind === "key" && text === "") return parts.lead + key;
  return parts.lead + key + parts.sep + text;
}
