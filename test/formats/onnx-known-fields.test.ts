/**
 * The reader knows every field of ONNX 1.22's onnx.proto / onnx-ml.proto: a model using every field the object
 * model does not hold (training_info, functions, configuration, quantization_annotation, metadata_props of graphs,
 * nodes, tensors and value infos, node overload and device_configurations, tensor segments, sequence / map /
 * optional / sparse / opaque types, dimension denotations, tp / type_protos / sparse_tensors attributes) has no
 * unknown field, so verify has no "fields this reader does not know" warning; a field ONNX does not declare is
 * still counted. Before, every one of these was counted unknown and verify warned.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as onnx from "../../bindings/formats/onnx.js";
import { ProtoWriter } from "../../bindings/formats/onnx/proto-writer.js";
import { VAD_MODELS } from "../helpers/onnx-models.js";

type W = ProtoWriter;
const entry = (w: W, key: string, value: string) => w.stringField(1, key).stringField(2, value);
const tensorType = (w: W, elemType: number, dims: number[]) =>
  w.messageField(1, (t) =>
    t.uintField(1, elemType).messageField(2, (s) => {
      for (const d of dims) s.messageField(1, (dim) => dim.uintField(1, d).stringField(3, "DATA_BATCH")); // 3 denotation
    }),
  );
const tensor = (w: W, name: string) =>
  w
    .packedVarintField(1, [2])
    .uintField(2, 1)
    .stringField(8, name)
    .bytesField(9, new Uint8Array(8))
    .messageField(3, (seg) => seg.uintField(1, 0).uintField(2, 2)) // segment
    .messageField(16, (m) => entry(m, "origin", "test")); // metadata_props
const graphWithEverything = (w: W, name: string) => {
  w.stringField(2, name);
  w.messageField(1, (node) => {
    node
      .stringField(1, "x")
      .stringField(2, "y")
      .stringField(3, "n0")
      .stringField(4, "MyFunc")
      .stringField(7, "local")
      .stringField(8, "v2") // overload
      .messageField(9, (m) => entry(m, "k", "v")) // metadata_props
      .messageField(10, (dc) =>
        dc
          .stringField(1, "cfg")
          .uintField(3, 1) // device_configurations
          .messageField(2, (spec) =>
            spec
              .stringField(1, "x")
              .packedVarintField(2, [0, 1])
              .messageField(3, (e) => e.uintField(1, 0).packedVarintField(2, [0, 1]))
              .messageField(4, (sd) => sd.uintField(1, 0).messageField(2, (ss) => ss.uintField(1, 4).uintField(3, 2))),
          ),
      );
    node.messageField(5, (a) =>
      a
        .stringField(1, "tp")
        .uintField(20, 13)
        .messageField(14, (t) => tensorType(t, 1, [3])),
    );
    node.messageField(5, (a) =>
      a
        .stringField(1, "tps")
        .uintField(20, 14)
        .messageField(15, (t) => tensorType(t, 7, [])),
    );
    node.messageField(5, (a) =>
      a
        .stringField(1, "sparse")
        .uintField(20, 12)
        .messageField(23, (sp) =>
          sp
            .messageField(1, (v) => tensor(v, "sv"))
            .messageField(2, (ix) => ix.packedVarintField(1, [1]).uintField(2, 7).bytesField(9, new Uint8Array(8)))
            .packedVarintField(3, [4]),
        ),
    );
  });
  w.messageField(5, (t) => tensor(t, `${name}_w`));
  w.messageField(11, (vi) =>
    vi
      .stringField(1, "x")
      .messageField(2, (t) => tensorType(t, 1, [2]))
      .messageField(4, (m) => entry(m, "vi", "1")),
  );
  // sequence(tensor float), map(int64 -> sequence(tensor)), optional(tensor), sparse tensor, opaque; denotation
  w.messageField(12, (vi) =>
    vi
      .stringField(1, "seq")
      .messageField(2, (t) => t.messageField(4, (s) => s.messageField(1, (e) => tensorType(e, 1, [2])))),
  );
  w.messageField(12, (vi) =>
    vi
      .stringField(1, "map")
      .messageField(2, (t) =>
        t.messageField(5, (m) =>
          m
            .uintField(1, 7)
            .messageField(2, (v) => v.messageField(4, (s) => s.messageField(1, (e) => tensorType(e, 1, [])))),
        ),
      ),
  );
  w.messageField(12, (vi) =>
    vi
      .stringField(1, "opt")
      .messageField(2, (t) => t.messageField(9, (o) => o.messageField(1, (e) => tensorType(e, 9, [])))),
  );
  w.messageField(13, (vi) =>
    vi.stringField(1, "sp").messageField(2, (t) => t.messageField(8, (s) => s.uintField(1, 1)).stringField(6, "IMAGE")),
  );
  w.messageField(13, (vi) =>
    vi
      .stringField(1, "opaque")
      .messageField(2, (t) => t.messageField(7, (o) => o.stringField(1, "ai.custom").stringField(2, "blob"))),
  );
  w.messageField(14, (qa) => qa.stringField(1, "y").messageField(2, (m) => entry(m, "SCALE_TENSOR", "s"))); // quantization_annotation
  w.messageField(16, (m) => entry(m, "graph", "meta")); // metadata_props
};

/** A model with every field of ONNX 1.22 that the object model does not hold. */
function everyField(): Uint8Array {
  const w = new ProtoWriter().uintField(1, 10).stringField(2, "tests");
  w.messageField(7, (g) => graphWithEverything(g, "main"));
  w.messageField(8, (o) => o.stringField(1, "").uintField(2, 21));
  w.messageField(8, (o) => o.stringField(1, "local").uintField(2, 1));
  w.messageField(20, (ti) =>
    ti
      .messageField(1, (g) => graphWithEverything(g, "init"))
      .messageField(2, (g) => graphWithEverything(g, "algo"))
      .messageField(3, (m) => entry(m, "a", "b"))
      .messageField(4, (m) => entry(m, "c", "d")),
  );
  w.messageField(25, (f) => {
    f.stringField(1, "MyFunc")
      .stringField(4, "x")
      .stringField(5, "y")
      .stringField(6, "alpha")
      .stringField(8, "doc")
      .stringField(10, "local")
      .stringField(13, "v2");
    f.messageField(7, (node) => node.stringField(1, "x").stringField(2, "y").stringField(4, "Relu").stringField(8, ""));
    f.messageField(9, (o) => o.stringField(1, "").uintField(2, 21));
    f.messageField(11, (a) => a.stringField(1, "beta").uintField(20, 1).floatField(2, 0.5));
    f.messageField(12, (vi) => vi.stringField(1, "y").messageField(2, (t) => tensorType(t, 1, [2])));
    f.messageField(14, (m) => entry(m, "fn", "meta"));
  });
  w.messageField(26, (c) => c.stringField(1, "cfg").uintField(2, 2).stringField(3, "cuda:0").stringField(3, "cuda:1"));
  return w.finish();
}

