// Subgraphs expanded in place (graph-expand.ts, the nested layout in layout.ts): an If's branches drawn as boxes in
// frames inside the If's box, with the outer values they read drawn as edges from their producers; the URL keeps
// the expanded keys; nothing changes when nothing is expanded.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { onnx } from "../../bindings/index.js";
import { type GraphModel, type NodeSpec, type Positioned, buildGraph, nodeAt } from "../../web/src/model/graph.js";
import { applyContainerSizes, expandGraph } from "../../web/src/model/graph-expand.js";
import { onnxGraphDocument } from "../../web/src/model/graph-onnx.js";
import { FRAME_DAGRE_MAX_NODES, layoutGraph, layoutInput } from "../../web/src/model/layout.js";
import { formatHash, parseHash } from "../../web/src/model/state.js";
import { graphSvg } from "../../web/src/ui/graph/paint.js";

type GraphInput = onnx.OnnxGraphInput;
type NodeInput = GraphInput["nodes"][number];

const f32 = (n: number) => new Float32Array(n);

/**
 * x → relu → a; s = sig(a); `if` (cond = flag) whose then_branch reads the outer values `a` and `x` (and the outer
 * weight `w`, a weight row, not an edge) and holds an inner If (`inner`) whose branch reads `s` (two scopes up) and
 * `t1` (its own enclosing branch's); else_branch returns the outer `a` as it is.
 */
function modelGraph(): { graph: GraphModel; input: GraphInput } {
  const innerThen: GraphInput = {
    name: "inner_then",
    nodes: [{ name: "in_add", opType: "Add", inputs: ["s", "t1"], outputs: ["in_out"] }],
    inputs: [],
    outputs: [{ name: "in_out", dtype: "float32", shape: [4] }],
  };
  const innerElse: GraphInput = {
    name: "inner_else",
    nodes: [{ name: "in_neg", opType: "Neg", inputs: ["t1"], outputs: ["in_out2"] }],
    inputs: [],
    outputs: [{ name: "in_out2", dtype: "float32", shape: [4] }],
  };
  const then: GraphInput = {
    name: "then",
    nodes: [
      { name: "t_mul", opType: "Mul", inputs: ["a", "x"], outputs: ["t1"] },
      { name: "t_add", opType: "Add", inputs: ["t1", "w"], outputs: ["t2"] },
      {
        name: "inner",
        opType: "If",
        inputs: ["flag"],
        outputs: ["t3"],
        attributes: {
          then_branch: { type: "graph", value: innerThen },
          else_branch: { type: "graph", value: innerElse },
        },
      },
      { name: "t_sum", opType: "Add", inputs: ["t2", "t3"], outputs: ["t_out"] },
    ],
    inputs: [],
    outputs: [{ name: "t_out", dtype: "float32", shape: [4] }],
  };
  const otherwise: GraphInput = {
    name: "else",
    nodes: [],
    inputs: [],
    outputs: [{ name: "a", dtype: "float32", shape: [4] }],
  };
  const main: NodeInput[] = [
    { name: "relu", opType: "Relu", inputs: ["x"], outputs: ["a"] },
    { name: "sig", opType: "Sigmoid", inputs: ["a"], outputs: ["s"] },
    {
      name: "if",
      opType: "If",
      inputs: ["flag"],
      outputs: ["y"],
      attributes: {
        then_branch: { type: "graph", value: then },
        else_branch: { type: "graph", value: otherwise },
      },
    },
  ];
  const input: GraphInput = {
    name: "g",
    inputs: [
      { name: "x", dtype: "float32", shape: [4] },
      { name: "flag", dtype: "bool", shape: [] },
    ],
    outputs: [{ name: "y", dtype: "float32", shape: [4] }],
    initializers: [{ name: "w", dtype: "float32", dims: [4], data: f32(4) }],
    nodes: main,
  };
  const graph = onnxGraphDocument(onnx.read(onnx.write(onnx.create({ graph: input })))).graphs[0]!;
  return { graph, input };
}

/**
 * The outer reads of a branch straight from the ONNX input (independent of the adapter): for each node, the names
 * it (or a subgraph of it) reads that the branch does not define and that are not weights, as `producer → reader`
 * by the names of the boxes: the producer is a node or graph input of the enclosing graphs (innermost first).
 */
