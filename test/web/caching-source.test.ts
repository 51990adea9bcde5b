// The worker's caching source (issue 26: over HTTP one view of a tensor read its bytes three times, and a bin
// change read them again): ranges read once are served from memory, also across chunkings; the budget holds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ByteSource } from "../../bindings/index.js";
import { cachingSource } from "../../web/src/model/caching-source.js";

function counted(bytes: Uint8Array): ByteSource & { served: number; reads: number } {
  const source = {
    size: bytes.length,
    served: 0,
    reads: 0,
    async read(offset: number, length: number) {
      source.reads++;
      const out = bytes.slice(offset, Math.min(bytes.length, offset + length));
      source.served += out.length;
      return out;
    },
  };
  return source;
}

const data = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 31) & 255);

describe("cachingSource", () => {
  it("a statistics pass in chunks, a histogram pass, then a whole read: the bytes are fetched once", async () => {
    const inner = counted(data);
    const source = cachingSource(inner);
    const chunk = 1024;
    for (let pass = 0; pass < 2; pass++) {
      for (let o = 1000; o < 9000; o += chunk)
        expect(await source.read(o, Math.min(chunk, 9000 - o))).toEqual(data.subarray(o, Math.min(9000, o + chunk)));
    }
    expect(await source.read(1000, 8000)).toEqual(data.subarray(1000, 9000));
    expect(await source.read(4321, 100)).toEqual(data.subarray(4321, 4421));
    expect(inner.served).toBe(8000);
    expect(source.fetched).toBe(8000);
  });

  it("keeps at most its budget, dropping the least recently used", async () => {
    const inner = counted(data);
    const source = cachingSource(inner, 3000);
    await source.read(0, 2000);
    await source.read(2000, 2000);
    await source.read(0, 10); // the first piece was dropped to make room
    expect(inner.served).toBe(4010);
    await source.read(2000, 2000);
    expect(inner.served).toBe(4010);
  });

  it("answers any read sequence with the source's bytes (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: 10_500 }), fc.nat({ max: 4000 })), { maxLength: 30 }),
        fc.integer({ min: 1, max: 12_000 }),
        async (reads, budget) => {
          const source = cachingSource(counted(data), budget);
          for (const [offset, length] of reads) {
            const want = data.subarray(Math.min(offset, data.length), Math.min(data.length, offset + length));
            expect(await source.read(offset, length)).toEqual(want);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
