// The graph view's model: the format-neutral GraphModel built from every TenniS fixture and example (weights
// folded into their consumers' boxes and linked to exactly the tensors of tensorInfos()), the SeetaFace6
// landmarker, weight rows `W ⟨32×16×3×3⟩` / `B ⟨32⟩` on a module made with tsm.create, search, and the
// layouts: dagre for small graphs, the layered layout on 3,000- and 10,000-node graphs and on cycles (boxes of
// one rank never overlap, edges run downwards through their dummy points).
import { describe, expect, it } from "vitest";
import { fromBytes, readFromAny, tsm } from "../../bindings/index.js";
import {
  type GraphModel,
  type NodeSpec,
  buildGraph,
  graphTensors,
  headerText,
  nodeAt,
  searchGraph,
  weightText,
} from "../../web/src/model/graph.js";
import { tsmGraphModel } from "../../web/src/model/graph-tsm.js";
import { layeredLayout } from "../../web/src/model/layered-layout.js";
import { DAGRE_MAX_NODES, dagreLayout, layoutGraph, layoutInput } from "../../web/src/model/layout.js";
import type { Positioned } from "../../web/src/model/graph.js";
import { HAVE_FIXTURES, readFixture } from "../helpers/fixtures.js";
import { readableFiles } from "./corpus.js";

const tsmFiles = readableFiles().filter((f) => /\.(tsm|csta)$/.test(f.label));

async function modelOf(
  bytes: Uint8Array,
): Promise<{ model: GraphModel; graph: ReturnType<typeof tsm.graph>; tensors: string[] }> {
  const lazy = await readFromAny(fromBytes(bytes));
  if (lazy.format !== "tsm") throw new Error("not tsm");
  const graph = tsm.graph(lazy.file);
  return { model: tsmGraphModel(graph), graph, tensors: lazy.tensorInfos().map((i) => i.name) };
}

function spec(id: number, op: string, inputs: number[], name = `n${id}`): NodeSpec {
  return { id, name, op, kind: "op", inputs, outputs: [name], attrs: [], weights: [], tensors: [], subgraphs: [] };
}

/** A chain with a skip edge every 5th node (residual blocks) and a branch every 50th. */
function chain(n: number): GraphModel {
  const specs = Array.from({ length: n }, (_, id) => spec(id, "op", id > 0 ? [id - 1] : []));
  for (let i = 5; i < n; i += 5) specs[i]!.inputs.push(i - 5);
  for (let i = 50; i + 3 < n; i += 50) specs[i + 3]!.inputs.push(i);
  return buildGraph("chain", specs, [0], [n - 1]);
}

function checkLayout(model: GraphModel, layout: Positioned): void {
  expect(model.nodes.every((node) => Number.isFinite(layout.x[node.id]) && Number.isFinite(layout.y[node.id]))).toBe(
    true,
  );
  // nodeAt is a linear scan: check a sample on big graphs
  const step = Math.max(1, Math.floor(model.nodes.length / 500));
  for (let i = 0; i < model.nodes.length; i += step) {
    const node = model.nodes[i]!;
    expect(nodeAt(model, layout, layout.x[node.id]!, layout.y[node.id]!)?.id).toBe(node.id);
  }
  expect(layout.edges.length).toBe(model.edges.length);
  expect(layout.edges.every((edge) => edge.points.every((p) => Number.isFinite(p.x) && Number.isFinite(p.y)))).toBe(
    true,
  );
}

/** Boxes that overlap (layout units): none in a good layout. */
function overlaps(model: GraphModel, layout: Positioned): number {
  const boxes = model.nodes.map((n) => ({
    x0: layout.x[n.id]! - n.width / 2,
    x1: layout.x[n.id]! + n.width / 2,
    y0: layout.y[n.id]! - n.height / 2,
    y1: layout.y[n.id]! + n.height / 2,
  }));
  boxes.sort((a, b) => a.y0 - b.y0);
  let count = 0;
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length && boxes[j]!.y0 < boxes[i]!.y1; j++) {
      const a = boxes[i]!;
      const b = boxes[j]!;
      if (a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5) count++;
    }
  }
  return count;
}

