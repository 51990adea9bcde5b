// The ONNX graph adapter (web/src/model/graph-onnx.ts): a model made with onnx.create (Conv with W/B
// initializers, a Constant feeding an Add, an If whose branches hold an initializer and a Constant and read an
// outer weight, a node without a name, an omitted optional input, a value nothing defines), an .april holding
// three networks (and one that is not ONNX), and the real PyTorch export silero_vad_v5.onnx, whose node counts are
// compared with onnx-proto's decode (an independent protobuf decoder) at every depth.
import { existsSync, readFileSync } from "node:fs";
import onnxProto from "onnx-proto";
import { describe, expect, it } from "vitest";
import { april, fromBytes, onnx, readFromAny } from "../../bindings/index.js";
import { type GraphModel, graphTensors, nodeCountText, searchGraph, weightText } from "../../web/src/model/graph.js";
import {
  aprilGraphDocument,
  onnxAttributeText,
  onnxGraphDocument,
  onnxWeightLabel,
} from "../../web/src/model/graph-onnx.js";
import { matMulNetwork } from "../helpers/april-builders.js";

const floats = (n: number, start = 0) => Float32Array.from({ length: n }, (_, i) => start + i / 8);

function branch(name: string, weight: string): onnx.OnnxGraphInput {
  return {
    name,
    nodes: [
      {
        name: `${name}_c`,
        opType: "Constant",
        inputs: [],
        outputs: [`${name}_k`],
        attributes: {
          value: { type: "tensor", value: { name: `${name}_k`, dtype: "float32", dims: [4], data: floats(4, 1) } },
        },
      },
      { name: `${name}_mul`, opType: "Mul", inputs: ["y", weight], outputs: [`${name}_m`] },
      { name: `${name}_add`, opType: "Add", inputs: [`${name}_m`, `${name}_k`], outputs: [`${name}_m2`] },
      { name: `${name}_outer`, opType: "Add", inputs: [`${name}_m2`, "shift"], outputs: [`${name}_out`] },
    ],
    initializers: [{ name: weight, dtype: "float32", dims: [4], data: floats(4, 2) }],
    inputs: [],
    outputs: [{ name: `${name}_out`, dtype: "float32", shape: [1, 4] }],
  };
}

function sampleModelBytes(): Uint8Array {
  return onnx.write(
    onnx.create({
      graph: {
        name: "sample",
        inputs: [
          { name: "x", dtype: "float32", shape: ["batch", 3, 8, 8] },
          { name: "flag", dtype: "bool", shape: [] },
        ],
        outputs: [{ name: "z", dtype: "float32", shape: ["batch", 4] }],
        initializers: [
          { name: "conv.weight", dtype: "float32", dims: [4, 3, 3, 3], data: floats(108) },
          { name: "conv.bias", dtype: "float32", dims: [4], data: floats(4) },
          { name: "shift", dtype: "float32", dims: [4], data: floats(4, 5) },
        ],
        nodes: [
          {
            name: "conv",
            opType: "Conv",
            inputs: ["x", "conv.weight", "conv.bias"],
            outputs: ["c"],
            attributes: { kernel_shape: [3, 3], pads: [1, 1, 1, 1], auto_pad: "NOTSET" },
          },
          { opType: "Relu", inputs: ["c"], outputs: ["r"] },
          { name: "pool", opType: "GlobalAveragePool", inputs: ["r"], outputs: ["p"] },
          { name: "flat", opType: "Flatten", inputs: ["p", ""], outputs: ["y"], attributes: { axis: 1 } },
          {
            name: "bias_const",
            opType: "Constant",
            inputs: [],
            outputs: ["bias2"],
            attributes: {
              value: { type: "tensor", value: { name: "bias2", dtype: "float32", dims: [4], data: floats(4, 3) } },
            },
          },
          { name: "add_bias", opType: "Add", inputs: ["y", "bias2"], outputs: ["y2"] },
          {
            name: "If_0",
            opType: "If",
            inputs: ["flag"],
            outputs: ["z0"],
            attributes: {
              then_branch: { type: "graph", value: branch("then", "w_then") },
              else_branch: { type: "graph", value: branch("else", "w_else") },
            },
          },
          { name: "last", opType: "Sum", inputs: ["z0", "y2", "undefined_value"], outputs: ["z"] },
        ],
      },
    }),
  );
}

