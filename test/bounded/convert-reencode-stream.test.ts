/**
 * `convert X.onnx Y.onnx` and `convert X.april Y.april` (a re-encode without options: write(read(X))) stream: the
 * peak memory of the CLI converting a 1 GiB model stays within 256 MiB of Node's baseline (it read the whole file
 * and joined a second copy: 2.15 GB). The models are sparse files (headers written at their offsets, payloads
 * left as holes but for a marker at each start), so the test holds no gigabyte; the peak is the child's
 * process.resourceUsage().maxRSS. The output must be byte-identical to the input (a hash of each, streamed).
 *
 * And the streamed route is write(read()): on small models and their mutations it gives write(read(bytes))'s
 * bytes or read()'s error, over a local file, bytes in memory and an asynchronous source.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdtempSync,
  openSync,
  closeSync,
  ftruncateSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as april from "../../bindings/formats/april.js";
import { rewriteFrom as aprilRewriteFrom } from "../../bindings/formats/april/rewrite-from.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { ProtoWriter } from "../../bindings/formats/onnx/proto-writer.js";
import { rewriteFrom as onnxRewriteFrom } from "../../bindings/formats/onnx/rewrite-from.js";
import { openFileAccess } from "../../bindings/io/file-access.js";
import { type ByteSource, fromBytes } from "../../bindings/io/source.js";
import { concatBytes } from "../../bindings/bytes/input.js";
import { BUILT_CLI, peakRss } from "../helpers/cli.js";
import { type TensorSpec, buildModel, le } from "../helpers/onnx-models.js";
import { countingSource } from "../helpers/sources.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-reencode-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MiB = 1024 * 1024;
/** What the CLI may use above Node's baseline while converting a 1 GiB model. */
const HEADROOM = 256 * MiB;

/** A piece of a sparse file: bytes at an offset (everything else is a hole: zeros). */
interface Piece {
  offset: number;
  bytes: Uint8Array;
}

/**
 * A ModelProto of `count` float32 raw_data initializers of `payload` bytes each, as pieces at their offsets (the
 * payloads are holes, but for a 16-byte marker at each start); `base` shifts every offset (a network inside an
 * .april file). Returns the pieces and the model's size.
 */
function sparseOnnx(count: number, payload: number, base = 0): { pieces: Piece[]; size: number } {
  const pieces: Piece[] = [];
  const heads = Array.from({ length: count }, (_, i) =>
    new ProtoWriter()
      .uintField(1, payload / 4)
      .uintField(2, 1)
      .stringField(8, `big.${i}`)
      .tag(9, 2)
      .varint(payload)
      .finish(),
  );
  const bodyLength = (h: Uint8Array) => h.length + payload;
  const tensorFields = heads.map((h) => new ProtoWriter().tag(5, 2).varint(bodyLength(h)).finish());
  const graphName = new ProtoWriter().stringField(2, "g").finish();
  const graphLength = graphName.length + heads.reduce((n, h, i) => n + tensorFields[i]!.length + bodyLength(h), 0);
  let at = base;
  const put = (bytes: Uint8Array) => {
    pieces.push({ offset: at, bytes });
    at += bytes.length;
  };
  put(new ProtoWriter().uintField(1, 8).stringField(2, "sparse").tag(7, 2).varint(graphLength).finish());
  put(graphName);
  heads.forEach((h, i) => {
    put(tensorFields[i]!);
    put(h);
    pieces.push({ offset: at, bytes: new Uint8Array(16).fill(0x40 + i) });
    at += payload;
  });
  put(new ProtoWriter().messageField(8, (op) => op.stringField(1, "").uintField(2, 17)).finish());
  return { pieces, size: at - base };
}

function writeSparse(path: string, pieces: Piece[], size: number): void {
  const fd = openSync(path, "w");
  try {
    ftruncateSync(fd, size);
    for (const p of pieces) writeSync(fd, p.bytes, 0, p.bytes.length, p.offset);
  } finally {
    closeSync(fd);
  }
}

async function sha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: 8 * MiB })) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

