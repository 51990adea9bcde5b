/**
 * The lazy-read driver for ONNX (and the networks of an .april file): like io/lazy.ts's parseFrom, it runs the
 * synchronous parser over a backing that holds only the ranges fetched so far and restarts it when it needs more,
 * but with small reads after every jump (4 KiB instead of 64 KiB for sources with readSync, which never restart
 * the parser; 16 KiB for the others): a protobuf model is a run of small headers
 * between payloads the parser skips, so a 1 GiB model with 1,000 initializers opens reading well under 1 MiB plus
 * a few KiB per initializer. Sequential reads still grow (to 8 MiB) for long runs of graph structure.
 */
import { LimitError, TruncatedError } from "../../errors.js";
import { type ByteBacking, NeedBytes } from "../../io/byte-reader.js";
import { bytesOrUndefined } from "../../io/input.js";
import { markLazy } from "../../io/lazy.js";
import { type ByteSource, SourceError, readExactly, sourceSize } from "../../io/source.js";

/** After a jump: sources that read synchronously (local files) take small reads; others restart the parse per read, so fewer, larger ones. */
const JUMP_CHUNK_SYNC = 4 * 1024;
const JUMP_CHUNK_ASYNC = 16 * 1024;
const MAX_CHUNK = 8 * 1024 * 1024;
const MAX_FETCHES = 1_000_000;

class SmallChunkCache implements ByteBacking {
  bytesRead = 0;
  fetches = 0;
  private readonly chunks: { start: number; bytes: Uint8Array }[] = [];
  private next: number;
  private readonly jump: number;

  constructor(private readonly source: ByteSource, readonly size: number, private readonly format: string) {
    this.jump = source.readSync ? JUMP_CHUNK_SYNC : JUMP_CHUNK_ASYNC;
    this.next = this.jump;
  }

  window(offset: number, length: number): { bytes: Uint8Array; start: number } {
    for (let i = this.chunks.length - 1; i >= 0 && i >= this.chunks.length - 64; i--) {
      const c = this.chunks[i]!;
      if (offset >= c.start && offset + length <= c.start + c.bytes.length) return c;
    }
    for (let i = this.chunks.length - 65; i >= 0; i--) {
      const c = this.chunks[i]!;
      if (offset >= c.start && offset + length <= c.start + c.bytes.length) return c;
    }
    if (this.source.readSync) {
      const end = this.chunkEnd(offset, length);
      const got = bytesOrUndefined(this.source.readSync(offset, end - offset));
      if (!got) throw new SourceError(`a ByteSource's readSync() must return a Uint8Array`);
      if (got.length < end - offset) throw new TruncatedError(this.format, offset + got.length, undefined, end - offset - got.length, 0);
      return this.add(offset, got);
    }
    throw new NeedBytes(offset, length);
  }

  private chunkEnd(offset: number, length: number): number {
    if (offset + length > this.size) throw new TruncatedError(this.format, offset, undefined, length, Math.max(0, this.size - offset));
    const last = this.chunks[this.chunks.length - 1];
    const sequential = last !== undefined && offset >= last.start && offset <= last.start + last.bytes.length;
    this.next = sequential ? Math.min(MAX_CHUNK, this.next * 2) : this.jump;
    if (++this.fetches > MAX_FETCHES) throw new LimitError(this.format, `gave up after ${MAX_FETCHES} range reads`, offset);
    return Math.min(this.size, offset + Math.max(length, this.next));
  }

  add(start: number, bytes: Uint8Array): { bytes: Uint8Array; start: number } {
    const chunk = { start, bytes };
    this.chunks.push(chunk);
    this.bytesRead += bytes.length;
    return chunk;
  }

  async load(offset: number, length: number): Promise<void> {
    const end = this.chunkEnd(offset, length);
    this.add(offset, await readExactly(this.source, offset, end - offset, this.format));
  }
}

/** Runs `parse` over the source's bytes, fetching (small) ranges as it reads them, until it completes. */
export async function parseSmallChunks<T>(source: ByteSource, format: string, parse: (backing: ByteBacking) => T): Promise<T> {
  const { size, head } = await sourceSize(source);
  const cache = new SmallChunkCache(source, size, format);
  if (head) cache.add(0, head);
  for (;;) {
    try {
      return markLazy(parse(cache));
    } catch (error) {
      if (!(error instanceof NeedBytes)) throw error;
      await cache.load(error.offset, error.length);
    }
  }
}