function byName(model: GraphModel, name: string) {
  const node = model.nodes.find((n) => n.name === name);
  if (!node) throw new Error(`no node ${name} in ${model.nodes.map((n) => n.name).join(", ")}`);
  return node;
}

describe("ONNX graph adapter", () => {
  const bytes = sampleModelBytes();
  const model = onnx.read(bytes);
  const graph = onnxGraphDocument(model).graphs[0]!;

  it("draws ops as boxes with their weights inside (initializers and Constants)", () => {
    expect(graph.name).toBe("sample");
    expect(graph.sourceNodes).toBe(8);
    // 2 inputs + 7 nodes (the folded Constant is gone) + 1 output
    expect(graph.nodes.map((n) => `${n.kind}:${n.op}`)).toEqual([
      "input:input",
      "input:input",
      "op:Conv",
      "op:Relu",
      "op:GlobalAveragePool",
      "op:Flatten",
      "op:Add",
      "op:If",
      "op:Sum",
      "output:output",
    ]);
    const conv = byName(graph, "conv");
    expect(conv.weights.map(weightText)).toEqual(["W ⟨4×3×3×3⟩", "B ⟨4⟩"]);
    expect(conv.weights.map((w) => w.tensors)).toEqual([["conv.weight"], ["conv.bias"]]);
    expect(conv.weights.every((w) => w.dtype === "float32")).toBe(true);
    expect(conv.inputs).toEqual([byName(graph, "x").id]);
    const add = byName(graph, "add_bias");
    expect(add.weights.map((w) => [weightText(w), w.name, w.tensors])).toEqual([["B ⟨4⟩", "bias2", ["bias2"]]]);
    expect(add.inputs).toEqual([byName(graph, "flat").id]);
    // unnamed node: named as the onnx module names it; an omitted optional input adds no edge
    expect(byName(graph, "Relu#1").op).toBe("Relu");
    expect(byName(graph, "flat").inputs).toEqual([byName(graph, "pool").id]);
    // the output box is fed by its producer; a value nothing defines is no edge
    expect(byName(graph, "z").inputs).toEqual([byName(graph, "last").id]);
    expect(byName(graph, "last").inputs).toEqual([byName(graph, "If_0").id, add.id]);
    expect(graph.inputs).toEqual([0, 1]);
    expect(graph.outputs).toEqual([graph.nodes.length - 1]);
  });

  it("lists attributes one line each and the value types of inputs and outputs", () => {
    expect(byName(graph, "conv").attrs).toEqual([
      ["kernel_shape", "[3, 3]"],
      ["pads", "[1, 1, 1, 1]"],
      ["auto_pad", '"NOTSET"'],
    ]);
    expect(byName(graph, "flat").attrs).toEqual([["axis", "1"]]);
    expect(byName(graph, "x").attrs).toEqual([["type", "float32 ⟨batch×3×8×8⟩"]]);
    expect(byName(graph, "z").attrs).toEqual([["type", "float32 ⟨batch×4⟩"]]);
    const ifAttrs = Object.fromEntries(byName(graph, "If_0").attrs);
    expect(ifAttrs.then_branch).toBe("graph then (4 nodes)");
    expect(onnxAttributeText({ name: "f", type: "FLOATS", floats: Array.from({ length: 20 }, (_, i) => i) })).toBe(
      "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, … (20)]",
    );
  });

  it("opens If branches as subgraphs whose weights carry the onnx module's path names", () => {
    const node = byName(graph, "If_0");
    expect(node.subgraphs.map((s) => s.name)).toEqual(["then_branch", "else_branch"]);
    const then = node.subgraphs[0]!.graph;
    expect(byName(then, "then_mul").weights.map((w) => [weightText(w), w.tensors[0]])).toEqual([
      ["B ⟨4⟩", "If_0/then_branch/w_then"],
    ]);
    expect(byName(then, "then_add").weights.map((w) => w.tensors[0])).toEqual(["If_0/then_branch/then_k"]);
    // the outer initializer read inside the branch is drawn as the outer weight
    expect(byName(then, "then_outer").weights.map((w) => w.tensors[0])).toEqual(["shift"]);
    expect(byName(then, "then_outer").inputs).toEqual([byName(then, "then_add").id]);
    // every weight of the file is one click away, and nothing else is linked
    const names = onnx
      .tensorInfos(model)
      .map((i) => i.name)
      .sort();
    expect(names).toEqual(
      [
        "bias2",
        "conv.bias",
        "conv.weight",
        "If_0/else_branch/else_k",
        "If_0/else_branch/w_else",
        "If_0/then_branch/then_k",
        "If_0/then_branch/w_then",
        "shift",
      ].sort(),
    );
    expect([...new Set(graphTensors(graph))].sort()).toEqual(names);
  });

  it("finds nodes by op, name and weight name", () => {
    expect(searchGraph(graph, "conv.weight").map((hit) => graph.nodes[hit.node]!.name)).toEqual(["conv"]);
    expect(searchGraph(graph, '"If"').map((hit) => hit.field)).toEqual(["op"]);
  });

  it("keeps a Constant that is a graph output (or feeds nothing) as its own box", async () => {
    const lone = onnx.create({
      graph: {
        name: "consts",
        inputs: [],
        outputs: [{ name: "k", dtype: "float32", shape: [2] }],
        nodes: [
          {
            name: "c",
            opType: "Constant",
            inputs: [],
            outputs: ["k"],
            attributes: { value: { type: "tensor", value: { dtype: "float32", dims: [2], data: [1, 2] } } },
          },
          {
            name: "unused",
            opType: "Constant",
            inputs: [],
            outputs: ["u"],
            attributes: { value: { type: "tensor", value: { dtype: "int64", dims: [], data: [7n] } } },
          },
        ],
      },
    });
    const g = onnxGraphDocument(lone).graphs[0]!;
    expect(g.nodes.map((n) => `${n.kind}:${n.name}`)).toEqual(["const:c", "const:unused", "output:k"]);
    expect(byName(g, "c").tensors).toEqual(["k"]);
    expect(byName(g, "unused").tensors).toEqual(["u"]);
    expect(byName(g, "k").inputs).toEqual([byName(g, "c").id]);
    // the same through a lazy open (readFrom: headers only)
    const lazy = await readFromAny(fromBytes(onnx.write(lone)));
    expect(onnxGraphDocument(lazy.file as onnx.OnnxModel).graphs[0]!.nodes.map((n) => n.name)).toEqual([
      "c",
      "unused",
      "k",
    ]);
  });

  it("folds a Constant read only inside a subgraph into the subgraph's consumer", () => {
    const made = onnx.create({
      graph: {
        name: "outer",
        inputs: [{ name: "flag", dtype: "bool", shape: [] }],
        outputs: [{ name: "z", dtype: "float32", shape: [2] }],
        nodes: [
          {
            name: "k",
            opType: "Constant",
            inputs: [],
            outputs: ["kv"],
            attributes: { value: { type: "tensor", value: { dtype: "float32", dims: [2, 2], data: [1, 2, 3, 4] } } },
          },
          {
            name: "branchy",
            opType: "If",
            inputs: ["flag"],
            outputs: ["z"],
            attributes: {
              then_branch: {
                type: "graph",
                value: {
                  name: "t",
                  inputs: [],
                  outputs: [{ name: "t_out", dtype: "float32" }],
                  nodes: [{ name: "use", opType: "ReduceSum", inputs: ["kv"], outputs: ["t_out"] }],
                },
              },
              else_branch: {
                type: "graph",
                value: {
                  name: "e",
                  inputs: [],
                  outputs: [{ name: "e_out", dtype: "float32" }],
                  nodes: [{ name: "use2", opType: "ReduceMax", inputs: ["kv"], outputs: ["e_out"] }],
                },
              },
            },
          },
        ],
      },
    });
    const g = onnxGraphDocument(made).graphs[0]!;
    expect(g.nodes.map((n) => n.name)).toEqual(["flag", "branchy", "z"]);
    const then = byName(g, "branchy").subgraphs[0]!.graph;
    expect(byName(then, "use").weights.map((w) => [weightText(w), w.tensors[0]])).toEqual([["data ⟨2×2⟩", "kv"]]);
  });

  it("opens Loop bodies and GRAPHS attributes, with the onnx module's names for their weights", () => {
    const body = (tag: string): onnx.OnnxGraphInput => ({
      name: `${tag}_body`,
      inputs: [
        { name: "i", dtype: "int64", shape: [] },
        { name: "cond_in", dtype: "bool", shape: [] },
        { name: "acc", dtype: "float32", shape: [3] },
      ],
      outputs: [
        { name: "cond_out", dtype: "bool", shape: [] },
        { name: "acc_out", dtype: "float32", shape: [3] },
      ],
      initializers: [{ name: `${tag}_step`, dtype: "float32", dims: [3], data: [1, 2, 3] }],
      nodes: [
        { name: `${tag}_id`, opType: "Identity", inputs: ["cond_in"], outputs: ["cond_out"] },
        { name: `${tag}_add`, opType: "Add", inputs: ["acc", `${tag}_step`], outputs: ["acc_out"] },
      ],
    });
    const made = onnx.create({
      graph: {
        name: "loops",
        inputs: [
          { name: "n", dtype: "int64", shape: [] },
          { name: "c", dtype: "bool", shape: [] },
          { name: "a", dtype: "float32", shape: [3] },
        ],
        outputs: [{ name: "r", dtype: "float32", shape: [3] }],
        nodes: [
          {
            name: "loop",
            opType: "Loop",
            inputs: ["n", "c", "a"],
            outputs: ["r"],
            attributes: { body: { type: "graph", value: body("l") } },
          },
          {
            name: "multi",
            opType: "MyBranches",
            domain: "com.example",
            inputs: ["a"],
            outputs: ["m"],
            attributes: { branches: { type: "graphs", value: [body("g0"), body("g1")] } },
          },
        ],
      },
    });
    const g = onnxGraphDocument(made).graphs[0]!;
    const loop = byName(g, "loop");
    expect(loop.inputs).toEqual([0, 1, 2]);
    expect(loop.subgraphs.map((s) => s.name)).toEqual(["body"]);
    const inner = loop.subgraphs[0]!.graph;
    expect(inner.nodes.filter((n) => n.kind === "input").map((n) => n.name)).toEqual(["i", "cond_in", "acc"]);
    expect(byName(inner, "l_add").weights.map((w) => w.tensors[0])).toEqual(["loop/body/l_step"]);
    const multi = byName(g, "multi");
    expect(multi.attrs[0]).toEqual(["#domain", "com.example"]);
    expect(multi.subgraphs.map((s) => s.name)).toEqual(["branches/0", "branches/1"]);
    expect(byName(multi.subgraphs[1]!.graph, "g1_add").weights.map((w) => w.tensors[0])).toEqual([
      "multi/branches/1/g1_step",
    ]);
    expect([...new Set(graphTensors(g))].sort()).toEqual(
      onnx
        .tensorInfos(made)
        .map((i) => i.name)
        .sort(),
    );
  });

  it("labels weight rows by the op's input names", () => {
    expect(["X", "W", "R", "B"].map((_, k) => onnxWeightLabel("LSTM", k, 3))).toEqual(["X", "W", "R", "B"]);
    expect(onnxWeightLabel("Gemm", 1, 2)).toBe("B");
    expect(onnxWeightLabel("MyOp", 1, 2)).toBe("W");
    expect(onnxWeightLabel("MyOp", 2, 1)).toBe("in2");
  });
});

