/**
 * ByteWriter: a growing output buffer with the same nouns as ByteReader (`u32(v)`, `f32(v)`, `bytes(b)`),
 * per-instance endianness, and marks for sizes known only at the end (`reserve` + `patchU32/patchU64`).
 * When the total size is cheap to compute, pass it to the constructor: the buffer is then allocated once.
 *
 * Pass-through mode (`{ passThrough: true }`, for writeTo): large `bytes(b)` payloads are not copied but kept as
 * references between the small pieces written around them; `segments()` gives everything in order, so a
 * gigabyte of weights goes to a sink without a second copy. Marks and patches only reach the buffer, so a
 * writer in this mode must not patch across a passed-through payload (none of the formats' writers patch).
 */

const textEncoder = new TextEncoder();

export interface Mark {
  readonly offset: number;
}

/** Payloads at least this long are passed through (not copied) in pass-through mode. */
export const PASS_THROUGH_BYTES = 64 * 1024;

export interface ByteWriterOptions {
  /** Keep large payloads as references instead of copying them (see segments()). */
  passThrough?: boolean | undefined;
}

/**
 * A growable buffer of fixed-width fields, the writers' counterpart of {@link ByteReader}; large payloads can be
 * kept by reference instead of copied (see `segments()`).
 */
export class ByteWriter {
  /** Byte order of the multi-byte writes (default true). */
  littleEndian: boolean;
  private buffer: Uint8Array;
  private view: DataView;
  private pos = 0;
  private readonly passThrough: boolean;
  /** Pass-through mode: buffer ranges [from, to) and passed payloads, in order. */
  private readonly pieces: ({ from: number; to: number } | Uint8Array)[] = [];
  private pieceStart = 0;
  private passedBytes = 0;

  constructor(initialCapacity = 1024, littleEndian = true, options: ByteWriterOptions = {}) {
    this.littleEndian = littleEndian;
    this.passThrough = options.passThrough === true;
    const capacity = this.passThrough ? Math.min(initialCapacity, PASS_THROUGH_BYTES) : initialCapacity;
    this.buffer = new Uint8Array(Math.max(16, capacity));
    this.view = new DataView(this.buffer.buffer);
  }

  /** Bytes written so far (passed-through payloads included). */
  get length(): number {
    return this.pos + this.passedBytes;
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

  /** Appends an unsigned 8-bit integer. */
  u8(v: number): this {
    const at = this.ensure(1); // ensure() may replace the buffer (and this.view)
    this.view.setUint8(at, v);
    return this;
  }
  /** Appends a signed 8-bit integer. */
  i8(v: number): this {
    const at = this.ensure(1); // ensure() may replace the buffer (and this.view)
    this.view.setInt8(at, v);
    return this;
  }
  /** Appends an unsigned 16-bit integer. */
  u16(v: number): this {
    const at = this.ensure(2); // ensure() may replace the buffer (and this.view)
    this.view.setUint16(at, v, this.littleEndian);
    return this;
  }
  /** Appends a signed 16-bit integer. */
  i16(v: number): this {
    const at = this.ensure(2); // ensure() may replace the buffer (and this.view)
    this.view.setInt16(at, v, this.littleEndian);
    return this;
  }
  /** Appends an unsigned 32-bit integer. */
  u32(v: number): this {
    const at = this.ensure(4); // ensure() may replace the buffer (and this.view)
    this.view.setUint32(at, v, this.littleEndian);
    return this;
  }
  /** Appends a signed 32-bit integer. */
  i32(v: number): this {
    const at = this.ensure(4); // ensure() may replace the buffer (and this.view)
    this.view.setInt32(at, v, this.littleEndian);
    return this;
  }
  /** Appends an unsigned 64-bit integer (a number up to 2^53 or a bigint). */
  u64(v: number | bigint): this {
    const at = this.ensure(8); // ensure() may replace the buffer (and this.view)
    this.view.setBigUint64(at, BigInt(v), this.littleEndian);
    return this;
  }
  /** Appends a signed 64-bit integer (a number or a bigint). */
  i64(v: number | bigint): this {
    const at = this.ensure(8); // ensure() may replace the buffer (and this.view)
    this.view.setBigInt64(at, BigInt(v), this.littleEndian);
    return this;
  }
  /** Appends a 32-bit IEEE float. */
  f32(v: number): this {
    const at = this.ensure(4); // ensure() may replace the buffer (and this.view)
    this.view.setFloat32(at, v, this.littleEndian);
    return this;
  }
  /** Appends a 64-bit IEEE float. */
  f64(v: number): this {
    const at = this.ensure(8); // ensure() may replace the buffer (and this.view)
    this.view.setFloat64(at, v, this.littleEndian);
    return this;
  }

  /** Appends raw bytes (in pass-through mode, a large payload is kept by reference: do not change it). */
  bytes(b: Uint8Array): this {
    if (this.passThrough && b.length >= PASS_THROUGH_BYTES) {
      this.pieces.push({ from: this.pieceStart, to: this.pos }, b);
      this.pieceStart = this.pos;
      this.passedBytes += b.length;
      return this;
    }
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

  /** Writes an unsigned 32-bit integer into bytes reserved with `reserve(4)`. */
  patchU32(mark: Mark, v: number): void {
    this.view.setUint32(mark.offset, v, this.littleEndian);
  }

  /** Writes an unsigned 64-bit integer into bytes reserved with `reserve(8)`. */
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
    if (this.passedBytes === 0) return this.buffer.subarray(0, this.pos);
    const out = new Uint8Array(this.length);
    let at = 0;
    for (const piece of this.segments()) {
      out.set(piece, at);
      at += piece.length;
    }
    return out;
  }

  /** Everything written, in order, as pieces: views of the buffer and the passed-through payloads. */
  segments(): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const piece of [...this.pieces, { from: this.pieceStart, to: this.pos }]) {
      if (piece instanceof Uint8Array) out.push(piece);
      else if (piece.to > piece.from) out.push(this.buffer.subarray(piece.from, piece.to));
    }
    return out;
  }
}

export function utf8Bytes(text: string): Uint8Array {
  return textEncoder.encode(text);
}
