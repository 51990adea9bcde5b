/**
 * patch / patchFrom / patchTo and every format's replaceTensors:
 * - the round-trip law: for every example and valid reference fixture with tensors, tensors() written to a
 *   safetensors file, read back with an independent parser and patched into the original gives the original
 *   bytes (float16, int8 and TenniS raw types included), through every entry point and input form;
 * - one edited element changes exactly that element (which also checks column-major and batch layouts);
 * - conversions (float32 -> float16, float64, bfloat16), bw2l v1 int8 re-quantization, .csta obfuscation,
 *   april networks, SPRAAK ASCII/gzip data;
 * - errors before a byte is written; inputs never modified.
 */
import { describe, expect, it } from "vitest";
import { readAny, readFromAny } from "../bindings/any.js";
import { exampleFiles } from "../bindings/examples.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import * as april from "../bindings/formats/april.js";
import * as bw2l from "../bindings/formats/bw2l.js";
import * as onnx from "../bindings/formats/onnx.js";
import * as primitiv from "../bindings/formats/primitiv.js";
import * as spraak from "../bindings/formats/spraak.js";
import * as tsm from "../bindings/formats/tsm.js";
import type { FormatId } from "../bindings/formats/types.js";
import { fromBytes } from "../bindings/io/source.js";
import * as kernels from "../bindings/kernels/index.js";
import { patch, patchFrom, patchTo } from "../bindings/patch.js";
import type { LazyTensors } from "../bindings/patch.js";
import type { DType, NamedTensor, TensorInfo } from "../bindings/tensor.js";
import { haveFixtures, listFixtures, readFixture } from "./helpers/fixtures.js";
import { parseSafetensors } from "./helpers/parsers.js";
import { choppySource } from "./helpers/sources.js";

const SAFETENSORS_DTYPES: Record<string, DType> = {
  F16: "float16",
  F32: "float32",
  F64: "float64",
  I8: "int8",
  U8: "uint8",
  I16: "int16",
  U16: "uint16",
  I32: "int32",
  U32: "uint32",
  I64: "int64",
  U64: "uint64",
  BOOL: "bool",
  C64: "complex64",
};
const ARRAYS: Partial<
  Record<DType, { new (b: ArrayBufferLike, o: number, n: number): ArrayBufferView; BYTES_PER_ELEMENT: number }>
> = {
  float16: Uint16Array,
  float32: Float32Array,
  float64: Float64Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  bool: Uint8Array,
};

/** Tensors back from a safetensors file, read with the independent test parser (raw types stay uint8 + axis). */
function readSafetensorsBack(bytes: Uint8Array): NamedTensor[] {
  const { tensors } = parseSafetensors(bytes);
  return tensors.map((t) => {
    const dtype = SAFETENSORS_DTYPES[t.dtype]!;
    const copy = t.bytes.slice();
    const ctor = ARRAYS[dtype];
    const data = ctor ? new ctor(copy.buffer, 0, copy.byteLength / ctor.BYTES_PER_ELEMENT) : copy;
    return { name: t.name, dtype, shape: t.shape, data } as NamedTensor;
  });
}

interface Case {
  label: string;
  format: FormatId;
  bytes: Uint8Array;
}

const FIXTURE_FOLDERS: [string, string, FormatId][] = [
  ["bw2l", ".b2l", "bw2l"],
  ["tennis", ".tsm", "tsm"],
  ["tennis", ".csta", "tsm"],
  ["primitiv", ".model", "primitiv"],
  ["primitiv", ".param", "primitiv"],
  ["primitiv", ".tensor", "primitiv"],
  ["spraak", "1027.trk", "spraak"],
  ["spraak", "313.trk", "spraak"],
];

