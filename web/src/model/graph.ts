/**
 * The graph view's model for TenniS modules and SeetaFace6 .csta files: boxes (op and name), edges from each
 * input to its consumer, the graph's inputs and outputs, node attributes as text, and a `<const>` node's tensor
 * names (links into the table, histogram and heatmap). Layout: @dagrejs/dagre in a worker (layout.ts), and above
 * FALLBACK_NODES (dagre overflows its stack near 2,000 nodes) a simple layered layout of our own here:
 * longest-path ranks, then a few barycentric sweeps to order each rank.
 */
import type { tsm } from "../../../bindings/index.js";
import { valueText } from "./format.js";

type TsmGraph = ReturnType<typeof tsm.graph>;
type TsmGraphNode = TsmGraph["nodes"][number];

export const FALLBACK_NODES = 1500;

export interface GraphNode {
  id: number;
  name: string;
  op: string;
  width: number;
  height: number;
  /** The tensor names of a `<const>` node's value (contract names: `name` or `name/k` when packed). */
  tensors: string[];
  /** Attribute name → one-line value. */
  attrs: [string, string][];
  kind: "input" | "output" | "const" | "op";
  inputs: number[];
  consumers: number[];
}

export interface GraphEdge {
  from: number;
  to: number;
}

export interface GraphModel {
  nodes: GraphNode[];
  edges: GraphEdge[];
  inputs: number[];
  outputs: number[];
  ops: [string, number][];
}

export interface Positioned {
  /** Centre of each node, by id. */
  x: number[];
  y: number[];
  width: number;
  height: number;
  /** Edge polylines (from dagre; straight lines for the fallback). */
  edges: { from: number; to: number; points: { x: number; y: number }[] }[];
  engine: "dagre" | "fallback";
}

const CHAR_WIDTH = 7;

function nodeWidth(op: string, name: string): number {
  const longest = Math.max(op.length, Math.min(name.length, 28));
  return Math.max(70, Math.min(240, longest * CHAR_WIDTH + 20));
}

export function graphModel(graph: TsmGraph): GraphModel {
  const inputs = new Set(graph.inputs.map((n) => n.index));
  const outputs = new Set(graph.outputs.map((n) => n.index));
  const nodes = graph.nodes.map((node: TsmGraphNode): GraphNode => {
    const fields = node.value?.length ?? 0;
    const tensors = node.op === "<const>" && fields > 0 ? (fields === 1 ? [node.name] : Array.from({ length: fields }, (_, k) => `${node.name}/${k}`)) : [];
    const attrs: [string, string][] = Object.entries(node.attrs).map(([k, v]) => [k, valueText(v, 200)]);
    if (node.shape) attrs.unshift(["#shape", `[${node.shape.join(", ")}]`]);
    if (node.dtype) attrs.unshift(["#dtype", node.dtype]);
    node.value?.forEach((f, k) => attrs.push([fields === 1 ? "value" : `value/${k}`, `${f.dtype} [${f.shape.join(", ")}]`]));
    return {
      id: node.index,
      name: node.name,
      op: node.op,
      width: nodeWidth(node.op, node.name),
      height: 36,
      tensors,
      attrs,
      kind: inputs.has(node.index) ? "input" : outputs.has(node.index) ? "output" : node.op === "<const>" ? "const" : "op",
      inputs: node.inputs.map((n) => n.index),
      consumers: node.consumers.map((n) => n.index),
    };
  });
  const edges: GraphEdge[] = [];
  for (const node of graph.nodes) for (const input of node.inputs) edges.push({ from: input.index, to: node.index });
  const ops = Object.entries(graph.ops).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return { nodes, edges, inputs: [...inputs], outputs: [...outputs], ops };
}

/** The node whose box contains (x, y) in layout coordinates. */
export function nodeAt(model: GraphModel, layout: Positioned, x: number, y: number): GraphNode | undefined {
  return model.nodes.find((n) => Math.abs(x - layout.x[n.id]!) <= n.width / 2 && Math.abs(y - layout.y[n.id]!) <= n.height / 2);
}

/**
 * A layered layout without recursion, for graphs too big for dagre: rank = longest path from a source (edges
 * that would close a cycle are ignored), order within a rank by the mean position of its inputs, top to bottom.
 */
export function fallbackLayout(model: GraphModel, rankGap = 70, nodeGap = 24): Positioned {
  const n = model.nodes.length;
  const index = new Map(model.nodes.map((node, i) => [node.id, i]));
  const indegree = new Array<number>(n).fill(0);
  const out: number[][] = Array.from({ length: n }, () => []);
  const ins: number[][] = Array.from({ length: n }, () => []);
  for (const e of model.edges) {
    const a = index.get(e.from);
    const b = index.get(e.to);
    if (a === undefined || b === undefined || a === b) continue;
    out[a]!.push(b);
    ins[b]!.push(a);
    indegree[b]!++;
  }
  // Kahn's algorithm; nodes left in cycles are appended in file order
  const rank = new Array<number>(n).fill(0);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) if (indegree[i] === 0) queue.push(i);
  const seen = new Array<boolean>(n).fill(false);
  for (let head = 0; head < queue.length; head++) {
    const a = queue[head]!;
    seen[a] = true;
    for (const b of out[a]!) {
      rank[b] = Math.max(rank[b]!, rank[a]! + 1);
      if (--indegree[b]! === 0) queue.push(b);
    }
  }
  for (let i = 0; i < n; i++) {
    if (!seen[i]) rank[i] = Math.max(0, ...ins[i]!.filter((a) => seen[a]).map((a) => rank[a]! + 1));
  }
  const ranks: number[][] = [];
  for (let i = 0; i < n; i++) (ranks[rank[i]!] ??= []).push(i);
  const position = new Array<number>(n).fill(0);
  for (const layer of ranks) layer?.forEach((i, k) => (position[i] = k));
  for (let sweep = 0; sweep < 4; sweep++) {
    for (const layer of ranks) {
      if (!layer) continue;
      const key = (i: number) => (ins[i]!.length > 0 ? ins[i]!.reduce((s, a) => s + position[a]!, 0) / ins[i]!.length : position[i]!);
      layer.sort((a, b) => key(a) - key(b));
      layer.forEach((i, k) => (position[i] = k));
    }
  }
  const x = new Array<number>(n).fill(0);
  const y = new Array<number>(n).fill(0);
  let width = 0;
  ranks.forEach((layer, r) => {
    if (!layer) return;
    let cursor = nodeGap;
    for (const i of layer) {
      const node = model.nodes[i]!;
      x[node.id] = cursor + node.width / 2;
      y[node.id] = rankGap / 2 + r * rankGap;
      cursor += node.width + nodeGap;
    }
    width = Math.max(width, cursor);
  });
  const edges = model.edges.map((e) => ({ from: e.from, to: e.to, points: [{ x: x[e.from]!, y: y[e.from]! }, { x: x[e.to]!, y: y[e.to]! }] }));
  return { x, y, width, height: ranks.length * rankGap, edges, engine: "fallback" };
}
