/**
 * Graph layout, run in a worker by the page: @dagrejs/dagre up to DAGRE_MAX_NODES nodes (its recursive passes
 * overflow the stack near 2,000 nodes and take seconds at 1,000), our layered layout (layered-layout.ts) above
 * that or when dagre throws. Weights are inside their consumers' boxes, so a 10,000-node TenniS module is a few
 * thousand boxes here.
 */
// @dagrejs/dagre's published types name @dagrejs/graphlib's, which the type checker cannot resolve from here: its
// graph object is typed by the casts below instead
/* eslint-disable @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return */
import dagre from "@dagrejs/dagre";
import type { GraphModel, Positioned } from "./graph.js";
import { layeredLayout } from "./layered-layout.js";

export const DAGRE_MAX_NODES = 1000;

/** What crosses the worker boundary: sizes and edges only. */
export interface LayoutInput {
  nodes: { id: number; width: number; height: number }[];
  edges: { from: number; to: number }[];
}

export function layoutInput(model: GraphModel): LayoutInput {
  return {
    nodes: model.nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
    edges: model.edges.map((e) => ({ from: e.from, to: e.to })),
  };
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
    const label = g.edge({ v: String(e.from), w: String(e.to), name: `e${k}` }) as
      { points?: { x: number; y: number }[] } | undefined;
    return {
      from: e.from,
      to: e.to,
      points: label?.points ?? [
        { x: x[e.from]!, y: y[e.from]! },
        { x: x[e.to]!, y: y[e.to]! },
      ],
    };
  });
  const graph = g.graph() as { width?: number; height?: number };
  return { x, y, width: graph.width ?? 0, height: graph.height ?? 0, edges, engine: "dagre" };
}

/** dagre when it can, else the layered layout (only sizes and edges are needed). */
export function layoutGraph(input: LayoutInput): Positioned {
  if (input.nodes.length > DAGRE_MAX_NODES) return layeredLayout(input.nodes, input.edges);
  try {
    return dagreLayout(input);
  } catch {
    return layeredLayout(input.nodes, input.edges);
  }
}