function cases(): Case[] {
  const out: Case[] = exampleFiles()
    .filter((e) => e.format !== "april")
    .map((e) => ({ label: `example ${e.name}`, format: e.format, bytes: e.bytes }));
  if (haveFixtures()) {
    for (const [folder, ext, format] of FIXTURE_FOLDERS) {
      for (const name of listFixtures(folder, ext)) {
        if (name.includes("damaged")) continue;
        out.push({ label: `${folder}/${name}`, format, bytes: readFixture(folder, name) });
      }
    }
    out.push({
      label: "bw2l/synthetic/fp16_v2.b2l",
      format: "bw2l",
      bytes: readFixture("bw2l", "synthetic", "fp16_v2.b2l"),
    });
  }
  return out;
}

const CASES = cases();

function same(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** Tensors with unique names (writeSafetensors needs them; a module may repeat a const name). */
function uniqueTensors(tensors: NamedTensor[]): NamedTensor[] {
  const counts = new Map<string, number>();
  for (const t of tensors) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  return tensors.filter((t) => counts.get(t.name) === 1);
}

function lazyOf(tensors: NamedTensor[], log?: string[]): LazyTensors {
  return {
    tensorInfos: () =>
      tensors.map((t, i): TensorInfo => ({
        name: t.name,
        dtype: t.dtype,
        shape: t.shape,
        byteOffset: i,
        byteLength: t.data.byteLength,
        byteOrder: "le",
        layout: "row-major",
      })),
    loadTensor: async (info) => {
      log?.push(`load ${info.name}`);
      return tensors.find((t) => t.name === info.name)!;
    },
  };
}

describe("the round-trip law: export tensors(), patch them back, same bytes", () => {
  it("has cases (fixtures found or examples only)", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(4);
  });

  it.each(CASES.map((c) => [c.label, c] as const))("%s", async (_label, c) => {
    const tensors = uniqueTensors(readAny(c.bytes).tensors());
    if (tensors.length === 0) return;
    const back = readSafetensorsBack(writeSafetensors(tensors));
    const snapshot = c.bytes.slice();
    const result = await patch(c.bytes, back);
    expect(result.format).toBe(c.format);
    expect(result.unknown).toEqual([]);
    expect(new Set(result.replaced)).toEqual(new Set(tensors.map((t) => t.name)));
    expect(same(result.bytes, c.bytes)).toBe(true);
    expect(same(c.bytes, snapshot)).toBe(true);

    // the library's own safetensors reader, lazily; and the weights as a ByteSource (stored bytes copied through)
    const exported = writeSafetensors(tensors);
    const viaReader = await patchFrom(fromBytes(c.bytes), await readFromAny(fromBytes(exported)));
    expect(same(viaReader.bytes, c.bytes)).toBe(true);
    const viaSource = await patchFrom(fromBytes(c.bytes), choppySource(exported, 11));
    expect(same(viaSource.bytes, c.bytes)).toBe(true);
    // streamed into a sink that copies each chunk, with patchTo reusing chunk memory (as the CLI does)
    const copies: Uint8Array[] = [];
    await patchTo(fromBytes(c.bytes), fromBytes(exported), (chunk) => void copies.push(chunk.slice()), {
      reuseChunks: true,
    });
    expect(same(Buffer.concat(copies), c.bytes)).toBe(true);

    // the same through a lazy, choppy source and lazy weights, streamed
    const chunks: Uint8Array[] = [];
    const streamed = await patchTo(choppySource(c.bytes, 7), lazyOf(back), (chunk) => {
      chunks.push(chunk.slice());
    });
    expect(streamed.byteLength).toBe(c.bytes.length);
    expect(same(Buffer.concat(chunks), c.bytes)).toBe(true);

    // a Node Buffer at an odd offset, and an ArrayBuffer
    const pooled = Buffer.alloc(c.bytes.length + 3);
    pooled.set(c.bytes, 3);
    expect(same((await patch(pooled.subarray(3), back)).bytes, c.bytes)).toBe(true);
    const buffer = c.bytes.slice().buffer;
    expect(same((await patch(buffer, back)).bytes, c.bytes)).toBe(true);
  });

  it.each(CASES.map((c) => [c.label, c] as const))("%s: replaceTensors + write gives what write gives", (_label, c) => {
    const opened = readAny(c.bytes);
    const tensors = uniqueTensors(opened.tensors());
    if (tensors.length === 0) return;
    const back = readSafetensorsBack(writeSafetensors(tensors));
    const module = ({ bw2l, tsm, primitiv, spraak, april, onnx } as Record<string, unknown>)[c.format] as {
      replaceTensors(file: unknown, t: NamedTensor[]): unknown;
      write(file: unknown): Uint8Array;
    };
    const replaced = module.replaceTensors(opened.file, back);
    expect(same(module.write(replaced), module.write(opened.file))).toBe(true);
  });
});

