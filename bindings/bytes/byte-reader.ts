/**
 * ByteReader: a cursor over a file's bytes with labelled, bounds-checked reads. Every read names its field so
 * errors say where they happened; every declared length is checked against the bytes that remain before
 * anything is allocated. Offsets (`pos`) are absolute file offsets.
 *
 * The bytes come either from one Uint8Array (the whole file) or from a `ByteBacking` that holds only the
 * ranges fetched so far (lazy reads through a ByteSource): a read outside them throws `NeedBytes`, which the
 * lazy driver (io/lazy.ts) catches to fetch the range and parse again. Parsers never see the difference.
 */
import { copyBytes } from "./input.js";
import { BadMagicError, CorruptDataError, LimitError, TruncatedError, UnsupportedVersionError } from "./errors.js";

/** Thrown (only with a partial backing) when a read needs bytes that have not been fetched yet. */
export class NeedBytes extends Error {
  override name = "NeedBytes";
  constructor(
    readonly offset: number,
    readonly length: number,
  ) {
    super(`bytes ${offset}..${offset + length} are not loaded`);
  }
}

/** Random access to a file of known size of which some ranges may be loaded. */
export interface ByteBacking {
  readonly size: number;
  /**
   * A loaded window holding at least [offset, offset + length): `bytes[0]` is at file offset `start`.
   * Throws NeedBytes when the range is not loaded.
   */
  window(offset: number, length: number): { bytes: Uint8Array; start: number };
}

/** A byte range of the file whose bytes were not read (lazy mode) or are not needed yet. */
export interface ByteRange {
  /** Absolute offset of the first byte in the file. */
  byteOffset: number;
  /** Length in bytes. */
  byteLength: number;
}

export interface ByteReaderOptions {
  littleEndian?: boolean | undefined;
  /** Absolute offset to start at (default 0). */
  start?: number | undefined;
  /** Absolute offset this reader may not read past (default: the end of the file). */
  end?: number | undefined;
}

// ignoreBOM: keep a leading U+FEFF as a character instead of silently dropping its bytes
const textDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
const fatalDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** True ISO-8859-1: byte b is U+00b (TextDecoder("latin1") is windows-1252 and remaps 0x80-0x9F). */
export function decodeLatin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return text;
}

/**
 * Checked reads of fixed-width fields from a file's bytes (or a window of a larger backing): every read checks that
 * its bytes are there first and throws a {@link TruncatedError} naming the field otherwise. The readers of every
 * format are written over it.
 */
export class ByteReader {
  /** The format being read: the prefix of every error message. */
  readonly format: string;
  /** Byte order of the multi-byte reads (default true). */
  littleEndian: boolean;
  /** Absolute offset of the next byte to read. */
  pos: number;
  /** Absolute offset of the first byte this reader may read. */
  readonly start: number;
  /** Absolute offset this reader may not read past. */
  readonly end: number;
  /** The whole file size (the backing's size). */
  readonly fileSize: number;

  private readonly backing: ByteBacking | null;
  private bytes: Uint8Array;
  private view: DataView;
  private windowStart: number;

  constructor(input: Uint8Array | ByteBacking, format: string, options: ByteReaderOptions = {}) {
    this.format = format;
    this.littleEndian = options.littleEndian ?? true;
    if (input instanceof Uint8Array) {
      this.backing = null;
      this.bytes = input;
      this.fileSize = input.byteLength;
    } else {
      this.backing = input;
      this.bytes = new Uint8Array(0);
      this.fileSize = input.size;
    }
    this.view = new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    this.windowStart = 0;
    this.start = options.start ?? 0;
    this.end = Math.min(options.end ?? this.fileSize, this.fileSize);
    this.pos = this.start;
  }

  /** Bytes left between the cursor and this reader's end. */
  get remaining(): number {
    return Math.max(0, this.end - this.pos);
  }

  /** True while the cursor has not reached this reader's end. */
  get hasMore(): boolean {
    return this.pos < this.end;
  }

  /** Throws TRUNCATED unless `n` more bytes are within this reader's bounds. */
  need(n: number, field?: string): void {
    if (!(n <= this.end - this.pos)) throw new TruncatedError(this.format, this.pos, field, n, this.remaining);
  }

  /** Index into this.bytes of absolute offset `at`, making sure [at, at + n) is in the current window. */
  private locate(at: number, n: number): number {
    const index = at - this.windowStart;
    if (index >= 0 && index + n <= this.bytes.length) return index;
    if (!this.backing) throw new TruncatedError(this.format, at, undefined, n, Math.max(0, this.fileSize - at));
    const w = this.backing.window(at, n);
    this.bytes = w.bytes;
    this.windowStart = w.start;
    this.view = new DataView(w.bytes.buffer, w.bytes.byteOffset, w.bytes.byteLength);
    return at - w.start;
  }

