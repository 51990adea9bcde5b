/**
 * Patching from weights in a file (safetensors with a ByteSource) when the replacement must be converted into
 * the stored form elementwise (dtype cast, byte swap): the replacement is read and encoded in pieces of
 * PATCH_TUNING.pieceBytes (whole elements), never whole. Checked here:
 * - differential: with tiny random piece sizes (many pieces, pieces of one element, pieces that cut the encoder's
 *   own chunks), the output is byte-identical to patching the same tensors given in memory (the whole-tensor
 *   route: loaded, then encoded), for SPRAAK BIN10 (big-endian: swapped) and BIN01, TenniS .tsm and .csta
 *   (obfuscated at absolute offsets), ONNX raw_data, primitiv and bw2l tensors with one axis longer than 1,
 *   and column-major matrices (which keep the whole-tensor route), through patchFrom and patchTo with and
 *   without reused chunks;
 * - the piece route is the one taken: no read of the replacement is larger than a piece.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { readAny } from "../bindings/any.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import * as bw2l from "../bindings/formats/bw2l.js";
import * as onnx from "../bindings/formats/onnx.js";
import * as primitiv from "../bindings/formats/primitiv.js";
import * as spraak from "../bindings/formats/spraak.js";
import * as tsm from "../bindings/formats/tsm.js";
import { type ByteSource, fromBytes } from "../bindings/io/source.js";
import { patch, patchFrom, patchTo } from "../bindings/patch.js";
import { PATCH_TUNING } from "../bindings/patch/plan.js";
import { type DType, type NamedTensor, dtypeBytes, isStandardDType } from "../bindings/tensor.js";
import { rng } from "./helpers/rng.js";
import { concat } from "./helpers/bytes.js";

const saved = { ...PATCH_TUNING };
afterEach(() => {
  Object.assign(PATCH_TUNING, saved);
});

/** A model of `n` elements per tensor (about), and whether its tensors take the piece route. */
type Maker = (n: number, seed: number) => Uint8Array;

function randomBytes(length: number, seed: number): Uint8Array {
  const next = rng(seed);
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
  return out;
}

function floats(n: number, seed: number): Float32Array {
  const next = rng(seed);
  return Float32Array.from({ length: n }, () => (next() - 0.5) * 8);
}

/** rows x cols with both > 1 when n allows (column-major formats then transpose: the whole-tensor route). */
function matrixShape(n: number): [number, number] {
  const rows = Math.max(1, Math.floor(Math.sqrt(n)));
  return [rows, Math.max(1, Math.floor(n / rows))];
}

const MODELS: Record<string, Maker> = {
  "spraak BIN10 F32": (n) =>
    spraak.write(spraak.matrix(new Float32Array(n * 3), { cols: 3, format: "BIN10", data: "TRACK" })),
  "spraak BIN10 F64": (n) =>
    spraak.write(spraak.matrix(new Float64Array(n * 2), { cols: 2, format: "BIN10", data: "TRACK" })),
  "spraak BIN10 I16": (n) =>
    spraak.write(spraak.matrix(new Int16Array(n * 3), { cols: 3, format: "BIN10", data: "TRACK" })),
  "spraak BIN10 I64": (n) =>
    spraak.write(spraak.matrix(new BigInt64Array(n), { cols: 1, format: "BIN10", data: "TRACK" })),
  "spraak BIN01 F32": (n) =>
    spraak.write(spraak.matrix(new Float32Array(n * 2), { cols: 2, format: "BIN01", data: "TRACK" })),
  tsm: (n) => tsm.write(tsmModule(n)),
  csta: (n) => tsm.writeCsta(tsmModule(n)),
  "onnx raw_data": (n, seed) =>
    onnx.write(
      onnx.create({
        docString: "a model for tests of patching in pieces".repeat(3),
        graph: {
          name: "g",
          nodes: [{ name: "add", opType: "Add", inputs: ["x", "single"], outputs: ["y"] }],
          inputs: [{ name: "x", dtype: "float32", shape: [n] }],
          outputs: [{ name: "y", dtype: "float32", shape: [n] }],
          initializers: [
            {
              name: "half",
              dtype: "float16",
              dims: matrixShape(n),
              data: new Uint8Array(matrixShape(n)[0] * matrixShape(n)[1] * 2),
            },
            { name: "single", dtype: "float32", dims: [n], data: floats(n, seed) },
            { name: "double", dtype: "float64", dims: [1, n], data: new Float64Array(n) },
          ],
        },
      }),
    ),
  "primitiv (one axis, and a column-major matrix)": (n, seed) => {
    const [rows, cols] = matrixShape(n);
    return primitiv.write(
      primitiv.makeModel([
        [["v"], primitiv.makeParameter(primitiv.makeTensor([n], floats(n, seed)))],
        [["row"], primitiv.makeParameter(primitiv.makeTensor([1, n], floats(n, seed + 1)))],
        [["m"], primitiv.makeParameter(primitiv.makeTensor([rows, cols], floats(rows * cols, seed + 2)))],
      ]),
    );
  },
  "bw2l v2 (one axis, and a column-major matrix)": (n, seed) => {
    const [rows, cols] = matrixShape(n);
    return bw2l.write(
      bw2l.create({
        version: 2,
        layers: [
          {
            arch: "L",
            params: [
              { dims: [n, 1, 1, 1], data: floats(n, seed) },
              { dims: [rows, cols, 1, 1], data: floats(rows * cols, seed + 1) },
            ],
          },
        ],
      }),
    );
  },
};

