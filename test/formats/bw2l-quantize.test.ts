/**
 * Quantization as we define it for BW2L (bindings/formats/bw2l/quantize.ts): fp16 for float params, i8 with the v1
 * layer scale/offset, value = (q - offset) * scale. Error bounds are derived from the format, not tuned.
 */
import { describe, expect, it } from "vitest";
import * as bw2l from "../../bindings/formats/bw2l.js";
import { rawArray, rawFile, rawLayers } from "../helpers/bw2l-builders.js";
import { randomNormal } from "../helpers/rng.js";

function layersOf(file: bw2l.Bw2lFile): bw2l.Bw2lLayer[] {
  return file.sections.find(bw2l.isLayersSection)!.layers;
}

/** A float32 model with two layers of differently scaled weights (one all-positive, to move the offset). */
function floatModel(version: 1 | 2): { file: bw2l.Bw2lFile } {
  const w0 = randomNormal(5, 64 * 32, 0.05);
  const b0 = randomNormal(6, 64, 0.5);
  const w1 = randomNormal(7, 16 * 64, 2).map((x) => Math.abs(x) + 0.25);
  const file = bw2l.create({
    version,
    config: { criterion: "ctc" },
    layers: [
      {
        arch: "L 32 64",
        params: [
          { dims: [64, 32, 1, 1], data: w0 },
          { dims: [64, 1, 1, 1], data: b0 },
        ],
      },
      { arch: "R" },
      {
        arch: "L 64 16",
        params: [
          { dims: [16, 64, 1, 1], data: w1 },
          { dtype: "i32", data: Int32Array.of(1, 2, 3) },
        ],
      },
    ],
    transitions: { dims: [2, 2, 1, 1], data: Float32Array.of(0.1, 0.2, 0.3, 0.4) },
  });
  return { file };
}

describe("bw2l fp16 quantization", () => {
  it.each([1, 2] as const)("v%i: float32 params become binary16, within half an fp16 ulp", (version) => {
    const { file } = floatModel(version);
    const before = bw2l.write(file);
    const bytes = bw2l.write(file, { quantize: "fp16" });
    expect(bw2l.write(file)).toEqual(before); // the input is not changed
    const back = bw2l.read(bytes);
    expect(bw2l.config(back).get("quantization")).toBe("fp16");
    expect(layersOf(back).map((l) => l.params.map((p) => p.dtype))).toEqual([["fp16", "fp16"], [], ["fp16", "i32"]]);
    expect(back.sections.find(bw2l.isArraySection)!.array.dtype).toBe("fp32"); // arrays are not params
    expect(bytes.length).toBeLessThan(before.length);
    const tensors = bw2l.tensors(back, { dtype: "float32" });
    const dequantized = bw2l.read(bytes, { dequantize: true });
    expect(layersOf(dequantized)[0]!.params[0]!.dtype).toBe("fp32");
    // the float model as the uniform view shows it (v2 row-major for dims, v1 flat stored order)
    const original = new Map(bw2l.tensors(bw2l.read(before)).map((t) => [t.name, t.data as Float32Array]));
    let worst = 0;
    for (const name of ["layers.0.0", "layers.0.1", "layers.2.0"]) {
      const t = tensors.find((x) => x.name === name)!;
      expect(t.dtype).toBe("float32");
      const x = original.get(name)!;
      const got = t.data as Float32Array;
      for (let i = 0; i < x.length; i++) {
        // round to nearest binary16: |error| <= 2^-11 |x| for normal halves, 2^-25 in the subnormal range
        const error = Math.abs(got[i]! - x[i]!);
        expect(error).toBeLessThanOrEqual(Math.abs(x[i]!) * 2 ** -11 + 2 ** -25);
        worst = Math.max(worst, error / Math.max(Math.abs(x[i]!), 2 ** -14));
      }
    }
    // read({ dequantize }) and tensors({ dtype: "float32" }) agree element for element (stored order vs view)
    const viaRead = bw2l.tensors(dequantized);
    for (const t of tensors)
      expect(Array.from(viaRead.find((x) => x.name === t.name)!.data as ArrayLike<unknown>)).toEqual(
        Array.from(t.data as ArrayLike<unknown>),
      );
    console.log(
      `bw2l fp16 v${version} round trip: worst relative error ${worst.toExponential(3)} (bound 2^-11 = ${(2 ** -11).toExponential(3)})`,
    );
  });
});

