/**
 * Graph layout with @dagrejs/dagre (run in a worker by the page), guarded: above FALLBACK_NODES nodes, or when
 * dagre throws (its recursive passes overflow the stack near 2,000 nodes), the fallback layered layout.
 */
import dagre from "@dagrejs/dagre";
import { FALLBACK_NODES, type GraphModel, type Positioned, fallbackLayout } from "./graph.js";

/** What crosses the worker boundary: sizes and edges only. */
export interface LayoutInput {
  nodes: { id: number; width: number; height: number }[];
  edges: { from: number; to: number }[];
}

export function layoutInput(model: GraphModel): LayoutInput {
  return { nodes: model.nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })), edges: model.edges.map((e) => ({ from: e.from, to: e.to })) };
}

export function dagreLayout(input: LayoutInput): Positioned {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ rankdir: "TB", nodesep: 24, ranksep: 40, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of input.nodes) g.setNode(String(n.id), { width: n.width, height: n.height });
  input.edges.forEach((e, k) => g.setEdge(String(e.from), String(e.to), {}, `e${k}`));
  dagre.layout(g);
  const n = Math.max(0, ...input.nodes.map((node) => node.id + 1));
  const x = new Array<number>(n).fill(0);
  const y = new Array<number>(n).fill(0);
  for (const node of input.nodes) {
    const placed = g.node(String(node.id)) as { x: number; y: number };
    x[node.id] = placed.x;
    y[node.id] = placed.y;
  }
  const edges = input.edges.map((e, k) => {
    const label = g.edge({ v: String(e.from), w: String(e.to), name: `e${k}` }) as { points?: { x: number; y: number }[] } | undefined;
    return { from: e.from, to: e.to, points: label?.points ?? [{ x: x[e.from]!, y: y[e.from]! }, { x: x[e.to]!, y: y[e.to]! }] };
  });
  const graph = g.graph() as { width?: number; height?: number };
  return { x, y, width: graph.width ?? 0, height: graph.height ?? 0, edges, engine: "dagre" };
}

/** dagre when it can, else the fallback (the model only needs sizes and edges). */
export function layoutGraph(input: LayoutInput): Positioned {
  const asModel = { nodes: input.nodes, edges: input.edges } as unknown as GraphModel;
  if (input.nodes.length > FALLBACK_NODES) return fallbackLayout(asModel);
  try {
    return dagreLayout(input);
  } catch {
    return fallbackLayout(asModel);
  }
}