/** A float that differs from v in every float width: -v/2, or 1.5 for zeros and NaN. */
function other(v: number): number {
  return v === 0 || Number.isNaN(v) ? 1.5 : -v * 0.5;
}

/** A different value of the same dtype for element `index` (raw bytes +1 for types without numbers). */
function edited(t: NamedTensor, index: number): NamedTensor {
  const data = (t.data as { slice(): typeof t.data }).slice();
  switch (t.dtype) {
    case "float32":
    case "float64":
      (data as Float32Array)[index] = other((data as Float32Array)[index]!);
      break;
    case "float16":
      (data as Uint16Array)[index] = kernels.f32ToF16(
        new Float32Array([other(kernels.f16ToF32(new Uint16Array([(t.data as Uint16Array)[index]!]))[0]!)]),
      )[0]!;
      break;
    case "int64":
    case "uint64":
      (data as BigInt64Array)[index] = (data as BigInt64Array)[index]! ^ 1n;
      break;
    case "bool":
      (data as Uint8Array)[index] = (data as Uint8Array)[index]! ^ 1;
      break;
    default: {
      if ((t.data as ArrayBufferView).constructor === Uint8Array && t.dtype !== "uint8" && t.dtype !== "int8") {
        const size = t.data.byteLength / t.shape.reduce((a, b) => a * b, 1);
        (data as Uint8Array)[index * size] = (data as Uint8Array)[index * size]! ^ 1;
      } else {
        (data as Int32Array)[index] = (data as Int32Array)[index]! ^ 1;
      }
    }
  }
  return { ...t, data } as NamedTensor;
}

function elementBytes(t: NamedTensor, index: number): string {
  const count = t.shape.reduce((a, b) => a * b, 1);
  const size = t.data.byteLength / count;
  return Buffer.from(t.data.buffer, t.data.byteOffset + index * size, size).toString("hex");
}

describe("changing one value changes exactly that value", () => {
  it.each(CASES.map((c) => [c.label, c] as const))("%s", async (_label, c) => {
    const original = uniqueTensors(readAny(c.bytes).tensors());
    const candidates = original.filter((t) => t.data.byteLength > 0);
    if (candidates.length === 0) return;
    // the largest tensor, an element near its middle (for 2-D and more: off every diagonal)
    const target = candidates.reduce((a, b) => (b.data.byteLength > a.data.byteLength ? b : a));
    const count = target.shape.reduce((a, b) => a * b, 1);
    const index = Math.min(count - 1, Math.floor(count / 2) + 1);
    const result = await patch(c.bytes, [edited(target, index)]);
    expect(result.replaced).toEqual([target.name]);
    const after = readAny(result.bytes).tensors();
    const byName = new Map(after.map((t) => [t.name, t]));
    for (const t of original) {
      const now = byName.get(t.name)!;
      if (t.name !== target.name) {
        expect(
          same(
            new Uint8Array(now.data.buffer, now.data.byteOffset, now.data.byteLength),
            new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength),
          ),
          t.name,
        ).toBe(true);
        continue;
      }
      const differing: number[] = [];
      for (let i = 0; i < count; i++) if (elementBytes(t, i) !== elementBytes(now, i)) differing.push(i);
      expect(differing).toEqual([index]);
    }
    expect(result.bytes.length).toBe(c.bytes.length);
  });
});

