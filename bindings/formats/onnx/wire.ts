/**
 * A strict protobuf read cursor over a file's bytes (the reading half of proto-writer.ts). It walks the fields
 * of one message between absolute offsets; nothing is decoded into objects unless asked, so payloads stay byte
 * ranges and a lazy open (ByteReader over a partial backing) never fetches them.
 *
 *   field  = tag payload;  tag = varint((field_number << 3) | wire_type), field_number >= 1
 *   wire 0 = varint (1-10 bytes)   wire 1 = 8 bytes   wire 2 = varint length + bytes   wire 5 = 4 bytes
 *   wire 3 = start group, then fields, then wire 4 = end group with the same field number (protobuf's deprecated
 *   groups: ONNX declares none, but an unknown field may be one, and is skipped as protobuf skips it)
 *   wire 6/7 do not exist: CORRUPT.
 *
 * Rules (each a FormatError with the absolute offset and the field path): a varint longer than 10 bytes or one
 * whose 10th byte carries more than the 64th bit; a length that reaches past the enclosing message; a known
 * field with the wrong wire type; nesting deeper than MAX_MESSAGE_DEPTH.
 */
import { CorruptDataError, LimitError, TruncatedError } from "../../bytes/errors.js";
import { ByteReader } from "../../bytes/byte-reader.js";

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LEN = 2;
export const WIRE_START_GROUP = 3;
export const WIRE_END_GROUP = 4;
export const WIRE_FIXED32 = 5;

const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });

/** Strings up to this many bytes are tried as ASCII first (names, op types: TextDecoder costs more than they do). */
const SHORT_STRING = 64;

/** bytes[index, index + n) as text when every byte is ASCII (the same text UTF-8 decoding gives), else undefined. */
export function asciiText(bytes: Uint8Array, index: number, n: number): string | undefined {
  let text = "";
  for (let i = index; i < index + n; i++) {
    const b = bytes[i]!;
    if (b >= 0x80) return undefined;
    text += String.fromCharCode(b);
  }
  return text;
}

/** bytes[start, end) as ProtoCursor.string decodes a string field (UTF-8, malformed sequences replaced). */
export function protoText(bytes: Uint8Array, start: number, end: number): string {
  if (end - start <= SHORT_STRING) {
    const ascii = asciiText(bytes, start, end - start);
    if (ascii !== undefined) return ascii;
  }
  return textDecoder.decode(bytes.subarray(start, end));
}

/** Messages nested deeper than this are refused (protobuf's own default recursion limit is 100). */
export const MAX_MESSAGE_DEPTH = 100;

const WIRE_NAMES = [
  "varint",
  "fixed64",
  "length-delimited",
  "group start",
  "group end",
  "fixed32",
  "wire type 6",
  "wire type 7",
];

export function wireName(wire: number): string {
  return WIRE_NAMES[wire] ?? `wire type ${wire}`;
}

export interface FieldHead {
  field: number;
  wire: number;
  /** Absolute offset of the tag. */
  tagAt: number;
}

/** A length-delimited payload: where its length varint is and where its bytes are (absolute). */
export interface LenSpan {
  lengthAt: number;
  lengthBytes: number;
  start: number;
  end: number;
}

/** The cursor over one message body [start, end) of the file. */
export class ProtoCursor {
  readonly r: ByteReader;
  readonly end: number;
  readonly depth: number;
  /** The field path of this message, for errors (e.g. "graph.node[3].attribute[0]"). */
  readonly path: string;
  /**
   * The end of the outermost message (the model): running past it is TRUNCATED (the bytes stop early), running
   * past an inner message's end is CORRUPT (a length that disagrees with its enclosing one).
   */
  readonly top: number;

  constructor(r: ByteReader, start: number, end: number, depth: number, path: string, top = end) {
    if (depth > MAX_MESSAGE_DEPTH)
      throw new LimitError(
        r.format,
        `messages nested deeper than ${MAX_MESSAGE_DEPTH}`,
        start,
        path,
        depth,
        MAX_MESSAGE_DEPTH,
      );
    this.r = r;
    this.r.pos = start;
    this.end = end;
    this.depth = depth;
    this.path = path;
    this.top = top;
  }

