// The ONNX graph adapter links a value to its producer by name after every node of the graph is known, at every
// subgraph depth: a node list that is not in producer order (ISNet medium's) loses no edge. And enum attributes
// are shown by name (Cast's `to = FLOAT16`, not `10`).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { onnx } from "../../bindings/index.js";
import type { GraphModel } from "../../web/src/model/graph.js";
import { onnxAttributeText, onnxGraphDocument } from "../../web/src/model/graph-onnx.js";

type NodeInput = onnx.OnnxGraphInput["nodes"][number];

/** x → Cast → Relu → (Add with a weight) → Sigmoid → y, and an If whose branch is a chain of three of its own. */
function nodes(): { main: NodeInput[]; branch: NodeInput[] } {
  const branch: NodeInput[] = [
    { name: "b_neg", opType: "Neg", inputs: ["s"], outputs: ["b1"] },
    { name: "b_abs", opType: "Abs", inputs: ["b1"], outputs: ["b2"] },
    { name: "b_exp", opType: "Exp", inputs: ["b2"], outputs: ["b_out"] },
  ];
  const main: NodeInput[] = [
    { name: "cast", opType: "Cast", inputs: ["x"], outputs: ["c"], attributes: { to: 10 } },
    { name: "relu", opType: "Relu", inputs: ["c"], outputs: ["r"] },
    { name: "add", opType: "Add", inputs: ["r", "w"], outputs: ["a"] },
    { name: "sig", opType: "Sigmoid", inputs: ["a"], outputs: ["s"] },
    {
      name: "if",
      opType: "If",
      inputs: ["flag"],
      outputs: ["y"],
      attributes: {
        then_branch: {
          type: "graph",
          value: {
            name: "then",
            nodes: branch,
            inputs: [],
            outputs: [{ name: "b_out", dtype: "float16", shape: [4] }],
          },
        },
        else_branch: {
          type: "graph",
          value: {
            name: "else",
            nodes: [...branch].reverse(),
            inputs: [],
            outputs: [{ name: "b_out", dtype: "float16", shape: [4] }],
          },
        },
      },
    },
  ];
  return { main, branch };
}

function graphOf(main: NodeInput[], branch: NodeInput[]): GraphModel {
  const ifNode = main.find((n) => n.name === "if")!;
  const shuffledIf = {
    ...ifNode,
    attributes: {
      then_branch: {
        type: "graph" as const,
        value: {
          name: "then",
          nodes: branch,
          inputs: [],
          outputs: [{ name: "b_out", dtype: "float16" as const, shape: [4] }],
        },
      },
    },
  };
  const bytes = onnx.write(
    onnx.create({
      graph: {
        name: "g",
        inputs: [
          { name: "x", dtype: "float32", shape: [4] },
          { name: "flag", dtype: "bool", shape: [] },
        ],
        outputs: [{ name: "y", dtype: "float16", shape: [4] }],
        initializers: [{ name: "w", dtype: "float16", dims: [4], data: new Uint16Array(4) }],
        nodes: main.map((n) => (n.name === "if" ? shuffledIf : n)),
      },
    }),
  );
  return onnxGraphDocument(onnx.read(bytes)).graphs[0]!;
}

/** Edges as "producer → consumer" by node name (ids differ between orders). */
function edgeNames(graph: GraphModel): string[] {
  return graph.edges.map((e) => `${graph.nodes[e.from]!.name} → ${graph.nodes[e.to]!.name}`).sort();
}

describe("ONNX graph adapter: node order", () => {
  const { main, branch } = nodes();
  const ordered = graphOf(main, branch);

  it("links every value in producer order (the reference)", () => {
    expect(edgeNames(ordered)).toEqual(["add → sig", "cast → relu", "flag → if", "if → y", "relu → add", "x → cast"]);
    const then = ordered.nodes.find((n) => n.name === "if")!.subgraphs[0]!.graph;
    expect(edgeNames(then)).toEqual(["b_abs → b_exp", "b_exp → b_out", "b_neg → b_abs"]);
  });

  it("keeps every edge, at every depth, when the node lists are shuffled", () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(main, { minLength: main.length }),
        fc.shuffledSubarray(branch, { minLength: branch.length }),
        (m, b) => {
          const graph = graphOf(m, b);
          expect(edgeNames(graph)).toEqual(edgeNames(ordered));
          const then = graph.nodes.find((n) => n.name === "if")!.subgraphs[0]!.graph;
          expect(edgeNames(then)).toEqual(["b_abs → b_exp", "b_exp → b_out", "b_neg → b_abs"]);
          // the weight is still a row of the Add, whatever the order
          expect(graph.nodes.find((n) => n.name === "add")!.weights.map((w) => w.name)).toEqual(["w"]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("reversed: the output's producer comes last in the file but still feeds it", () => {
    const graph = graphOf([...main].reverse(), [...branch].reverse());
    expect(edgeNames(graph)).toEqual(edgeNames(ordered));
  });
});

describe("ONNX attributes by name", () => {
  it("shows Cast's `to` as the data type's name", () => {
    const cast = nodes().main[0]!;
    const model = onnx.read(
      onnx.write(
        onnx.create({
          graph: {
            name: "g",
            inputs: [{ name: "x", dtype: "float32", shape: [1] }],
            outputs: [{ name: "c", dtype: "float16", shape: [1] }],
            nodes: [cast],
          },
        }),
      ),
    );
    const attribute = model.graph!.nodes[0]!.attributes[0]!;
    expect(onnxAttributeText(attribute, "Cast")).toBe("FLOAT16");
    expect(onnxAttributeText(attribute, "Foo")).toBe("10");
    const graph = onnxGraphDocument(model).graphs[0]!;
    expect(graph.nodes.find((n) => n.op === "Cast")!.attrs).toContainEqual(["to", "FLOAT16"]);
  });
});
