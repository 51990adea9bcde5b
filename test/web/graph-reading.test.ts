// What the graph tells a reader (issue 36): the model's Properties (producer, opset, metadata_props, inputs and
// outputs with dtype and shape), each node's values with their declared types, attributes drawn inline in the box
// (`to = FLOAT16`, `axes = [0]`), the op's signature from a small schema table and its onnx.ai page.
import { describe, expect, it } from "vitest";
import { onnx } from "../../bindings/index.js";
import { boxRows } from "../../web/src/model/graph.js";
import { onnxGraphDocument } from "../../web/src/model/graph-onnx.js";
import { onnxOpDocUrl, onnxOpSignature } from "../../web/src/model/onnx-ops.js";

const model = onnx.read(
  onnx.write(
    onnx.create({
      producerName: "pytorch",
      producerVersion: "2.4",
      metadata: { author: "someone", license: "MIT" },
      opsetImports: [{ version: 17 }, { domain: "com.microsoft", version: 1 }],
      graph: {
        name: "g",
        inputs: [{ name: "x", dtype: "float32", shape: ["batch", 80] }],
        outputs: [{ name: "y", dtype: "float16", shape: ["batch", 1, 80] }],
        valueInfo: [{ name: "u", dtype: "float32", shape: ["batch", 1, 80] }],
        initializers: [{ name: "axes", dtype: "int64", dims: [1], data: BigInt64Array.from([1n]) }],
        nodes: [
          { name: "unsq", opType: "Unsqueeze", inputs: ["x", "axes"], outputs: ["u"] },
          { name: "cast", opType: "Cast", inputs: ["u"], outputs: ["y"], attributes: { to: 10 } },
        ],
      },
    } as onnx.OnnxModelInput),
  ),
);
const graph = onnxGraphDocument(model).graphs[0]!;
const byName = (name: string) => graph.nodes.find((n) => n.name === name)!;

describe("the graph's Properties", () => {
  it("give producer, opsets, metadata_props, inputs and outputs with dtype and shape", () => {
    const p = graph.properties!;
    expect(p.format).toBe("ONNX");
    expect(p.fields).toContainEqual(["producer", "pytorch 2.4"]);
    expect(p.fields).toContainEqual(["opset", "ai.onnx 17, com.microsoft 1"]);
    expect(p.metadata).toEqual([
      ["author", "someone"],
      ["license", "MIT"],
    ]);
    expect(p.inputs).toEqual([{ name: "x", type: "float32 ⟨batch×80⟩" }]);
    expect(p.outputs).toEqual([{ name: "y", type: "float16 ⟨batch×1×80⟩" }]);
  });
});

describe("edges", () => {
  it("are labelled with the type the model declares for the value they carry", () => {
    const label = (from: string, to: string) =>
      graph.edges.find((e) => graph.nodes[e.from]!.name === from && graph.nodes[e.to]!.name === to)?.label;
    expect(label("x", "unsq")).toBe("float32 ⟨batch×80⟩");
    expect(label("unsq", "cast")).toBe("float32 ⟨batch×1×80⟩");
    expect(label("cast", "y")).toBe("float16 ⟨batch×1×80⟩");
  });
});

describe("nodes", () => {
  it("list their values with the types the model declares (inputs, value_info, outputs, initializers)", () => {
    expect(byName("unsq").ports).toEqual({
      inputs: [
        { name: "x", type: "float32 ⟨batch×80⟩" },
        { name: "axes", type: "int64 ⟨1⟩" },
      ],
      outputs: [{ name: "u", type: "float32 ⟨batch×1×80⟩" }],
    });
    expect(byName("cast").ports!.outputs).toEqual([{ name: "y", type: "float16 ⟨batch×1×80⟩" }]);
  });

  it("draw enum attributes inline by name, under their weights", () => {
    expect(byName("cast").inline).toEqual(["to = FLOAT16"]);
    expect(boxRows(byName("unsq"))).toEqual(["axes ⟨1⟩"]);
    // the box is tall enough for its rows
    expect(byName("cast").height).toBeGreaterThan(24);
  });

  it("link their op's page on onnx.ai and give a common op's signature", () => {
    expect(byName("cast").docUrl).toBe("https://onnx.ai/onnx/operators/onnx__Cast.html");
    expect(onnxOpDocUrl("FusedMatMul", "com.microsoft")).toBeUndefined();
    expect(onnxOpDocUrl("../x")).toBeUndefined();
    expect(onnxOpSignature("Conv")).toMatchObject({ inputs: ["X", "W", "B?"], outputs: ["Y"] });
    expect(onnxOpSignature("Conv")!.attributes).toContain("kernel_shape: INTS");
    expect(onnxOpSignature("toString")).toBeUndefined();
  });
});
