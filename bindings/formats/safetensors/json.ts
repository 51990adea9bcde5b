/**
 * A strict JSON parser (RFC 8259) over UTF-8 bytes that keeps the absolute byte offset of every value, so that
 * a bad safetensors header names the exact place: `safetensors: … at offset 57 (0x39) [header["w"].shape[1]]`.
 * Strings must be valid UTF-8 with no raw control characters and no lone surrogate escapes; objects keep their
 * key order (JSON.parse puts integer-like keys first) and refuse duplicate keys; nesting is capped.
 */
import { CorruptDataError, LimitError } from "../../bytes/errors.js";

export const MAX_JSON_DEPTH = 64;

interface Node<K extends string> {
  kind: K;
  /** Absolute byte offset of the value's first byte. */
  offset: number;
}
export interface JsonObject extends Node<"object"> {
  entries: { key: string; keyOffset: number; value: JsonValue }[];
}
export interface JsonArray extends Node<"array"> {
  items: JsonValue[];
}
export interface JsonString extends Node<"string"> {
  value: string;
}
export interface JsonNumber extends Node<"number"> {
  value: number;
  /** The number as written (to tell 3 from 3.0 or 3e0). */
  text: string;
}
export type JsonLiteral = Node<"true" | "false" | "null">;
export type JsonValue = JsonObject | JsonArray | JsonString | JsonNumber | JsonLiteral;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** ASCII runs up to this long are turned into strings byte by byte (cheaper than a TextDecoder call). */
const SHORT_ASCII = 48;

/**
 * Called for each entry of the top-level object, in order, instead of keeping it: the root object comes back
 * with no entries. Lets a reader turn each entry into its own record as it goes (a 1M-tensor header).
 */
export type RootEntryHandler = (key: string, keyOffset: number, value: JsonValue) => void;

const NAMES: Record<JsonValue["kind"], string> = {
  object: "an object",
  array: "an array",
  string: "a string",
  number: "a number",
  true: "true",
  false: "false",
  null: "null",
};

/** "an object", "a string", … for messages. */
export function kindName(value: JsonValue): string {
  return NAMES[value.kind];
}

/**
 * Parses `bytes` (whose first byte is at absolute offset `base`) as one JSON value followed only by JSON white
 * space. Errors are CORRUPT (LIMIT for nesting deeper than MAX_JSON_DEPTH) with the offset of the bad byte.
 */
