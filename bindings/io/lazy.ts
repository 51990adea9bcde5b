/**
 * The lazy-read driver. `parseFrom(source, parse)` runs a format's ordinary synchronous parser over a
 * ChunkCache that holds only the ranges fetched so far. When the parser reads outside them it throws
 * NeedBytes; the driver fetches that range (at least CHUNK bytes, growing for sequential scans) and parses
 * again. Payload ranges that parsers pass over with `ByteReader.range()` are never fetched, so opening a model
 * reads its headers and not its tensors. `loadTensor` then reads and decodes one tensor.
 */
import { LimitError, TruncatedError, UnsupportedError } from "../bytes/errors.js";
import {
  type DecodeOptions,
  type NamedTensor,
  type TensorInfo,
  decodeRowMajorTensor,
  decodeTensor,
} from "../tensor.js";
import { type ByteBacking, NeedBytes } from "../bytes/byte-reader.js";
import { bytesOrUndefined } from "../bytes/input.js";
import { type ByteSource, SourceError, readExactly, sourceSize } from "./source.js";

/** A source's answer as a plain Uint8Array (a Node Buffer's slice() is a view). */
function plainBytes(bytes: Uint8Array): Uint8Array {
  const out = bytesOrUndefined(bytes);
  if (!out) throw new SourceError(`a ByteSource's readSync() must return a Uint8Array, not ${typeof bytes}`);
  return out;
}

const FIRST_CHUNK = 64 * 1024;
const MAX_CHUNK = 8 * 1024 * 1024;
const MAX_FETCHES = 100_000;

export class ChunkCache implements ByteBacking {
  /** Bytes fetched from the source so far. */
  bytesRead = 0;
  /** Number of reads made on the source. */
  fetches = 0;
  private readonly chunks: { start: number; bytes: Uint8Array }[] = [];
  private nextChunk = FIRST_CHUNK;

  constructor(
    private readonly source: ByteSource,
    readonly size: number,
    private readonly format: string,
  ) {}

  window(offset: number, length: number): { bytes: Uint8Array; start: number } {
    // newest first: sequential scans hit the chunk just fetched
    for (let i = this.chunks.length - 1; i >= 0; i--) {
      const c = this.chunks[i]!;
      if (offset >= c.start && offset + length <= c.start + c.bytes.length) return c;
    }
    // a source that reads synchronously (a local file) is read on the spot: the parser runs once, never restarts
    if (this.source.readSync) return this.fetch(offset, length, (at, n) => plainBytes(this.source.readSync!(at, n)));
    throw new NeedBytes(offset, length);
  }

  /** The chunk size for a read at `offset`: growing while the parser scans on, small again after a jump. */
  private chunkEnd(offset: number, length: number): number {
    if (offset + length > this.size)
      throw new TruncatedError(this.format, offset, undefined, length, Math.max(0, this.size - offset));
    // a parser that keeps reading on from the last chunk is scanning: fetch bigger and bigger pieces; one that
    // jumped (over a skipped payload) starts small again
    const last = this.chunks[this.chunks.length - 1];
    const sequential = last !== undefined && offset >= last.start && offset <= last.start + last.bytes.length;
    this.nextChunk = sequential ? Math.min(MAX_CHUNK, this.nextChunk * 2) : FIRST_CHUNK;
    return Math.min(this.size, offset + Math.max(length, this.nextChunk));
  }

  private fetch(
    offset: number,
    length: number,
    read: (at: number, n: number) => Uint8Array,
  ): { bytes: Uint8Array; start: number } {
    const end = this.chunkEnd(offset, length);
    const bytes = read(offset, end - offset);
    if (bytes.length < end - offset)
      throw new TruncatedError(this.format, offset + bytes.length, undefined, end - offset - bytes.length, 0);
    this.fetches++;
    this.bytesRead += bytes.length;
    const chunk = { start: offset, bytes };
    this.chunks.push(chunk);
    return chunk;
  }

  add(start: number, bytes: Uint8Array): void {
    this.chunks.push({ start, bytes });
  }

  async load(offset: number, length: number): Promise<void> {
    const end = this.chunkEnd(offset, length);
    const bytes = await readExactly(this.source, offset, end - offset, this.format);
    this.fetches++;
    this.bytesRead += bytes.length;
    this.add(offset, bytes);
  }
}

export interface LazyStats {
  bytesRead: number;
  fetches: number;
}

/** Runs `parse` over the source's bytes, fetching the ranges it reads until it completes. */
export async function parseFrom<T>(
  source: ByteSource,
  format: string,
  parse: (backing: ByteBacking) => T,
  stats?: LazyStats,
): Promise<T> {
  const { size, head } = await sourceSize(source);
  const cache = new ChunkCache(source, size, format);
  if (head) cache.add(0, head);
  try {
    for (;;) {
      try {
        return markLazy(parse(cache));
      } catch (error) {
        if (!(error instanceof NeedBytes)) throw error;
        if (cache.fetches >= MAX_FETCHES) {
          throw new LimitError(format, `gave up after ${MAX_FETCHES} range reads`, error.offset);
        }
        await cache.load(error.offset, error.length);
      }
    }
  } finally {
    if (stats) {
      stats.bytesRead += cache.bytesRead + (head?.length ?? 0);
      stats.fetches += cache.fetches + (head ? 1 : 0);
    }
  }
}

/** Reads one tensor's bytes from the source and decodes them (byte swap, widening, transpose). */
export async function loadTensor(
  source: ByteSource,
  info: TensorInfo,
  options: DecodeOptions & { format?: string } = {},
): Promise<NamedTensor> {
  const format = options.format ?? "tensorfile";
  const bytes = await readExactly(source, info.byteOffset, info.byteLength, format, info.name);
  return decodeTensor(bytes, info, { ...options, copy: false }, format);
}

/** loadTensor for the formats whose tensors are always row-major (decodeRowMajorTensor: no transpose kernels). */
export async function loadRowMajorTensor(
  source: ByteSource,
  info: TensorInfo,
  options: DecodeOptions & { format?: string } = {},
): Promise<NamedTensor> {
  const format = options.format ?? "tensorfile";
  const bytes = await readExactly(source, info.byteOffset, info.byteLength, format, info.name);
  return decodeRowMajorTensor(bytes, info, { ...options, copy: false }, format);
}

/** Marks what readFrom() returned, so that tensors() can say at the call that it needs loadTensor(). */
const OPENED_LAZILY = Symbol.for("tensorfile.openedLazily");

/** Tags a readFrom() result (non-enumerable: it does not show in JSON, inspect or structuredClone). */
export function markLazy<T>(file: T): T {
  if (file !== null && typeof file === "object" && Object.isExtensible(file)) {
    Object.defineProperty(file, OPENED_LAZILY, { value: true, enumerable: false });
  }
  return file;
}

/** True for a file object that readFrom() returned (its payloads are byte ranges, not bytes). */
export function isOpenedLazily(file: unknown): boolean {
  return file !== null && typeof file === "object" && (file as Record<symbol, unknown>)[OPENED_LAZILY] === true;
}

/** The error tensors() gives for a readFrom() result: at the call, saying what to use instead. */
export function assertEager(file: unknown, format: string): void {
  if (isOpenedLazily(file)) {
    throw new UnsupportedError(
      format,
      "this file was opened with readFrom(); its payloads are not in memory: use loadTensor(source, info) for each tensor (tensorInfos() lists them), or read() the whole file",
      undefined,
      "tensors",
    );
  }
}
