/**
 * diffTensors: file against itself (lazy and whole, every example and fixture), one-element edits, names only
 * on one side, dtype and shape changes, NaN and tolerance rules, the f64 and raw-byte paths, streaming order
 * (one pair loaded at a time), both kernel backends.
 */
import { describe, expect, it } from "vitest";
import { readAny, readFromAny } from "../bindings/any.js";
import { diffTensors } from "../bindings/diff.js";
import { exampleFiles } from "../bindings/examples.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import * as kernels from "../bindings/kernels/index.js";
import { fromBytes } from "../bindings/io/source.js";
import type { NamedTensor, TensorInfo } from "../bindings/tensor.js";
import { BACKENDS } from "./helpers/backends.js";
import { fixturePath, haveFixtures, listFixtures, readFixture } from "./helpers/fixtures.js";
import { randomNormal } from "./helpers/rng.js";

const f32 = (name: string, values: number[], shape = [values.length]): NamedTensor => ({
  name,
  dtype: "float32",
  shape,
  data: new Float32Array(values),
});

describe("diffTensors on files", () => {
  it.each(exampleFiles().map((e) => [e.name, e] as const))(
    "%s against itself: equal (lazy vs whole)",
    async (_name, example) => {
      const lazy = await readFromAny(fromBytes(example.bytes));
      const whole = readAny(example.bytes);
      const result = await diffTensors(lazy, whole);
      expect(result.equal).toBe(true);
      expect(result.onlyA).toEqual([]);
      expect(result.tensors.map((t) => t.name)).toEqual(lazy.tensorInfos().map((i) => i.name));
      for (const t of result.tensors) {
        expect(t).toMatchObject({ status: "equal", differing: 0 });
        if (t.maxAbs !== null) expect(t.maxAbs).toBe(0);
      }
    },
  );

  it("every valid reference fixture against itself", async () => {
    if (!haveFixtures()) return;
    for (const [folder, ext] of [
      ["bw2l", ".b2l"],
      ["tennis", ".tsm"],
      ["primitiv", ".model"],
      ["primitiv", ".param"],
      ["spraak", "1027.trk"],
    ] as const) {
      for (const name of listFixtures(folder, ext)) {
        const bytes = readFixture(folder, name);
        const result = await diffTensors(await readFromAny(fromBytes(bytes)), readAny(bytes));
        expect(result.equal, `${folder}/${name}`).toBe(true);
      }
    }
    expect(fixturePath("bw2l")).toContain("fixtures");
  });

  it("the two SPRAAK tracks differ in shape", async () => {
    if (!haveFixtures()) return;
    const a = readAny(readFixture("spraak", "si1027.trk"));
    const b = readAny(readFixture("spraak", "sx313.trk"));
    const result = await diffTensors(a, b);
    expect(result.equal).toBe(false);
    expect(result.tensors).toEqual([
      {
        name: "data",
        status: "shape",
        dtypeA: "float32",
        dtypeB: "float32",
        shapeA: [309, 24],
        shapeB: [321, 24],
        elements: 0,
        differing: null,
        maxAbs: null,
        maxRel: null,
        cosine: null,
      },
    ]);
  });
});