describe("conversions into the stored dtype", () => {
  const example = (format: FormatId) => exampleFiles().find((e) => e.format === format)!.bytes;

  it("float32 values into a float16 tensor round to nearest even; float64 and bfloat16 into float32", async () => {
    const bytes = example("tsm");
    const [weight, bias] = readAny(bytes).tensors() as [NamedTensor, NamedTensor];
    expect(bias.dtype).toBe("float16");
    const values = new Float32Array([0.1, -1 / 3, 65519, 1e-8]);
    const weights64 = new Float64Array(12).map((_, i) => i / 7);
    const bf16 = new Uint16Array(12).map((_, i) => new Uint32Array(new Float32Array([i * 0.25]).buffer)[0]! >>> 16);
    const r = await patch(bytes, {
      bias: { name: "bias", dtype: "float32", shape: [4], data: values },
      weight: { name: "weight", dtype: "float64", shape: weight.shape, data: weights64 },
    });
    const after = readAny(r.bytes).tensors();
    expect(Array.from(after[1]!.data as Uint16Array)).toEqual(Array.from(kernels.f32ToF16(values)));
    expect(Array.from(after[0]!.data as Float32Array)).toEqual(Array.from(new Float32Array(weights64)));
    const viaBf16 = await patch(bytes, [
      { name: "weight", dtype: "bfloat16" as DType, shape: weight.shape, data: bf16 } as unknown as NamedTensor,
    ]);
    expect(Array.from(readAny(viaBf16.bytes).tensors()[0]!.data as Float32Array)).toEqual(
      Array.from({ length: 12 }, (_, i) => i * 0.25),
    );
  });

  it("refuses other dtypes and other shapes, naming the tensor, before writing anything", async () => {
    const bytes = example("tsm");
    let wrote = false;
    const sink = () => {
      wrote = true;
    };
    const int32: NamedTensor = { name: "weight", dtype: "int32", shape: [4, 3], data: new Int32Array(12) };
    await expect(patchTo(fromBytes(bytes), [int32], sink)).rejects.toThrow(
      /"weight" is stored as float32; a int32 tensor cannot replace it/,
    );
    await expect(
      patchTo(
        fromBytes(bytes),
        [{ name: "weight", dtype: "float32", shape: [3, 4], data: new Float32Array(12) }],
        sink,
      ),
    ).rejects.toThrow(RangeError);
    await expect(
      patchTo(
        fromBytes(bytes),
        [{ name: "weight", dtype: "float32", shape: [3, 4], data: new Float32Array(12) }],
        sink,
      ),
    ).rejects.toThrow(/shape \[4, 3\] in the file; the replacement has shape \[3, 4\]/);
    await expect(
      patchTo(
        fromBytes(bytes),
        [{ name: "wieght", dtype: "float32", shape: [4, 3], data: new Float32Array(12) }],
        sink,
      ),
    ).rejects.toThrow(/no tensor named "wieght".*closest: weight/);
    await expect(
      patch(bytes, [
        { name: "weight", dtype: "float32", shape: [4, 3], data: new Float64Array(12) } as unknown as NamedTensor,
      ]),
    ).rejects.toThrow(TypeError);
    await expect(
      patch(bytes, [{ name: "weight", dtype: "float32", shape: [4, 3], data: new Float32Array(11) }]),
    ).rejects.toThrow(RangeError);
    await expect(patch(bytes, { weight: new Uint8Array(48) })).rejects.toThrow(/raw bytes/);
    await expect(patch("x" as never, [])).rejects.toThrow(TypeError);
    expect(wrote).toBe(false);
  });

  it("{ partial: true } skips unknown names and lists them", async () => {
    const bytes = example("tsm");
    const r = await patch(bytes, [{ name: "nope", dtype: "float32", shape: [1], data: new Float32Array(1) }], {
      partial: true,
    });
    expect(r).toMatchObject({ replaced: [], kept: ["weight", "bias"], unknown: ["nope"] });
    expect(same(r.bytes, bytes)).toBe(true);
  });

  it("column-major bw2l v2 and batched primitiv tensors go back to their stored order", async () => {
    const w = Float32Array.from({ length: 6 }, (_, i) => i);
    const file = bw2l.create({
      version: 2,
      layers: [{ arch: "L 3 2", params: [{ dims: [2, 3, 1, 1], data: new Float32Array(6) }] }],
    });
    const r = await patch(bw2l.write(file), [{ name: "layers.0.0", dtype: "float32", shape: [2, 3, 1, 1], data: w }]);
    const stored = bw2l.read(r.bytes).sections.find(bw2l.isLayersSection)!.layers[0]!.params[0]!.data as Float32Array;
    // row-major [[0,1,2],[3,4,5]] stored column-major: 0 3 1 4 2 5
    expect(Array.from(stored)).toEqual([0, 3, 1, 4, 2, 5]);
    const batched = primitiv.write({
      dataType: "tensor",
      tensor: primitiv.makeTensor([2, 2], new Float32Array(12), 3),
    });
    const values = Float32Array.from({ length: 12 }, (_, i) => i);
    const p = await patch(batched, [{ name: "tensor", dtype: "float32", shape: [3, 2, 2], data: values }]);
    expect(Array.from(primitiv.tensors(primitiv.read(p.bytes))[0]!.data as Float32Array)).toEqual(Array.from(values));
  });

  it("a large 2-D column-major tensor (many column bands, both backends)", async () => {
    for (const backend of ["js", "wasm"] as const) {
      kernels.setBackend(backend);
      try {
        const rows = 700;
        const cols = 1031;
        const file = bw2l.create({
          version: 2,
          layers: [{ arch: "L", params: [{ dims: [rows, cols, 1, 1], data: new Float32Array(rows * cols) }] }],
        });
        const values = Float32Array.from({ length: rows * cols }, (_, i) => i);
        const r = await patch(bw2l.write(file), [
          { name: "layers.0.0", dtype: "float32", shape: [rows, cols, 1, 1], data: values },
        ]);
        expect(
          same(
            new Uint8Array((bw2l.tensors(bw2l.read(r.bytes))[0]!.data as Float32Array).buffer),
            new Uint8Array(values.buffer),
          ),
        ).toBe(true);
      } finally {
        kernels.setBackend("auto");
      }
    }
  });
});

