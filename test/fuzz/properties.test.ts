/**
 * Property tests (fast-check, fixed seeds): per format, valid files built through the library's builders from
 * random shapes, dtypes, names and sizes, then mutated (truncated, bit-flipped, spliced, a length word inflated).
 * Every file, valid or mutated, must keep the laws of fuzz/laws.mjs (a value or a FormatError, tensors in both
 * dtype modes, inspect/verify/blobs, the write/read fixpoint, lazy reads equal to eager ones, the input never
 * modified, bounded time and memory). fast-check shrinks a failure to a minimal file and mutation.
 * Inputs here are plain aligned Uint8Arrays; Buffers and odd offsets are in input-forms.test.ts.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as lib from "../../bindings/index.js";
import * as bw2l from "../../bindings/formats/bw2l.js";
import * as primitiv from "../../bindings/formats/primitiv.js";
import * as spraak from "../../bindings/formats/spraak.js";
import * as tsm from "../../bindings/formats/tsm.js";
import type { TsmField } from "../../bindings/formats/tsm.js";
import { checkFormatLaws } from "../../fuzz/laws.mjs";
import { buildApril } from "../helpers/april-builders.js";
import { type GraphSpec, type TensorSpec, buildModel } from "../helpers/onnx-models.js";
import { randomFile } from "../helpers/primitiv-builders.js";
import { constNode, module, node, param } from "../helpers/tsm-builders.js";

/** The project runs no timing thresholds in tests: the 1 s per call law is the fuzzers' (fuzz/harness.mjs). */
const UNTIMED = { callLimitMs: Number.POSITIVE_INFINITY };

// Fixed for CI; TENSORFILE_PROPERTY_SEED / TENSORFILE_PROPERTY_SCALE explore further by hand.
const SEED = Number(process.env.TENSORFILE_PROPERTY_SEED ?? 1414);
const SCALE = Number(process.env.TENSORFILE_PROPERTY_SCALE ?? 1);
const VALID_RUNS = 150 * SCALE;
const MUTATED_RUNS = 400 * SCALE;

/** A mutation of a file's bytes; positions are taken modulo the length. */
type Mutation =
  | { kind: "truncate"; at: number }
  | { kind: "flip"; at: number; bit: number }
  | { kind: "splice"; at: number; length: number; to: number }
  | { kind: "inflate"; at: number; width: 4 | 8; value: "max" | "huge" | "zero" | "one-more" };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("flip" as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({
    kind: fc.constant("splice" as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 64 }),
    to: fc.nat(),
  }),
  fc.record({
    kind: fc.constant("inflate" as const),
    at: fc.nat(),
    width: fc.constantFrom(4 as const, 8 as const),
    value: fc.constantFrom("max" as const, "huge" as const, "zero" as const, "one-more" as const),
  }),
);

