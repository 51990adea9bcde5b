import { createServer, type Server } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TruncatedError } from "../../bindings/bytes/errors.js";
import { ByteReader } from "../../bindings/bytes/byte-reader.js";
import { loadTensor, parseFrom } from "../../bindings/io/lazy.js";
import { SourceError, fromBlob, fromBytes, fromFile, fromUrl, readExactly } from "../../bindings/io/source.js";
import { randomBytes } from "../helpers/rng.js";
import { choppySource, sparseSource } from "../helpers/sources.js";

const data = randomBytes(42, 300_000);
let server: Server;
let base = "";
const requests: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push(`${req.url} ${req.headers.range ?? ""}`);
    if (req.url === "/missing") {
      res.writeHead(404).end();
      return;
    }
    const range = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? "");
    if (req.url === "/norange" || !range) {
      res.writeHead(200, { "content-length": data.length }).end(Buffer.from(data));
      return;
    }
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), data.length - 1);
    if (start >= data.length) {
      res.writeHead(416, { "content-range": `bytes */${data.length}` }).end();
      return;
    }
    res
      .writeHead(206, { "content-range": `bytes ${start}-${end}/${data.length}` })
      .end(Buffer.from(data.subarray(start, end + 1)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("byte sources", () => {
  it("fromUrl reads ranges with Range requests and learns the size", async () => {
    const source = fromUrl(`${base}/file`);
    expect(source.size).toBeUndefined();
    const part = await readExactly(source, 1000, 5000, "t");
    expect(Buffer.from(part).equals(Buffer.from(data.subarray(1000, 6000)))).toBe(true);
    expect(source.size).toBe(data.length);
    expect(requests.at(-1)).toContain("bytes=1000-5999");
    const tail = await source.read(data.length - 10, 100);
    expect(tail.length).toBe(10);
  });

  it("fromUrl works with a server that ignores Range, and reports HTTP errors", async () => {
    const source = fromUrl(`${base}/norange`);
    expect(Buffer.from(await source.read(5, 10)).equals(Buffer.from(data.subarray(5, 15)))).toBe(true);
    await expect(fromUrl(`${base}/missing`).read(0, 10)).rejects.toThrow(SourceError);
    await expect(fromUrl("http://127.0.0.1:1/nothing").read(0, 10)).rejects.toThrow(SourceError);
  });

  it("fromFile and fromBlob read ranges; a short file is TRUNCATED", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-"));
    try {
      const path = join(dir, "f.bin");
      writeFileSync(path, data);
      const file = await fromFile(path);
      expect(file.size).toBe(data.length);
      expect(Buffer.from(await readExactly(file, 123, 4567, "t")).equals(Buffer.from(data.subarray(123, 4690)))).toBe(
        true,
      );
      await expect(readExactly(file, data.length - 5, 10, "t")).rejects.toThrow(TruncatedError);
      await file.close();
      await expect(fromFile(join(dir, "nope"))).rejects.toThrow(SourceError);
      const blob = fromBlob(new Blob([data as Uint8Array<ArrayBuffer>]));
      expect(Buffer.from(await readExactly(blob, 7, 70_000, "t")).equals(Buffer.from(data.subarray(7, 70_007)))).toBe(
        true,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("parseFrom fetches only what the parser reads, through short reads too", async () => {
    // a toy format: u32 count, then count x (u32 length, payload)
    const parts = [10, 200_000, 7, 50_000];
    const size = 4 + parts.reduce((a, n) => a + 4 + n, 0);
    const bytes = new Uint8Array(size);
    const view = new DataView(bytes.buffer);
    view.setUint32(0, parts.length, true);
    let at = 4;
    for (const n of parts) {
      view.setUint32(at, n, true);
      bytes.fill(n & 0xff, at + 4, at + 4 + n);
      at += 4 + n;
    }
    const parse = (backing: ConstructorParameters<typeof ByteReader>[0]) => {
      const r = new ByteReader(backing, "toy");
      const count = r.u32("count");
      return Array.from({ length: count }, (_, i) => r.range(r.u32(`part[${i}].length`), `part[${i}]`));
    };
    const eager = parse(bytes);
    for (const source of [fromBytes(bytes), choppySource(bytes, 1), choppySource(bytes, 2)]) {
      expect(await parseFrom(source, "toy", parse)).toEqual(eager);
    }
    // a 3 GB virtual file with the same header: only headers are fetched
    const big = sparseSource(8 + 3 * 2 ** 30, [{ offset: 0, bytes: new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0xc0]) }]);
    const stats = { bytesRead: 0, fetches: 0 };
    const ranges = await parseFrom(big, "toy", parse, stats);
    expect(ranges).toEqual([{ byteOffset: 8, byteLength: 0xc0000000 }]);
    expect(big.bytesRead).toBeLessThan(1 << 20);
    expect(stats.bytesRead).toBe(big.bytesRead);
    // a source that ends before its promised size
    const short = { size: 100, read: async (o: number, l: number) => bytes.subarray(o, Math.min(o + l, 50)) };
    await expect(parseFrom(short, "toy", (b) => new ByteReader(b, "toy").bytesView(80))).rejects.toThrow(
      TruncatedError,
    );
  });

  it("loadTensor reads one range and decodes it", async () => {
    const floats = new Float32Array([1, 2, 3, 4, 5, 6]);
    const bytes = new Uint8Array(3 + floats.byteLength);
    bytes.set(new Uint8Array(floats.buffer), 3);
    const t = await loadTensor(fromBytes(bytes), {
      name: "w",
      dtype: "float32",
      shape: [2, 3],
      byteOffset: 3,
      byteLength: 24,
      byteOrder: "le",
      layout: "column-major",
    });
    expect(Array.from(t.data as Float32Array)).toEqual([1, 3, 5, 2, 4, 6]);
  });
});
