// The row-major-only paths that keep the transpose kernels out of a bundle importing only SPRAAK, TenniS, april or
// safetensors (decodeRowMajorTensor, encodeRowMajorBytes) and the READERS table behind detectFormat/readAny/
// readFromAny: each must give exactly what the general path gives, and refuse what only the general path can do.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FORMATS, READERS } from "../bindings/any.js";
import { UnsupportedError } from "../bindings/bytes/errors.js";
import { encodeBytes, encodeRowMajorBytes } from "../bindings/patch/encode.js";
import {
  type DType,
  type TensorInfo,
  decodeRowMajorTensor,
  decodeTensor,
  dtypeBytes,
  elementCount,
} from "../bindings/tensor.js";

const DTYPES: DType[] = [
  "float16",
  "bfloat16",
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
  "float8_e4m3",
  "float8_e5m2",
  "complex64",
  "complex128",
];

const storedTensor = fc.record({
  dtype: fc.constantFrom(...DTYPES),
  shape: fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 4 }),
  byteOrder: fc.constantFrom("le" as const, "be" as const),
  pad: fc.integer({ min: 0, max: 7 }),
  seed: fc.integer(),
  quantized: fc.boolean(),
  toFloat32: fc.boolean(),
});

/** Deterministic pseudo-random bytes (every bit pattern: NaNs, subnormals, negative zero). */
function noise(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed | 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe("decodeRowMajorTensor", () => {
  it("gives what decodeTensor gives for every row-major tensor (dtype, byte order, offset, float32, quantization)", () => {
    fc.assert(
      fc.property(storedTensor, ({ dtype, shape, byteOrder, pad, seed, quantized, toFloat32 }) => {
        const byteLength = elementCount(shape) * dtypeBytes(dtype);
        const buffer = noise(pad + byteLength, seed);
        const bytes = buffer.subarray(pad);
        const info: TensorInfo = {
          name: "t",
          dtype,
          shape,
          byteOffset: 0,
          byteLength,
          byteOrder,
          layout: "row-major",
          ...(quantized && dtype === "int8" ? { quantization: { scale: 0.5, offset: -3 } } : {}),
        };
        const options = toFloat32 ? { dtype: "float32" as const } : {};
        const general = decodeTensor(bytes, info, options);
        const rowMajor = decodeRowMajorTensor(bytes, info, options);
        expect(rowMajor.dtype).toBe(general.dtype);
        expect(rowMajor.shape).toEqual(general.shape);
        expect(rowMajor.data.constructor).toBe(general.data.constructor);
        expect(new Uint8Array(rowMajor.data.buffer, rowMajor.data.byteOffset, rowMajor.data.byteLength)).toEqual(
          new Uint8Array(general.data.buffer, general.data.byteOffset, general.data.byteLength),
        );
        expect(buffer).toEqual(noise(pad + byteLength, seed)); // the input is left as it was
      }),
      { numRuns: 400 },
    );
  });

  it("decodes column-major tensors with one axis longer than 1 (the same order) and refuses the others", () => {
    const bytes = new Uint8Array(new Float32Array([1, 2, 3, 4, 5, 6]).buffer);
    const base: TensorInfo = {
      name: "w",
      dtype: "float32",
      shape: [1, 6, 1],
      byteOffset: 8,
      byteLength: 24,
      byteOrder: "le",
      layout: "column-major",
    };
    expect(Array.from(decodeRowMajorTensor(bytes, base).data as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
    const matrix = { ...base, shape: [2, 3] };
    expect(Array.from(decodeTensor(bytes, matrix).data as Float32Array)).toEqual([1, 3, 5, 2, 4, 6]);
    expect(() => decodeRowMajorTensor(bytes, matrix, {}, "spraak")).toThrow(UnsupportedError);
    expect(() => decodeRowMajorTensor(bytes, matrix, {}, "spraak")).toThrow(
      /"w" is stored column-major; only decodeTensor reorders it/,
    );
  });
});

describe("encodeRowMajorBytes", () => {
  const floats = ["float16", "float32", "float64"] as const;
  it("gives what encodeBytes gives for every row-major stored form and accepted replacement", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...floats),
        fc.constantFrom("float16", "float32", "float64", "bfloat16"),
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 3 }),
        fc.constantFrom("le" as const, "be" as const),
        fc.integer(),
        (stored, given, shape, byteOrder, seed) => {
          const count = elementCount(shape);
          const raw = noise(count * dtypeBytes(given), seed);
          const data =
            given === "float32"
              ? new Float32Array(raw.buffer)
              : given === "float64"
                ? new Float64Array(raw.buffer)
                : new Uint16Array(raw.buffer);
          const form = { name: "data", dtype: stored, shape, layout: "row-major", byteOrder } as const;
          expect(encodeRowMajorBytes(data, given, form)).toEqual(encodeBytes(data, given, form));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses a column-major form (an internal error: only the general encoder transposes)", () => {
    const form = { name: "w", dtype: "float32", shape: [2, 3], layout: "column-major", byteOrder: "le" } as const;
    expect(() => encodeRowMajorBytes(new Float32Array(6), "float32", form)).toThrow(
      /column-major; encode it with encodeBytes/,
    );
    expect(encodeRowMajorBytes(new Float32Array([1, 2, 3]), "float32", { ...form, shape: [1, 3] })).toEqual(
      encodeBytes(new Float32Array([1, 2, 3]), "float32", { ...form, shape: [1, 3] }),
    );
  });
});

describe("READERS (what detection and readAny/readFromAny use of each format)", () => {
  it("are FORMATS' own reading functions, in FORMATS' order", () => {
    expect(READERS.map((r) => r.id)).toEqual(FORMATS.map((f) => f.id));
    READERS.forEach((reader, i) => {
      const module = FORMATS[i]!;
      for (const key of ["detect", "read", "readFrom", "tensors", "tensorInfos", "loadTensor"] as const) {
        expect(reader[key], `${reader.id}.${key}`).toBe(module[key]);
      }
    });
  });
});