  get pos(): number {
    return this.r.pos;
  }

  get done(): boolean {
    return this.r.pos >= this.end;
  }

  private corrupt(detail: string, at: number, field: string): never {
    throw new CorruptDataError(this.r.format, detail, at, field);
  }

  /** The low and high 32 bits of the varint {@link fastVarint} read last. */
  private lo = 0;
  private hi = 0;

  /**
   * Reads a well-formed varint of this message that is in the reader's loaded window without allocating (its bits
   * into lo/hi) and returns its length; 0 when it is not (ends past the message or the window, longer than 10
   * bytes, beyond 64 bits): nothing is read, and the checked reads below take it with their errors.
   */
  private fastVarint(): number {
    const r = this.r;
    const at = r.pos;
    const index = r.loadedIndex(at, 1);
    if (index < 0) return 0;
    const bytes = r.loadedBytes;
    const stop = Math.min(bytes.length, index + (this.end - at));
    let lo = 0;
    let hi = 0;
    for (let k = 0; k < 10; k++) {
      if (index + k >= stop) return 0;
      const b = bytes[index + k]!;
      if (k < 4) lo |= (b & 0x7f) << (7 * k);
      else if (k === 4) {
        lo |= (b & 0x7f) << 28;
        hi = (b & 0x7f) >>> 4;
      } else hi |= (b & 0x7f) << (7 * k - 32);
      if (b < 0x80) {
        if (k === 9 && b > 1) return 0;
        this.lo = lo;
        this.hi = hi;
        r.pos = at + k + 1;
        return k + 1;
      }
    }
    return 0;
  }

  /** A varint inside this message, as a bigint (unsigned 64-bit). */
  varint(field: string): bigint {
    const at = this.r.pos;
    let result = 0n;
    let small = 0;
    for (let i = 0; i < 10; i++) {
      if (this.r.pos >= this.end) {
        if (this.end < this.top) this.corrupt("varint runs past the end of its message", at, field);
        throw new TruncatedError(this.r.format, this.r.pos, field, 1, 0);
      }
      const b = this.r.u8(field);
      if (i < 4) small |= (b & 0x7f) << (7 * i);
      else result |= BigInt(b & 0x7f) << BigInt(7 * i);
      if ((b & 0x80) === 0) {
        if (i === 9 && b > 1) this.corrupt("varint overflows 64 bits", at, field);
        return i < 4 ? BigInt(small >>> 0) : result | BigInt(small >>> 0);
      }
    }
    return this.corrupt("varint longer than 10 bytes", at, field);
  }

  /** A varint that must fit a non-negative safe integer (lengths, tags, counts). */
  uint(field: string): number {
    const at = this.r.pos;
    if (this.fastVarint() > 0) {
      if (this.hi >>> 0 <= 0x1fffff) return (this.hi >>> 0) * 4294967296 + (this.lo >>> 0);
      this.r.pos = at; // beyond 2^53: the checked read reports it
    }
    const v = this.varint(field);
    if (v > BigInt(Number.MAX_SAFE_INTEGER))
      throw new LimitError(this.r.format, `value ${v} is too large`, at, field, v, Number.MAX_SAFE_INTEGER);
    return Number(v);
  }

