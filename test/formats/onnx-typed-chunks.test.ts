/**
 * Typed-field ONNX weights decoded in pieces (formats/onnx/typed-chunks.ts) give exactly what the whole-weight
 * decode gives (loadTensor), for every typed storage, packed or one tag per entry, with windows and pieces of any
 * size; they refuse what it refuses; the streamed export takes that path and reads in bounded windows.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import { writeSafetensors } from "../../bindings/export/safetensors.js";
import { writeSafetensorsTo } from "../../bindings/export/stream.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { TYPED_CHUNK_TUNING, typedFieldChunks } from "../../bindings/formats/onnx/typed-chunks.js";
import { type ByteSource, fromBytes } from "../../bindings/io/source.js";
import type { NamedTensor } from "../../bindings/tensor.js";
import { type TensorSpec, buildModel } from "../helpers/onnx-models.js";
import { concat } from "../helpers/bytes.js";
import { inputForms } from "../helpers/input-formats.js";

const DEFAULT_TUNING = { ...TYPED_CHUNK_TUNING };
afterEach(() => Object.assign(TYPED_CHUNK_TUNING, DEFAULT_TUNING));

function bytesOf(t: NamedTensor): Uint8Array {
  const d = t.data as ArrayBufferView;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

async function collect(source: ByteSource, info: onnx.OnnxTensorInfo, dtype?: "float32"): Promise<Uint8Array> {
  const pieces: Uint8Array[] = [];
  for await (const piece of typedFieldChunks(source, info, dtype ? { dtype } : undefined)) pieces.push(piece.slice());
  return concat(...pieces);
}

/** A source that records the largest read. */
function recording(bytes: Uint8Array): ByteSource & { largest: number; reads: number } {
  const inner = fromBytes(bytes);
  const source = {
    size: bytes.length,
    largest: 0,
    reads: 0,
    read: async (offset: number, length: number) => {
      source.largest = Math.max(source.largest, length);
      source.reads++;
      return inner.read(offset, length);
    },
  };
  return source;
}

/** A typed weight of data type `dataType` holding `n` entries drawn from the data type's range, as a TensorSpec. */
const typedArb = fc
  .record({
    kind: fc.constantFrom(
      "uint8",
      "int8",
      "uint16",
      "int16",
      "int32",
      "int64",
      "bool",
      "float16",
      "uint32",
      "uint64",
      "float32",
      "float64",
      "complex64",
      "bfloat16",
      "float8",
      "int4",
    ),
    n: fc.integer({ min: 0, max: 60 }),
    unpacked: fc.boolean(),
    unknownField: fc.boolean(),
    seed: fc.integer(),
  })
  .map(({ kind, n, unpacked, unknownField, seed }): TensorSpec => {
    let x = seed;
    const next = () => (x = (Math.imul(x, 1103515245) + 12345) | 0);
    const ints = (lo: number, hi: number) => Array.from({ length: n }, () => lo + (Math.abs(next()) % (hi - lo + 1)));
    const base = { name: "w", dims: [n], unpacked, unknownField };
    switch (kind) {
      case "uint8":
        return { ...base, dataType: 2, int32s: ints(0, 255) };
      case "int8":
        return { ...base, dataType: 3, int32s: ints(-128, 127) };
      case "uint16":
        return { ...base, dataType: 4, int32s: ints(0, 65535) };
      case "int16":
        return { ...base, dataType: 5, int32s: ints(-32768, 32767) };
      case "int32":
        return { ...base, dataType: 6, int32s: Array.from({ length: n }, () => next()) };
      case "int64":
        return { ...base, dataType: 7, int64s: Array.from({ length: n }, () => BigInt(next()) * 4294967311n) };
      case "bool":
        return { ...base, dataType: 9, int32s: ints(0, 1) };
      case "float16":
        return { ...base, dataType: 10, int32s: ints(0, 65535) };
      case "uint32":
        return { ...base, dataType: 12, uint64s: ints(0, 2 ** 31).map((v) => v * 2) };
      case "uint64":
        return {
          ...base,
          dataType: 13,
          uint64s: Array.from({ length: n }, () => BigInt.asUintN(64, BigInt(next()) * 8589934609n)),
        };
      case "float32":
        return { ...base, dataType: 1, floats: Array.from({ length: n }, () => next() / 1024) };
      case "float64":
        return { ...base, dataType: 11, doubles: Array.from({ length: n }, () => next() / 3) };
      case "complex64":
        return {
          ...base,
          dims: [n >> 1],
          dataType: 14,
          floats: Array.from({ length: (n >> 1) * 2 }, () => next() / 7),
        };
      case "bfloat16":
        return { ...base, dataType: 16, int32s: ints(0, 65535) };
      case "float8":
        return { ...base, dataType: 17, int32s: ints(0, 255) };
      default:
        return { ...base, dims: [n * 2], dataType: 22, int32s: ints(0, 255) };
    }
  });