export function parseJson(
  bytes: Uint8Array,
  base: number,
  format: string,
  field = "header",
  onRootEntry?: RootEntryHandler,
): JsonValue {
  let pos = 0;
  const fail = (detail: string, at = pos): never => {
    throw new CorruptDataError(format, `invalid JSON: ${detail}`, base + at, field);
  };
  const describe = (at: number): string => (at >= bytes.length ? "the end of the header" : byteText(bytes[at]!));
  const skipSpace = (): void => {
    while (pos < bytes.length) {
      const b = bytes[pos]!;
      if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) break;
      pos++;
    }
  };
  const expect = (byte: number, what: string): void => {
    if (bytes[pos] !== byte) fail(`expected ${what}, found ${describe(pos)}`);
    pos++;
  };

  const parseString = (): JsonString => {
    const start = pos;
    pos++; // the opening quote
    let value = "";
    let runStart = pos;
    let ascii = true;
    const flush = (end: number): void => {
      if (end > runStart && ascii && end - runStart <= SHORT_ASCII) {
        // short ASCII runs (names, dtypes) without a TextDecoder call each: most of a big header's strings
        for (let k = runStart; k < end; k++) value += String.fromCharCode(bytes[k]!);
      } else if (end > runStart) {
        try {
          value += utf8.decode(bytes.subarray(runStart, end));
        } catch {
          fail("a string is not valid UTF-8", runStart);
        }
      }
    };
    for (;;) {
      if (pos >= bytes.length) fail("a string is not closed", start);
      const b = bytes[pos]!;
      if (b === 0x22) {
        flush(pos);
        pos++;
        return { kind: "string", offset: base + start, value };
      }
      if (b < 0x20) fail(`a raw control character ${byteText(b)} inside a string (escape it)`);
      if (b !== 0x5c) {
        if (b >= 0x80) ascii = false;
        pos++;
        continue;
      }
      flush(pos);
      const escapeAt = pos;
      const c = bytes[pos + 1];
      pos += 2;
      switch (c) {
        case 0x22:
          value += '"';
          break;
        case 0x5c:
          value += "\\";
          break;
        case 0x2f:
          value += "/";
          break;
        case 0x62:
          value += "\b";
          break;
        case 0x66:
          value += "\f";
          break;
        case 0x6e:
          value += "\n";
          break;
        case 0x72:
          value += "\r";
          break;
        case 0x74:
          value += "\t";
          break;
        case 0x75: {
          const unit = hex4(escapeAt);
          if (unit >= 0xd800 && unit <= 0xdbff) {
            // a high surrogate must be followed by an escaped low surrogate
            if (bytes[pos] !== 0x5c || bytes[pos + 1] !== 0x75) fail("a lone surrogate \\u escape", escapeAt);
            const lowAt = pos;
            pos += 2;
            const low = hex4(lowAt);
            if (low < 0xdc00 || low > 0xdfff) fail("a lone surrogate \\u escape", escapeAt);
            value += String.fromCharCode(unit, low);
          } else {
            if (unit >= 0xdc00 && unit <= 0xdfff) fail("a lone surrogate \\u escape", escapeAt);
            value += String.fromCharCode(unit);
          }
          break;
        }
        default:
          fail(c === undefined ? "a string is not closed" : `an invalid escape \\${String.fromCharCode(c)}`, escapeAt);
      }
      runStart = pos;
    }
  };
  /** Four hex digits after "\u" at `escapeAt`; the cursor is on the first digit. */
  const hex4 = (escapeAt: number): number => {
    let unit = 0;
    for (let k = 0; k < 4; k++) {
      const d = hexDigit(bytes[pos + k]);
      if (d < 0) fail("a \\u escape needs four hex digits", escapeAt);
      unit = unit * 16 + d;
    }
    pos += 4;
    return unit;
  };

  const parseNumber = (): JsonNumber => {
    const start = pos;
    if (bytes[pos] === 0x2d) pos++;
    if (bytes[pos] === 0x30) pos++;
    else if (isDigit(bytes[pos])) while (isDigit(bytes[pos])) pos++;
    else fail(`a number needs digits, found ${describe(pos)}`);
    if (bytes[pos] === 0x2e) {
      pos++;
      if (!isDigit(bytes[pos])) fail(`a number needs digits after ".", found ${describe(pos)}`);
      while (isDigit(bytes[pos])) pos++;
    }
    if (bytes[pos] === 0x65 || bytes[pos] === 0x45) {
      pos++;
      if (bytes[pos] === 0x2b || bytes[pos] === 0x2d) pos++;
      if (!isDigit(bytes[pos])) fail(`a number needs exponent digits, found ${describe(pos)}`);
      while (isDigit(bytes[pos])) pos++;
    }
    let text = "";
    if (pos - start <= SHORT_ASCII) for (let k = start; k < pos; k++) text += String.fromCharCode(bytes[k]!);
    else text = utf8.decode(bytes.subarray(start, pos)); // ASCII digits: no spread, however long
    return { kind: "number", offset: base + start, value: Number(text), text };
  };

  const parseLiteral = (word: "true" | "false" | "null"): JsonLiteral => {
    const start = pos;
    for (let k = 0; k < word.length; k++) {
      if (bytes[pos + k] !== word.charCodeAt(k)) fail(`unexpected ${describe(start)}`, start);
    }
    pos += word.length;
    return { kind: word, offset: base + start };
  };

  const parseValue = (depth: number): JsonValue => {
    skipSpace();
    const b = bytes[pos];
    switch (b) {
      case 0x7b:
        return parseObject(depth + 1);
      case 0x5b:
        return parseArray(depth + 1);
      case 0x22:
        return parseString();
      case 0x74:
        return parseLiteral("true");
      case 0x66:
        return parseLiteral("false");
      case 0x6e:
        return parseLiteral("null");
      default:
        if (b === 0x2d || isDigit(b)) return parseNumber();
        return fail(
          b === undefined
            ? "the header ends where a value should start"
            : `unexpected ${describe(pos)} where a value should start`,
        );
    }
  };

  const checkDepth = (depth: number): void => {
    if (depth > MAX_JSON_DEPTH) {
      throw new LimitError(
        format,
        `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
        base + pos,
        field,
        depth,
        MAX_JSON_DEPTH,
      );
    }
  };

  const parseObject = (depth: number): JsonObject => {
    checkDepth(depth);
    const handler = depth === 1 ? onRootEntry : undefined;
    const node: JsonObject = { kind: "object", offset: base + pos, entries: [] };
    pos++;
    skipSpace();
    if (bytes[pos] === 0x7d) {
      pos++;
      return node;
    }
    const seen = new Set<string>();
    for (;;) {
      skipSpace();
      if (bytes[pos] !== 0x22) fail(`expected a key (a string), found ${describe(pos)}`);
      const keyAt = pos;
      const key = parseString().value;
      if (seen.has(key)) fail(`the key ${JSON.stringify(key)} appears twice`, keyAt);
      seen.add(key);
      skipSpace();
      expect(0x3a, '":"');
      const value = parseValue(depth);
      if (handler)
        handler(key, base + keyAt, value); // (not kept: a big header's tree is not held whole)
      else node.entries.push({ key, keyOffset: base + keyAt, value });
      skipSpace();
      if (bytes[pos] === 0x2c) {
        pos++;
        continue;
      }
      expect(0x7d, '"," or "}"');
      return node;
    }
  };

  const parseArray = (depth: number): JsonArray => {
    checkDepth(depth);
    const node: JsonArray = { kind: "array", offset: base + pos, items: [] };
    pos++;
    skipSpace();
    if (bytes[pos] === 0x5d) {
      pos++;
      return node;
    }
    for (;;) {
      node.items.push(parseValue(depth));
      skipSpace();
      if (bytes[pos] === 0x2c) {
        pos++;
        continue;
      }
      expect(0x5d, '"," or "]"');
      return node;
    }
  };

  const value = parseValue(0);
  skipSpace();
  if (pos < bytes.length) fail(`${describe(pos)} after the end of the JSON value (only white space may follow)`);
  return value;
}

function isDigit(b: number | undefined): boolean {
  return b !== undefined && b >= 0x30 && b <= 0x39;
}

function hexDigit(b: number | undefined): number {
  if (b === undefined) return -1;
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  return -1;
}

function byteText(b: number): string {
  return b >= 0x21 && b < 0x7f ? `"${String.fromCharCode(b)}"` : `byte 0x${b.toString(16).padStart(2, "0")}`;
}
