import { describe, expect, it } from "vitest";
import onnxProto from "onnx-proto";
import { ProtoWriter, varintSize } from "../../bindings/formats/onnx/proto-writer.js";

const { onnx } = onnxProto;

describe("ProtoWriter, checked by an independent protobuf decoder (onnx-proto)", () => {
  it("encodes a ModelProto with nested messages, negative int64s, floats and a large raw payload", () => {
    const raw = new Uint8Array(10_000).map((_, i) => i * 7);
    const w = new ProtoWriter();
    w.uintField(1, 8); // ir_version
    w.stringField(2, "tensorfile ✓"); // producer_name
    w.messageField(8, (op) => op.stringField(1, "").uintField(2, 17)); // opset_import
    w.messageField(7, (graph) => {
      graph.stringField(2, "g");
      graph.messageField(1, (node) => {
        node.stringField(1, "x").stringField(2, "y").stringField(4, "Relu");
        node.messageField(5, (attr) => attr.stringField(1, "alpha").floatField(2, 0.5).uintField(20, 1));
        node.messageField(5, (attr) => attr.stringField(1, "axis").uintField(3, -3).uintField(20, 2));
      });
      graph.messageField(5, (t) =>
        t.uintField(1, 2).uintField(1, 5000).uintField(2, 2).stringField(8, "w").bytesField(9, raw),
      );
    });
    const bytes = w.finish();
    expect(bytes.length).toBe(w.length);
    const model = onnx.ModelProto.decode(bytes);
    expect(Number(model.irVersion)).toBe(8);
    expect(model.producerName).toBe("tensorfile ✓");
    expect(Number(model.opsetImport?.[0]?.version)).toBe(17);
    const node = model.graph?.node?.[0];
    if (!node?.attribute) throw new Error("no node");
    expect(node.opType).toBe("Relu");
    expect(node.attribute[0]!.f).toBe(0.5);
    expect(Number(node.attribute[1]!.i)).toBe(-3);
    const init = model.graph?.initializer?.[0];
    if (!init?.dims) throw new Error("no initializer");
    expect(init.dims.map(Number)).toEqual([2, 5000]);
    expect(init.name).toBe("w");
    expect(Array.from(init.rawData ?? [])).toEqual(Array.from(raw));
    expect(w.pieces().reduce((n, p) => n + p.length, 0)).toBe(bytes.length);
  });

  it("sizes varints like it writes them, up to 64-bit values", () => {
    for (const v of [0, 1, 127, 128, 16383, 16384, 2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, -1, -(2 ** 31), 2n ** 64n - 1n]) {
      const w = new ProtoWriter().varint(v);
      expect(w.finish().length).toBe(varintSize(v));
    }
    expect(varintSize(-1)).toBe(10);
  });
});
