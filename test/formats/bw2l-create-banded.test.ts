/**
 * bw2l.create() keeps multi-axis params row-major until they are written: write() and writeTo() emit the
 * column-major payload band by band. The bytes equal those of the eager transpose (kernels.rowToColumnMajor, what
 * create() did before) for every dtype, 2-D to 5-D dims, v1 and v2, both kernel backends, tiny band budgets and
 * data at odd offsets; `data` reads as the column-major payload; tensors() gives the row-major data back; and
 * writeTo never hands the sink a piece larger than a band of a transposed payload.
 */
import { afterEach, describe, expect, it } from "vitest";
import * as lib from "../../bindings/index.js";
import { BAND_TUNING } from "../../bindings/io/banded.js";
import * as kernels from "../../bindings/kernels/index.js";
import type { Bw2lArrayData, Bw2lDType, ModelInput, ParamInput } from "../../bindings/formats/bw2l.js";
import { BACKENDS } from "../helpers/backends.js";
import { concat, sameBytes } from "../helpers/bytes.js";
import { randomBytes, rng } from "../helpers/rng.js";

const saved = { ...BAND_TUNING };
afterEach(() => {
  Object.assign(BAND_TUNING, saved);
  kernels.setBackend("auto");
});

const CTORS: Record<Bw2lDType, new (buffer: ArrayBufferLike, byteOffset: number, length: number) => Bw2lArrayData> = {
  fp64: Float64Array,
  fp32: Float32Array,
  fp16: Uint16Array,
  i64: BigInt64Array,
  i32: Int32Array,
  i16: Int16Array,
  i8: Int8Array,
};

/** Random data of `dtype` in a typed array over a larger buffer (a view at an offset, as real data often is). */
function randomData(dtype: Bw2lDType, count: number, seed: number): Bw2lArrayData {
  const ctor = CTORS[dtype];
  const size = (ctor as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
  const bytes = randomBytes(seed, (count + 3) * size);
  if (dtype === "fp64") {
    const next = rng(seed);
    const values = new Float64Array(bytes.buffer);
    for (let i = 0; i < values.length; i++) values[i] = next();
  }
  return new ctor(bytes.buffer, 2 * size, count);
}

function randomModel(seed: number, version: 1 | 2): { input: ModelInput; params: ParamInput[] } {
  const next = rng(seed);
  const dtypes = Object.keys(CTORS) as Bw2lDType[];
  const params: ParamInput[] = [];
  for (let p = 0; p < 4; p++) {
    const rank = 2 + Math.floor(next() * 4);
    const dims = Array.from({ length: rank }, () => 1 + Math.floor(next() * 9));
    if (p === 0) dims.splice(0, 2, 30 + Math.floor(next() * 40), 20 + Math.floor(next() * 30)); // a larger matrix
    const dtype = dtypes[Math.floor(next() * dtypes.length)]!;
    params.push({
      dtype,
      dims,
      data: randomData(
        dtype,
        dims.reduce((a, b) => a * b, 1),
        seed * 10 + p,
      ),
    });
  }
  const input: ModelInput = {
    version,
    arch: ["A", "B"],
    tokens: ["a", "b"],
    layers: [
      { arch: "A", params: params.slice(0, 2) },
      { arch: "B", params: params.slice(2, 3) },
    ],
    transitions: params[3],
  };
  return { input, params };
}

/** The model with every param transposed eagerly, as create() used to store it. */
function eagerFile(input: ModelInput): lib.bw2l.Bw2lFile {
  const file = lib.bw2l.create(input);
  const inputs = [
    ...(input.layers ?? []).flatMap((l) => l.params ?? []),
    ...(input.transitions ? [input.transitions] : []),
  ];
  const arrays = file.sections.flatMap((s) =>
    "layers" in s ? s.layers.flatMap((l) => l.params) : "array" in s ? [s.array] : [],
  );
  arrays.forEach((array, i) => {
    const { dims, data } = inputs[i]!;
    array.data =
      dims!.filter((d) => d > 1).length > 1
        ? kernels.rowToColumnMajor(data as Bw2lArrayData, dims!)
        : (data as Bw2lArrayData);
  });
  return file;
}

async function writeToChunks(file: lib.bw2l.Bw2lFile): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  await lib.bw2l.writeTo(file, (c) => {
    chunks.push(c.slice());
  });
  return chunks;
}

describe("bw2l.create: column-major payloads written in bands", () => {
  for (const backend of BACKENDS) {
    it(`${backend}: write() and writeTo() give the eager transpose's bytes (random models, v1 and v2, tiny bands)`, async () => {
      kernels.setBackend(backend);
      for (let seed = 1; seed <= 40; seed++) {
        const version = seed % 3 === 0 ? 1 : 2;
        const { input } = randomModel(seed, version);
        BAND_TUNING.bandBytes = [16, 100, 4096, 1 << 20][seed % 4]!;
        const want = lib.bw2l.write(eagerFile(input));
        const built = lib.bw2l.create(input);
        expect(sameBytes(lib.bw2l.write(built), want), `seed ${seed} write`).toBe(true);
        expect(sameBytes(concat(...(await writeToChunks(built))), want), `seed ${seed} writeTo`).toBe(true);
        // the uniform view: the row-major data back (v2), the stored order (v1)
        const tensors = lib.bw2l.tensors(built);
        const reread = lib.bw2l.tensors(lib.bw2l.read(want));
        tensors.forEach((t, i) =>
          expect(
            sameBytes(
              new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength),
              new Uint8Array(reread[i]!.data.buffer, reread[i]!.data.byteOffset, reread[i]!.data.byteLength),
            ),
            `seed ${seed} ${t.name}`,
          ).toBe(true),
        );
      }
    });
  }

  it("`data` reads as the column-major payload (made once); setting it replaces the deferred transpose", () => {
    const data = randomData("fp32", 12 * 7, 3) as Float32Array;
    const file = lib.bw2l.create({ layers: [{ arch: "L", params: [{ dims: [12, 7], data }] }] });
    const array = (file.sections[1] as lib.bw2l.Bw2lLayersSection).layers[0]!.params[0]!;
    expect(array.dims).toEqual([12, 7]);
    const stored = array.data as Float32Array;
    expect(stored).toEqual(kernels.rowToColumnMajor(data, [12, 7]));
    expect(array.data).toBe(stored);
    expect(Object.keys(array)).toEqual(["dtype", "data", "dims"]);
    const other = lib.bw2l.create({ layers: [{ arch: "L", params: [{ dims: [12, 7], data }] }] });
    const otherArray = (other.sections[1] as lib.bw2l.Bw2lLayersSection).layers[0]!.params[0]!;
    otherArray.data = new Float32Array(84).fill(1);
    expect(new Float32Array(lib.bw2l.write(other).buffer.slice(-84 * 4))).toEqual(new Float32Array(84).fill(1));
  });

  it("writeTo hands the sink no piece larger than a band for a transposed payload", async () => {
    BAND_TUNING.bandBytes = 64 * 1024;
    const data = randomData("fp32", 300 * 500, 4) as Float32Array; // 600 KB
    const file = lib.bw2l.create({ layers: [{ arch: "L", params: [{ dims: [300, 500], data }] }] });
    const chunks = await writeToChunks(file);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(64 * 1024);
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(
      lib.bw2l.write(eagerFile({ layers: [{ arch: "L", params: [{ dims: [300, 500], data }] }] })).length,
    );
  });
});
