/**
 * No double copies: bw2l read() leaves unaligned payloads as stored (their `data` is an aligned copy made on first
 * use) and tensors() decodes from the stored bytes once; decodeTensor swaps, widens and dequantizes straight
 * from stored bytes of any alignment. Checked against an oracle written from the definitions (DataView reads,
 * the index formula of column-major order), on both backends, at every byte offset, and the inputs stay unchanged.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { type DType, type TensorInfo, decodeTensor, dtypeBytes } from "../bindings/tensor.js";
import { BACKENDS, withBackend } from "./helpers/backends.js";
import { columnToRowOracle } from "./helpers/oracles.js";

/** Element i of stored bytes as a number or bigint, read with a DataView (the oracle's only decoding). */
function storedElement(bytes: Uint8Array, dtype: DType, i: number, littleEndian: boolean): number | bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = i * dtypeBytes(dtype);
  switch (dtype) {
    case "float32":
      return view.getFloat32(at, littleEndian);
    case "float64":
      return view.getFloat64(at, littleEndian);
    case "int16":
      return view.getInt16(at, littleEndian);
    case "uint16":
    case "float16":
      return view.getUint16(at, littleEndian);
    case "int32":
      return view.getInt32(at, littleEndian);
    case "int64":
      return view.getBigInt64(at, littleEndian);
    case "int8":
      return view.getInt8(at);
    default:
      return view.getUint8(at);
  }
}

/** float16 bits to a number, from the IEEE definition. */
function halfValue(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

function oracle(bytes: Uint8Array, info: TensorInfo, float32: boolean): (number | bigint)[] {
  const count = info.shape.reduce((a, b) => a * b, 1);
  let values = Array.from({ length: count }, (_, i) => storedElement(bytes, info.dtype, i, info.byteOrder === "le"));
  if (info.layout === "column-major") values = columnToRowOracle(values, info.shape);
  if (float32 && info.dtype === "float16") values = values.map((h) => Math.fround(halfValue(h as number)));
  if (float32 && info.dtype === "int8" && info.quantization) {
    const { scale, offset } = info.quantization;
    values = values.map((q) => Math.fround(Math.fround((q as number) - Math.fround(offset)) * Math.fround(scale)));
  } else if (float32 && info.dtype !== "float16") {
    // dtype "float32" casts every other real dtype to the nearest float32
    values = values.map((v) => Math.fround(Number(v)));
  }
  return values;
}

const DTYPES: DType[] = ["float32", "float64", "int16", "uint16", "int32", "int64", "int8", "uint8", "float16"];

describe.each(BACKENDS)("decodeTensor from stored bytes at any offset (backend %s)", (backend) => {
  it("equals the oracle for every dtype, byte order, layout and float32 option; the input is unchanged", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...DTYPES),
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 7 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 1, max: 120 }),
        (dtype, dims, pad, bigEndian, columnMajor, float32, seed, stretch) => {
          // the last axis stretched so that some cases pass the kernels' WASM threshold
          const shape = [...dims.slice(0, -1), dims[dims.length - 1]! * stretch];
          const count = shape.reduce((a, b) => a * b, 1);
          const size = dtypeBytes(dtype);
          const backing = new Uint8Array(pad + count * size);
          let s = seed || 1;
          for (let i = 0; i < backing.length; i++) {
            s ^= s << 13;
            s ^= s >>> 17;
            s ^= s << 5;
            backing[i] = s & 0xff;
          }
          if (dtype === "float32" || dtype === "float64") {
            // keep NaN payloads out of the float comparison: exponent bytes below all-ones
            for (let i = 0; i < count; i++) backing[pad + i * size + (bigEndian ? 0 : size - 1)]! &= 0x3f;
          }
          const bytes = backing.subarray(pad);
          const before = backing.slice();
          const info: TensorInfo = {
            name: "t",
            dtype,
            shape,
            byteOffset: 0,
            byteLength: bytes.byteLength,
            byteOrder: bigEndian ? "be" : "le",
            layout: columnMajor ? "column-major" : "row-major",
            quantization: dtype === "int8" ? { scale: 0.37, offset: -3 } : undefined,
          };
          const t = withBackend(backend, () => decodeTensor(bytes, info, float32 ? { dtype: "float32" } : {}));
          const want = oracle(bytes, info, float32);
          expect(Array.from(t.data as ArrayLike<number | bigint>)).toEqual(want);
          expect(backing).toEqual(before);
        },
      ),
      { numRuns: 200, seed: 16 },
    );
  });
});

