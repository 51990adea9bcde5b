// The shape inference (web/src/model/shape-infer.ts) on its hostile cases: what it cannot settle stays unlabelled
// (never a wrong shape), declared shapes win, node lists out of producer order, subgraphs that read the outer
// scope, and broadcasting as a property (fast-check) against a direct statement of numpy's rule.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { onnx } from "../../bindings/index.js";
import type { GraphModel } from "../../web/src/model/graph.js";
import { onnxGraphDocument } from "../../web/src/model/graph-onnx.js";
import { type Dim, broadcastShapes, inferShapes } from "../../web/src/model/shape-infer.js";
import { decodedConstants } from "../helpers/onnx-constants.js";

type NodeInput = onnx.OnnxNodeInput;

async function graphOf(
  nodes: NodeInput[],
  extra: Partial<onnx.OnnxGraphInput> = {},
  inputs: onnx.OnnxGraphInput["inputs"] = [{ name: "x", dtype: "float32", shape: ["N", 4, 6] }],
): Promise<GraphModel> {
  const bytes = onnx.write(
    onnx.create({
      graph: { name: "g", inputs, outputs: [], initializers: [], nodes, ...extra },
    }),
  );
  const { model, values } = await decodedConstants(bytes);
  return onnxGraphDocument(model, values).graphs[0]!;
}

/** The type of the value `name` as the node panel gives it, with whether it is inferred. */
function portType(graph: GraphModel, name: string): { type: string | undefined; inferred: boolean } | undefined {
  for (const node of graph.nodes)
    for (const port of node.ports?.outputs ?? [])
      if (port.name === name) return { type: port.type, inferred: port.inferred === true };
  return undefined;
}

const int64s = (name: string, values: number[]) => ({
  name,
  dtype: "int64" as const,
  dims: [values.length],
  data: BigInt64Array.from(values.map(BigInt)),
});