function expectedOuterEdges(
  branch: GraphInput,
  scopes: Map<string, string>[],
  weights: Set<string>,
  readerPrefix = "",
): string[] {
  const defined = new Set(branch.nodes.flatMap((n) => n.outputs));
  const reads = (g: GraphInput): string[] => {
    const inner = new Set(g.nodes.flatMap((n) => n.outputs));
    return g.nodes.flatMap((n) => [
      ...n.inputs,
      ...Object.values(n.attributes ?? {}).flatMap((a) =>
        typeof a === "object" && a !== null && "type" in a && a.type === "graph"
          ? reads(a.value as GraphInput).filter((name) => !inner.has(name))
          : [],
      ),
    ]);
  };
  const edges: string[] = [];
  for (const node of branch.nodes) {
    const names = new Set(reads({ ...branch, nodes: [node] }));
    for (const name of names) {
      if (name === "" || defined.has(name) || weights.has(name)) continue;
      const producer = scopes.map((s) => s.get(name)).find((p) => p !== undefined);
      if (producer !== undefined) edges.push(`${producer} → ${readerPrefix}${node.name}`);
    }
  }
  for (const output of branch.outputs)
    if (!defined.has(output.name) && !weights.has(output.name)) {
      const producer = scopes.map((s) => s.get(output.name)).find((p) => p !== undefined);
      if (producer !== undefined) edges.push(`${producer} → ${readerPrefix}${output.name}`);
    }
  return edges.sort();
}

const rootProducers = (input: GraphInput) =>
  new Map<string, string>([
    ...input.inputs.map((i) => [i.name, i.name] as const),
    ...input.nodes.flatMap((n) => n.outputs.map((o) => [o, n.name ?? ""] as const)),
  ]);

function names(model: GraphModel, edges: { from: number; to: number }[]): string[] {
  return edges.map((e) => `${model.nodes[e.from]!.name} → ${model.nodes[e.to]!.name}`).sort();
}

function inside(
  box: { x: number; y: number; width: number; height: number },
  frame: { x: number; y: number; width: number; height: number },
) {
  return (
    box.x >= frame.x - 1e-6 &&
    box.y >= frame.y - 1e-6 &&
    box.x + box.width <= frame.x + frame.width + 1e-6 &&
    box.y + box.height <= frame.y + frame.height + 1e-6
  );
}

function overlap(
  a: { x: number; y: number; width: number; height: number },
  b: { x: number; y: number; width: number; height: number },
) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Whether the segment a–b runs through the inside of a box (touching its border does not count). */
function crossesBox(
  a: { x: number; y: number },
  b: { x: number; y: number },
  box: { x: number; y: number; width: number; height: number },
) {
  // Liang–Barsky clipping against the box shrunk by half a pixel
  const inset = 0.5;
  let t0 = 0;
  let t1 = 1;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const sides: [number, number][] = [
    [-dx, a.x - (box.x + inset)],
    [dx, box.x + box.width - inset - a.x],
    [-dy, a.y - (box.y + inset)],
    [dy, box.y + box.height - inset - a.y],
  ];
  for (const [p, q] of sides) {
    if (p === 0) {
      if (q < 0) return false;
    } else if (p < 0) t0 = Math.max(t0, q / p);
    else t1 = Math.min(t1, q / p);
  }
  return t1 - t0 > 1e-9;
}

function rect(model: GraphModel, layout: Positioned, id: number) {
  const n = model.nodes[id]!;
  return { x: layout.x[id]! - n.width / 2, y: layout.y[id]! - n.height / 2, width: n.width, height: n.height };
}

function expandedLayout(graph: GraphModel, keys: string[]) {
  const view = expandGraph(graph, new Set(keys));
  const layout = layoutGraph(view.layout);
  applyContainerSizes(view, layout);
  return { view, layout };
}