describe("bw2l version 1 int8 layers", () => {
  function quantizedModel(): Uint8Array {
    const file = bw2l.create({
      version: 1,
      layers: [
        {
          arch: "L 4 3",
          params: [
            { data: Float32Array.from({ length: 12 }, (_, i) => (i - 6) / 10) },
            { data: new Float32Array([0.05, -0.02, 0.01]) },
          ],
        },
        { arch: "L 3 2", params: [{ data: new Float32Array([1, 2, 3, -4, 5, 6]) }] },
      ],
    });
    return bw2l.write(file, { quantize: "i8" });
  }

  it("int8 codes or the dequantized floats patched back: byte-identical", async () => {
    const bytes = quantizedModel();
    const codes = bw2l.tensors(bw2l.read(bytes));
    expect(codes.map((t) => t.dtype)).toEqual(["int8", "int8", "int8"]);
    expect(same((await patch(bytes, codes)).bytes, bytes)).toBe(true);
    const floats = bw2l.tensors(bw2l.read(bytes), { dtype: "float32" });
    expect(floats.map((t) => t.dtype)).toEqual(["float32", "float32", "float32"]);
    const r = await patch(bytes, floats);
    expect(r.requantized).toEqual([]);
    expect(same(r.bytes, bytes)).toBe(true);
    const file = bw2l.read(bytes);
    expect(same(bw2l.write(bw2l.replaceTensors(file, floats)), bytes)).toBe(true);
  });

  it("a value outside the layer's range: fresh scale and offset, the layer's other int8 param re-encoded", async () => {
    const bytes = quantizedModel();
    const floats = bw2l.tensors(bw2l.read(bytes), { dtype: "float32" });
    const weight = floats[0]!;
    const big = (weight.data as Float32Array).slice();
    big[5] = 3;
    const r = await patch(bytes, [{ ...weight, dtype: "float32", data: big }]);
    expect(r.replaced).toEqual(["layers.0.0"]);
    expect(r.requantized).toEqual(["layers.0.1"]);
    const before = bw2l.read(bytes).sections.find(bw2l.isLayersSection)!.layers;
    const after = bw2l.read(r.bytes).sections.find(bw2l.isLayersSection)!.layers;
    expect(after[0]!.scale).not.toBe(before[0]!.scale);
    expect(after[1]).toEqual(before[1]); // the other layer is untouched
    const back = bw2l.tensors(bw2l.read(r.bytes), { dtype: "float32" });
    const step = after[0]!.scale!;
    (back[0]!.data as Float32Array).forEach((v, i) =>
      expect(Math.abs(v - big[i]!)).toBeLessThanOrEqual(step / 2 + 1e-6),
    );
    (back[1]!.data as Float32Array).forEach((v, i) =>
      expect(Math.abs(v - (floats[1]!.data as Float32Array)[i]!)).toBeLessThanOrEqual(step),
    );
    expect(same(back[2]!.data as unknown as Uint8Array, floats[2]!.data as unknown as Uint8Array)).toBe(true);
    // the object API agrees byte for byte
    expect(
      same(bw2l.write(bw2l.replaceTensors(bw2l.read(bytes), [{ ...weight, dtype: "float32", data: big }])), r.bytes),
    ).toBe(true);
  });

  it("non-finite values are refused for an int8 layer", async () => {
    const bytes = quantizedModel();
    const weight = bw2l.tensors(bw2l.read(bytes), { dtype: "float32" })[0]!;
    const bad = (weight.data as Float32Array).slice();
    bad[0] = NaN;
    await expect(patch(bytes, [{ ...weight, dtype: "float32", data: bad }])).rejects.toThrow(/"layers.0.0" holds NaN/);
  });
});

