/**
 * A ByteSource that keeps what it read (up to a byte budget, least recently used out first), so one view of a
 * tensor over HTTP reads its bytes once: the statistics pass, the histogram pass, a bin change and the heatmap's
 * decode all ask for the same ranges (in 16 MiB chunks or whole), and the later ones are answered from memory,
 * also when a whole-tensor read spans several cached chunks. Used by the worker for URL sources.
 */
import type { ByteSource } from "../../../bindings/index.js";

export const CACHE_BYTES = 320 * 1024 * 1024;

interface Piece {
  start: number;
  bytes: Uint8Array;
  used: number;
}

export interface CachingSource extends ByteSource {
  /** Bytes fetched from the underlying source so far. */
  readonly fetched: number;
}

export function cachingSource(inner: ByteSource, budget = CACHE_BYTES): CachingSource {
  let pieces: Piece[] = [];
  let held = 0;
  let clock = 0;
  let fetched = 0;

  /** The bytes [offset, offset + length) from cached pieces, or undefined when some are missing. */
  const fromCache = (offset: number, length: number): Uint8Array | undefined => {
    const end = offset + length;
    const single = pieces.find((p) => p.start <= offset && p.start + p.bytes.length >= end);
    if (single) {
      single.used = ++clock;
      return single.bytes.subarray(offset - single.start, end - single.start);
    }
    // several contiguous pieces covering the range
    const sorted = pieces
      .filter((p) => p.start < end && p.start + p.bytes.length > offset)
      .sort((a, b) => a.start - b.start);
    let cursor = offset;
    for (const p of sorted) {
      if (p.start > cursor) return undefined;
      cursor = Math.max(cursor, p.start + p.bytes.length);
    }
    if (cursor < end) return undefined;
    const out = new Uint8Array(length);
    for (const p of sorted) {
      p.used = ++clock;
      const from = Math.max(offset, p.start);
      const to = Math.min(end, p.start + p.bytes.length);
      out.set(p.bytes.subarray(from - p.start, to - p.start), from - offset);
    }
    return out;
  };

  const remember = (offset: number, bytes: Uint8Array) => {
    if (bytes.length === 0 || bytes.length > budget) return;
    // pieces inside the new one are no longer needed
    pieces = pieces.filter((p) => {
      const inside = p.start >= offset && p.start + p.bytes.length <= offset + bytes.length;
      if (inside) held -= p.bytes.length;
      return !inside;
    });
    pieces.push({ start: offset, bytes, used: ++clock });
    held += bytes.length;
    while (held > budget && pieces.length > 1) {
      let oldest = 0;
      for (let i = 1; i < pieces.length; i++) if (pieces[i]!.used < pieces[oldest]!.used) oldest = i;
      held -= pieces[oldest]!.bytes.length;
      pieces.splice(oldest, 1);
    }
  };

  return {
    get size() {
      return inner.size;
    },
    get fetched() {
      return fetched;
    },
    name: inner.name,
    async read(offset: number, length: number): Promise<Uint8Array> {
      const size = inner.size;
      const wanted = size === undefined ? length : Math.max(0, Math.min(length, size - offset));
      const cached = fromCache(offset, wanted);
      if (cached) return cached;
      const bytes = await inner.read(offset, length);
      fetched += bytes.length;
      remember(offset, bytes);
      return bytes;
    },
  };
}