function tsmModule(n: number): tsm.TsmModule {
  const [rows, cols] = matrixShape(n);
  return tsm.create({
    nodes: [
      { op: "<param>", name: "x" },
      {
        op: "<const>",
        name: "half",
        value: { dtype: "float16", shape: [rows, cols], data: new Uint16Array(rows * cols) },
      },
      { op: "<const>", name: "single", value: { dtype: "float32", shape: [n], data: new Float32Array(n) } },
      { op: "<const>", name: "double", value: { dtype: "float64", shape: [n, 1], data: new Float64Array(n) } },
      {
        op: "<const>",
        name: "complex",
        value: { dtype: "complex128", shape: [Math.max(1, n >> 2)], data: new Uint8Array(16 * Math.max(1, n >> 2)) },
      },
      { op: "add", name: "y", inputs: ["x", "single"] },
    ],
    inputs: ["x"],
    outputs: ["y"],
  });
}

const FLOAT_SOURCES: DType[] = ["float32", "float64", "float16", "bfloat16", "float8_e4m3", "float8_e5m2"];

const ARRAYS: Partial<Record<string, new (buffer: ArrayBuffer) => ArrayBufferView>> = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array,
  bfloat16: Uint16Array,
  int16: Int16Array,
  int64: BigInt64Array,
};

/** A replacement for `stored` of dtype `dtype` with random bits (NaNs, infinities and subnormals included). */
function replacement(stored: NamedTensor, dtype: DType, seed: number): NamedTensor {
  if (!isStandardDType(stored.dtype)) {
    // a format-specific dtype: its raw bytes, with one more axis (as writeSafetensors exports it)
    const size = dtypeBytes(stored.dtype);
    return {
      name: stored.name,
      dtype: "uint8",
      shape: [...stored.shape, size],
      data: randomBytes(stored.data.byteLength, seed),
    };
  }
  const count = stored.shape.reduce((a, b) => a * b, 1);
  const bytes = randomBytes(count * dtypeBytes(dtype), seed);
  const ctor = ARRAYS[dtype];
  return {
    name: stored.name,
    dtype,
    shape: stored.shape.slice(),
    data: ctor ? new ctor(bytes.buffer as ArrayBuffer) : bytes,
  } as NamedTensor;
}