describe("shape inference", () => {
  it("labels what it infers, keeps symbolic dims by name and marks the label", async () => {
    const graph = await graphOf([
      { opType: "Transpose", inputs: ["x"], outputs: ["t"], attributes: { perm: [2, 0, 1] } },
      { opType: "Relu", inputs: ["t"], outputs: ["r"] },
    ]);
    expect(portType(graph, "t")).toEqual({ type: "float32 ⟨6×N×4⟩", inferred: true });
    const relu = graph.nodes.find((n) => n.op === "Relu")!;
    expect(graph.edges.find((e) => e.to === relu.id)?.label).toBe("float32 ⟨6×N×4⟩*");
  });

  it("leaves a Reshape whose shape is computed at run time unlabelled, never guessed", async () => {
    const graph = await graphOf(
      [
        { opType: "Reshape", inputs: ["x", "shape"], outputs: ["y"] },
        { opType: "Relu", inputs: ["y"], outputs: ["z"] },
      ],
      {},
      [
        { name: "x", dtype: "float32", shape: ["N", 4, 6] },
        { name: "shape", dtype: "int64", shape: [2] },
      ],
    );
    expect(portType(graph, "y")).toEqual({ type: undefined, inferred: false });
    expect(portType(graph, "z")).toEqual({ type: undefined, inferred: false });
  });

  it("gives shapes that cannot broadcast no label (the model is wrong there, not the viewer)", async () => {
    const graph = await graphOf([{ opType: "Add", inputs: ["x", "b"], outputs: ["y"] }], {
      initializers: [{ name: "b", dtype: "float32", dims: [5], data: new Float32Array(5) }],
    });
    expect(portType(graph, "y")?.type).toBeUndefined();
  });

  it("keeps a declared shape over an inferred one, and unknown dims as ?", async () => {
    const graph = await graphOf(
      [
        { opType: "Relu", inputs: ["x"], outputs: ["a"] },
        { opType: "Conv", inputs: ["a", "w"], outputs: ["c"], attributes: { strides: [2] } },
      ],
      {
        valueInfo: [{ name: "a", dtype: "float32", shape: ["N", 4, "T"] }],
        initializers: [{ name: "w", dtype: "float32", dims: [2, 4, 3], data: new Float32Array(24) }],
      },
    );
    expect(portType(graph, "a")).toEqual({ type: "float32 ⟨N×4×T⟩", inferred: false });
    expect(portType(graph, "c")).toEqual({ type: "float32 ⟨N×2×?⟩", inferred: true });
  });

  it("squeezes without axes only when every dim is a known size (a symbolic one might be 1)", async () => {
    const graph = await graphOf([{ opType: "Squeeze", inputs: ["x"], outputs: ["s"] }]);
    expect(portType(graph, "s")?.type).toBeUndefined();
  });

  it("follows Shape → Gather → Unsqueeze → Concat into a Reshape, with the symbolic dim kept", async () => {
    const graph = await graphOf(
      [
        { opType: "Shape", inputs: ["x"], outputs: ["s"] },
        { opType: "Gather", inputs: ["s", "zero"], outputs: ["n"] },
        { opType: "Unsqueeze", inputs: ["n", "axes"], outputs: ["n1"] },
        { opType: "Concat", inputs: ["n1", "rest"], outputs: ["shape"], attributes: { axis: 0 } },
        { opType: "Reshape", inputs: ["x", "shape"], outputs: ["y"] },
      ],
      {
        initializers: [
          { name: "zero", dtype: "int64", dims: [], data: BigInt64Array.of(0n) },
          int64s("axes", [0]),
          int64s("rest", [-1, 3]),
        ],
      },
    );
    expect(portType(graph, "s")?.type).toBe("int64 ⟨3⟩");
    expect(portType(graph, "y")?.type).toBe("float32 ⟨N×8×3⟩");
  });

  it("slices a dim of millions by arithmetic (the count is exact, no index list)", async () => {
    const graph = await graphOf(
      [{ opType: "Slice", inputs: ["x", "starts", "ends", "axes", "steps"], outputs: ["y"] }],
      { initializers: [int64s("starts", [1]), int64s("ends", [3_000_001]), int64s("axes", [1]), int64s("steps", [1])] },
      [{ name: "x", dtype: "float32", shape: ["N", 5_000_000] }],
    );
    expect(portType(graph, "y")?.type).toBe("float32 ⟨N×3000000⟩");
  });

  it("keeps a symbolic batch through Reshape's -1 when the other sizes cancel (openWakeWord's first Reshape)", async () => {
    const graph = await graphOf([{ opType: "Reshape", inputs: ["x", "shape"], outputs: ["y"] }], {
      initializers: [int64s("shape", [-1, 1, 4, 6])],
    });
    expect(portType(graph, "y")?.type).toBe("float32 ⟨N×1×4×6⟩");
  });

  it("infers a node list that is not in producer order as if it were", async () => {
    const graph = await graphOf([
      { opType: "Sigmoid", inputs: ["t"], outputs: ["s"] },
      { opType: "Transpose", inputs: ["x"], outputs: ["t"], attributes: { perm: [0, 2, 1] } },
    ]);
    expect(portType(graph, "s")?.type).toBe("float32 ⟨N×6×4⟩");
  });

  it("infers inside a subgraph from the outer graph's values", async () => {
    const body: onnx.OnnxGraphInput = {
      name: "then",
      inputs: [],
      outputs: [{ name: "o", dtype: "float32" }],
      initializers: [],
      nodes: [{ opType: "ReduceSum", inputs: ["t", ""], outputs: ["o"], attributes: { keepdims: 0 } }],
    };
    const graph = await graphOf(
      [
        { opType: "Transpose", inputs: ["x"], outputs: ["t"], attributes: { perm: [1, 0, 2] } },
        {
          name: "if",
          opType: "If",
          inputs: ["flag"],
          outputs: ["y"],
          attributes: {
            then_branch: { type: "graph", value: body },
            else_branch: { type: "graph", value: { ...body, name: "else" } },
          },
        },
      ],
      {},
      [
        { name: "x", dtype: "float32", shape: ["N", 4, 6] },
        { name: "flag", dtype: "bool", shape: [] },
      ],
    );
    const then = graph.nodes.find((n) => n.op === "If")!.subgraphs[0]!.graph;
    // declared without a shape: the inferred one is shown
    expect(portType(then, "o")).toEqual({ type: "float32 ⟨⟩", inferred: true });
  });

  it("runs in one pass: a 20,000-node chain", () => {
    const nodes = Array.from({ length: 20_000 }, (_, i) => ({
      name: `n${i}`,
      opType: "Relu",
      domain: "",
      inputs: [i === 0 ? "x" : `v${i - 1}`],
      outputs: [`v${i}`],
      attributes: [],
    }));
    const graph = { nodes: nodes.reverse(), initializers: [], inputs: [], outputs: [], valueInfo: [] };
    const known = new Map([["x", { elemType: 1, dims: ["N", 3] as Dim[] }]]);
    const inferred = inferShapes(graph as unknown as Parameters<typeof inferShapes>[0], known, new Map());
    expect(inferred.size).toBe(20_000);
    expect(inferred.get("v19999")?.dims).toEqual(["N", 3]);
  });

  it("broadcasts as numpy does (property), and refuses what numpy refuses", () => {
    const dim = fc.oneof(fc.constantFrom(1, 2, 3), fc.constantFrom("N", "T"), fc.constant(null));
    const shape = fc.array(dim, { maxLength: 4 });
    fc.assert(
      fc.property(shape, shape, (a, b) => {
        const got = broadcastShapes([a, b]);
        expect(broadcastShapes([b, a])).toEqual(got);
        // with every dim a size, the rule is numpy's: equal, or one of them 1
        const sizes = (s: Dim[]) => s.every((d) => typeof d === "number");
        if (sizes(a) && sizes(b)) {
          const rank = Math.max(a.length, b.length);
          const pad = (s: Dim[]) => [...new Array<number>(rank - s.length).fill(1), ...(s as number[])];
          const [pa, pb] = [pad(a), pad(b)];
          const ok = pa.every((d, k) => d === pb[k] || d === 1 || pb[k] === 1);
          expect(got).toEqual(ok ? pa.map((d, k) => Math.max(d, pb[k]!)) : undefined);
        }
        // a size other than 1 always wins over a symbolic or unknown dim; two different names are unknown
        if (got) expect(got.length).toBe(Math.max(a.length, b.length));
      }),
    );
    expect(
      broadcastShapes([
        ["N", 3],
        [4, 1],
      ]),
    ).toEqual([4, 3]);
    expect(broadcastShapes([["N"], ["T"]])).toEqual([null]);
    expect(broadcastShapes([[2], [3]])).toBeUndefined();
  });
});