  /** An int64 field (two's complement in 10 bytes when negative) as a number; LIMIT beyond ±2^53. */
  int64(field: string): number {
    const at = this.r.pos;
    if (this.fastVarint() > 0) {
      const value = (this.hi | 0) * 4294967296 + (this.lo >>> 0);
      if (Math.abs(value) <= Number.MAX_SAFE_INTEGER) return value;
      this.r.pos = at; // beyond ±2^53: the checked read reports it
    }
    const v = BigInt.asIntN(64, this.varint(field));
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new LimitError(this.r.format, `int64 ${v} is beyond ±2^53`, at, field, v, Number.MAX_SAFE_INTEGER);
    }
    return Number(v);
  }

  /** An int32/enum field (protobuf truncates the varint to 32 bits). */
  int32(field: string): number {
    if (this.fastVarint() > 0) return this.lo | 0;
    return Number(BigInt.asIntN(32, this.varint(field)));
  }

  /** The next field's tag, or undefined at the end of the message. */
  next(): FieldHead | undefined {
    if (this.r.pos >= this.end) return undefined;
    const tagAt = this.r.pos;
    if (this.fastVarint() > 0 && this.hi === 0) {
      const t = this.lo >>> 0;
      const field = Math.floor(t / 8);
      const wire = t & 7;
      if (field !== 0 && wire <= 5) return { field, wire, tagAt };
    }
    this.r.pos = tagAt;
    const tag = this.varint(`${this.path}.tag`);
    if (tag > 0xffffffffn) this.corrupt(`tag ${tag} is beyond 32 bits`, tagAt, `${this.path}.tag`);
    const t = Number(tag);
    const field = Math.floor(t / 8);
    const wire = t & 7;
    if (field === 0) this.corrupt("field number 0", tagAt, `${this.path}.tag`);
    if (wire > 5)
      this.corrupt(`${wireName(wire)} (field ${field}) does not exist in protobuf`, tagAt, `${this.path}.tag`);
    return { field, wire, tagAt };
  }

  /** CORRUPT unless a known field came with the wire type its declaration gives it. */
  expect(head: FieldHead, wire: number, name: string): void {
    if (head.wire === wire) return;
    const { short, path } = this.fieldPath(name);
    this.corrupt(
      `field ${head.field} (${short}) has ${wireName(head.wire)} wire type, expected ${wireName(wire)}`,
      head.tagAt,
      path,
    );
  }

  /**
   * A field's name and path for errors: callers pass either the bare name (`data_type`) or the path already
   * prefixed with this message's (`model.producer_name`), which must not be prefixed twice.
   */
  private fieldPath(name: string): { short: string; path: string } {
    const prefix = `${this.path}.`;
    return name.startsWith(prefix)
      ? { short: name.slice(prefix.length), path: name }
      : { short: name, path: prefix + name };
  }

  /** For repeated scalars: packed (length-delimited) or one element (`wire`). */
  expectRepeated(head: FieldHead, wire: number, name: string): void {
    if (head.wire !== wire && head.wire !== WIRE_LEN) {
      const { short, path } = this.fieldPath(name);
      this.corrupt(
        `field ${head.field} (${short}) has ${wireName(head.wire)} wire type, expected ${wireName(wire)} or packed`,
        head.tagAt,
        path,
      );
    }
  }

  /** A length-delimited payload's span, checked against this message's end (nothing read). */
  len(field: string): LenSpan {
    const lengthAt = this.r.pos;
    const length = this.uint(`${field}.length`);
    const start = this.r.pos;
    if (length > this.end - start) {
      if (this.end < this.top)
        this.corrupt(
          `length ${length} reaches past the end of the enclosing message (${this.end - start} bytes left in it)`,
          lengthAt,
          field,
        );
      throw new TruncatedError(this.r.format, start, field, length, this.end - start);
    }
    this.r.pos = start + length;
    return { lengthAt, lengthBytes: start - lengthAt, start, end: start + length };
  }

  /**
   * Skips a field's payload (any wire type). A group (wire 3) is skipped through its end group, nested groups
   * included; an end group (wire 4) with no group open is CORRUPT.
   */
  skip(head: FieldHead, field: string): void {
    switch (head.wire) {
      case WIRE_START_GROUP:
        this.skipGroup(head, field);
        return;
      case WIRE_END_GROUP:
        return this.corrupt(`end group (field ${head.field}) without a start group`, head.tagAt, field);
      case WIRE_VARINT:
        if (this.fastVarint() === 0) this.varint(field);
        return;
      case WIRE_FIXED64:
        this.fixed(8, field);
        this.r.pos += 8;
        return;
      case WIRE_FIXED32:
        this.fixed(4, field);
        this.r.pos += 4;
        return;
      default:
        this.len(field);
    }
  }

  /** The fields of the group `head` starts, through its end group (nested groups count toward the depth limit). */
  private skipGroup(head: FieldHead, field: string): void {
    const open = [head.field];
    while (open.length > 0) {
      if (this.r.pos >= this.end) {
        const detail = `group (field ${open[open.length - 1]}) has no end group before the end of its message`;
        if (this.end < this.top) this.corrupt(detail, head.tagAt, field);
        throw new TruncatedError(this.r.format, this.r.pos, field, 1, 0);
      }
      const inner = this.next()!;
      if (inner.wire === WIRE_END_GROUP) {
        const started = open.pop()!;
        if (inner.field !== started)
          this.corrupt(`end group (field ${inner.field}) closes a group of field ${started}`, inner.tagAt, field);
      } else if (inner.wire === WIRE_START_GROUP) {
        if (this.depth + open.length >= MAX_MESSAGE_DEPTH) {
          throw new LimitError(
            this.r.format,
            `groups nested deeper than ${MAX_MESSAGE_DEPTH}`,
            inner.tagAt,
            field,
            this.depth + open.length + 1,
            MAX_MESSAGE_DEPTH,
          );
        }
        open.push(inner.field);
      } else this.skip(inner, field);
    }
  }

  /** Checks that `n` fixed bytes are inside this message (the cursor does not move). */
  private fixed(n: number, field: string): void {
    const at = this.r.pos;
    if (n > this.end - at) {
      if (this.end < this.top) this.corrupt(`${n}-byte value runs past the end of its message`, at, field);
      throw new TruncatedError(this.r.format, at, field, n, this.end - at);
    }
  }

  float(field: string): number {
    this.fixed(4, field);
    return this.r.f32(field);
  }

  double(field: string): number {
    this.fixed(8, field);
    return this.r.f64(field);
  }

  /** A string payload (UTF-8; invalid sequences become U+FFFD, as protobufjs decodes them). */
  string(field: string): string {
    const span = this.len(field);
    const n = span.end - span.start;
    if (n <= SHORT_STRING) {
      const index = this.r.loadedIndex(span.start, n);
      if (index >= 0) {
        const ascii = asciiText(this.r.loadedBytes, index, n);
        if (ascii !== undefined) return ascii;
      }
    }
    return textDecoder.decode(this.r.viewOf({ byteOffset: span.start, byteLength: span.end - span.start }));
  }

  /**
   * The string field `name` of this message (`head` its tag): as {@link string}, but its field path is only built
   * for an error (CORRUPT for another wire type, as {@link expect}).
   */
  text(head: FieldHead, name: string): string {
    if (head.wire !== WIRE_LEN) this.expect(head, WIRE_LEN, name);
    const at = this.r.pos;
    if (this.fastVarint() > 0 && this.hi === 0) {
      const start = this.r.pos;
      const n = this.lo >>> 0;
      if (n <= SHORT_STRING && n <= this.end - start) {
        const index = this.r.loadedIndex(start, n);
        const ascii = index < 0 ? undefined : asciiText(this.r.loadedBytes, index, n);
        if (ascii !== undefined) {
          this.r.pos = start + n;
          return ascii;
        }
      }
    }
    // the checked read from the length again: also when the fast read got a length of 2^32 or more (hi set), which
    // once went on from after that length and read the next bytes as the string's
    this.r.pos = at;
    return this.string(`${this.path}.${name}`);
  }

  /** A bytes payload as a view (eager reads only: lazy callers keep the span). */
  bytes(field: string): Uint8Array {
    const span = this.len(field);
    return this.r.viewOf({ byteOffset: span.start, byteLength: span.end - span.start });
  }

  /** A cursor over a nested message's body (this cursor moves past it). */
  message(field: string): { cursor: () => ProtoCursor; span: LenSpan } {
    const span = this.len(field);
    return { span, cursor: () => new ProtoCursor(this.r, span.start, span.end, this.depth + 1, field, this.top) };
  }
}