/** The replacements for every tensor of `model`: float tensors from `pick`ed float dtypes, others as stored. */
function replacements(model: Uint8Array, pick: (i: number) => number, seed: number): NamedTensor[] {
  return readAny(model)
    .tensors()
    .map((t, i) => {
      const floating = t.dtype === "float16" || t.dtype === "float32" || t.dtype === "float64";
      return replacement(t, floating ? FLOAT_SOURCES[pick(i) % FLOAT_SOURCES.length]! : t.dtype, seed + i);
    });
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** The patched bytes through every streaming entry point, from weights in a safetensors ByteSource. */
async function viaFile(model: Uint8Array, weights: Uint8Array): Promise<Uint8Array[]> {
  const from = (await patchFrom(fromBytes(model), fromBytes(weights))).bytes;
  const copies: Uint8Array[] = [];
  await patchTo(fromBytes(model), fromBytes(weights), (chunk) => void copies.push(chunk.slice()), {
    reuseChunks: true,
  });
  const kept: Uint8Array[] = []; // chunks kept as handed over: none may be changed afterwards
  await patchTo(fromBytes(model), fromBytes(weights), (chunk) => void kept.push(chunk));
  return [from, concat(...copies), concat(...kept)];
}

describe("patching converted weights in pieces gives the bytes of the whole-tensor route", () => {
  it.each(Object.entries(MODELS))("%s", async (_label, make) => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 160 }),
        fc.integer({ min: 1, max: 96 }),
        fc.array(fc.nat(), { minLength: 6, maxLength: 6 }),
        fc.nat(1 << 20),
        async (n, pieceBytes, picks, seed) => {
          const model = make(n, seed);
          const tensors = replacements(model, (i) => picks[i % picks.length]!, seed);
          // the oracle: tensors in memory are loaded and encoded whole (the route this change leaves alone)
          const expected = hex((await patch(model, tensors)).bytes);
          const weights = writeSafetensors(tensors);
          PATCH_TUNING.pieceBytes = pieceBytes;
          try {
            for (const got of await viaFile(model, weights)) expect(hex(got)).toBe(expected);
          } finally {
            Object.assign(PATCH_TUNING, saved);
          }
        },
      ),
      { numRuns: 40, seed: 20261126 },
    );
  });

  it("a large tensor in odd pieces that cut the encoder's chunks (BIN10, float64 into big-endian float32)", async () => {
    const n = (1 << 18) + 77;
    const model = spraak.write(spraak.matrix(new Float32Array(n), { cols: 1, format: "BIN10", data: "TRACK" }));
    const tensors = [replacement(readAny(model).tensors()[0]!, "float64", 5)];
    const expected = hex((await patch(model, tensors)).bytes);
    const weights = writeSafetensors(tensors);
    for (const pieceBytes of [(96 << 10) + 24, (1 << 20) + 8, 8 * n + 8]) {
      PATCH_TUNING.pieceBytes = pieceBytes;
      for (const got of await viaFile(model, weights)) expect(hex(got)).toBe(expected);
    }
  });
});

/** fromBytes with every readInto length logged. */
function loggingSource(bytes: Uint8Array): { source: ByteSource; reads: number[] } {
  const base = fromBytes(bytes);
  const reads: number[] = [];
  return {
    reads,
    source: { ...base, readInto: (target, offset) => (reads.push(target.length), base.readInto!(target, offset)) },
  };
}

describe("the piece route is the one taken", () => {
  it("a BIN10 matrix from float32 and float64 weights: no read of the replacement exceeds a piece", async () => {
    const n = 1 << 16;
    const model = spraak.write(spraak.matrix(new Float32Array(n), { cols: 4, format: "BIN10", data: "TRACK" }));
    const stored = readAny(model).tensors()[0]!;
    for (const dtype of ["float32", "float64"] as const) {
      const tensors = [replacement(stored, dtype, 9)];
      const weights = loggingSource(writeSafetensors(tensors));
      PATCH_TUNING.pieceBytes = 32 << 10;
      const r = await patchFrom(fromBytes(model), weights.source);
      expect(hex(r.bytes)).toBe(hex((await patch(model, tensors)).bytes));
      const total = n * dtypeBytes(dtype);
      expect(Math.max(...weights.reads)).toBe(32 << 10);
      expect(weights.reads.reduce((a, b) => a + b, 0)).toBe(total);
      expect(weights.reads.length).toBe(total / (32 << 10));
    }
  });

  it("pieces hold whole elements (a piece size that is no multiple of the element size is rounded down)", async () => {
    const model = tsm.write(tsmModule(100));
    const tensors = readAny(model)
      .tensors()
      .filter((t) => t.name === "double")
      .map((t) => replacement(t, "float32", 3));
    const weights = loggingSource(writeSafetensors(tensors));
    PATCH_TUNING.pieceBytes = 30;
    await patchFrom(fromBytes(model), weights.source);
    expect(weights.reads.every((length) => length % 4 === 0 && length <= 28)).toBe(true);
    expect(weights.reads.reduce((a, b) => a + b, 0)).toBe(400);
  });

  it("a column-major matrix (bw2l) still needs the whole tensor for its transpose", async () => {
    const model = bw2l.write(
      bw2l.create({
        version: 2,
        layers: [{ arch: "L", params: [{ dims: [64, 48, 1, 1], data: new Float32Array(64 * 48) }] }],
      }),
    );
    const tensors = [replacement(readAny(model).tensors()[0]!, "float64", 4)];
    const weights = loggingSource(writeSafetensors(tensors));
    PATCH_TUNING.pieceBytes = 1 << 10;
    const r = await patchFrom(fromBytes(model), weights.source);
    expect(hex(r.bytes)).toBe(hex((await patch(model, tensors)).bytes));
    expect(weights.reads).toContain(64 * 48 * 8);
  });
});