describe.runIf(existsSync(BUILT_CLI))("convert to the input's own format streams (1 GiB models)", () => {
  it("onnx -> onnx: within 256 MiB of Node's baseline, byte-identical", async () => {
    const { pieces, size } = sparseOnnx(4, 256 * MiB);
    expect(size).toBeGreaterThan(1024 * MiB);
    const input = join(dir, "big.onnx");
    const output = join(dir, "copy.onnx");
    writeSparse(input, pieces, size);
    const baseline = peakRss(dir, ["--version"]);
    const run = peakRss(dir, ["convert", input, output]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/wrote .*copy\.onnx \(onnx, \d+ bytes\)/);
    expect(run.rss - baseline.rss, `peak ${run.rss} vs baseline ${baseline.rss}`).toBeLessThan(HEADROOM);
    expect(await sha256(output)).toBe(await sha256(input));
    rmSync(output);
    rmSync(input);
  }, 900_000);

  it("april -> april: within 256 MiB of Node's baseline, the same as write(read())", async () => {
    // the header and params of an .april whose three networks are big sparse ONNX models
    const tiny = buildModel({
      graph: { initializers: [{ name: "w", dataType: 1, dims: [1], raw: le(new Float32Array([1])) }] },
    });
    const small = april.read(
      april.write(
        april.create({ networks: { encoder: tiny, decoder: tiny, joiner: tiny }, tokens: ["<blk>", "a", "b"] }),
      ),
    );
    const sizes = [sparseOnnx(3, 256 * MiB).size, sparseOnnx(1, 128 * MiB).size, sparseOnnx(1, 128 * MiB).size];
    const { header, params, layout } = april.encodeHeaderAndParams(small, sizes);
    const networks = [
      sparseOnnx(3, 256 * MiB, layout.networks[0].offset),
      sparseOnnx(1, 128 * MiB, layout.networks[1].offset),
      sparseOnnx(1, 128 * MiB, layout.networks[2].offset),
    ];
    const pieces: Piece[] = [
      { offset: 0, bytes: header },
      ...networks.flatMap((n) => n.pieces),
      { offset: layout.params.offset, bytes: params },
    ];
    const input = join(dir, "big.april");
    const output = join(dir, "copy.april");
    writeSparse(input, pieces, layout.fileSize);
    expect(layout.fileSize).toBeGreaterThan(1024 * MiB);
    const baseline = peakRss(dir, ["--version"]);
    const run = peakRss(dir, ["convert", input, output]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.rss - baseline.rss, `peak ${run.rss} vs baseline ${baseline.rss}`).toBeLessThan(HEADROOM);
    // the input is already in the reference layout: write(read()) of it is itself
    expect(await sha256(output)).toBe(await sha256(input));
    rmSync(output);
    rmSync(input);
  }, 900_000);
});