describe.each(BACKENDS)("diffTensors rules (%s kernels)", (backend) => {
  const diff = (a: NamedTensor[], b: NamedTensor[], options = {}) => {
    kernels.setBackend(backend);
    return diffTensors(a, b, options).finally(() => kernels.setBackend("auto"));
  };

  it("one changed element: counted, sized, and the cosine drops below 1", async () => {
    const values = Array.from(randomNormal(3, 1000));
    const edited = values.slice();
    edited[417] = values[417]! + 0.5;
    const r = await diff([f32("w", values)], [f32("w", edited)]);
    expect(r.equal).toBe(false);
    const t = r.tensors[0]!;
    expect(t.status).toBe("different");
    expect(t.differing).toBe(1);
    expect(t.elements).toBe(1000);
    expect(t.maxAbs).toBe(Math.abs(Math.fround(values[417]! + 0.5) - Math.fround(values[417]!)));
    expect(t.cosine!).toBeLessThan(1);
    expect(t.cosine!).toBeGreaterThan(0.99);
  });

  it("tolerances make small differences equal", async () => {
    const r = await diff([f32("w", [1, 2, 3])], [f32("w", [1, 2.001, 3])], { atol: 0.01 });
    expect(r.equal).toBe(true);
    expect(r.tensors[0]!.maxAbs).toBeGreaterThan(0);
    const relative = await diff([f32("w", [100, 200])], [f32("w", [101, 200])], { rtol: 0.02 });
    expect(relative.equal).toBe(true);
    expect(relative.tensors[0]!.maxRel).toBeCloseTo(0.0099, 4);
  });

  it("names only on one side, in each side's order", async () => {
    const r = await diff([f32("x", [1]), f32("a", [1]), f32("c", [1])], [f32("b", [1]), f32("c", [1]), f32("z", [1])]);
    expect(r.onlyA).toEqual(["x", "a"]);
    expect(r.onlyB).toEqual(["b", "z"]);
    expect(r.tensors.map((t) => t.name)).toEqual(["c"]);
    expect(r.equal).toBe(false);
  });

  it("dtype changes: the values are still compared", async () => {
    const halves = kernels.f32ToF16(new Float32Array([0.5, -2, 3.25]));
    const r = await diff([{ name: "h", dtype: "float16", shape: [3], data: halves }], [f32("h", [0.5, -2, 3.25])]);
    expect(r.tensors[0]).toMatchObject({
      status: "dtype",
      dtypeA: "float16",
      dtypeB: "float32",
      differing: 0,
      maxAbs: 0,
      cosine: 1,
    });
    expect(r.equal).toBe(false);
  });

  it("NaN opposite NaN is equal, NaN opposite a number is not", async () => {
    expect((await diff([f32("n", [NaN, 1])], [f32("n", [NaN, 1])])).equal).toBe(true);
    const r = await diff([f32("n", [NaN, 1])], [f32("n", [0, 1])]);
    expect(r.tensors[0]).toMatchObject({
      status: "different",
      differing: 1,
      maxAbs: Infinity,
      maxRel: Infinity,
      cosine: 1,
    });
  });

  it("float64, int32 and int64 go through f64", async () => {
    const a: NamedTensor = { name: "d", dtype: "float64", shape: [2], data: new Float64Array([1 + 2 ** -40, 2]) };
    const b: NamedTensor = { name: "d", dtype: "float64", shape: [2], data: new Float64Array([1, 2]) };
    const r = await diff([a], [b]);
    expect(r.tensors[0]).toMatchObject({ status: "different", differing: 1, maxAbs: 2 ** -40 });
    const i64a: NamedTensor = { name: "i", dtype: "int64", shape: [2], data: new BigInt64Array([5n, -7n]) };
    const i64b: NamedTensor = { name: "i", dtype: "int64", shape: [2], data: new BigInt64Array([5n, -9n]) };
    expect((await diff([i64a], [i64b])).tensors[0]).toMatchObject({ differing: 1, maxAbs: 2 });
    const i32: NamedTensor = { name: "i", dtype: "int32", shape: [2], data: new Int32Array([5, -7]) };
    expect((await diff([i32], [i64a])).tensors[0]).toMatchObject({ status: "dtype", differing: 0 });
  });

  it("dtypes without magnitudes compare raw bytes per element", async () => {
    const text = (s: string): NamedTensor => ({
      name: "t",
      dtype: "char8",
      shape: [s.length],
      data: new TextEncoder().encode(s),
    });
    expect((await diff([text("abcd")], [text("abcd")])).equal).toBe(true);
    expect((await diff([text("abcd")], [text("abzz")])).tensors[0]).toMatchObject({
      status: "different",
      differing: 2,
      maxAbs: null,
      cosine: null,
    });
  });

  it("shapes that differ are reported without loading", async () => {
    const r = await diff([f32("w", [1, 2, 3, 4], [2, 2])], [f32("w", [1, 2, 3, 4], [4])]);
    expect(r.tensors[0]).toMatchObject({ status: "shape", shapeA: [2, 2], shapeB: [4], differing: null });
  });

  it("a large float16 tensor against its float32 widening: equal values, dtype status", async () => {
    const values = randomNormal(4, 300_001);
    const halves = kernels.f32ToF16(values);
    const widened = kernels.f16ToF32(halves);
    widened[123_456] = widened[123_456]! + 1;
    const r = await diff(
      [{ name: "h", dtype: "float16", shape: [300_001], data: halves }],
      [{ name: "h", dtype: "float32", shape: [300_001], data: widened }],
    );
    expect(r.tensors[0]).toMatchObject({ status: "dtype", differing: 1, maxAbs: 1 });
  });
});

