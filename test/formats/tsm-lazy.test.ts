/**
 * tsm lazy reads: readFrom gives read()'s object with `value` payloads as ranges (through fromBytes and a
 * choppy source), tensorInfos/loadTensor give tensors()' data (.csta included: loaded ranges are decoded), and
 * opening a ~1 GB virtual module reads its headers only.
 */
import { describe, expect, it } from "vitest";
import * as tsm from "../../bindings/formats/tsm.js";
import type { TsmFile } from "../../bindings/formats/tsm.js";
import { readFromAny } from "../../bindings/any.js";
import type { ByteRange } from "../../bindings/bytes/byte-reader.js";
import { type ByteSource, fromBytes } from "../../bindings/io/source.js";
import { bytesOf } from "../../bindings/tensor.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { randomNormal } from "../helpers/rng.js";
import { choppySource, countingSource, sparseSource } from "../helpers/sources.js";
import { constNode, field, hugeConstPieces, module, node, richModule } from "../helpers/tsm-builders.js";

const isRange = (d: unknown): d is ByteRange => !ArrayBuffer.isView(d);

/** Byte equality without the deep-equality machinery (payloads are up to 8 MB). */
function sameBytes(a: ArrayBufferView, b: ArrayBufferView): boolean {
  const x = bytesOf(a);
  const y = bytesOf(b);
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/**
 * `eager` with every payload that `lazy` left as a range replaced by that range, after checking that the
 * range is where the eager payload was. What is left must then be equal.
 */
function asLazy(eager: TsmFile, lazy: TsmFile): TsmFile {
  let ranges = 0;
  const nodes = eager.nodes.map((n, i) => ({
    ...n,
    params: n.params.map((p, k) => ({
      ...p,
      fields: p.fields.map((f, j) => {
        const other = lazy.nodes[i]?.params[k]?.fields[j];
        if (!other || !isRange(other.data)) return f;
        expect(other.data).toEqual({ byteOffset: f.byteOffset, byteLength: f.data.byteLength });
        ranges++;
        return { ...f, data: other.data };
      }),
    })),
  }));
  expect(ranges).toBeGreaterThan(0);
  return { ...eager, nodes };
}

async function checkLazy(bytes: Uint8Array, source: ByteSource, label: string): Promise<void> {
  const eager = tsm.read(bytes);
  const lazy = await tsm.readFrom(source);
  expect(lazy, label).toEqual(asLazy(eager, lazy));
  // every <const> value is a range; every other param (small attributes) is loaded
  for (const n of lazy.nodes) {
    for (const p of n.params)
      for (const f of p.fields) expect(isRange(f.data), `${label} ${p.key}`).toBe(p.key === "value");
  }
  const infos = tsm.tensorInfos(lazy);
  expect(infos).toEqual(tsm.tensorInfos(eager));
  const decoded = tsm.tensors(eager);
  expect(infos.map((i) => i.name)).toEqual(decoded.map((t) => t.name));
  for (const [k, info] of infos.entries()) {
    const t = await tsm.loadTensor(source, info);
    expect(t.name).toBe(decoded[k]!.name);
    expect(t.dtype).toBe(decoded[k]!.dtype);
    expect(t.shape).toEqual(decoded[k]!.shape);
    expect(sameBytes(t.data, decoded[k]!.data), `${label} ${info.name}`).toBe(true);
  }
  expect(() => tsm.tensors(lazy)).toThrowError(expect.objectContaining({ code: "UNSUPPORTED" }));
  expect(tsm.inspect(lazy)).toEqual(tsm.inspect(eager));
}

describe.skipIf(!haveFixtures())("tsm readFrom on the reference fixtures", () => {
  const names = () => listFixtures("tennis").filter((n) => n.endsWith(".tsm") || n.endsWith(".csta"));

  it("equals read() with payloads as ranges, through fromBytes and a choppy source (seeds 1..11)", async () => {
    let seed = 1;
    for (const name of names()) {
      const bytes = readFixture("tennis", name);
      await checkLazy(bytes, fromBytes(bytes), `${name} fromBytes`);
      await checkLazy(bytes, choppySource(bytes, seed++), `${name} choppy`);
    }
  });

  it("a .csta: tensorInfos point into the obfuscated file and loadTensor decodes them; readFromAny works", async () => {
    const bytes = readFixture("tennis", "seetaface6_face_landmarker_pts5.csta");
    const lazy = await tsm.readFrom(fromBytes(bytes));
    expect(lazy.container).toBeDefined();
    const info = tsm.tensorInfos(lazy).find((i) => i.name === "_const__ip_Common/Common/Common_10/BiasAdder_rhs")!;
    expect(info.obfuscated).toBe("csta");
    expect(info.shape).toEqual([64, 640]);
    const t = await tsm.loadTensor(fromBytes(bytes), info);
    expect((t.data as Float32Array)[0]).toBeCloseTo(-0.04662413, 7);
    const any = await readFromAny(fromBytes(bytes));
    expect(any.format).toBe("tsm");
    expect(((await any.loadTensor(info)).data as Float32Array)[0]).toBeCloseTo(-0.04662413, 7);
  });
});

describe("tsm readFrom on built modules", () => {
  it("builder module and its .csta through choppy sources (seeds 21, 22)", async () => {
    const built = richModule();
    for (const [bytes, seed] of [
      [tsm.write(built), 21],
      [tsm.writeCsta(built), 22],
    ] as const) {
      await checkLazy(bytes, choppySource(bytes, seed), `built ${seed}`);
    }
  });

  it("a .csta with 8 MB of weights opens reading well under 1 MB (decoded as it loads)", async () => {
    const big = module(
      [
        node("<param>", "x"),
        constNode("w", field("float32", [2048, 1024], randomNormal(5, 2048 * 1024))),
        constNode("b", field("float32", [3], Float32Array.of(1, 2, 3))),
        node("add", "y", [], [0, 1, 2]),
      ],
      [0],
      [3],
    );
    const bytes = tsm.writeCsta(big);
    const source = countingSource(bytes);
    const lazy = await tsm.readFrom(source);
    expect(source.bytesRead).toBeLessThan(1 << 20);
    const infos = tsm.tensorInfos(lazy);
    const b = await tsm.loadTensor(
      source,
      infos.find((i) => i.name === "b")!,
    );
    expect(Array.from(b.data as Float32Array)).toEqual([1, 2, 3]);
    const w = await tsm.loadTensor(
      source,
      infos.find((i) => i.name === "w")!,
    );
    expect(sameBytes(w.data, randomNormal(5, 2048 * 1024))).toBe(true);
  });

  it("a ~1 GB virtual module: readFrom reads its headers only (< 1 MB), loadTensor reads one small tensor", async () => {
    const payloadBytes = 1 << 30;
    const { size, pieces, payloadOffset } = hugeConstPieces(payloadBytes);
    const metadata = pieces.reduce((n, p) => n + p.bytes.length, 0);
    const source = sparseSource(size, pieces);
    const lazy = await tsm.readFrom(source);
    expect(source.bytesRead).toBeLessThan((1 << 20) + metadata);
    const infos = tsm.tensorInfos(lazy);
    expect(infos.find((i) => i.name === "huge")).toMatchObject({
      dtype: "float32",
      shape: [payloadBytes / 4],
      byteOffset: payloadOffset,
      byteLength: payloadBytes,
    });
    const before = source.bytesRead;
    const small = await tsm.loadTensor(
      source,
      infos.find((i) => i.name === "small")!,
    );
    expect(Array.from(small.data as Float32Array)).toEqual([1, 2, 3, 4]);
    expect(source.bytesRead - before).toBe(16);
    expect(tsm.inspect(lazy).tensors.find((t) => t.name === "huge")!.byteLength).toBe(payloadBytes);
    expect(() => tsm.write(lazy)).toThrowError(expect.objectContaining({ code: "UNSUPPORTED" }));
  });

  it("a truncated source gives TRUNCATED, not a hang", async () => {
    const bytes = tsm.write(richModule());
    for (const n of [0, 5, 130, bytes.length >> 1, bytes.length - 1]) {
      await expect(tsm.readFrom(fromBytes(bytes.subarray(0, n)))).rejects.toMatchObject({ code: "TRUNCATED" });
    }
  });
});