function mutate(bytes: Uint8Array, m: Mutation): Uint8Array {
  const n = bytes.length;
  if (n === 0) return bytes;
  const at = m.at % n;
  switch (m.kind) {
    case "truncate":
      return bytes.slice(0, at);
    case "flip": {
      const out = bytes.slice();
      out[at]! ^= 1 << m.bit;
      return out;
    }
    case "splice": {
      // move a slice of bytes elsewhere (a duplicated or misplaced record)
      const piece = bytes.slice(at, at + m.length);
      const to = m.to % n;
      const out = new Uint8Array(n + piece.length);
      out.set(bytes.subarray(0, to));
      out.set(piece, to);
      out.set(bytes.subarray(to), to + piece.length);
      return out;
    }
    case "inflate": {
      const out = bytes.slice();
      const start = Math.min(at, Math.max(0, n - m.width));
      const view = new DataView(out.buffer);
      if (start + m.width > n) return out;
      const old = m.width === 4 ? BigInt(view.getUint32(start, true)) : view.getBigUint64(start, true);
      const mask = m.width === 4 ? 0xffffffffn : 0xffffffffffffffffn;
      const value =
        m.value === "max" ? mask : m.value === "huge" ? mask >> 4n : m.value === "zero" ? 0n : (old + 1n) & mask;
      if (m.width === 4) view.setUint32(start, Number(value), true);
      else view.setBigUint64(start, value, true);
      return out;
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// valid files from the builders

const nameArb = fc.string({ minLength: 0, maxLength: 12 });
const dimsArb = (maxRank: number, maxDim: number) =>
  fc.array(fc.integer({ min: 0, max: maxDim }), { minLength: 0, maxLength: maxRank });
const count = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);
const floats = (n: number, seed: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed + i * 1.3) * 10);

const bw2lArb = fc
  .record({
    version: fc.constantFrom(1 as const, 2 as const),
    name: nameArb,
    flags: fc.array(fc.tuple(nameArb, nameArb), { maxLength: 4 }),
    tokens: fc.array(
      nameArb.filter((s) => !s.includes("\n")),
      { maxLength: 6 },
    ),
    layers: fc.array(
      fc.record({
        arch: nameArb.filter((s) => !s.includes("\n")),
        params: fc.array(
          fc.record({
            dims: dimsArb(4, 4),
            dtype: fc.constantFrom("fp32", "fp16", "fp64", "i32", "i8"),
            seed: fc.nat(1000),
          }),
          { maxLength: 3 },
        ),
      }),
      { maxLength: 4 },
    ),
    spm: fc.option(fc.uint8Array({ maxLength: 40 }), { nil: undefined }),
  })
  .map((spec) => {
    const data = (dtype: string, n: number, seed: number) => {
      const values = floats(n, seed);
      if (dtype === "fp16") return Uint16Array.from(values, (v) => 0x3c00 + (Math.abs(Math.round(v)) & 0xff));
      if (dtype === "fp64") return Float64Array.from(values);
      if (dtype === "i32") return Int32Array.from(values, Math.round);
      if (dtype === "i8") return Int8Array.from(values, Math.round);
      return values;
    };
    return bw2l.write(
      bw2l.create({
        version: spec.version,
        name: spec.name,
        flags: spec.flags,
        tokens: spec.tokens,
        layers: spec.layers.map((l) => ({
          arch: l.arch,
          params: l.params.map((p) => ({ dims: p.dims, data: data(p.dtype, count(p.dims), p.seed) })),
        })),
        ...(spec.spm ? { spm: spec.spm } : {}),
      }),
    );
  });

const TSM_DTYPES = [
  ["float32", (n: number, s: number) => floats(n, s)],
  ["float64", (n: number, s: number) => Float64Array.from(floats(n, s))],
  ["int32", (n: number, s: number) => Int32Array.from(floats(n, s), Math.round)],
  ["int8", (n: number, s: number) => Int8Array.from(floats(n, s), Math.round)],
  ["uint8", (n: number, s: number) => Uint8Array.from(floats(n, s), (v) => Math.abs(Math.round(v)))],
  [
    "float16",
    (n: number, s: number) => Uint16Array.from(floats(n, s), (v) => 0x3c00 + (Math.abs(Math.round(v)) & 0xff)),
  ],
  ["int64", (n: number, s: number) => BigInt64Array.from(floats(n, s), (v) => BigInt(Math.round(v)))],
  ["bool", (n: number, s: number) => Uint8Array.from(floats(n, s), (v) => (v > 0 ? 1 : 0))],
] as const;

const tsmFieldArb: fc.Arbitrary<TsmField> = fc
  .record({ dtype: fc.integer({ min: 0, max: TSM_DTYPES.length - 1 }), shape: dimsArb(4, 4), seed: fc.nat(1000) })
  .map(({ dtype, shape, seed }) => {
    const [name, make] = TSM_DTYPES[dtype]!;
    return { dtype: name, shape, data: make(count(shape), seed) } as TsmField;
  });

const tsmArb = fc
  .record({
    consts: fc.array(fc.record({ name: nameArb, value: fc.array(tsmFieldArb, { minLength: 1, maxLength: 2 }) }), {
      maxLength: 5,
    }),
    attrs: fc.array(
      fc.tuple(
        nameArb.filter((k) => !k.startsWith("#")),
        tsmFieldArb,
      ),
      { maxLength: 3 },
    ),
    csta: fc.boolean(),
  })
  .map(({ consts, attrs, csta }) => {
    const nodes = [node("<param>", "input"), ...consts.map((c) => constNode(c.name, ...c.value))];
    nodes.push(
      node(
        "op",
        "output",
        attrs.map(([k, f]) => param(k, f)),
        nodes.map((_, i) => i),
      ),
    );
    const file = module(nodes, [0], [nodes.length - 1]);
    return csta ? tsm.writeCsta(file) : tsm.write(file);
  });

const primitivArb = fc
  .record({ seed: fc.nat(100_000), type: fc.constantFrom("shape", "tensor", "parameter", "model", "optimizer") })
  .map(({ seed, type }) => primitiv.write(randomFile(seed, type as primitiv.PrimitivDataType)));

const spraakArb = fc
  .record({
    rows: fc.integer({ min: 0, max: 6 }),
    cols: fc.integer({ min: 1, max: 5 }),
    type: fc.constantFrom("F32", "F64", "I16", "I32", "U8"),
    format: fc.constantFrom("BIN01", "BIN10", "ASCII"),
    openEnded: fc.boolean(),
    seed: fc.nat(1000),
  })
  .map(({ rows, cols, type, format, openEnded, seed }) => {
    const values = floats(rows * cols, seed);
    const typed =
      type === "F64"
        ? Float64Array.from(values)
        : type === "I16"
          ? Int16Array.from(values, Math.round)
          : type === "I32"
            ? Int32Array.from(values, Math.round)
            : type === "U8"
              ? Uint8Array.from(values, (v) => Math.abs(Math.round(v)))
              : values;
    return spraak.write(spraak.matrix(typed, { cols, format: format as spraak.SpraakFormat, openEnded }));
  });

const aprilArb = fc
  .record({
    tokens: fc.array(nameArb, { minLength: 1, maxLength: 8 }),
    networks: fc.tuple(
      fc.uint8Array({ maxLength: 50 }),
      fc.uint8Array({ maxLength: 50 }),
      fc.uint8Array({ maxLength: 50 }),
    ),
    name: nameArb,
    order: fc.constantFrom("reference" as const, "params-first" as const),
  })
  .map(({ tokens, networks, name, order }) => buildApril({ tokens, networks: [...networks], name, order }).bytes);

/** ONNX data types with the typed field their values go in (and the value range). */
const ONNX_TYPES: {
  dataType: number;
  field: "floats" | "int32s" | "int64s" | "doubles" | "uint64s";
  bits: number;
  min: number;
  max: number;
}[] = [
  { dataType: 1, field: "floats", bits: 32, min: -1e6, max: 1e6 },
  { dataType: 2, field: "int32s", bits: 8, min: 0, max: 255 },
  { dataType: 3, field: "int32s", bits: 8, min: -128, max: 127 },
  { dataType: 5, field: "int32s", bits: 16, min: -32768, max: 32767 },
  { dataType: 6, field: "int32s", bits: 32, min: -(2 ** 31), max: 2 ** 31 - 1 },
  { dataType: 7, field: "int64s", bits: 64, min: -(2 ** 53), max: 2 ** 53 },
  { dataType: 9, field: "int32s", bits: 8, min: 0, max: 1 },
  { dataType: 10, field: "int32s", bits: 16, min: 0, max: 65535 },
  { dataType: 11, field: "doubles", bits: 64, min: -1e9, max: 1e9 },
  { dataType: 13, field: "uint64s", bits: 64, min: 0, max: 2 ** 53 },
  { dataType: 16, field: "int32s", bits: 16, min: 0, max: 65535 },
  { dataType: 17, field: "int32s", bits: 8, min: 0, max: 255 },
];

const onnxTensorArb = fc
  .record({
    type: fc.constantFrom(...ONNX_TYPES),
    dims: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
    raw: fc.boolean(),
    unpacked: fc.boolean(),
    name: nameArb,
    seed: fc.nat(1000),
  })
  .map(({ type, dims, raw, unpacked, name, seed }): TensorSpec => {
    const count = dims.reduce((a, b) => a * b, 1);
    const values = Array.from({ length: count }, (_, i) =>
      Math.round(type.min + (((seed * 7919 + i * 104729) % 1000) / 1000) * (type.max - type.min)),
    );
    if (raw)
      return {
        name,
        dataType: type.dataType,
        dims,
        raw: Uint8Array.from({ length: (count * type.bits) / 8 }, (_, i) => (seed + i * 31) & 0xff),
      };
    return {
      name,
      dataType: type.dataType,
      dims,
      unpacked,
      [type.field]: type.field === "floats" || type.field === "doubles" ? values.map((v) => v / 7) : values,
    };
  });

const onnxGraphArb: fc.Arbitrary<GraphSpec> = fc
  .record({
    initializers: fc.array(onnxTensorArb, { maxLength: 4 }),
    constant: fc.option(onnxTensorArb),
    sub: fc.option(fc.array(onnxTensorArb, { maxLength: 2 })),
  })
  .map(({ initializers, constant, sub }) => ({
    initializers,
    nodes: [
      ...(constant
        ? [
            {
              name: "c",
              opType: "Constant",
              inputs: [],
              outputs: ["k"],
              attrs: [{ name: "value", type: 4, t: constant }],
            },
          ]
        : []),
      ...(sub
        ? [
            {
              name: "If_0",
              opType: "If",
              inputs: ["cond"],
              outputs: ["y"],
              attrs: [{ name: "then_branch", type: 5, g: { initializers: sub } }],
            },
          ]
        : []),
    ],
  }));

const onnxArb = fc.record({ graph: onnxGraphArb, unknownFields: fc.boolean() }).map((spec) => buildModel(spec));

/** .april files holding generated ONNX networks (the fuzzed networks go through the onnx reader). */
const aprilOnnxArb = fc
  .record({ tokens: fc.array(nameArb, { minLength: 1, maxLength: 4 }), networks: fc.tuple(onnxArb, onnxArb, onnxArb) })
  .map(({ tokens, networks }) => buildApril({ tokens, networks: [...networks] }).bytes);

const FORMATS: [string, fc.Arbitrary<Uint8Array>][] = [
  ["bw2l", bw2lArb],
  ["tsm", tsmArb],
  ["primitiv", primitivArb],
  ["spraak", spraakArb],
  ["april", aprilArb],
  ["onnx", onnxArb],
  ["april", aprilOnnxArb],
];

describe.each(FORMATS)("%s: the laws on built and mutated files", (format, arb) => {
  it("every built file is accepted and keeps the laws", async () => {
    await fc.assert(
      fc.asyncProperty(arb, async (bytes) => {
        expect(await checkFormatLaws(lib, format, bytes, UNTIMED)).toMatch(/^accepted/);
      }),
      { seed: SEED, numRuns: VALID_RUNS },
    );
  });

  it("every mutation of a built file gives a value or a FormatError and keeps the laws", async () => {
    await fc.assert(
      fc.asyncProperty(arb, fc.array(mutationArb, { minLength: 1, maxLength: 3 }), async (bytes, mutations) => {
        const mutated = mutations.reduce(mutate, bytes);
        expect(await checkFormatLaws(lib, format, mutated, UNTIMED)).toMatch(/^(accepted|rejected)/);
      }),
      { seed: SEED, numRuns: MUTATED_RUNS },
    );
  });
});

describe("the mutations themselves", () => {
  it("change the bytes as described", () => {
    const bytes = Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9);
    expect(mutate(bytes, { kind: "truncate", at: 13 })).toEqual(Uint8Array.of(1, 2, 3, 4));
    expect(mutate(bytes, { kind: "flip", at: 0, bit: 7 })[0]).toBe(0x81);
    expect(mutate(bytes, { kind: "splice", at: 1, length: 2, to: 0 })).toEqual(
      Uint8Array.of(2, 3, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    );
    expect(mutate(bytes, { kind: "inflate", at: 1, width: 4, value: "max" })).toEqual(
      Uint8Array.of(1, 255, 255, 255, 255, 6, 7, 8, 9),
    );
    expect(mutate(bytes, { kind: "inflate", at: 0, width: 4, value: "one-more" })[0]).toBe(2);
    expect(bytes).toEqual(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9));
  });
});