describe("SeetaFace6 .csta: re-obfuscated in place", () => {
  it("a patched .csta holds the same module as the patched .tsm it wraps", async () => {
    if (!haveFixtures()) return;
    const csta = readFixture("tennis", "seetaface6_face_landmarker_pts5.csta");
    const module = tsm.write({ ...tsm.read(csta), container: undefined });
    const target = tsm.tensors(tsm.read(csta)).find((t) => t.dtype === "float32" && t.data.length > 100)!;
    const edit = edited(target, 7);
    const patchedCsta = (await patch(csta, [edit])).bytes;
    const patchedModule = (await patch(module, [edit])).bytes;
    expect(patchedCsta.length).toBe(csta.length);
    expect(same(tsm.write({ ...tsm.read(patchedCsta), container: undefined }), patchedModule)).toBe(true);
    // and exactly what write() makes of the replaced object (SeetaFace6's obfuscation)
    expect(same(tsm.write(tsm.replaceTensors(tsm.read(csta), [edit])), patchedCsta)).toBe(true);
  });
});

describe("april networks by name", () => {
  const model = exampleFiles().find((e) => e.format === "april")!.bytes;

  it("the same networks back: the same file", async () => {
    const file = april.read(model);
    const networks = {
      encoder: file.networks.encoder as Uint8Array,
      decoder: file.networks.decoder as Uint8Array,
      joiner: file.networks.joiner as Uint8Array,
    };
    const r = await patch(model, networks);
    expect(r.replaced).toEqual(["encoder", "decoder", "joiner"]);
    expect(same(r.bytes, model)).toBe(true);
    expect(same((await patch(model, {})).bytes, model)).toBe(true);
  });

  it("a new encoder of another size: the rest kept, the layout rewritten", async () => {
    const encoder = new TextEncoder().encode("a retrained encoder of a quite different size ".repeat(30));
    const chunks: Uint8Array[] = [];
    const r = await patchTo(
      choppySource(model, 3),
      { encoder: { name: "encoder", dtype: "uint8", shape: [encoder.length], data: encoder } },
      (c) => {
        chunks.push(c.slice());
      },
    );
    expect(r).toMatchObject({ format: "april", replaced: ["encoder"], kept: ["decoder", "joiner"] });
    const before = april.read(model);
    const after = april.read(Buffer.concat(chunks));
    expect(same(after.networks.encoder as Uint8Array, encoder)).toBe(true);
    expect(same(after.networks.joiner as Uint8Array, before.networks.joiner as Uint8Array)).toBe(true);
    expect(after.tokens).toEqual(before.tokens);
    expect(after.params).toEqual(before.params);
    expect(april.verify(after)).toEqual([]);
    expect(same(april.write(april.replaceTensors(before, { encoder })), Buffer.concat(chunks))).toBe(true);
  });

  it("refuses names other than the three networks, and tensors that are not bytes", async () => {
    await expect(patch(model, { encoderr: new Uint8Array(3) })).rejects.toThrow(
      /no tensor named "encoderr".*closest: encoder/,
    );
    await expect(
      patch(model, { joiner: { name: "joiner", dtype: "float32", shape: [2], data: new Float32Array(2) } }),
    ).rejects.toThrow(TypeError);
  });
});

