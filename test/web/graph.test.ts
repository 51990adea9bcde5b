// The graph view's model: nodes, edges and const-tensor links of every TenniS fixture and example, the
// SeetaFace6 landmarker's 90 nodes, dagre layouts with finite coordinates and edges pointing down, and the
// fallback layout (dagre overflows its stack near 2,000 nodes) on graphs dagre cannot do.
import { describe, expect, it } from "vitest";
import { fromBytes, readFromAny, tsm } from "../../bindings/index.js";
import { FALLBACK_NODES, type GraphModel, fallbackLayout, graphModel, nodeAt } from "../../web/src/model/graph.js";
import { dagreLayout, layoutGraph, layoutInput } from "../../web/src/model/layout.js";
import { HAVE_FIXTURES, readFixture } from "../helpers/fixtures.js";
import { readableFiles } from "./corpus.js";

const tsmFiles = readableFiles().filter((f) => /\.(tsm|csta)$/.test(f.label));

async function modelOf(bytes: Uint8Array): Promise<{ model: GraphModel; tensors: string[] }> {
  const lazy = await readFromAny(fromBytes(bytes));
  if (lazy.format !== "tsm") throw new Error("not tsm");
  return { model: graphModel(tsm.graph(lazy.file)), tensors: lazy.tensorInfos().map((i) => i.name) };
}

function chain(n: number): GraphModel {
  const nodes = Array.from({ length: n }, (_, id) => ({ id, name: `n${id}`, op: "op", width: 80, height: 36, tensors: [], attrs: [], kind: "op" as const, inputs: id > 0 ? [id - 1] : [], consumers: [] }));
  const edges = nodes.slice(1).map((node) => ({ from: node.id - 1, to: node.id }));
  for (let i = 0; i + 5 < n; i += 5) edges.push({ from: i, to: i + 5 });
  return { nodes, edges, inputs: [0], outputs: [n - 1], ops: [["op", n]] };
}

function checkLayout(model: GraphModel, layout: ReturnType<typeof fallbackLayout>): void {
  for (const node of model.nodes) {
    expect(Number.isFinite(layout.x[node.id])).toBe(true);
    expect(Number.isFinite(layout.y[node.id])).toBe(true);
    expect(nodeAt(model, layout, layout.x[node.id]!, layout.y[node.id]!)?.id).toBe(node.id);
  }
  for (const edge of model.edges) expect(layout.y[edge.to]!).toBeGreaterThan(layout.y[edge.from]!);
  expect(layout.edges.length).toBe(model.edges.length);
}

describe("graph model", () => {
  it("has TenniS files to test", () => {
    expect(tsmFiles.length).toBeGreaterThan(0);
  });
  for (const { label, bytes } of tsmFiles) {
    it(`${label}: an edge per input, const nodes link exactly the tensors of tensorInfos()`, async () => {
      const { model, tensors } = await modelOf(bytes);
      expect(model.edges.length).toBe(model.nodes.reduce((a, n) => a + n.inputs.length, 0));
      expect(model.nodes.flatMap((n) => n.tensors).sort()).toEqual(tensors.slice().sort());
      expect(model.ops.reduce((a, [, c]) => a + c, 0)).toBe(model.nodes.length);
      const layout = layoutGraph(layoutInput(model));
      expect(layout.engine).toBe("dagre");
      checkLayout(model, layout);
    });
  }

  it.runIf(HAVE_FIXTURES)("the SeetaFace6 landmarker (.csta) has its 90 nodes, input _input and output Common/EltwiseOP", async () => {
    const { model } = await modelOf(readFixture("tennis", "seetaface6_face_landmarker_pts5.csta"));
    expect(model.nodes.length).toBe(90);
    expect(model.inputs.map((i) => model.nodes[i]!.name)).toEqual(["_input"]);
    expect(model.outputs.map((i) => model.nodes[i]!.name)).toEqual(["Common/EltwiseOP"]);
    expect(model.nodes.filter((n) => n.kind === "const").length + model.nodes.filter((n) => n.op === "<const>" && n.kind !== "const").length).toBe(28);
  });
});

describe("layouts", () => {
  it("dagre lays out a 300-node chain with skips; the fallback does too", () => {
    const model = chain(300);
    checkLayout(model, dagreLayout(layoutInput(model)));
    checkLayout(model, fallbackLayout(model));
  });

  it(`above ${FALLBACK_NODES} nodes the fallback runs (3,000-node chain), without a stack overflow`, () => {
    const model = chain(3000);
    const layout = layoutGraph(layoutInput(model));
    expect(layout.engine).toBe("fallback");
    checkLayout(model, layout);
  });

  it("the fallback survives cycles", () => {
    const model = chain(6);
    model.edges.push({ from: 5, to: 0 });
    const layout = fallbackLayout(model);
    for (const node of model.nodes) expect(Number.isFinite(layout.y[node.id])).toBe(true);
  });
});