describe("graph model (TenniS adapter)", () => {
  it("has TenniS files to test", () => {
    expect(tsmFiles.length).toBeGreaterThan(0);
  });
  for (const { label, bytes } of tsmFiles) {
    it(`${label}: weights folded into consumers, linking exactly the tensors of tensorInfos(); one edge per remaining input`, async () => {
      const { model, graph, tensors } = await modelOf(bytes);
      expect([...new Set(graphTensors(model))].sort()).toEqual(tensors.slice().sort());
      expect(model.sourceNodes).toBe(graph.nodes.length);
      // no <const> box left that feeds an op: those are weight rows now
      const outputs = new Set(graph.outputs.map((n) => n.name));
      for (const node of model.nodes)
        if (node.op === "<const>") expect(node.consumers.length === 0 || outputs.has(node.name)).toBe(true);
      // every input of the original graph is an edge or a weight row
      const inputsBefore = graph.nodes
        .filter((n) => model.nodes.some((m) => m.name === n.name))
        .reduce((a, n) => a + n.inputs.length, 0);
      const weightsAfter = model.nodes.reduce(
        (a, n) => a + new Set(n.weights.map((w) => w.name + "\u0000" + w.label.replace(/\/\d+$/, ""))).size,
        0,
      );
      expect(model.edges.length + weightsAfter).toBeGreaterThanOrEqual(inputsBefore - 0);
      expect(model.edges.length).toBe(model.nodes.reduce((a, n) => a + n.inputs.length, 0));
      const layout = layoutGraph(layoutInput(model));
      checkLayout(model, layout);
      expect(overlaps(model, layout)).toBe(0);
    });
  }

  it.runIf(HAVE_FIXTURES)(
    "the SeetaFace6 landmarker (.csta): 90 nodes, its weights inside the conv/inner_prod boxes",
    async () => {
      const { model, graph } = await modelOf(readFixture("tennis", "seetaface6_face_landmarker_pts5.csta"));
      expect(model.sourceNodes).toBe(90);
      const consts = graph.nodes.filter((n) => n.op === "<const>" && n.consumers.length > 0).length;
      expect(consts).toBeGreaterThan(0);
      expect(model.nodes.length).toBe(90 - consts);
      expect(model.inputs.map((i) => model.nodes[i]!.name)).toEqual(["_input"]);
      expect(model.outputs.map((i) => model.nodes[i]!.name)).toEqual(["Common/EltwiseOP"]);
      const conv = model.nodes.find((n) => n.op === "conv2d")!;
      expect(conv.weights.map((w) => w.label)).toEqual(["W"]);
      expect(conv.weights[0]!.shape.length).toBe(4);
    },
  );

  it("draws `W ⟨32×16×3×3⟩` and `B ⟨32⟩` inside conv2d and add_bias, no box per weight", () => {
    const f32 = (shape: number[]) => ({
      dtype: "float32" as const,
      shape,
      data: new Float32Array(shape.reduce((a, b) => a * b, 1)),
    });
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "x" },
        { op: "<const>", name: "conv1/weights", value: f32([32, 16, 3, 3]) },
        {
          op: "conv2d",
          name: "conv1",
          inputs: ["x", "conv1/weights"],
          params: { stride: { dtype: "int32", shape: [4], data: Int32Array.from([1, 1, 1, 1]) } },
        },
        { op: "<const>", name: "conv1/bias", value: f32([32]) },
        { op: "add_bias", name: "conv1/add_bias", inputs: ["conv1", "conv1/bias"] },
        { op: "relu", name: "relu1", inputs: ["conv1/add_bias"] },
      ],
      inputs: ["x"],
      outputs: ["relu1"],
    });
    const model = tsmGraphModel(tsm.graph(tsm.read(tsm.write(module))));
    expect(model.nodes.map((n) => headerText(n))).toEqual(["x", "conv2d", "add_bias", "relu1"]);
    expect(model.nodes[1]!.weights.map(weightText)).toEqual(["W ⟨32×16×3×3⟩"]);
    expect(model.nodes[2]!.weights.map(weightText)).toEqual(["B ⟨32⟩"]);
    expect(model.nodes[1]!.weights[0]!.tensors).toEqual(["conv1/weights"]);
    expect(model.edges).toEqual([
      { from: 0, to: 1 },
      { from: 1, to: 2 },
      { from: 2, to: 3 },
    ]);
    expect(model.nodes[1]!.attrs.map(([k]) => k)).toEqual(["stride"]);
    // box heights grow with the weight rows
    expect(model.nodes[1]!.height).toBeGreaterThan(model.nodes[3]!.height);
  });

  it("a node's subgraphs (ONNX If/Loop bodies) keep their own graphs; graphTensors reaches into them", () => {
    const body = buildGraph(
      "then_branch",
      [
        {
          ...spec(0, "MatMul", [], "then/matmul"),
          weights: [{ label: "B", name: "then/W", tensors: ["then/W"], dtype: "float32", shape: [4, 4] }],
        },
      ],
      [],
      [0],
    );
    const model = buildGraph(
      "main",
      [
        spec(0, "<param>", [], "x"),
        { ...spec(1, "If", [0], "if0"), subgraphs: [{ name: "then_branch", graph: body }] },
      ],
      [0],
      [1],
    );
    expect(graphTensors(model)).toEqual(["then/W"]);
    expect(model.nodes[1]!.subgraphs[0]!.graph.nodes[0]!.weights.map(weightText)).toEqual(["B ⟨4×4⟩"]);
    expect(model.nodes[1]!.consumers).toEqual([]);
    expect(model.nodes[0]!.consumers).toEqual([1]);
  });

  it("buildGraph wants dense ids", () => {
    expect(() => buildGraph("bad", [spec(1, "op", [])], [], [])).toThrow(/ids/);
  });
});