describe("bw2l read() leaves unaligned payloads as stored", () => {
  // a v2 model whose param payloads start at odd offsets (the name's length shifts them)
  const weights = Float32Array.from({ length: 40 * 30 }, (_, i) => Math.sin(i));
  const make = (name: string) =>
    lib.bw2l.write(
      lib.bw2l.create({
        version: 2,
        name,
        config: { criterion: "ctc" },
        layers: [
          {
            arch: "L 40 30",
            params: [
              { dims: [40, 30, 1, 1], data: weights },
              { dims: [40, 1, 1, 1], data: weights.subarray(0, 40) },
            ],
          },
        ],
      }),
    );
  const unalignedFile = [make(""), make("a"), make("ab"), make("abc")].find((bytes) => {
    const file = lib.bw2l.read(bytes);
    const p = (file.sections.find(lib.bw2l.isLayersSection) as lib.bw2l.Bw2lLayersSection).layers[0]!.params[0]!;
    return p.byteOffset! % 4 !== 0;
  })!;

  it("tensors() decodes from the stored bytes without making the aligned copy", () => {
    const file = lib.bw2l.read(unalignedFile);
    const param = (file.sections.find(lib.bw2l.isLayersSection) as lib.bw2l.Bw2lLayersSection).layers[0]!.params[0]!;
    expect(Object.getOwnPropertyDescriptor(param, "data")!.get).toBeTypeOf("function"); // still deferred
    const tensors = lib.bw2l.tensors(file);
    expect(Object.getOwnPropertyDescriptor(param, "data")!.get).toBeTypeOf("function"); // tensors() did not copy it
    expect(Array.from(tensors[0]!.data as Float32Array)).toEqual(Array.from(weights));
    expect(lib.bw2l.inspect(file).tensors[0]!.byteLength).toBe(weights.byteLength);
    expect(lib.bw2l.tensorInfos(file)[0]!.byteOffset).toBe(param.byteOffset);
    expect(Buffer.compare(lib.bw2l.write(file), unalignedFile)).toBe(0); // write() from the stored bytes
    expect(Object.getOwnPropertyDescriptor(param, "data")!.get).toBeTypeOf("function");
  });

  it("data is an aligned copy on first access, then an ordinary property (assignable, JSON-visible)", () => {
    const input = unalignedFile.slice();
    const file = lib.bw2l.read(input);
    const param = (file.sections.find(lib.bw2l.isLayersSection) as lib.bw2l.Bw2lLayersSection).layers[0]!.params[0]!;
    const data = param.data as Float32Array;
    expect(data).toBeInstanceOf(Float32Array);
    expect(data.byteOffset % 4).toBe(0);
    expect(param.data).toBe(data); // the same copy every time
    expect(Object.getOwnPropertyDescriptor(param, "data")!.value).toBe(data);
    data[0] = 42; // the copy is the caller's: tensors() and write() now use it, the input is untouched
    expect(Buffer.compare(input, unalignedFile)).toBe(0);
    expect((lib.bw2l.tensors(file)[0]!.data as Float32Array)[0]).toBe(42);
    expect(lib.bw2l.read(lib.bw2l.write(file)).sections.length).toBe(file.sections.length);
    const other = lib.bw2l.read(input);
    const otherParam = (other.sections.find(lib.bw2l.isLayersSection) as lib.bw2l.Bw2lLayersSection).layers[0]!
      .params[0]!;
    otherParam.data = new Float32Array(weights.length).fill(7);
    expect((lib.bw2l.tensors(other)[0]!.data as Float32Array)[5]).toBe(7);
    expect(Object.keys(otherParam)).toContain("data");
    expect(lib.bw2l.read(input)).toEqual(lib.bw2l.read(input, { copy: true }));
  });
});
