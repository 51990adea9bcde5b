import { describe, expect, it } from "vitest";
import { writeNpy, npyHeader } from "../bindings/export/npy.js";
import { planSafetensors, writeSafetensors } from "../bindings/export/safetensors.js";
import type { NamedTensor } from "../bindings/tensor.js";
import { parseNpy, parseSafetensors } from "./helpers/parsers.js";

const tensors: NamedTensor[] = [
  { name: "a.half", dtype: "float16", shape: [3], data: new Uint16Array([0x3c00, 0x4000, 0x7c00]) },
  { name: "w", dtype: "float32", shape: [2, 3], data: new Float32Array([1, 2, 3, 4, 5, 6]) },
  { name: "scalar", dtype: "float64", shape: [], data: new Float64Array([Math.PI]) },
  { name: "ids", dtype: "int64", shape: [2], data: new BigInt64Array([-1n, 2n ** 40n]) },
  { name: "mask", dtype: "bool", shape: [2, 2], data: new Uint8Array([1, 0, 0, 1]) },
  { name: "c", dtype: "complex64", shape: [1], data: new Uint8Array(8).fill(7) },
];

describe("npy and safetensors writers", () => {
  it("npy: header fields and data read back by an independent parser", () => {
    for (const t of tensors) {
      const parsed = parseNpy(writeNpy(t));
      expect(parsed.major).toBe(1);
      expect(parsed.fortran).toBe("False");
      expect(parsed.shape).toEqual(t.shape);
      expect(Buffer.from(parsed.data).equals(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))).toBe(
        true,
      );
    }
    expect(parseNpy(writeNpy(tensors[1]!)).descr).toBe("<f4");
    expect(parseNpy(writeNpy(tensors[0]!)).descr).toBe("<f2");
    expect(parseNpy(writeNpy(tensors[3]!)).descr).toBe("<i8");
    expect(parseNpy(writeNpy(tensors[4]!)).descr).toBe("|b1");
    const header = new TextDecoder().decode(npyHeader("float32", [7]));
    expect(header).toContain("'shape': (7,)");
  });

  it("npy: version 2.0 when the header does not fit a u16", () => {
    const shape = Array.from({ length: 30000 }, () => 1);
    const parsed = parseNpy(npyHeader("uint8", shape));
    expect(parsed.major).toBe(2);
    expect(parsed.shape.length).toBe(30000);
  });

  it("safetensors: offsets, dtypes, alignment and data read back by an independent parser", () => {
    const file = writeSafetensors(tensors, { source: "test" });
    const { header, tensors: read } = parseSafetensors(file);
    expect(header.__metadata__.source).toBe("test");
    expect(header.__metadata__.format).toBe("pt");
    expect(header.__metadata__["tensorfile.dtype.c"]).toBeUndefined();
    const byName = new Map(read.map((r) => [r.name, r]));
    expect(byName.get("w")!.dtype).toBe("F32");
    expect(byName.get("a.half")!.dtype).toBe("F16");
    expect(byName.get("ids")!.dtype).toBe("I64");
    expect(byName.get("mask")!.dtype).toBe("BOOL");
    expect(byName.get("c")!.dtype).toBe("C64");
    expect(byName.get("c")!.shape).toEqual([1]);
    expect(byName.get("scalar")!.shape).toEqual([]);
    const dataStart = file.length - read.reduce((a, r) => a + r.bytes.length, 0);
    for (const t of tensors) {
      const r = byName.get(t.name)!;
      expect(Buffer.from(r.bytes).equals(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength))).toBe(true);
      const size = t.data.BYTES_PER_ELEMENT;
      expect((dataStart + r.data_offsets[0]) % size).toBe(0);
    }
    expect(() =>
      planSafetensors([
        { name: "x", dtype: "float32", shape: [1] },
        { name: "x", dtype: "float32", shape: [1] },
      ]),
    ).toThrow(/unique/);
  });
});

describe("the writers check their tensors before writing anything", () => {
  const good: NamedTensor = { name: "w", dtype: "float32", shape: [3], data: new Float32Array(3) };
  const bad: [string, unknown, RegExp, typeof TypeError | typeof RangeError][] = [
    [
      "too few values",
      { ...good, data: new Float32Array(2) },
      /has 8 bytes of data; its float32 shape \[3\] needs 12/,
      RangeError,
    ],
    [
      "an Int32Array labelled float32",
      { ...good, data: new Int32Array(3) },
      /labelled float32.*Float32Array.*Int32Array/,
      TypeError,
    ],
    [
      "float16 given as floats",
      { ...good, dtype: "float16", data: new Float32Array(3) },
      /labelled float16/,
      TypeError,
    ],
    ["an empty name", { ...good, name: "" }, /non-empty string name/, TypeError],
    ["a negative dim", { ...good, shape: [-3] }, /dims are whole numbers >= 0/, RangeError],
    ["a fractional dim", { ...good, shape: [1.5, 2] }, /dims are whole numbers/, RangeError],
    ["an unknown dtype", { ...good, dtype: "float128" }, /unknown dtype "float128"/, TypeError],
    ["no data", { ...good, data: [0, 0, 0] }, /no typed-array data/, TypeError],
  ];
  it.each(bad)("%s", (_label, tensor, message, type) => {
    expect(() => writeNpy(tensor as NamedTensor)).toThrow(type);
    expect(() => writeNpy(tensor as NamedTensor)).toThrow(message);
    expect(() => writeSafetensors([good, tensor as NamedTensor])).toThrow(message);
  });

  it("names are unique and not __metadata__; metadata values are strings", () => {
    expect(() => writeSafetensors([good, good])).toThrow(/two tensors are named "w"/);
    expect(() => writeSafetensors([{ ...good, name: "__metadata__" }])).toThrow(/__metadata__/);
    expect(() => writeSafetensors([good], { epoch: 3 as unknown as string })).toThrow(TypeError);
    expect(() => writeSafetensors("w" as unknown as NamedTensor[])).toThrow(TypeError);
  });

  it('__metadata__ has "format": "pt" (Hugging Face loaders refuse other values) beside what the caller adds', () => {
    const { header } = parseSafetensors(writeSafetensors([good], { "tensorfile.source": "bw2l" }));
    expect(header.__metadata__).toEqual({ format: "pt", "tensorfile.source": "bw2l" });
    expect(parseSafetensors(writeSafetensors([good])).header.__metadata__).toEqual({ format: "pt" });
  });

  it("complex64 is safetensors C64 with its own shape; complex128 stays U8 with an axis of 16 and its dtype in the metadata", () => {
    const c64: NamedTensor = { name: "c", dtype: "complex64", shape: [2], data: new Uint8Array(16).fill(3) };
    const c128: NamedTensor = { name: "z", dtype: "complex128", shape: [2], data: new Uint8Array(32).fill(5) };
    const { header } = parseSafetensors(writeSafetensors([c64, c128]));
    expect(header.c).toMatchObject({ dtype: "C64", shape: [2] });
    expect(header.z).toMatchObject({ dtype: "U8", shape: [2, 16] });
    expect(header.__metadata__).toMatchObject({ "tensorfile.dtype.z": "complex128" });
  });

  it("a Node Buffer is a Uint8Array for uint8 data", () => {
    const t: NamedTensor = { name: "b", dtype: "uint8", shape: [4], data: Buffer.from([1, 2, 3, 4]) };
    expect(parseNpy(writeNpy(t)).shape).toEqual([4]);
  });
});