describe("onnx: the fields of ONNX 1.22 are known, not 'unknown'", () => {
  it("a model with every field the object model does not hold: no unknown field, no verify warning about them, write(read(x)) is x", async () => {
    const bytes = everyField();
    const model = onnx.read(bytes);
    expect(model.unknownFieldCount).toBe(0);
    expect(model.functionCount).toBe(1);
    expect(onnx.verify(model).filter((w) => /does not know/.test(w))).toEqual([]);
    expect(Buffer.from(onnx.write(model)).equals(Buffer.from(bytes))).toBe(true);
    const lazy = await onnx.readFrom({
      size: bytes.length,
      read: async (o: number, n: number) => bytes.slice(o, o + n),
    });
    expect(lazy.unknownFieldCount).toBe(0);
    // the container types are read with what they hold
    const outputs = Object.fromEntries(model.graph!.outputs.map((o) => [o.name, o.type]));
    expect(outputs.seq).toMatchObject({ kind: "sequence", elem: { kind: "tensor", elemType: 1, shape: [2] } });
    expect(outputs.map).toMatchObject({
      kind: "map",
      keyType: 7,
      elem: { kind: "sequence", elem: { kind: "tensor", elemType: 1, shape: [] } },
    });
    expect(outputs.opt).toMatchObject({ kind: "optional", elem: { kind: "tensor", elemType: 9 } });
    expect(model.graph!.valueInfo.map((v) => v.type.kind)).toEqual(["sparse_tensor", "unknown"]);
    expect(onnx.tensors(model).map((t) => t.name)).toEqual(["main_w"]);
  });

  it("a field ONNX does not declare, in a known message onnx.proto declares but the object model does not hold, is still counted", () => {
    for (const [at, make] of [
      [
        "a function's node",
        (w: W) => w.messageField(25, (f) => f.messageField(7, (n) => n.stringField(4, "Relu").uintField(77, 1))),
      ],
      [
        "training_info's graph",
        (w: W) =>
          w.messageField(20, (ti) =>
            ti.messageField(1, (g) => g.stringField(2, "g").bytesField(60, new Uint8Array(3))),
          ),
      ],
      [
        "a sequence type",
        (w: W) =>
          w.messageField(7, (g) =>
            g.messageField(11, (vi) =>
              vi.stringField(1, "s").messageField(2, (t) => t.messageField(4, (s) => s.uintField(50, 3))),
            ),
          ),
      ],
    ] as const) {
      const w = new ProtoWriter().uintField(1, 10).messageField(8, (o) => o.uintField(2, 21));
      make(w);
      const model = onnx.read(w.finish());
      expect(model.unknownFieldCount, at).toBe(1);
      expect(onnx.verify(model), at).toContain("1 fields this reader does not know are kept as bytes");
    }
  });

  it("a known field with another wire type than onnx.proto declares is CORRUPT with its field path, also in messages not held", () => {
    const w = new ProtoWriter().uintField(1, 10).messageField(25, (f) => f.uintField(7, 3)); // FunctionProto.node as a varint
    expect(() => onnx.read(w.finish())).toThrow(/field 7 \(node\) has varint wire type.*\[model\.functions\.node\]/);
  });

  it.skipIf(VAD_MODELS.length === 0)(
    "the real Silero VAD models: no unknown field, verify has no warning about fields",
    () => {
      for (const path of VAD_MODELS) {
        const model = onnx.read(new Uint8Array(readFileSync(path)));
        expect(model.unknownFieldCount, path).toBe(0);
        expect(
          onnx.verify(model).filter((w) => /does not know/.test(w)),
          path,
        ).toEqual([]);
      }
    },
  );
});