describe("SPRAAK: the header stays, the data is stored in the file's TYPE and FORMAT", () => {
  const values = Float32Array.from({ length: 12 }, (_, i) => i / 4 - 1);

  it.each([["BIN01"], ["BIN10"], ["ASCII"]] as const)("%s", async (format) => {
    const file = spraak.matrix(new Float32Array(12), { cols: 3, format, data: "TRACK" });
    const bytes = spraak.write(file);
    const r = await patch(bytes, [{ name: "data", dtype: "float32", shape: [4, 3], data: values }]);
    const back = spraak.read(r.bytes);
    expect(back.header).toEqual(spraak.read(bytes).header);
    expect(Array.from(spraak.tensors(back)[0]!.data as Float32Array)).toEqual(Array.from(values));
    expect(
      same(
        spraak.write(
          spraak.replaceTensors(spraak.read(bytes), [{ name: "data", dtype: "float32", shape: [4, 3], data: values }]),
        ),
        r.bytes,
      ),
    ).toBe(true);
  });

  it("COMPRESS gzip data comes back compressed, under the same header", async () => {
    const bytes = spraak.write(
      spraak.matrix(new Float32Array(12), { cols: 3, data: "TRACK", header: { COMPRESS: "gzip" } }),
    );
    const r = await patchFrom(fromBytes(bytes), [{ name: "data", dtype: "float32", shape: [4, 3], data: values }]);
    const back = spraak.read(r.bytes);
    expect(back.meta.compress).toBe("gzip");
    expect(back.header).toEqual(spraak.read(bytes).header);
    expect(Array.from(spraak.tensors(back)[0]!.data as Float32Array)).toEqual(Array.from(values));
  });
});