  /**
   * For tight loops (protobuf varints): the index of absolute offset `at` in {@link loadedBytes} when [at, at + n) is in
   * the window already loaded, else -1 (nothing is fetched or thrown: the caller takes the checked reads instead).
   */
  loadedIndex(at: number, n: number): number {
    const index = at - this.windowStart;
    return index >= 0 && index + n <= this.bytes.length ? index : -1;
  }

  /** The window {@link loadedIndex} indexes (the whole input when it is one Uint8Array). */
  get loadedBytes(): Uint8Array {
    return this.bytes;
  }

  private take(n: number, field: string | undefined): number {
    this.need(n, field);
    const index = this.locate(this.pos, n);
    this.pos += n;
    return index;
  }

  /** Reads an unsigned 8-bit integer; `field` names it in errors. */
  u8(field?: string): number {
    const at = this.take(1, field); // take() may swap the window (and this.view)
    return this.view.getUint8(at);
  }
  /** Reads a signed 8-bit integer. */
  i8(field?: string): number {
    const at = this.take(1, field); // take() may swap the window (and this.view)
    return this.view.getInt8(at);
  }
  /** Reads an unsigned 16-bit integer. */
  u16(field?: string): number {
    const at = this.take(2, field); // take() may swap the window (and this.view)
    return this.view.getUint16(at, this.littleEndian);
  }
  /** Reads a signed 16-bit integer. */
  i16(field?: string): number {
    const at = this.take(2, field); // take() may swap the window (and this.view)
    return this.view.getInt16(at, this.littleEndian);
  }
  /** Reads an unsigned 32-bit integer. */
  u32(field?: string): number {
    const at = this.take(4, field); // take() may swap the window (and this.view)
    return this.view.getUint32(at, this.littleEndian);
  }
  /** Reads a signed 32-bit integer. */
  i32(field?: string): number {
    const at = this.take(4, field); // take() may swap the window (and this.view)
    return this.view.getInt32(at, this.littleEndian);
  }
  /** Reads an unsigned 64-bit integer as a bigint. */
  u64(field?: string): bigint {
    const at = this.take(8, field); // take() may swap the window (and this.view)
    return this.view.getBigUint64(at, this.littleEndian);
  }
  /** Reads a signed 64-bit integer as a bigint. */
  i64(field?: string): bigint {
    const at = this.take(8, field); // take() may swap the window (and this.view)
    return this.view.getBigInt64(at, this.littleEndian);
  }
  /** A u64 as a number; LIMIT above Number.MAX_SAFE_INTEGER (no silent rounding). */
  u64n(field?: string): number {
    const at = this.pos;
    const v = this.u64(field);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new LimitError(this.format, `value ${v} is larger than 2^53 - 1`, at, field, v, Number.MAX_SAFE_INTEGER);
    }
    return Number(v);
  }
  /** An i64 as a number; LIMIT outside ±(2^53 - 1). */
  i64n(field?: string): number {
    const at = this.pos;
    const v = this.i64(field);
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new LimitError(this.format, `value ${v} is outside ±(2^53 - 1)`, at, field, v, Number.MAX_SAFE_INTEGER);
    }
    return Number(v);
  }
  /** Reads a 32-bit IEEE float. */
  f32(field?: string): number {
    const at = this.take(4, field); // take() may swap the window (and this.view)
    return this.view.getFloat32(at, this.littleEndian);
  }
  /** Reads a 64-bit IEEE float. */
  f64(field?: string): number {
    const at = this.take(8, field); // take() may swap the window (and this.view)
    return this.view.getFloat64(at, this.littleEndian);
  }

  /** `n` bytes as a view sharing memory with the input (no copy). */
  bytesView(n: number, field?: string): Uint8Array {
    const index = this.take(n, field);
    return this.bytes.subarray(index, index + n);
  }

  /** `n` bytes in lazy form: bounds-checked and skipped, not read. */
  range(n: number, field?: string): ByteRange {
    this.need(n, field);
    const byteOffset = this.pos;
    this.pos += n;
    return { byteOffset, byteLength: n };
  }

  /** `n` bytes: a view when `eager`, else only their range (for payloads that readFrom leaves on disk). */
  payload(n: number, eager: boolean, field?: string): Uint8Array | ByteRange {
    return eager ? this.bytesView(n, field) : this.range(n, field);
  }

  /** The bytes of a range already passed over (a view). */
  viewOf(range: ByteRange): Uint8Array {
    const index = this.locate(range.byteOffset, range.byteLength);
    return this.bytes.subarray(index, index + range.byteLength);
  }

  /** Looks at the next `n` bytes (or fewer at the end) without moving. */
  peek(n: number): Uint8Array {
    const m = Math.min(n, this.remaining);
    const index = this.locate(this.pos, m);
    return this.bytes.subarray(index, index + m);
  }

  /** Moves `n` bytes forward without reading them (they must be there). */
  skip(n: number, field?: string): void {
    this.need(n, field);
    this.pos += n;
  }

  /** Moves to an absolute offset inside this reader's bounds. */
  seek(offset: number, field?: string): void {
    if (offset < this.start || offset > this.end) {
      throw new CorruptDataError(
        this.format,
        `offset ${offset} is outside ${this.start}..${this.end}`,
        this.pos,
        field,
      );
    }
    this.pos = offset;
  }

  /** UTF-8 text of `n` bytes; invalid sequences become U+FFFD (use bytesView to keep the exact bytes). */
  utf8(n: number, field?: string): string {
    return textDecoder.decode(this.bytesView(n, field));
  }

  /** UTF-8 text of `n` bytes; CORRUPT when the bytes are not valid UTF-8. */
  utf8Strict(n: number, field?: string): string {
    const at = this.pos;
    const bytes = this.bytesView(n, field);
    try {
      return fatalDecoder.decode(bytes);
    } catch (cause) {
      throw new CorruptDataError(this.format, "invalid UTF-8", at, field, { cause });
    }
  }

  /** Latin-1 text of `n` bytes (every byte is one character, so the bytes round-trip). */
  latin1(n: number, field?: string): string {
    return decodeLatin1(this.bytesView(n, field));
  }

  /** Checks the next bytes against `expected` (text is ASCII/latin1); BAD_MAGIC otherwise. */
  magic(expected: string | Uint8Array, field = "magic"): void {
    const want = typeof expected === "string" ? Uint8Array.from(expected, (c) => c.charCodeAt(0)) : expected;
    const at = this.pos;
    const got = this.peek(want.length);
    let same = true;
    for (let i = 0; same && i < got.length; i++) same = got[i] === want[i];
    // a file that stops inside a correct magic is truncated, not something else
    if (same && got.length < want.length) throw new TruncatedError(this.format, at, field, want.length, got.length);
    if (!same) {
      throw new BadMagicError(
        this.format,
        at,
        field,
        expected,
        typeof expected === "string" ? decodeLatin1(got) : copyBytes(got),
      );
    }
    this.pos += want.length;
  }

  /** Returns `value` when it is one of `supported`, else UNSUPPORTED_VERSION (offset = where it was read). */
  version<T extends number>(value: number, supported: readonly T[], at: number, field = "version"): T {
    if (!supported.includes(value as T)) throw new UnsupportedVersionError(this.format, at, field, value, supported);
    return value as T;
  }

  /**
   * Checks that `count` elements of `elementBytes` each can fit in the bytes that remain (before anything is
   * allocated for them) and returns count as a number. A count of 2^62 gives TRUNCATED at once.
   */
  count(count: number | bigint, elementBytes: number, field?: string): number {
    if (
      typeof count === "number" &&
      Number.isSafeInteger(count) &&
      count >= 0 &&
      count * elementBytes <= this.end - this.pos
    ) {
      return count; // the common case, without BigInt arithmetic
    }
    if (typeof count === "number" && !Number.isInteger(count)) {
      throw new CorruptDataError(this.format, `count ${count} is not a whole number`, this.pos, field);
    }
    const n = typeof count === "bigint" ? count : BigInt(count);
    const needed = n * BigInt(Math.max(elementBytes, 0));
    if (n < 0n) throw new CorruptDataError(this.format, `negative count ${n}`, this.pos, field);
    if (needed > BigInt(this.remaining)) {
      const shown = needed > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(needed);
      throw new TruncatedError(this.format, this.pos, field, shown, this.remaining);
    }
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new LimitError(
        this.format,
        `count ${n} is larger than 2^53 - 1`,
        this.pos,
        field,
        n,
        Number.MAX_SAFE_INTEGER,
      );
    }
    return Number(n);
  }

  /** A reader over the next `n` bytes (same endianness); this reader moves past them. */
  sub(n: number, field?: string): ByteReader {
    this.need(n, field);
    const child = new ByteReader(this.backing ?? this.bytes, this.format, {
      littleEndian: this.littleEndian,
      start: this.pos,
      end: this.pos + n,
    });
    this.pos += n;
    return child;
  }

  /** A reader over [start, end) of the same file (same endianness), independent of this cursor. */
  slice(start: number, end: number): ByteReader {
    return new ByteReader(this.backing ?? this.bytes, this.format, { littleEndian: this.littleEndian, start, end });
  }
}
