/**
 * Patching a large typed-field ONNX weight (varints in int32_data/int64_data/uint64_data, or float/double entries
 * one tag each) streams: the stored entries are compared with the replacement and the new body is produced in
 * pieces. Differential: with TYPED_CHUNK_TUNING.minBytes at 0 (every typed weight streams, in tiny windows and
 * pieces) the patched bytes equal those of the whole-weight route (minBytes huge), for .onnx and .april, through
 * patchFrom and patchTo; unchanged values leave the file byte-identical; the streamed route reads the body in
 * windows, never whole; a patched model reads back with the new values.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { writeSafetensors } from "../../bindings/export/safetensors.js";
import * as april from "../../bindings/formats/april.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { TYPED_CHUNK_TUNING } from "../../bindings/formats/onnx/typed-chunks.js";
import { type ByteSource, fromBytes } from "../../bindings/io/source.js";
import { patchFrom, patchTo } from "../../bindings/patch.js";
import type { NamedTensor } from "../../bindings/tensor.js";
import { type TensorSpec, buildModel } from "../helpers/onnx-models.js";

const saved = { ...TYPED_CHUNK_TUNING };
afterEach(() => Object.assign(TYPED_CHUNK_TUNING, saved));
const WHOLE = { windowBytes: saved.windowBytes, pieceBytes: saved.pieceBytes, minBytes: 2 ** 40 };

interface Case {
  spec: TensorSpec;
  /** The replacement (same shape), some values changed or none. */
  replacement: NamedTensor;
}

const caseArb = fc
  .record({
    kind: fc.constantFrom(
      "int32",
      "int8",
      "int64",
      "uint64",
      "uint32",
      "bool",
      "float16",
      "float16<-float32",
      "float32 unpacked",
      "float64 unpacked",
    ),
    n: fc.integer({ min: 1, max: 50 }),
    unpacked: fc.boolean(),
    unknownField: fc.boolean(),
    change: fc.constantFrom("none", "one", "all"),
    seed: fc.integer(),
  })
  .map(({ kind, n, unpacked, unknownField, change, seed }): Case => {
    let x = seed | 1;
    const next = () => (x = (Math.imul(x, 1103515245) + 12345) | 0);
    const changed = (i: number) => change === "all" || (change === "one" && i === n >> 1);
    const base = { name: "w", dims: [n], unpacked, unknownField };
    const ints = (values: number[], edit: (v: number) => number) => values.map((v, i) => (changed(i) ? edit(v) : v));
    switch (kind) {
      case "int32": {
        const v = Array.from({ length: n }, () => next());
        return {
          spec: { ...base, dataType: 6, int32s: v },
          replacement: { name: "w", dtype: "int32", shape: [n], data: Int32Array.from(ints(v, (a) => ~a)) },
        };
      }
      case "int8": {
        const v = Array.from({ length: n }, () => next() % 128);
        return {
          spec: { ...base, dataType: 3, int32s: v },
          replacement: { name: "w", dtype: "int8", shape: [n], data: Int8Array.from(ints(v, (a) => -a - 1)) },
        };
      }
      case "bool": {
        const v = Array.from({ length: n }, () => next() & 1);
        return {
          spec: { ...base, dataType: 9, int32s: v },
          replacement: { name: "w", dtype: "bool", shape: [n], data: Uint8Array.from(ints(v, (a) => 1 - a)) },
        };
      }
      case "uint32": {
        const v = Array.from({ length: n }, () => next() >>> 0);
        return {
          spec: { ...base, dataType: 12, uint64s: v },
          replacement: {
            name: "w",
            dtype: "uint32",
            shape: [n],
            data: Uint32Array.from(ints(v, (a) => (a ^ 0x80000001) >>> 0)),
          },
        };
      }
      case "int64": {
        const v = Array.from({ length: n }, () => BigInt(next()) * 1000003n);
        return {
          spec: { ...base, dataType: 7, int64s: v },
          replacement: {
            name: "w",
            dtype: "int64",
            shape: [n],
            data: BigInt64Array.from(v.map((a, i) => (changed(i) ? -a - 7n : a))),
          },
        };
      }
      case "uint64": {
        const v = Array.from({ length: n }, () => BigInt.asUintN(64, BigInt(next()) * 4294967311n));
        return {
          spec: { ...base, dataType: 13, uint64s: v },
          replacement: {
            name: "w",
            dtype: "uint64",
            shape: [n],
            data: BigUint64Array.from(v.map((a, i) => (changed(i) ? BigInt.asUintN(64, ~a) : a))),
          },
        };
      }
      case "float16": {
        const v = Array.from({ length: n }, () => next() & 0x7bff);
        return {
          spec: { ...base, dataType: 10, int32s: v },
          replacement: { name: "w", dtype: "float16", shape: [n], data: Uint16Array.from(ints(v, (a) => a ^ 0x8000)) },
        };
      }
      case "float16<-float32": {
        // float32 values given for a float16 weight: converted (halves of small integers are exact)
        const v = Array.from({ length: n }, (_, i) => i % 2048);
        const halves = v.map((a) =>
          a === 0 ? 0 : Math.round(Math.log2(a)) === Math.log2(a) ? 0x3c00 + (Math.log2(a) << 10) : 0,
        );
        return {
          spec: { ...base, dataType: 10, int32s: halves },
          replacement: { name: "w", dtype: "float32", shape: [n], data: Float32Array.from(ints(v, (a) => -a)) },
        };
      }
      case "float32 unpacked": {
        const v = Array.from({ length: n }, () => next() / 64);
        return {
          spec: { ...base, unpacked: true, dataType: 1, floats: Array.from(new Float32Array(v)) },
          replacement: {
            name: "w",
            dtype: "float32",
            shape: [n],
            data: Float32Array.from(v.map((a, i) => (changed(i) ? a + 1 : a))),
          },
        };
      }
      default: {
        const v = Array.from({ length: n }, () => next() / 3);
        return {
          spec: { ...base, unpacked: true, dataType: 11, doubles: v },
          replacement: {
            name: "w",
            dtype: "float64",
            shape: [n],
            data: Float64Array.from(v.map((a, i) => (changed(i) ? a * 2 + 1 : a))),
          },
        };
      }
    }
  });

