/**
 * Protocol Buffers wire encoding (proto2/proto3 are the same on the wire), the writing half that the ONNX reader,
 * writer, patcher and builder share.
 *
 *   field  = tag payload;  tag = varint((field_number << 3) | wire_type)
 *   wire 0 = varint (LEB128, 1-10 bytes; negative int32/int64 are sign-extended to 10 bytes)
 *   wire 1 = 8 bytes little-endian (fixed64, double)
 *   wire 2 = varint length + bytes (strings, bytes, nested messages, packed repeated scalars)
 *   wire 5 = 4 bytes little-endian (fixed32, float)
 *
 * ProtoWriter collects pieces (small buffers and large byte payloads by reference), so a nested message can be
 * written first and framed with its length afterwards without copying a gigabyte of raw_data twice.
 */

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_LENGTH_DELIMITED = 2;
export const WIRE_FIXED32 = 5;

const textEncoder = new TextEncoder();

/** raw() keeps payloads of this many bytes or more by reference (smaller ones are copied into its buffer). */
export const RAW_BY_REFERENCE_BYTES = 4096;

/** Bytes the varint encoding of `value` takes (a non-negative safe integer or a bigint). */
export function varintSize(value: number | bigint): number {
  let v = BigInt.asUintN(64, BigInt(value));
  let n = 1;
  while (v >= 0x80n) {
    v >>= 7n;
    n++;
  }
  return n;
}

/** A growing list of encoded pieces; `finish()` joins them, `pieces()` hands them out without joining. */
export class ProtoWriter {
  private readonly parts: Uint8Array[] = [];
  private scratch = new Uint8Array(256);
  private used = 0;
  private total = 0;

  /** Bytes written so far. */
  get length(): number {
    return this.total;
  }

  private flushScratch(): void {
    if (this.used > 0) {
      this.parts.push(this.scratch.slice(0, this.used));
      this.used = 0;
    }
  }

  private room(n: number): void {
    if (this.used + n > this.scratch.length) {
      this.flushScratch();
      if (n > this.scratch.length) this.scratch = new Uint8Array(n);
    }
  }

  /** An unsigned varint; a negative number or bigint is written as its 64-bit two's complement (10 bytes). */
  varint(value: number | bigint): this {
    this.room(10);
    if (typeof value === "number" && value >= 0 && value <= 0x7fffffff) {
      let v = value;
      while (v >= 0x80) {
        this.scratch[this.used++] = (v & 0x7f) | 0x80;
        this.total++;
        v >>>= 7;
      }
      this.scratch[this.used++] = v;
      this.total++;
      return this;
    }
    let v = BigInt.asUintN(64, BigInt(value));
    while (v >= 0x80n) {
      this.scratch[this.used++] = Number(v & 0x7fn) | 0x80;
      this.total++;
      v >>= 7n;
    }
    this.scratch[this.used++] = Number(v);
    this.total++;
    return this;
  }

  tag(field: number, wireType: number): this {
    return this.varint(field * 8 + wireType);
  }

  /** Raw bytes; payloads of 4 KiB or more are kept by reference (the caller must not change them before finish). */
  raw(bytes: Uint8Array): this {
    if (bytes.length >= RAW_BY_REFERENCE_BYTES) {
      this.flushScratch();
      this.parts.push(bytes);
    } else {
      this.room(bytes.length);
      this.scratch.set(bytes, this.used);
      this.used += bytes.length;
    }
    this.total += bytes.length;
    return this;
  }

  fixed32(bits: number): this {
    this.room(4);
    new DataView(this.scratch.buffer).setUint32(this.used, bits >>> 0, true);
    this.used += 4;
    this.total += 4;
    return this;
  }

  float(value: number): this {
    this.room(4);
    new DataView(this.scratch.buffer).setFloat32(this.used, value, true);
    this.used += 4;
    this.total += 4;
    return this;
  }

  double(value: number): this {
    this.room(8);
    new DataView(this.scratch.buffer).setFloat64(this.used, value, true);
    this.used += 8;
    this.total += 8;
    return this;
  }

  /** field: varint */
  uintField(field: number, value: number | bigint): this {
    return this.tag(field, WIRE_VARINT).varint(value);
  }

  /** field: length-delimited bytes */
  bytesField(field: number, bytes: Uint8Array): this {
    return this.tag(field, WIRE_LENGTH_DELIMITED).varint(bytes.length).raw(bytes);
  }

  /** field: length-delimited UTF-8 string */
  stringField(field: number, text: string): this {
    return this.bytesField(field, textEncoder.encode(text));
  }

  /** field: float (wire type 5) */
  floatField(field: number, value: number): this {
    return this.tag(field, WIRE_FIXED32).float(value);
  }

  /** field: packed repeated varints (int32/int64/uint64/enum lists); nothing for an empty list. */
  packedVarintField(field: number, values: readonly (number | bigint)[]): this {
    if (values.length === 0) return this;
    let size = 0;
    for (const v of values) size += varintSize(v);
    this.tag(field, WIRE_LENGTH_DELIMITED).varint(size);
    for (const v of values) this.varint(v);
    return this;
  }

  /** field: packed repeated floats; nothing for an empty list. */
  packedFloatField(field: number, values: readonly number[]): this {
    if (values.length === 0) return this;
    this.tag(field, WIRE_LENGTH_DELIMITED).varint(values.length * 4);
    for (const v of values) this.float(v);
    return this;
  }

  /** field: a nested message, written by `body` into its own writer and framed with its length. */
  messageField(field: number, body: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    body(inner);
    return this.embed(field, inner);
  }

  /** field: an already written nested message. */
  embed(field: number, inner: ProtoWriter): this {
    this.tag(field, WIRE_LENGTH_DELIMITED).varint(inner.length);
    inner.flushScratch();
    this.flushScratch();
    for (const part of inner.parts) this.parts.push(part);
    this.total += inner.total;
    return this;
  }

  /** The pieces in order, without joining (large payloads are the caller's own arrays). */
  pieces(): Uint8Array[] {
    this.flushScratch();
    return this.parts.slice();
  }

  /** Every piece joined into one array. */
  finish(): Uint8Array {
    this.flushScratch();
    const out = new Uint8Array(this.total);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}
