/**
 * primitiv readFrom(): the same object as read() with every bin payload left as a ByteRange (through fromBytes
 * and sources that return short reads), loadTensor() equal to tensors(), a ~1 GB virtual Model opened by
 * reading its headers only; and builder -> write -> read round trips with tensorInfos() offsets.
 */
import { describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as primitiv from "../../bindings/formats/primitiv.js";
import type { ByteRange } from "../../bindings/bytes/byte-reader.js";
import { type ByteSource, fromBytes } from "../../bindings/io/source.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { randomFile, virtualModel } from "../helpers/primitiv-builders.js";
import { randomNormal } from "../helpers/rng.js";
import { choppySource, countingSource, sparseSource } from "../helpers/sources.js";

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

/** read()'s object with each tensor's data replaced by its range in `input` (computed from the view). */
function asLazy(file: primitiv.PrimitivFile, input: Uint8Array): primitiv.PrimitivFile {
  const range = (t: primitiv.PrimitivTensor): primitiv.PrimitivTensor => {
    const data = t.data as Uint8Array;
    expect(data.buffer).toBe(input.buffer); // read() keeps views into the input
    const r: ByteRange = { byteOffset: data.byteOffset - input.byteOffset, byteLength: data.byteLength };
    return { shape: t.shape, data: r };
  };
  const parameter = (p: primitiv.PrimitivParameter): primitiv.PrimitivParameter => ({
    value: range(p.value),
    stats: new Map([...p.stats].map(([k, t]) => [k, range(t)])),
  });
  switch (file.dataType) {
    case "tensor":
      return { dataType: "tensor", tensor: range(file.tensor) };
    case "parameter":
      return { dataType: "parameter", parameter: parameter(file.parameter) };
    case "model":
      return {
        dataType: "model",
        model: { parameters: file.model.parameters.map((e) => ({ path: e.path, parameter: parameter(e.parameter) })) },
      };
    default:
      return file;
  }
}

async function checkSameAsRead(input: Uint8Array, sources: ByteSource[]): Promise<void> {
  const eager = primitiv.read(input);
  const expectedTensors = primitiv.tensors(eager);
  for (const source of sources) {
    const lazy = await primitiv.readFrom(source);
    expect(lazy).toEqual(asLazy(eager, input));
    expect(primitiv.tensorInfos(lazy)).toEqual(primitiv.tensorInfos(eager));
    expect(primitiv.inspect(lazy)).toEqual(primitiv.inspect(eager));
    expect(primitiv.verify(lazy)).toEqual(primitiv.verify(eager));
    const loaded = [];
    for (const info of primitiv.tensorInfos(lazy)) loaded.push(await primitiv.loadTensor(source, info));
    expect(loaded.map((t) => ({ ...t, data: Array.from(t.data as Float32Array) }))).toEqual(
      expectedTensors.map((t) => ({ ...t, data: Array.from(t.data as Float32Array) })),
    );
  }
}

describe.skipIf(!haveFixtures())("primitiv readFrom: reference fixtures", () => {
  for (const name of listFixtures("primitiv").filter((n) => !n.endsWith(".md") && !n.endsWith(".json"))) {
    it(`${name}: readFrom() equals read() with payloads as ranges; loadTensor() equals tensors()`, async () => {
      const input = readFixture("primitiv", name);
      await checkSameAsRead(input, [fromBytes(input), choppySource(input, 1), choppySource(input, 2)]);
    });
  }

  it("readFrom() of a prefix is TRUNCATED like read()", async () => {
    const input = readFixture("primitiv", "model_xor_adam.model");
    for (const n of [0, 7, 15, 100, 400, input.length - 1]) {
      const error = await primitiv.readFrom(choppySource(input.subarray(0, n), n)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isFormatError(error) && error.code, `prefix ${n}`).toBe("TRUNCATED");
    }
  });

  it("the 66 KB parameter is opened without fetching its data", async () => {
    const input = readFixture("primitiv", "param_128x129.param");
    const source = countingSource(input);
    const file = await primitiv.readFrom(source);
    const [info] = primitiv.tensorInfos(file);
    expect(info).toMatchObject({
      name: "value",
      shape: [128, 129],
      byteOffset: 36,
      byteLength: 66048,
      layout: "column-major",
      byteOrder: "le",
    });
    // the parser fetched one first chunk; the data was skipped, only the 5 bytes after it were read again
    expect(source.bytesRead).toBeLessThan(input.length);
  });
});

describe("primitiv readFrom: built files", () => {
  for (const seed of [3, 4, 5, 6, 7, 8]) {
    it(`random file (seed ${seed}): builder -> write -> read is equal; readFrom matches`, async () => {
      const built = randomFile(seed * 7919);
      const bytes = primitiv.write(built);
      const read = primitiv.read(bytes);
      expect(read).toEqual(built);
      // tensorInfos() of the built object predicts where write() put the data
      expect(primitiv.tensorInfos(built)).toEqual(primitiv.tensorInfos(read));
      await checkSameAsRead(bytes, [choppySource(bytes, seed)]);
    });
  }

  it("every data type with a batched tensor and a model with stats round-trips (seeded)", async () => {
    for (const kind of ["shape", "tensor", "parameter", "model", "optimizer"] as const) {
      for (let seed = 1; seed <= 20; seed++) {
        const built = randomFile(seed, kind);
        const bytes = primitiv.write(built);
        expect(primitiv.read(bytes), `${kind} ${seed}`).toEqual(built);
        expect(hex(primitiv.write(primitiv.read(bytes)))).toBe(hex(bytes));
      }
    }
  });

  it("makeTensor and tensors()/tensorValues are inverse for every rank up to 8 and batches", () => {
    for (let rank = 0; rank <= 8; rank++) {
      for (const batch of [1, 3]) {
        const dims = Array.from({ length: rank }, (_, i) => 2 + ((i * 5) % 3));
        const count = batch * dims.reduce((a, b) => a * b, 1);
        const values = randomNormal(rank * 10 + batch, count);
        const tensor = primitiv.makeTensor(dims, values, batch);
        const [decoded] = primitiv.tensors({ dataType: "tensor", tensor });
        expect(decoded!.shape).toEqual(batch > 1 ? [batch, ...dims] : dims);
        expect(Array.from(decoded!.data as Float32Array)).toEqual(Array.from(values));
        expect(Array.from(primitiv.tensorValues(tensor))).toEqual(Array.from(values));
      }
    }
  });

  it("storage is column-major with batch last (element [b][i][j] at i + d0*j + d0*d1*b)", () => {
    const rows = 2;
    const cols = 3;
    const batch = 2;
    const values = Array.from({ length: batch * rows * cols }, (_, k) => k); // row-major [b][i][j]
    const tensor = primitiv.makeTensor([rows, cols], values, batch);
    const stored = new Float32Array((tensor.data as Uint8Array).slice().buffer);
    for (let b = 0; b < batch; b++) {
      for (let i = 0; i < rows; i++) {
        for (let j = 0; j < cols; j++)
          expect(stored[i + rows * j + rows * cols * b]).toBe(values[(b * rows + i) * cols + j]);
      }
    }
  });

  it("makeShape drops trailing 1s (inner 1s stay), as primitiv's Shape does", () => {
    expect(primitiv.makeShape([5, 1, 7, 1, 1], 3)).toEqual({ dims: [5, 1, 7], batch: 3 });
    expect(primitiv.makeShape([1, 1])).toEqual({ dims: [], batch: 1 });
  });

  it("makeModel sorts key paths byte-wise, element by element (std::map order)", () => {
    const p = () => primitiv.makeParameter(primitiv.makeTensor([], [0]));
    const model = primitiv.makeModel([
      [["b"], p()],
      [["a", "z"], p()],
      [["a"], p()],
      [["é"], p()],
      [["Z"], p()],
      [["a", "b"], p()],
    ]);
    expect(model.parameters.map((e) => e.path)).toEqual([["Z"], ["a"], ["a", "b"], ["a", "z"], ["b"], ["é"]]);
  });
});

describe("primitiv readFrom: a ~1 GB virtual Model", () => {
  it("reads its headers only (< 1 MB) and reports every payload's offset", async () => {
    const rows = 8192;
    const cols = 10923;
    const { size, pieces, payloads } = virtualModel(3, rows, cols);
    expect(size).toBeGreaterThan(1e9);
    const source = sparseSource(size, pieces);
    const file = await primitiv.readFrom(source);
    expect(source.bytesRead).toBeLessThan(1 << 20);
    console.log(
      `primitiv: opened a ${size}-byte virtual Model reading ${source.bytesRead} bytes in ${source.reads} reads`,
    );
    const infos = primitiv.tensorInfos(file);
    expect(infos.map((i) => i.name)).toEqual(["p0", "p1", "p2"]);
    expect(infos.map((i) => i.byteOffset)).toEqual(payloads);
    expect(infos.every((i) => i.byteLength === 4 * rows * cols && i.shape.join() === `${rows},${cols}`)).toBe(true);
    expect(primitiv.inspect(file).tensors).toHaveLength(3);
  });
});