/** A model holding the typed weight between other weights and fields. */
function model(c: Case): Uint8Array {
  return buildModel({
    graph: {
      initializers: [
        { name: "before", dataType: 1, dims: [2], raw: new Uint8Array(8).fill(1) },
        c.spec,
        { name: "after", dataType: 6, dims: [2], int32s: [5, -6] },
      ],
    },
  });
}

async function patchedBoth(bytes: Uint8Array, weights: Uint8Array): Promise<{ from: Uint8Array; to: Uint8Array }> {
  const from = (await patchFrom(fromBytes(bytes), fromBytes(weights))).bytes;
  const pieces: Uint8Array[] = [];
  await patchTo(fromBytes(bytes), fromBytes(weights), (chunk) => void pieces.push(chunk.slice()), {
    reuseChunks: true,
  });
  return { from, to: Buffer.concat(pieces) };
}

describe("onnx: a large typed-field weight is patched in pieces", () => {
  it("the bytes of the whole-weight route, for every typed storage, packed or not, changed or not (.onnx)", async () => {
    await fc.assert(
      fc.asyncProperty(
        caseArb,
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 1, max: 24 }),
        async (c, window, piece) => {
          const bytes = model(c);
          const weights = writeSafetensors([c.replacement]);
          Object.assign(TYPED_CHUNK_TUNING, WHOLE);
          const whole = await patchedBoth(bytes, weights);
          Object.assign(TYPED_CHUNK_TUNING, { windowBytes: window, pieceBytes: piece, minBytes: 0 });
          const streamed = await patchedBoth(bytes, weights);
          expect(Buffer.from(streamed.from).equals(Buffer.from(whole.from))).toBe(true);
          expect(Buffer.from(streamed.to).equals(Buffer.from(whole.from))).toBe(true);
          expect(Buffer.from(whole.to).equals(Buffer.from(whole.from))).toBe(true);
          // the patched model holds the replacement
          const w = onnx.tensors(onnx.read(streamed.from)).find((t) => t.name === "w")!;
          const expected =
            c.replacement.dtype === "float32" && w.dtype === "float16"
              ? onnx.tensors(onnx.read(whole.from)).find((t) => t.name === "w")!.data
              : c.replacement.data;
          expect(Array.from(w.data as ArrayLike<number>)).toEqual(Array.from(expected as ArrayLike<number>));
        },
      ),
      { seed: 9090, numRuns: 250 },
    );
  });

  it("unchanged values leave the file byte-identical (the round-trip law), streamed", async () => {
    Object.assign(TYPED_CHUNK_TUNING, { windowBytes: 5, pieceBytes: 3, minBytes: 0 });
    const c: Case = {
      spec: { name: "w", dataType: 7, dims: [4], int64s: [1n, -2n, 2n ** 62n, -(2n ** 63n)], unknownField: true },
      replacement: { name: "w", dtype: "int64", shape: [4], data: BigInt64Array.of(1n, -2n, 2n ** 62n, -(2n ** 63n)) },
    };
    const bytes = model(c);
    const out = (await patchFrom(fromBytes(bytes), fromBytes(writeSafetensors([c.replacement])))).bytes;
    expect(Buffer.from(out).equals(Buffer.from(bytes))).toBe(true);
  });

  it("an .april whose encoder holds the weight: the same bytes as the whole-weight route, and the layout follows", async () => {
    const n = 300;
    const spec: TensorSpec = {
      name: "w",
      dataType: 7,
      dims: [n],
      int64s: Array.from({ length: n }, (_, i) => BigInt(i)),
    };
    const net = buildModel({ graph: { initializers: [spec] } });
    const bytes = april.write(
      april.create({ networks: { encoder: net, decoder: net, joiner: net }, tokens: ["<blk>", "a"] }),
    );
    // larger values: more varint bytes, so the network grows and the header's offsets move
    const weights = writeSafetensors([
      {
        name: "encoder/w",
        dtype: "int64",
        shape: [n],
        data: BigInt64Array.from({ length: n }, (_, i) => BigInt(i) * 2n ** 40n),
      },
    ]);
    Object.assign(TYPED_CHUNK_TUNING, WHOLE);
    const whole = (await patchFrom(fromBytes(bytes), fromBytes(weights))).bytes;
    Object.assign(TYPED_CHUNK_TUNING, { windowBytes: 7, pieceBytes: 16, minBytes: 0 });
    const streamed = (await patchFrom(fromBytes(bytes), fromBytes(weights))).bytes;
    expect(Buffer.from(streamed).equals(Buffer.from(whole))).toBe(true);
    expect(streamed.length).toBeGreaterThan(bytes.length);
    const t = april.tensors(april.read(streamed)).find((x) => x.name === "encoder/w")!;
    expect((t.data as BigInt64Array)[299]).toBe(299n * 2n ** 40n);
  });

  it("the streamed route reads the weight's body in windows, never whole", async () => {
    const n = 5000;
    const c: Case = {
      spec: { name: "w", dataType: 6, dims: [n], int32s: Array.from({ length: n }, (_, i) => i * 977) },
      replacement: { name: "w", dtype: "int32", shape: [n], data: Int32Array.from({ length: n }, (_, i) => -i) },
    };
    const bytes = model(c);
    const info = onnx.tensorInfos(onnx.read(bytes)).find((i) => i.name === "w")!;
    expect(info.byteLength).toBeGreaterThan(10_000);
    const reads: number[] = [];
    const inner = fromBytes(bytes);
    const recording: ByteSource = { size: bytes.length, read: async (o, l) => (reads.push(l), inner.read(o, l)) };
    Object.assign(TYPED_CHUNK_TUNING, { windowBytes: 1024, pieceBytes: 4096, minBytes: 1024 });
    const out = (await patchFrom(recording, fromBytes(writeSafetensors([c.replacement])))).bytes;
    expect(Math.max(...reads)).toBeLessThan(info.byteLength);
    expect(
      Array.from(onnx.tensors(onnx.read(out)).find((t) => t.name === "w")!.data as Int32Array).slice(0, 3),
    ).toEqual([0, -1, -2]);
  });
});