describe("onnx typed-field weights in pieces", () => {
  it("every typed storage, packed or one tag per entry, any window and piece size: the bytes of loadTensor, with and without dtype float32", async () => {
    await fc.assert(
      fc.asyncProperty(
        typedArb,
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        async (spec, window, piece) => {
          const bytes = buildModel({
            graph: { initializers: [spec, { name: "after", dataType: 1, dims: [2], floats: [1, 2] }] },
          });
          const model = await onnx.readFrom(fromBytes(bytes));
          const info = onnx.tensorInfos(model)[0]!;
          if (!info.onnx) return; // one packed float_data/double_data field is raw_data's layout: no typed decode
          const whole = await onnx.loadTensor(fromBytes(bytes), info);
          const wholeF32 = await onnx.loadTensor(fromBytes(bytes), info, { dtype: "float32" });
          Object.assign(TYPED_CHUNK_TUNING, { windowBytes: window, pieceBytes: piece, minBytes: 0 });
          // the forms users pass: a fresh array, a Node Buffer at an odd offset, an ArrayBuffer
          for (const [, form] of inputForms(bytes)) {
            expect(Buffer.from(await collect(fromBytes(form), info)).equals(Buffer.from(bytesOf(whole)))).toBe(true);
            expect(
              Buffer.from(await collect(fromBytes(form), info, "float32")).equals(Buffer.from(bytesOf(wholeF32))),
            ).toBe(true);
          }
        },
      ),
      { seed: 424242, numRuns: 600 },
    );
  });

  it("refuses what the whole decode refuses: too many or too few entries, a varint cut off by its field", async () => {
    Object.assign(TYPED_CHUNK_TUNING, { windowBytes: 3, pieceBytes: 2, minBytes: 0 });
    const cases: TensorSpec[] = [
      { name: "more", dataType: 6, dims: [2], int32s: [1, 2, 3] },
      { name: "fewer", dataType: 7, dims: [4], int64s: [1, 2, 3] },
      { name: "fewer-f16", dataType: 10, dims: [3], int32s: [1, 2] },
    ];
    for (const spec of cases) {
      const bytes = buildModel({ graph: { initializers: [spec] } });
      const info = onnx.tensorInfos(await onnx.readFrom(fromBytes(bytes)))[0]!;
      await expect(onnx.loadTensor(fromBytes(bytes), info)).rejects.toMatchObject({ code: "CORRUPT" });
      await expect(collect(fromBytes(bytes), info)).rejects.toMatchObject({
        code: "CORRUPT",
        offset: expect.any(Number),
      });
    }
    // a packed varint whose last byte says "more follows" at the end of its field
    const bytes = buildModel({ graph: { initializers: [{ name: "cut", dataType: 6, dims: [2], int32s: [1, 2] }] } });
    const info = onnx.tensorInfos(await onnx.readFrom(fromBytes(bytes)))[0]!;
    const broken = bytes.slice();
    const body = broken.subarray(info.byteOffset, info.byteOffset + info.byteLength);
    const at = body.indexOf(2, body.indexOf(1) + 1); // the entry 2 (the packed bytes are 01 02)
    broken[info.byteOffset + at] = 0x82;
    let error: unknown;
    try {
      await collect(fromBytes(broken), info);
    } catch (e) {
      error = e;
    }
    expect(isFormatError(error) && error.code).toBe("CORRUPT");
  });

  it("the streamed export (convert's path) takes it: reads stay within the window, the file equals writeSafetensors of read()'s tensors", async () => {
    const n = 20_000;
    const values = Array.from({ length: n }, (_, i) => 0x3c00 + (i % 977)); // float16 bit patterns, 3-byte varints
    const bytes = buildModel({
      graph: {
        initializers: [
          { name: "f16", dataType: 10, dims: [n], int32s: values },
          { name: "ids", dataType: 7, dims: [n], int64s: values.map((v) => -v) },
          { name: "small", dataType: 6, dims: [3], int32s: [1, 2, 3] },
        ],
      },
    });
    const eager = onnx.tensors(onnx.read(bytes), { dtype: "float32" });
    Object.assign(TYPED_CHUNK_TUNING, { windowBytes: 4096, pieceBytes: 8192, minBytes: 1024 });
    const source = recording(bytes);
    const model = await onnx.readFrom(source);
    const infos = onnx.tensorInfos(model);
    source.largest = 0;
    const pieces: Uint8Array[] = [];
    await writeSafetensorsTo(
      (chunk: Uint8Array) => void pieces.push(chunk.slice()),
      {
        tensorInfos: () => infos,
        loadTensor: (info, options) => onnx.loadTensor(source, info, options),
        source,
      },
      { decode: { dtype: "float32" } },
    );
    expect(source.largest).toBeLessThanOrEqual(4096);
    expect(Buffer.from(concat(...pieces)).equals(Buffer.from(writeSafetensors(eager)))).toBe(true);
  });
});