describe("search", () => {
  const model = buildGraph(
    "g",
    [
      spec(0, "<param>", [], "input"),
      {
        ...spec(1, "conv2d", [0], "block1/conv"),
        weights: [
          {
            label: "W",
            name: "block1/conv/kernel",
            tensors: ["block1/conv/kernel"],
            dtype: "float32",
            shape: [8, 3, 3, 3],
          },
        ],
      },
      spec(2, "relu", [1], "block1/act"),
      spec(3, "conv2d", [2], "block2/conv"),
    ],
    [0],
    [3],
  );
  it("finds by name, op type and weight name, case-insensitively, each node once", () => {
    expect(searchGraph(model, "block1")).toEqual([
      { node: 1, field: "name" },
      { node: 2, field: "name" },
    ]);
    expect(searchGraph(model, "CONV2D").map((h) => h.node)).toEqual([1, 3]);
    expect(searchGraph(model, "kernel")).toEqual([{ node: 1, field: "weight" }]);
    expect(searchGraph(model, '"relu"')).toEqual([{ node: 2, field: "op" }]);
    expect(searchGraph(model, '"rel"')).toEqual([]);
    expect(searchGraph(model, "   ")).toEqual([]);
  });
});

describe("layouts", () => {
  it("dagre lays out a 300-node chain with skips; the layered layout does too, without overlaps", () => {
    const model = chain(300);
    const dagre = dagreLayout(layoutInput(model));
    checkLayout(model, dagre);
    const layered = layeredLayout(model.nodes, model.edges);
    checkLayout(model, layered);
    expect(overlaps(model, layered)).toBe(0);
    for (const edge of model.edges) expect(layered.y[edge.to]!).toBeGreaterThan(layered.y[edge.from]!);
  });

  for (const n of [3000, 10_000]) {
    it(`above ${DAGRE_MAX_NODES} nodes the layered layout runs (${n}-node chain with skips), no stack overflow, no overlap`, () => {
      const model = chain(n);
      const layout = layoutGraph(layoutInput(model));
      expect(layout.engine).toBe("layered");
      checkLayout(model, layout);
      expect(overlaps(model, layout)).toBe(0);
      // edges run downwards, point after point
      expect(
        layout.edges.filter((edge) => edge.points.some((p, k) => k > 0 && !(p.y > edge.points[k - 1]!.y))).length,
      ).toBe(0);
      // a chain stays a tall column, not a wide band
      expect(layout.width).toBeLessThan(layout.height / 20);
    });
  }

  it("the layered layout survives cycles and self-loops", () => {
    const model = chain(6);
    model.edges.push({ from: 5, to: 0 }, { from: 3, to: 3 });
    const layout = layeredLayout(model.nodes, model.edges);
    for (const node of model.nodes) expect(Number.isFinite(layout.y[node.id])).toBe(true);
    expect(layout.edges.length).toBe(model.edges.length);
  });

  it("nodes without inputs sit just above their first consumer, not all on the top rank", () => {
    const specs = Array.from({ length: 40 }, (_, id) => spec(id, "op", id > 0 && id < 30 ? [id - 1] : []));
    specs[25]!.inputs.push(30); // a source feeding node 25
    const model = buildGraph("late source", specs, [0], [29]);
    const layout = layeredLayout(model.nodes, model.edges);
    expect(layout.y[30]!).toBeGreaterThan(layout.y[20]!);
    expect(layout.y[30]!).toBeLessThan(layout.y[25]!);
  });
});