describe("diffTensors streaming and arguments", () => {
  it("loads one pair at a time, A then B, and reports progress", async () => {
    const log: string[] = [];
    const lazy = (label: string, tensors: NamedTensor[]) => ({
      tensorInfos: (): TensorInfo[] =>
        tensors.map((t, i) => ({
          name: t.name,
          dtype: t.dtype,
          shape: t.shape,
          byteOffset: i,
          byteLength: t.data.byteLength,
          byteOrder: "le",
          layout: "row-major",
        })),
      loadTensor: async (info: TensorInfo) => {
        log.push(`${label}:${info.name}`);
        return tensors.find((t) => t.name === info.name)!;
      },
    });
    const progress: string[] = [];
    const r = await diffTensors(
      lazy("A", [f32("p", [1]), f32("q", [2]), f32("r", [3])]),
      lazy("B", [f32("r", [3]), f32("q", [2]), f32("p", [1])]),
      {
        onProgress: (p) => progress.push(`${p.done}/${p.total} ${p.name} ${p.bytes}`),
      },
    );
    expect(r.equal).toBe(true);
    expect(log).toEqual(["A:p", "B:p", "A:q", "B:q", "A:r", "B:r"]);
    expect(progress).toEqual(["1/3 p 8", "2/3 q 8", "3/3 r 8"]);
  });

  it("lazy files with their source are compared slice by slice: the same bits as whole tensors, nothing loaded", async () => {
    const n = 2_500_003; // more than one slice
    const base = randomNormal(8, n);
    const edited = base.map((v, i) => (i % 9999 === 0 ? v * 1.5 : v));
    edited[2_400_000] = NaN;
    const half = kernels.f32ToF16(base.subarray(0, 300_000));
    const halfB = half.slice();
    halfB[7] = halfB[7]! ^ 1;
    const fileA = writeSafetensors([
      { name: "w", dtype: "float32", shape: [n], data: base },
      { name: "h", dtype: "float16", shape: [1000, 300], data: half },
    ]);
    const fileB = writeSafetensors([
      { name: "w", dtype: "float32", shape: [n], data: edited },
      { name: "h", dtype: "float16", shape: [1000, 300], data: halfB },
    ]);
    const whole = await diffTensors(readAny(fileA), readAny(fileB), { atol: 1e-6 });
    const open = async (bytes: Uint8Array) => {
      const source = fromBytes(bytes);
      const lazy = await readFromAny(source);
      return {
        tensorInfos: () => lazy.tensorInfos(),
        loadTensor: (): Promise<NamedTensor> => Promise.reject(new Error("loaded whole")),
        source,
      };
    };
    const streamed = await diffTensors(await open(fileA), await open(fileB), { atol: 1e-6 });
    expect(streamed).toEqual(whole);
    expect(whole.tensors[0]).toMatchObject({
      status: "different",
      differing: Math.ceil(n / 9999) + 1,
      maxAbs: Infinity,
    });
    expect(whole.tensors[1]).toMatchObject({ status: "different", differing: 1 });
  });

  it("refuses what it cannot compare", async () => {
    await expect(diffTensors({} as never, [])).rejects.toThrow(TypeError);
    await expect(diffTensors([{ name: "x" } as never], [])).rejects.toThrow(/not a NamedTensor/);
    await expect(diffTensors([], [], { atol: -1 })).rejects.toThrow(RangeError);
    await expect(diffTensors([], [], { rtol: NaN })).rejects.toThrow(RangeError);
  });

  it("empty against empty is equal", async () => {
    expect(await diffTensors([], [])).toEqual({ equal: true, onlyA: [], onlyB: [], tensors: [] });
  });
});