describe("april networks in the graph view", () => {
  const net = matMulNetwork;

  it("gives the three networks, weights named <network>/<name> as the table lists them", async () => {
    const bytes = april.write(
      april.create({
        networks: { encoder: net("enc"), decoder: net("dec"), joiner: net("join") },
        tokens: ["<blk>", "a"],
      }),
    );
    const lazy = await readFromAny(fromBytes(bytes));
    expect(lazy.format).toBe("april");
    const document = aprilGraphDocument(lazy.file as april.AprilFile, april.NETWORK_NAMES);
    expect(document.graphs.map((g) => g.name)).toEqual(["encoder", "decoder", "joiner"]);
    expect(document.graphs.map((g) => g.error)).toEqual([undefined, undefined, undefined]);
    expect(byName(document.graphs[1]!, "dec_mm").weights.map((w) => [weightText(w), w.tensors[0]])).toEqual([
      ["B ⟨4×3⟩", "decoder/dec.weight"],
    ]);
    const listed = lazy
      .tensorInfos()
      .map((i) => i.name)
      .sort();
    expect(document.graphs.flatMap(graphTensors).sort()).toEqual(listed);
    expect(listed).toEqual(["decoder/dec.weight", "encoder/enc.weight", "joiner/join.weight"]);
  });

  it("says why a network is not readable ONNX instead of drawing it", () => {
    const file = april.create({
      networks: { encoder: net("enc"), decoder: net("dec"), joiner: Uint8Array.of(0xff, 0xff, 0xff, 0x0f) },
      tokens: ["<blk>", "a"],
    });
    expect(file.onnxErrors?.joiner).toBeTruthy();
    const document = aprilGraphDocument(file, april.NETWORK_NAMES);
    expect(document.graphs[2]!.error).toBe(file.onnxErrors!.joiner);
    expect(document.graphs[2]!.nodes).toEqual([]);
    expect(document.graphs[0]!.nodes.length).toBe(3);
  });
});