describe("expandGraph", () => {
  const { graph, input } = modelGraph();

  it("changes nothing when nothing is expanded (the same model, the same layout input)", () => {
    for (const keys of [[], ["relu"], ["no such node"], ["if:then_branch>inner"]]) {
      const view = expandGraph(graph, new Set(keys));
      expect(view.model).toBe(graph);
      expect(view.layout).toEqual(layoutInput(graph));
      expect(view.branches).toEqual([]);
    }
  });

  it("adds each branch's boxes after the graph's own, with remapped edges", () => {
    const view = expandGraph(graph, new Set(["if"]));
    const ifNode = graph.nodes.find((n) => n.name === "if")!;
    const [thenBranch, elseBranch] = ifNode.subgraphs.map((s) => s.graph);
    expect(view.branches.map((b) => b.title)).toEqual(["then_branch", "else_branch"]);
    expect(view.model.nodes.length).toBe(graph.nodes.length + thenBranch!.nodes.length + elseBranch!.nodes.length);
    view.model.nodes.forEach((n, i) => expect(n.id).toBe(i));
    // the branch's own edges, by name, are kept
    const branchEdges = names(view.model, view.model.edges.slice(graph.edges.length)).filter(
      (e) => !names(view.model, view.outerEdges).includes(e),
    );
    expect(branchEdges).toEqual(
      names(thenBranch!, thenBranch!.edges).concat(names(elseBranch!, elseBranch!.edges)).sort(),
    );
    expect(view.steps[graph.nodes.length]).toEqual(["if:then_branch"]);
  });

  it("draws an edge from the outer producer for every outer value a branch reads (and none for weights)", () => {
    const view = expandGraph(graph, new Set(["if"]));
    const then = (input.nodes[2]!.attributes!.then_branch as { value: GraphInput }).value;
    const otherwise = (input.nodes[2]!.attributes!.else_branch as { value: GraphInput }).value;
    const weights = new Set(["w"]);
    const expected = [
      ...expectedOuterEdges(then, [rootProducers(input)], weights),
      ...expectedOuterEdges(otherwise, [rootProducers(input)], weights),
    ].sort();
    // a and x into t_mul; flag (its cond) and s (its branch reads it) into the inner If; a into else_branch's output
    expect(expected).toEqual(["flag → inner", "relu → a", "relu → t_mul", "sig → inner", "x → t_mul"]);
    expect(names(view.model, view.outerEdges)).toEqual(expected);
    // the reader lists its producer, the producer its reader (the side panel's inputs and "used by")
    const tMul = view.model.nodes.findIndex((n) => n.name === "t_mul");
    const relu = graph.nodes.findIndex((n) => n.name === "relu");
    expect(view.model.nodes[tMul]!.inputs).toContain(relu);
    expect(view.model.nodes[relu]!.consumers).toContain(tMul);
    expect(graph.nodes[relu]!.consumers).not.toContain(tMul); // the shown graph's own nodes are not changed
  });

  it("resolves a nested branch's reads through every scope, innermost first", () => {
    const view = expandGraph(graph, new Set(["if", "if:then_branch>inner"]));
    const inner = input.nodes[2]!.attributes!.then_branch as { value: GraphInput };
    const innerThen = (inner.value.nodes[2]!.attributes!.then_branch as { value: GraphInput }).value;
    const innerElse = (inner.value.nodes[2]!.attributes!.else_branch as { value: GraphInput }).value;
    const thenScope = new Map(inner.value.nodes.flatMap((n) => n.outputs.map((o) => [o, n.name ?? ""] as const)));
    const expected = [
      ...expectedOuterEdges(innerThen, [thenScope, rootProducers(input)], new Set(["w"])),
      ...expectedOuterEdges(innerElse, [thenScope, rootProducers(input)], new Set(["w"])),
    ];
    expect(expected).toEqual(["sig → in_add", "t_mul → in_add", "t_mul → in_neg"]);
    const nested = view.outerEdges.filter((e) => ["in_add", "in_neg"].includes(view.model.nodes[e.to]!.name));
    expect(names(view.model, nested)).toEqual(expected);
    expect(view.branches.map((b) => `${view.model.nodes[b.owner]!.name}.${b.title}`)).toEqual([
      "if.then_branch",
      "inner.then_branch",
      "inner.else_branch",
      "if.else_branch",
    ]);
  });
});

