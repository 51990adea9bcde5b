/**
 * ByteWriter: a growing output buffer with the same nouns as ByteReader (`u32(v)`, `f32(v)`, `bytes(b)`),
 * per-instance endianness, and marks for sizes known only at the end (`reserve` + `patchU32/patchU64`).
 * When the total size is cheap to compute, pass it to the constructor: the buffer is then allocated once.
 */

const textEncoder = new TextEncoder();

export interface Mark {
  readonly offset: number;
}

export class ByteWriter {
  littleEndian: boolean;
  private buffer: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(initialCapacity = 1024, littleEndian = true) {
    this.littleEndian = littleEndian;
    this.buffer = new Uint8Array(Math.max(16, initialCapacity));
    this.view = new DataView(this.buffer.buffer);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.pos;
  }

  private ensure(n: number): number {
    const at = this.pos;
    const required = at + n;
    if (required > this.buffer.length) {
      const grown = new Uint8Array(Math.max(required, this.buffer.length * 2));
      grown.set(this.buffer.subarray(0, at));
      this.buffer = grown;
      this.view = new DataView(grown.buffer);
    }
    this.pos = required;
    return at;
  }

  u8(v: number): this {
    const at = this.ensure(1); // ensure() may replace the buffer (and this.view)
    this.view.setUint8(at, v);
    return this;
  }
  i8(v: number): this {
    const at = this.ensure(1); // ensure() may replace the buffer (and this.view)
    this.view.setInt8(at, v);
    return this;
  }
  u16(v: number): this {
    const at = this.ensure(2); // ensure() may replace the buffer (and this.view)
    this.view.setUint16(at, v, this.littleEndian);
    return this;
  }
  i16(v: number): this {
    const at = this.ensure(2); // ensure() may replace the buffer (and this.view)
    this.view.setInt16(at, v, this.littleEndian);
    return this;
  }
  u32(v: number): this {
    const at = this.ensure(4); // ensure() may replace the buffer (and this.view)
    this.view.setUint32(at, v, this.littleEndian);
    return this;
  }
  i32(v: number): this {
    const at = this.ensure(4); // ensure() may replace the buffer (and this.view)
    this.view.setInt32(at, v, this.littleEndian);
    return this;
  }
  u64(v: number | bigint): this {
    const at = this.ensure(8); // ensure() may replace the buffer (and this.view)
    this.view.setBigUint64(at, BigInt(v), this.littleEndian);
    return this;
  }
  i64(v: number | bigint): this {
    const at = this.ensure(8); // ensure() may replace the buffer (and this.view)
    this.view.setBigInt64(at, BigInt(v), this.littleEndian);
    return this;
  }
  f32(v: number): this {
    const at = this.ensure(4); // ensure() may replace the buffer (and this.view)
    this.view.setFloat32(at, v, this.littleEndian);
    return this;
  }
  f64(v: number): this {
    const at = this.ensure(8); // ensure() may replace the buffer (and this.view)
    this.view.setFloat64(at, v, this.littleEndian);
    return this;
  }

  /** Appends raw bytes. */
  bytes(b: Uint8Array): this {
    const at = this.ensure(b.length); // ensure() may replace the buffer
    this.buffer.set(b, at);
    return this;
  }

  /** Appends `n` zero bytes. */
  zeros(n: number): this {
    const at = this.ensure(n);
    this.buffer.fill(0, at, at + n);
    return this;
  }

  /** Appends `text` as UTF-8 and returns the number of bytes written. */
  utf8(text: string): number {
    const b = textEncoder.encode(text);
    this.bytes(b);
    return b.length;
  }

  /** Reserves `n` bytes to be patched later. */
  reserve(n: number): Mark {
    const offset = this.pos;
    this.zeros(n);
    return { offset };
  }

  patchU32(mark: Mark, v: number): void {
    this.view.setUint32(mark.offset, v, this.littleEndian);
  }

  patchU64(mark: Mark, v: number | bigint): void {
    this.view.setBigUint64(mark.offset, BigInt(v), this.littleEndian);
  }

  /** Writes `b` over already-written bytes at `offset`. */
  patchBytes(offset: number, b: Uint8Array): void {
    if (offset + b.length > this.pos) throw new RangeError("patch past the end of what was written");
    this.buffer.set(b, offset);
  }

  /** The bytes written: a view of the internal buffer (no copy when the capacity was exact). */
  finish(): Uint8Array {
    return this.buffer.subarray(0, this.pos);
  }
}

export function utf8Bytes(text: string): Uint8Array {
  return textEncoder.encode(text);
}