/** Decodes packed varints of bytes [0, n) into bigints; CORRUPT on a bad varint (offset `base` + index). */
export function* packedVarints(bytes: Uint8Array, base: number, format: string, field: string): Generator<bigint> {
  let i = 0;
  while (i < bytes.length) {
    const at = i;
    let small = 0;
    let big = 0n;
    let k = 0;
    for (;;) {
      if (i >= bytes.length)
        throw new CorruptDataError(format, "packed varint runs past the end of its field", base + at, field);
      if (k >= 10) throw new CorruptDataError(format, "varint longer than 10 bytes", base + at, field);
      const b = bytes[i++]!;
      if (k < 4) small |= (b & 0x7f) << (7 * k);
      else big |= BigInt(b & 0x7f) << BigInt(7 * k);
      if ((b & 0x80) === 0) {
        if (k === 9 && b > 1) throw new CorruptDataError(format, "varint overflows 64 bits", base + at, field);
        break;
      }
      k++;
    }
    yield k < 4 ? BigInt(small >>> 0) : big | BigInt(small >>> 0);
  }
}

/** Counts packed varints fed in pieces (a payload read in windows); CORRUPT as {@link packedVarintCount} says. */
export class PackedVarintCounter {
  count = 0;
  private run = 0;
  constructor(
    private readonly format: string,
    private readonly field: string,
  ) {}