describe("patchTo streams", () => {
  it("loads each replacement when its turn comes, after the bytes before it were written", async () => {
    const bytes = exampleFiles().find((e) => e.format === "primitiv")!.bytes;
    const tensors = readAny(bytes).tensors();
    const log: string[] = [];
    await patchTo(fromBytes(bytes), lazyOf(tensors, log), (chunk) => {
      log.push(`write ${chunk.length}`);
    });
    const loads = log.map((l, i) => (l.startsWith("load") ? i : -1)).filter((i) => i >= 0);
    expect(loads.length).toBe(tensors.length);
    // between two loads there is at least one write: never two tensors loaded ahead
    for (let k = 1; k < loads.length; k++) expect(loads[k]! - loads[k - 1]!).toBeGreaterThan(1);
  });

  it("into a WritableStream and a Node Writable, ended at the end", async () => {
    const bytes = exampleFiles().find((e) => e.format === "tsm")!.bytes;
    const tensors = readAny(bytes).tensors();
    const parts: Uint8Array[] = [];
    let closed = false;
    const web = new WritableStream<Uint8Array>({
      write: (c) => void parts.push(c.slice()),
      close: () => void (closed = true),
    });
    await patchTo(fromBytes(bytes), tensors, web);
    expect(closed).toBe(true);
    expect(same(Buffer.concat(parts), bytes)).toBe(true);
    const { PassThrough } = await import("node:stream");
    const node = new PassThrough();
    const collected: Buffer[] = [];
    node.on("data", (c: Buffer) => collected.push(c));
    const r = await patchTo(fromBytes(bytes), tensors, node);
    expect(r.byteLength).toBe(bytes.length);
    expect(same(Buffer.concat(collected), bytes)).toBe(true);
    await expect(patchTo(fromBytes(bytes), tensors, 42 as never)).rejects.toThrow(TypeError);
  });

  it("weights stored as the model stores them are copied through, not loaded (row-major), else loaded", async () => {
    for (const format of ["tsm", "bw2l"] as const) {
      const bytes = exampleFiles().find((e) => e.format === format)!.bytes;
      const exported = writeSafetensors(readAny(bytes).tensors());
      const opened = await readFromAny(fromBytes(exported));
      const loaded: string[] = [];
      const weights = {
        tensorInfos: () => opened.tensorInfos(),
        loadTensor: (info: TensorInfo) => (loaded.push(info.name), opened.loadTensor(info)),
        source: fromBytes(exported),
      };
      expect(same((await patch(bytes, weights)).bytes, bytes)).toBe(true);
      // tsm: row-major, same dtypes: copied through; bw2l v2: column-major tensors are read into one reused buffer
      if (format === "tsm") expect(loaded).toEqual([]);
      else expect(loaded).toEqual([]); // column-major: read into one reused buffer, not loaded
    }
  });

  it("reuseChunks really hands out the same memory again (a sink keeping references sees it change)", async () => {
    const bytes = exampleFiles().find((e) => e.format === "bw2l")!.bytes;
    const exported = writeSafetensors(readAny(bytes).tensors());
    const kept: Uint8Array[] = [];
    await patchTo(fromBytes(bytes), fromBytes(exported), (chunk) => void kept.push(chunk), { reuseChunks: true });
    expect(new Set(kept.map((c) => c.buffer)).size).toBeLessThan(kept.length);
    const copies: Uint8Array[] = [];
    await patchTo(fromBytes(bytes), fromBytes(exported), (chunk) => void copies.push(chunk));
    expect(same(Buffer.concat(copies), bytes)).toBe(true); // without the option every chunk stays valid
  });

  it("a file that is not a model is refused", async () => {
    await expect(patch(new Uint8Array(100), [])).rejects.toThrow(/unknown format/);
  });

  it("readFromAny results work as weights", async () => {
    const bytes = exampleFiles().find((e) => e.format === "bw2l")!.bytes;
    const weights = await readFromAny(fromBytes(bytes));
    const r = await patchFrom(fromBytes(bytes), weights);
    expect(same(r.bytes, bytes)).toBe(true);
  });
});

describe("patch takes every form of weights the guide lists", () => {
  const model = exampleFiles().find((e) => e.format === "bw2l")!.bytes;
  const original = readAny(model).tensors();
  const changed: NamedTensor[] = original.map((t, i) =>
    i === 0 ? ({ ...t, data: (t.data as Float32Array).map((v) => v + 1) } as NamedTensor) : t,
  );
  const expected = bw2l.write(bw2l.replaceTensors(bw2l.read(model), changed));

  it("a { tensors() } object and a readAny() result patch like the array they give (type-checked by tsc --strict)", async () => {
    const holder = { tensors: () => changed };
    expect((await patch(model, holder)).bytes).toEqual(expected);
    const weights = writeSafetensors(changed);
    expect((await patch(model, readAny(weights))).bytes).toEqual(expected);
    expect(bw2l.write(bw2l.replaceTensors(bw2l.read(model), holder))).toEqual(expected);
  });

  it("a tensors() that does not give an array says what was expected", async () => {
    await expect(patch(model, { tensors: () => null as never })).rejects.toThrow(
      /tensors\(\) returned null, not an array of NamedTensors/,
    );
    await expect(patch(model, { format: "x" } as never)).rejects.toThrow(/not a NamedTensor/);
  });
});
