// The layered layout does not drift sideways on a transformer export (issue 36): in a whisper-like encoder (the
// shape of bench/graph-quality.bench.mjs: decomposed LayerNorm, q/k/v branches with Reshape/Transpose, GELU,
// residual Adds), sibling branches are centred under their parent instead of the first keeping the parent's x and
// pushing the others aside, so the width does not grow with the depth (before: 2,226 px for 1,000 nodes, 14,344 px
// for 7,534; dagre: 514 px).
import { describe, expect, it } from "vitest";
import { onnx } from "../../bindings/index.js";
import { onnxGraphDocument } from "../../web/src/model/graph-onnx.js";
import { layeredLayout } from "../../web/src/model/layered-layout.js";
import { layoutInput } from "../../web/src/model/layout.js";

type NodeInput = onnx.OnnxGraphInput["nodes"][number];

function whisperLike(layers: number) {
  const nodes: NodeInput[] = [];
  const initializers: onnx.OnnxGraphInput["initializers"] extends readonly (infer T)[] | undefined ? T[] : never = [];
  let k = 0;
  const weight = (dims: number[]) => {
    const name = `w${initializers.length}`;
    initializers.push({ name, dtype: "float32", dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)) });
    return name;
  };
  const op = (opType: string, inputs: string[], attributes?: NodeInput["attributes"]) => {
    const out = `v${k++}`;
    nodes.push({ name: `${opType}_${k}`, opType, inputs, outputs: [out], ...(attributes ? { attributes } : {}) });
    return out;
  };
  const layerNorm = (x: string) => {
    const mean = op("ReduceMean", [x]);
    const d = op("Sub", [x, mean]);
    const v = op("ReduceMean", [op("Pow", [d, weight([])])]);
    const n = op("Div", [d, op("Sqrt", [op("Add", [v, weight([])])])]);
    return op("Add", [op("Mul", [n, weight([4])]), weight([4])]);
  };
  const linear = (x: string) => op("Add", [op("MatMul", [x, weight([4, 4])]), weight([4])]);
  const heads = (x: string) => op("Transpose", [op("Reshape", [x, weight([4])])]);
  let x = op("Relu", ["mel"]);
  for (let layer = 0; layer < layers; layer++) {
    const h = layerNorm(x);
    const q = heads(linear(h));
    const kk = heads(linear(h));
    const v = heads(linear(h));
    const scores = op("Softmax", [op("Mul", [op("MatMul", [q, op("Transpose", [kk])]), weight([])])]);
    const attended = op("Reshape", [op("Transpose", [op("MatMul", [scores, v])]), weight([3])]);
    x = op("Add", [x, linear(attended)]);
    const m = linear(layerNorm(x));
    const gelu = op("Mul", [
      op("Mul", [m, op("Add", [op("Erf", [op("Div", [m, weight([])])]), weight([])])]),
      weight([]),
    ]);
    x = op("Add", [x, linear(gelu)]);
  }
  nodes.push({ name: "final", opType: "Identity", inputs: [x], outputs: ["out"] });
  const bytes = onnx.write(
    onnx.create({
      graph: {
        name: "whisper",
        inputs: [{ name: "mel", dtype: "float32", shape: [1, 80] }],
        outputs: [{ name: "out", dtype: "float32", shape: [1, 4] }],
        initializers,
        nodes,
      },
    }),
  );
  return onnxGraphDocument(onnx.read(bytes)).graphs[0]!;
}

describe("layered layout: no diagonal drift", () => {
  it("keeps a 20-layer whisper-like encoder (about 1,000 nodes) about as wide as one block", () => {
    const model = whisperLike(20);
    expect(model.sourceNodes).toBeGreaterThan(1000);
    const input = layoutInput(model);
    const layout = layeredLayout(input.nodes, input.edges);
    expect(layout.width).toBeLessThan(800);
  });
});