describe("the streamed rewrite is write(read())", () => {
  /** The outcome of write(read(bytes)) and of the streamed rewrite over three kinds of source. */
  async function outcomes(bytes: Uint8Array, format: "onnx" | "april"): Promise<string[]> {
    const describeError = (error: unknown) => {
      if (!isFormatError(error)) throw error;
      return `${error.code}`;
    };
    const eager = (() => {
      try {
        return Buffer.from(format === "onnx" ? onnx.write(onnx.read(bytes)) : april.write(april.read(bytes))).toString(
          "hex",
        );
      } catch (error) {
        return describeError(error);
      }
    })();
    const path = join(dir, `prop.${format}`);
    writeFileSync(path, bytes);
    const access = await openFileAccess(path);
    const sources: ByteSource[] = [access.source(), fromBytes(bytes), countingSource(bytes)];
    const results = [eager];
    try {
      for (const source of sources) {
        const chunks: Uint8Array[] = [];
        const rewrite = format === "onnx" ? onnxRewriteFrom : aprilRewriteFrom;
        try {
          await rewrite(source, (chunk) => void chunks.push(chunk.slice()));
          results.push(Buffer.from(concatBytes(chunks)).toString("hex"));
        } catch (error) {
          results.push(describeError(error));
        }
      }
    } finally {
      access.close();
    }
    return results;
  }

  const tensorArb = fc
    .record({
      kind: fc.constantFrom("raw", "floats", "int64s", "int32s"),
      n: fc.integer({ min: 0, max: 30 }),
    })
    .map(({ kind, n }): TensorSpec => {
      const name = `t${kind}${n}`;
      if (kind === "raw") return { name, dataType: 1, dims: [n], raw: le(new Float32Array(n).fill(0.5)) };
      if (kind === "floats") return { name, dataType: 1, dims: [n], floats: Array.from({ length: n }, (_, i) => i) };
      if (kind === "int64s")
        return { name, dataType: 7, dims: [n], int64s: Array.from({ length: n }, (_, i) => -i * 300) };
      return { name, dataType: 6, dims: [n], int32s: Array.from({ length: n }, (_, i) => i - 3) };
    });
  const mutationArb = fc.array(
    fc.record({
      at: fc.nat(),
      kind: fc.constantFrom("flip", "truncate", "byte"),
      value: fc.integer({ min: 0, max: 255 }),
    }),
    { maxLength: 3 },
  );
  const mutate = (original: Uint8Array, mutations: { at: number; kind: string; value: number }[]) => {
    let bytes = original.slice();
    for (const m of mutations) {
      if (bytes.length === 0) break;
      const at = m.at % bytes.length;
      if (m.kind === "truncate") bytes = bytes.slice(0, at);
      else if (m.kind === "flip") bytes[at] = bytes[at]! ^ (1 << (m.value & 7));
      else bytes[at] = m.value;
    }
    return bytes;
  };

  it("onnx: the same bytes, or the same error, as write(read()) (models and their mutations)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(tensorArb, { maxLength: 5 }), mutationArb, async (initializers, mutations) => {
        const bytes = mutate(
          buildModel({
            graph: {
              initializers,
              nodes: [
                {
                  name: "n",
                  opType: "Concat",
                  inputs: ["a"],
                  outputs: ["b"],
                  attrs: [{ name: "axis", type: 2, i: -1 }],
                },
              ],
            },
          }),
          mutations,
        );
        const [eager, ...streamed] = await outcomes(bytes, "onnx");
        for (const s of streamed) expect(s).toBe(eager);
      }),
      { seed: 4242, numRuns: 300 },
    );
  });

  it("april: the same bytes, or the same error, as write(read()) (files and their mutations, other layouts re-laid out)", async () => {
    const tiny = (n: number) =>
      buildModel({
        graph: { initializers: [{ name: "w", dataType: 1, dims: [n], raw: le(new Float32Array(n).fill(n)) }] },
      });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), mutationArb, async (n, mutations) => {
        const bytes = mutate(
          april.write(
            april.create({
              networks: { encoder: tiny(n), decoder: tiny(n + 1), joiner: new Uint8Array(n).fill(7) },
              tokens: ["<blk>", "x"],
            }),
          ),
          mutations,
        );
        const [eager, ...streamed] = await outcomes(bytes, "april");
        for (const s of streamed) expect(s).toBe(eager);
      }),
      { seed: 4243, numRuns: 300 },
    );
  });

  it("a model read() refuses (a wrong varint entry count) is refused before anything is written", async () => {
    const bytes = buildModel({ graph: { initializers: [{ name: "ids", dataType: 7, dims: [4], int64s: [1, 2, 3] }] } });
    const written: Uint8Array[] = [];
    const error = await onnxRewriteFrom(fromBytes(bytes), (chunk) => void written.push(chunk)).catch((e: unknown) => e);
    expect(isFormatError(error) && error.code).toBe("CORRUPT");
    expect(written).toHaveLength(0);
  });
});

describe.runIf(existsSync(BUILT_CLI))("the CLI's streamed re-encode", () => {
  it("a corrupt model: exit 1 with read()'s error, and no output; from standard input it works as from a file", () => {
    const bad = buildModel({ graph: { initializers: [{ name: "ids", dataType: 7, dims: [4], int64s: [1, 2, 3] }] } });
    const input = join(dir, "bad.onnx");
    const output = join(dir, "bad-out.onnx");
    writeFileSync(input, bad);
    const r = spawnSync(process.execPath, [BUILT_CLI, "convert", input, output], { encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/int64_data/);
    expect(existsSync(output)).toBe(false);
    const good = buildModel({
      graph: { initializers: [{ name: "w", dataType: 1, dims: [3], raw: le(new Float32Array([1, 2, 3])) }] },
    });
    const piped = spawnSync(process.execPath, [BUILT_CLI, "convert", "-", output], { input: good, encoding: "utf8" });
    expect(piped.status, piped.stderr).toBe(0);
    expect(Buffer.from(readFileSync(output)).equals(Buffer.from(good))).toBe(true);
  });
});
