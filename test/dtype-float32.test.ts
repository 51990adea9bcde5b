/**
 * What `{ dtype: "float32" }` promises: a Float32Array for every real-valued tensor (float16 widened, int8 with a
 * quantization dequantized, float64/integers/bool cast to the nearest float32), eager and lazy alike, on every
 * example and fixture; complex and format-specific dtypes stay as stored.
 */
import { describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { exampleFiles } from "../bindings/examples.js";
import { decodeTensor, type TensorInfo } from "../bindings/tensor.js";
import { haveFixtures, listFixtures, readFixture } from "./helpers/fixtures.js";

const STANDARD = new Set([
  "float16",
  "float32",
  "float64",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
]);

const cases = [
  ...exampleFiles().map((e) => ({ label: `example ${e.name}`, bytes: e.bytes })),
  ...(haveFixtures()
    ? ["bw2l", "april", "tennis", "primitiv", "spraak"].flatMap((folder) =>
        listFixtures(folder)
          .filter((f) => !/\.(json|md|txt)$/.test(f))
          .map((f) => ({ label: `fixture ${folder}/${f}`, bytes: readFixture(folder, f) })),
      )
    : []),
].filter((c) => {
  try {
    return lib.readAny(c.bytes).tensors().length > 0;
  } catch {
    return false;
  }
});

/** The float32 value an element of a stored tensor should become (float16 and quantized int8 aside). */
function expectedFloat32(value: number | bigint): number {
  return Math.fround(Number(value));
}

describe('tensors({ dtype: "float32" })', () => {
  if (!haveFixtures()) console.log("fixtures absent (../shared/fixtures): testing examples only");
  it.each(cases.map((c) => [c.label, c.bytes] as const))(
    "%s: every real-valued tensor is a Float32Array of its values, eager and lazy",
    async (_label, bytes) => {
      const opened = lib.readAny(bytes);
      const stored = opened.tensors();
      const asFloat = opened.tensors({ dtype: "float32" });
      const lazy = await lib.readFromAny(lib.fromBytes(bytes));
      expect(asFloat.map((t) => t.name)).toEqual(stored.map((t) => t.name));
      for (let i = 0; i < stored.length; i++) {
        const raw = stored[i]!;
        const converted = asFloat[i]!;
        expect(converted.shape).toEqual(raw.shape);
        if (!STANDARD.has(raw.dtype)) {
          expect(converted.dtype).toBe(raw.dtype);
          continue;
        }
        expect(converted.dtype, raw.name).toBe("float32");
        expect(converted.data, raw.name).toBeInstanceOf(Float32Array);
        expect(converted.data.length).toBe(raw.data.length);
        const info = lazy.tensorInfos().find((t) => t.name === raw.name)!;
        if (raw.dtype !== "float16" && info.quantization === undefined && !info.decodesToFloat32) {
          const want = Float32Array.from(raw.data as ArrayLike<number | bigint>, expectedFloat32);
          expect(Array.from(converted.data as Float32Array)).toEqual(Array.from(want));
        }
        const loaded = await lazy.loadTensor(info, { dtype: "float32" });
        expect(loaded.dtype).toBe("float32");
        expect(Array.from(loaded.data as Float32Array)).toEqual(Array.from(converted.data as Float32Array));
      }
    },
  );
});

describe("decodeTensor casts every standard dtype", () => {
  const table: [string, ArrayLike<number> | BigInt64Array | BigUint64Array, number[]][] = [
    ["float64", new Float64Array([0, 1.1, -2.5, 1e300, Number.NaN]), [0, Math.fround(1.1), -2.5, Infinity, Number.NaN]],
    ["int8", new Int8Array([-128, 0, 127]), [-128, 0, 127]],
    ["uint8", new Uint8Array([0, 255]), [0, 255]],
    ["int16", new Int16Array([-32768, 32767]), [-32768, 32767]],
    ["uint16", new Uint16Array([65535]), [65535]],
    ["int32", new Int32Array([16777217, -2147483648]), [16777216, -2147483648]],
    ["uint32", new Uint32Array([4294967295]), [4294967296]],
    ["int64", new BigInt64Array([-(2n ** 63n), 3n]), [-(2 ** 63), 3]],
    ["uint64", new BigUint64Array([2n ** 64n - 1n, 7n]), [2 ** 64, 7]],
    ["bool", new Uint8Array([0, 1]), [0, 1]],
  ];
  it.each(table)("%s", (dtype, data, want) => {
    const typed = data as unknown as ArrayBufferView;
    const count = (data as ArrayLike<unknown>).length;
    const info: TensorInfo = {
      name: "t",
      dtype: dtype as TensorInfo["dtype"],
      shape: [count],
      byteOffset: 0,
      byteLength: typed.byteLength,
      byteOrder: "le",
      layout: "row-major",
    };
    const bytes = new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength);
    const t = decodeTensor(bytes, info, { dtype: "float32" });
    expect(t.dtype).toBe("float32");
    expect(Array.from(t.data as Float32Array)).toEqual(want);
    // into a caller's array, and big-endian + column-major stored forms
    const out = new Float32Array(count);
    expect(decodeTensor(bytes, info, { dtype: "float32", out }).data).toBe(out);
    expect(Array.from(out)).toEqual(want);
  });
  it("a big-endian column-major float64 matrix is swapped, transposed and cast", () => {
    const rowMajor = [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]; // [2, 3]
    const stored = new Uint8Array(48);
    const view = new DataView(stored.buffer);
    for (let i = 0; i < 2; i++)
      for (let j = 0; j < 3; j++) view.setFloat64((i + 2 * j) * 8, rowMajor[i * 3 + j]!, false);
    const info: TensorInfo = {
      name: "m",
      dtype: "float64",
      shape: [2, 3],
      byteOffset: 0,
      byteLength: 48,
      byteOrder: "be",
      layout: "column-major",
    };
    const t = decodeTensor(stored, info, { dtype: "float32" });
    expect(t.data).toBeInstanceOf(Float32Array);
    expect(Array.from(t.data as Float32Array)).toEqual(rowMajor);
  });
});
