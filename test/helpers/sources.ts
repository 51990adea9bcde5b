/** ByteSources for lazy-read tests: counting, choppy (short reads at random split points), sparse (huge, virtual). */
import type { ByteSource } from "../../bindings/io/source.js";
import { rng } from "./rng.js";

export interface CountingSource extends ByteSource {
  size: number;
  bytesRead: number;
  reads: number;
}

/** Serves `bytes`, counting every byte handed out. */
export function countingSource(bytes: Uint8Array): CountingSource {
  const source: CountingSource = {
    size: bytes.length,
    bytesRead: 0,
    reads: 0,
    async read(offset, length) {
      const out = bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length));
      source.bytesRead += out.length;
      source.reads++;
      return out;
    },
  };
  return source;
}

/** Serves `bytes` but returns only a random-length prefix of each request (at least 1 byte), like a socket. */
export function choppySource(bytes: Uint8Array, seed: number): ByteSource {
  const next = rng(seed);
  return {
    size: bytes.length,
    async read(offset, length) {
      const end = Math.min(offset + length, bytes.length);
      if (end <= offset) return new Uint8Array(0);
      const n = 1 + Math.floor(next() * (end - offset));
      return bytes.slice(offset, offset + n);
    },
  };
}

/**
 * A virtual file of `size` bytes (may be many GB) made of the given pieces at their offsets and zeros
 * elsewhere, counting the bytes read. For "opening a 1 GB model reads < 1 MB" tests without 1 GB of memory.
 */
export function sparseSource(size: number, pieces: { offset: number; bytes: Uint8Array }[]): CountingSource {
  const source: CountingSource = {
    size,
    bytesRead: 0,
    reads: 0,
    async read(offset, length) {
      const end = Math.min(offset + length, size);
      const out = new Uint8Array(Math.max(0, end - offset));
      for (const p of pieces) {
        const from = Math.max(offset, p.offset);
        const to = Math.min(end, p.offset + p.bytes.length);
        if (from < to) out.set(p.bytes.subarray(from - p.offset, to - p.offset), from - offset);
      }
      source.bytesRead += out.length;
      source.reads++;
      return out;
    },
  };
  return source;
}