  /** The next bytes of the payload, `base` the absolute offset of bytes[0]. */
  feed(bytes: Uint8Array, base: number): void {
    for (let i = 0; i < bytes.length; i++) {
      if ((bytes[i]! & 0x80) === 0) {
        this.count++;
        this.run = 0;
      } else if (++this.run >= 10) {
        throw new CorruptDataError(this.format, "varint longer than 10 bytes", base + i - 9, this.field);
      }
    }
  }

  /** The count, once the payload (ending at absolute offset `end`) has been fed whole. */
  finish(end: number): number {
    if (this.run > 0)
      throw new CorruptDataError(
        this.format,
        "packed varint runs past the end of its field",
        end - this.run,
        this.field,
      );
    return this.count;
  }
}

/** Number of varints in packed bytes; CORRUPT (offset `base` + index) for one longer than 10 bytes or cut off. */
export function packedVarintCount(bytes: Uint8Array, base: number, format: string, field: string): number {
  const counter = new PackedVarintCounter(format, field);
  counter.feed(bytes, base);
  return counter.finish(base + bytes.length);
}

/** The value of the last varint {@link readVarintAt} read: its low and high 32 bits. */
export const varintValue = { lo: 0, hi: 0 };

/**
 * A varint of `head` at `at` for format detection, which never throws: its value (exact up to 2^53) and the offset
 * after it; undefined when the head ends inside it. A value with bits beyond 2^49 in its last bytes (a negative
 * int64, say) is `beyond` (-1 marks it malformed); one longer than 10 bytes is -1.
 */
export function headVarint(head: Uint8Array, at: number, beyond: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let k = 0; k < 10; k++) {
    if (at + k >= head.length) return undefined;
    const b = head[at + k]!;
    if (k < 7) value += (b & 0x7f) * 2 ** (7 * k);
    else if ((b & 0x7f) !== 0) {
      if (beyond < 0) return { value: -1, next: at + k + 1 };
      value = beyond;
    }
    if ((b & 0x80) === 0) return { value, next: at + k + 1 };
  }
  return { value: -1, next: at + 10 };
}

/**
 * Reads the varint at bytes[i] without allocating (its value into {@link varintValue}); returns its length, 0 when
 * it reaches `stop` unfinished, -1 when it is longer than 10 bytes.
 */
export function readVarintAt(bytes: Uint8Array, i: number, stop: number): number {
  let lo = 0;
  let hi = 0;
  for (let k = 0; k < 10; k++) {
    if (i + k >= stop) return 0;
    const b = bytes[i + k]!;
    if (k < 4) lo |= (b & 0x7f) << (7 * k);
    else if (k === 4) {
      lo |= (b & 0x7f) << 28;
      hi |= (b & 0x7f) >>> 4;
    } else hi |= (b & 0x7f) << (7 * k - 32);
    if ((b & 0x80) === 0) {
      varintValue.lo = lo;
      varintValue.hi = hi;
      return k + 1;
    }
  }
  return -1;
}

/** Writes an entry (low and high 32 bits) as a `width`-byte little-endian integer at `at` (two's complement kept). */
export function putEntry(out: DataView, at: number, width: number, lo: number, hi: number): void {
  if (width === 1) out.setUint8(at, lo & 0xff);
  else if (width === 2) out.setUint16(at, lo & 0xffff, true);
  else if (width === 4) out.setUint32(at, lo >>> 0, true);
  else {
    out.setUint32(at, lo >>> 0, true);
    out.setUint32(at + 4, hi >>> 0, true);
  }
}