describe("nested layout", () => {
  const { graph } = modelGraph();

  for (const keys of [["if"], ["if", "if:then_branch>inner"]])
    it(`puts each branch's boxes inside its frame, frames inside their box and apart from other boxes (${keys.join(", ")})`, () => {
      const { view, layout } = expandedLayout(graph, keys);
      const frames = layout.frames ?? [];
      expect(frames.length).toBe(view.branches.length);
      view.branches.forEach((branch, k) => {
        const frame = frames[k]!;
        expect(frame.owner).toBe(branch.owner);
        expect(frame.title).toBe(branch.title);
        expect(inside(frame, rect(view.model, layout, branch.owner))).toBe(true);
        for (const id of branch.nodes) expect(inside(rect(view.model, layout, id), frame)).toBe(true);
        // no box outside the frame overlaps it, except the boxes around it (its owner and theirs)
        const holders = new Set<number>();
        for (let o: number | undefined = branch.owner; o !== undefined;) {
          holders.add(o);
          const holder: number = o;
          o = view.branches.find((b) => b.nodes.includes(holder))?.owner;
        }
        const within = new Set(
          view.branches.filter((b) => b === branch || isInside(view, b.owner, branch)).flatMap((b) => [...b.nodes]),
        );
        view.model.nodes.forEach((n) => {
          if (within.has(n.id) || holders.has(n.id)) return;
          expect(overlap(rect(view.model, layout, n.id), frame), `${n.name} overlaps ${branch.title}`).toBe(false);
        });
      });
      // frames of one box side by side
      for (const a of frames)
        for (const b of frames) if (a !== b && a.owner === b.owner) expect(overlap(a, b)).toBe(false);
      // every edge has a polyline; an outer one runs from the producer's bottom, through a port in the top rank of
      // the frame holding the reader, to the reader's border
      expect(layout.edges.length).toBe(view.model.edges.length);
      for (const e of view.outerEdges) {
        const line = layout.edges.find((l) => l.from === e.from && l.to === e.to)!;
        const from = rect(view.model, layout, e.from);
        const to = rect(view.model, layout, e.to);
        expect(line.points[0]).toEqual({ x: from.x + from.width / 2, y: from.y + from.height });
        const last = line.points.at(-1)!;
        const onBorder =
          (Math.abs(last.y - to.y) < 0.5 || Math.abs(last.y - to.y - to.height) < 0.5) &&
          last.x >= to.x - 0.5 &&
          last.x <= to.x + to.width + 0.5;
        const onSide =
          (Math.abs(last.x - to.x) < 0.5 || Math.abs(last.x - to.x - to.width) < 0.5) &&
          last.y >= to.y - 0.5 &&
          last.y <= to.y + to.height + 0.5;
        expect(onBorder || onSide, `${JSON.stringify(last)} on ${JSON.stringify(to)}`).toBe(true);
        const frame = frames[view.branches.findIndex((b) => b.nodes.includes(e.to))]!;
        expect(line.points.some((p) => inside({ ...p, width: 0, height: 0 }, frame) && p.y < to.y)).toBe(true);
      }
    });

  for (const keys of [["if"], ["if", "if:then_branch>inner"]])
    it(`routes outer edges around boxes: no segment passes through a box (${keys.join(", ")})`, () => {
      const { view, layout } = expandedLayout(graph, keys);
      for (const e of view.outerEdges) {
        const line = layout.edges.find((l) => l.from === e.from && l.to === e.to)!;
        for (const p of line.points) expect(Number.isFinite(p.x) && Number.isFinite(p.y)).toBe(true);
        // the boxes an outer edge may pass through: its ends, and the expanded boxes around its reader
        const allowed = new Set([e.from, e.to]);
        for (let o = view.branches.find((b) => b.nodes.includes(e.to))?.owner; o !== undefined;) {
          allowed.add(o);
          const holder = o;
          o = view.branches.find((b) => b.nodes.includes(holder))?.owner;
        }
        for (const n of view.model.nodes) {
          if (allowed.has(n.id)) continue;
          const box = rect(view.model, layout, n.id);
          for (let i = 1; i < line.points.length; i++)
            expect(
              crossesBox(line.points[i - 1]!, line.points[i]!, box),
              `${view.model.nodes[e.from]!.name} → ${view.model.nodes[e.to]!.name} through ${n.name}`,
            ).toBe(false);
        }
      }
    });

  it("keeps the frame's boxes inside it with the layered engine too (a body over dagre's frame limit)", () => {
    // main: a chain of 40 with a Loop at 20 whose body, a chain of FRAME_DAGRE_MAX_NODES + 50, reads main's m5
    // every 25 boxes
    const chain = (prefix: string, n: number, extra: (i: number) => Partial<NodeSpec>): GraphModel =>
      buildGraph(
        prefix,
        Array.from({ length: n }, (_, i) => ({
          id: i,
          name: `${prefix}${i}`,
          op: "Relu",
          kind: "op" as const,
          inputs: i > 0 ? [i - 1] : [],
          outputs: [`${prefix}${i}`],
          attrs: [],
          weights: [],
          tensors: [],
          subgraphs: [],
          ports: { inputs: [{ name: i > 0 ? `${prefix}${i - 1}` : "" }], outputs: [{ name: `${prefix}${i}` }] },
          ...extra(i),
        })),
        [0],
        [n - 1],
      );
    const body = chain("b", FRAME_DAGRE_MAX_NODES + 50, (i) =>
      i % 25 === 0 ? { ports: { inputs: [{ name: `b${i - 1}` }, { name: "m5" }], outputs: [{ name: `b${i}` }] } } : {},
    );
    const main = chain("m", 40, (i) => (i === 20 ? { op: "Loop", subgraphs: [{ name: "body", graph: body }] } : {}));
    const { view, layout } = expandedLayout(main, ["m20"]);
    const frame = layout.frames![0]!;
    expect(view.outerEdges.length).toBe(Math.ceil(body.nodes.length / 25));
    for (const id of view.branches[0]!.nodes) expect(inside(rect(view.model, layout, id), frame)).toBe(true);
    for (const n of main.nodes)
      if (n.id !== 20) expect(overlap(rect(view.model, layout, n.id), frame), n.name).toBe(false);
    expect(layout.engine).toBe("dagre"); // the 40-box main graph; its frame was laid out by the layered layout
  });

  it("finds the nested box under a point, not the expanded box around it", () => {
    const { view, layout } = expandedLayout(graph, ["if"]);
    const tMul = view.model.nodes.find((n) => n.name === "t_mul")!;
    expect(nodeAt(view.model, layout, layout.x[tMul.id]!, layout.y[tMul.id]!)?.name).toBe("t_mul");
    const owner = view.branches[0]!.owner;
    const top = layout.y[owner]! - view.model.nodes[owner]!.height / 2 + 4;
    expect(nodeAt(view.model, layout, layout.x[owner]!, top)?.name).toBe("if");
  });

  it("exports the nested boxes to SVG, one <g><title> per box, and a frame per branch", () => {
    const { view, layout } = expandedLayout(graph, ["if", "if:then_branch>inner"]);
    const svg = graphSvg(view.model, layout, {});
    expect(svg.match(/<g><title>/g)?.length).toBe(view.model.nodes.length);
    expect(svg.match(/<g class="frame"/g)?.length).toBe(view.branches.length);
    expect(svg).toContain("<title>Mul t_mul</title>");
    expect(svg).toContain('data-branch="else_branch"');
  });
});

function isInside(view: ReturnType<typeof expandGraph>, id: number, branch: { nodes: number[] }): boolean {
  for (let o: number | undefined = id; o !== undefined; o = view.branches.find((b) => b.nodes.includes(o!))?.owner)
    if (branch.nodes.includes(o)) return true;
  return false;
}

describe("the URL keeps the expanded boxes", () => {
  it("parse(format(x)) gives the same keys, for any names", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 1, maxLength: 24 }), { minLength: 1, maxLength: 4 }), (keys) => {
        expect(parseHash(formatHash({ view: "graph", expand: keys })).expand).toEqual(keys);
      }),
    );
    expect(formatHash({ expand: ["If_0", "If_0:then_branch>If_3"] })).toBe("#x=If_0&x=If_0:then_branch%3EIf_3");
    expect(parseHash("#v=graph").expand).toBeUndefined();
  });
});