const SILERO = "node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx";

describe.skipIf(!existsSync(SILERO))("a real PyTorch export (silero_vad_v5.onnx)", () => {
  const bytes = new Uint8Array(readFileSync(SILERO));
  const model = onnx.read(bytes);
  const graph = onnxGraphDocument(model).graphs[0]!;
  const { onnx: proto } = onnxProto as unknown as { onnx: { ModelProto: { decode(b: Uint8Array): any } } };
  const oracle = proto.ModelProto.decode(bytes);

  it("has as many nodes as onnx-proto decodes, at every depth, and every subgraph opens", () => {
    type ProtoGraph = { node: { opType: string; attribute: { g?: ProtoGraph | null; graphs?: ProtoGraph[] }[] }[] };
    const compare = (ours: GraphModel, theirs: ProtoGraph): number => {
      expect(ours.sourceNodes).toBe(theirs.node.length);
      const folded = theirs.node.filter((n) => n.opType === "Constant").length;
      const ops = ours.nodes.filter((n) => n.kind === "op" || n.kind === "const").length;
      expect(ops).toBeGreaterThanOrEqual(theirs.node.length - folded);
      expect(ops).toBeLessThanOrEqual(theirs.node.length);
      const withGraphs = theirs.node.filter((n) => n.attribute.some((a) => a.g));
      const oursWithGraphs = ours.nodes.filter((n) => n.subgraphs.length > 0);
      expect(oursWithGraphs.length).toBe(withGraphs.length);
      let count = 1;
      oursWithGraphs.forEach((node, k) => {
        const subs = withGraphs[k]!.attribute.filter((a) => a.g).map((a) => a.g!);
        expect(node.subgraphs.length).toBe(subs.length);
        node.subgraphs.forEach((s, j) => (count += compare(s.graph, subs[j]!)));
      });
      return count;
    };
    const graphs = compare(graph, oracle.graph);
    expect(graphs).toBeGreaterThan(1);
  });

  it("counts nodes as tensorfile inspect does: the graph's own, then with its subgraphs", () => {
    const summary = onnx.inspect(model).graph as { nodes: number; subgraphs: number; ops: Record<string, number> };
    const everyNode = Object.values(summary.ops).reduce((a, b) => a + b, 0);
    expect(graph.sourceNodes).toBe(summary.nodes);
    expect(graph.subgraphCount).toBe(summary.subgraphs);
    expect(graph.nodesWithSubgraphs).toBe(everyNode);
    expect(graph.nodesWithSubgraphs).toBeGreaterThan(graph.sourceNodes);
    const text = nodeCountText(graph);
    expect(text.nodes).toBe(`${summary.nodes} nodes`);
    expect(text.withSubgraphs).toBe(`${everyNode} with ${summary.subgraphs} subgraphs`);
  });

  it("links only weights the table lists, and draws weight rows", () => {
    const listed = new Set(onnx.tensorInfos(model).map((i) => i.name));
    const drawn = graphTensors(graph);
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.filter((name) => !listed.has(name))).toEqual([]);
    const all = (g: GraphModel): GraphModel[] => [
      g,
      ...g.nodes.flatMap((n) => n.subgraphs.flatMap((s) => all(s.graph))),
    ];
    const rows = all(graph).flatMap((g) => g.nodes.flatMap((n) => n.weights));
    expect(rows.some((w) => w.shape.length >= 2)).toBe(true);
  });
});

describe("node counts in words", () => {
  it("says nothing of subgraphs when there are none, and counts one in the singular", () => {
    expect(nodeCountText({ sourceNodes: 1, nodesWithSubgraphs: 1, subgraphCount: 0 })).toEqual({
      nodes: "1 node",
      withSubgraphs: "",
    });
    expect(nodeCountText({ sourceNodes: 765, nodesWithSubgraphs: 1812, subgraphCount: 1 })).toEqual({
      nodes: "765 nodes",
      withSubgraphs: "1,812 with 1 subgraph",
    });
  });
});