describe("bw2l i8 quantization", () => {
  it("needs version 1: quantize i8 on a v2 file is an error", () => {
    expect(() => bw2l.write(floatModel(2).file, { quantize: "i8" })).toThrow(/needs version 1/);
  });

  it("chooseI8Params: 255 steps cover [min(0, lo), max(0, hi)], zero is exact, offset within int8", () => {
    for (const [lo, hi] of [
      [-1, 1],
      [0.25, 7.5],
      [-3, -0.5],
      [-1e-6, 2e-6],
      [0, 0],
      [-100, 0.001],
    ]) {
      const { scale, offset } = bw2l.chooseI8Params(lo!, hi!);
      expect(Math.fround(scale)).toBe(scale);
      expect(Number.isInteger(offset) && offset >= -128 && offset <= 127).toBe(true);
      const a = Math.min(0, lo!);
      const b = Math.max(0, hi!);
      if (b > a) {
        expect(scale * 255).toBeGreaterThanOrEqual(b - a);
        expect(scale * 255).toBeLessThan((b - a) * (1 + 1e-6));
        // the ends of the range land within half a step of the int8 ends
        expect(a / scale + offset).toBeGreaterThanOrEqual(-128.5);
        expect(b / scale + offset).toBeLessThanOrEqual(127.5);
      }
    }
  });

  it("v1: float32 params become int8 with per-layer scale/offset; every value comes back within scale/2", () => {
    const { file } = floatModel(1);
    const bytes = bw2l.write(file, { quantize: "i8" });
    const back = bw2l.read(bytes);
    expect(bw2l.config(back).get("quantization")).toBe("i8");
    const layers = layersOf(back);
    expect(layers.map((l) => l.params.map((p) => p.dtype))).toEqual([["i8", "i8"], [], ["i8", "i32"]]);
    expect([layers[1]!.scale, layers[1]!.offset]).toEqual([1, 0n]); // a layer without float params keeps 1 and 0
    const stored = bw2l.read(bw2l.write(file)); // the float model as stored (column-major, flat in v1)
    const tensors = new Map(bw2l.tensors(back, { dtype: "float32" }).map((t) => [t.name, t]));
    const original = new Map(bw2l.tensors(stored).map((t) => [t.name, t]));
    const report: string[] = [];
    for (const [name, layerIndex] of [
      ["layers.0.0", 0],
      ["layers.0.1", 0],
      ["layers.2.0", 2],
    ] as const) {
      const layer = layers[layerIndex]!;
      const scale = layer.scale!;
      const offset = Number(layer.offset!);
      expect(bw2l.tensorInfos(back).find((i) => i.name === name)!.quantization).toEqual({ scale, offset });
      const x = original.get(name)!.data as Float32Array;
      const got = tensors.get(name)!.data as Float32Array;
      expect(tensors.get(name)!.dtype).toBe("float32");
      let worst = 0;
      for (let i = 0; i < x.length; i++) {
        const error = Math.abs(got[i]! - x[i]!);
        // half a step, plus float32 rounding in x / scale + offset and in (q - offset) * scale
        expect(error).toBeLessThanOrEqual(scale * (0.5 + 1e-4) + Math.abs(x[i]!) * 2 ** -22);
        worst = Math.max(worst, error / scale);
      }
      report.push(`${name}: scale ${scale.toExponential(3)}, offset ${offset}, worst error ${worst.toFixed(4)} steps`);
    }
    console.log(`bw2l i8 round trip:\n  ${report.join("\n  ")}`);
    // the all-positive layer uses the whole int8 range from 0 up
    expect(Number(layers[2]!.offset)).toBe(-128);
    // dequantizing on read gives the same floats and resets the layers to 1 and 0
    const dequantized = bw2l.read(bytes, { dequantize: true });
    expect(layersOf(dequantized).map((l) => [l.scale, l.offset])).toEqual([
      [1, 0n],
      [1, 0n],
      [1, 0n],
    ]);
    for (const t of bw2l.tensors(dequantized)) {
      if (t.dtype === "float32")
        expect(Array.from(t.data as ArrayLike<unknown>)).toEqual(
          Array.from(tensors.get(t.name)!.data as ArrayLike<unknown>),
        );
    }
  });

  it("dequantizes a hand-made v1 layer: value = (q - offset) * scale", () => {
    const q = Int8Array.of(-128, -3, 0, 3, 127);
    const layers = rawLayers(1, [
      { arch: "L", scale: 0.5, offset: 3n, params: [rawArray(1, "i8", new Uint8Array(q.buffer), q.length)] },
    ]);
    const bytes = rawFile(1, "", [{ name: "layers", type: "layers", data: layers }]);
    const file = bw2l.read(bytes);
    expect(layersOf(file)[0]!.scale).toBe(0.5);
    expect(layersOf(file)[0]!.offset).toBe(3n);
    const [raw] = bw2l.tensors(file);
    expect(raw!.dtype).toBe("int8");
    const [wide] = bw2l.tensors(file, { dtype: "float32" });
    expect(Array.from(wide!.data as ArrayLike<unknown>)).toEqual([-65.5, -3, -1.5, 0, 62]);
    const read = bw2l.read(bytes, { dequantize: true });
    expect(Array.from(layersOf(read)[0]!.params[0]!.data as Float32Array)).toEqual([-65.5, -3, -1.5, 0, 62]);
    expect(bw2l.verify(file)).toContainEqual(
      expect.stringMatching(/scale 0.5 and offset 3: the reference loader ignores them/),
    );
  });

  it("refuses layers it cannot give one scale (mixed int8 and float32) and non-finite values", () => {
    const mixed = bw2l.create({
      version: 1,
      layers: [{ arch: "L", params: [{ data: Int8Array.of(1) }, { data: Float32Array.of(0.5) }] }],
    });
    expect(() => bw2l.write(mixed, { quantize: "i8" })).toThrow(/mixes int8 and float32/);
    const infinite = bw2l.create({
      version: 1,
      layers: [{ arch: "L", params: [{ data: Float32Array.of(1, Infinity) }] }],
    });
    expect(() => bw2l.write(infinite, { quantize: "i8" })).toThrow(/finite/);
    expect(() => bw2l.write(mixed, { quantize: "int4" as "i8" })).toThrow(/quantize must be/);
  });

  it("sets config.quantization in key order, or adds a config section after flags", () => {
    const withConfig = bw2l.create({
      version: 1,
      flags: { a: "1" },
      config: { criterion: "ctc", zz: "1" },
      layers: [{ arch: "R" }],
    });
    const a = bw2l.read(bw2l.write(withConfig, { quantize: "fp16" }));
    const config = a.sections.find((s) => s.name === "config");
    expect(config && bw2l.isKeyvalSection(config) && config.entries.map((e) => e.key)).toEqual([
      "criterion",
      "quantization",
      "zz",
    ]);
    const without = bw2l.create({ version: 1, flags: { a: "1" }, tokens: ["x"], layers: [{ arch: "R" }] });
    const b = bw2l.read(bw2l.write(without, { quantize: "i8" }));
    expect(b.sections.map((s) => s.name)).toEqual(["flags", "config", "arch", "tokens", "layers"]);
    expect(bw2l.config(b).get("quantization")).toBe("i8");
  });
});
