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
import { FRAME, type GraphModel, type Positioned } from "./graph.js";
import { layeredLayout } from "./layered-layout.js";

export const DAGRE_MAX_NODES = 1000;

/** What crosses the worker boundary: sizes and edges only (and, for expanded subgraphs, their nesting). */
export interface LayoutInput {
  nodes: { id: number; width: number; height: number }[];
  edges: { from: number; to: number }[];
  /** Expanded boxes (graph-expand.ts): each branch's own boxes and edges, laid out in a frame inside its owner. */
  nested?: { owner: number; frames: { title: string; input: LayoutInput }[] }[] | undefined;
  /** Edges from a producer outside a frame to a box inside one (a subgraph reading an outer value). */
  outer?: { from: number; to: number }[] | undefined;
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

/**
 * dagre when it can, else the layered layout (only sizes and edges are needed); with expanded subgraphs, the
 * nested layout (the same engines, frame by frame).
 */
export function layoutGraph(input: LayoutInput): Positioned {
  return input.nested && input.nested.length > 0 ? nestedLayout(input) : flatLayout(input);
}

function flatLayout(input: LayoutInput): Positioned {
  if (input.nodes.length > DAGRE_MAX_NODES) return layeredLayout(input.nodes, input.edges);
  try {
    return dagreLayout(input);
  } catch {
    return layeredLayout(input.nodes, input.edges);
  }
}

/** Every node id of a layout input, those inside its frames included. */
function allIds(input: LayoutInput, into: number[] = []): number[] {
  for (const node of input.nodes) into.push(node.id);
  for (const nest of input.nested ?? []) for (const frame of nest.frames) allIds(frame.input, into);
  return into;
}

/**
 * Expanded subgraphs: each branch is laid out on its own (recursively: a branch may hold expanded boxes too), its
 * owner's box grows to hold the branches' frames side by side under its own header and rows, then the graph is
 * laid out with those sizes (the owner stays in its layer) and the frames' boxes are moved into place. Edges from
 * outside a frame into it go from the producer's bottom to the reader's top.
 */
export function nestedLayout(input: LayoutInput): Positioned {
  const inner = new Map<
    number,
    { frames: { title: string; layout: Positioned; ids: number[] }[]; width: number; height: number }
  >();
  for (const nest of input.nested ?? []) {
    const frames = nest.frames.map((f) => ({ title: f.title, layout: layoutGraph(f.input), ids: allIds(f.input) }));
    const widths = frames.map((f) => Math.max(FRAME.minWidth, f.layout.width));
    const width = widths.reduce((a, b) => a + b, 0) + FRAME.padding * (frames.length + 1);
    const height = Math.max(0, ...frames.map((f) => f.layout.height + FRAME.title)) + FRAME.padding;
    inner.set(nest.owner, { frames, width, height });
  }
  const sized = input.nodes.map((n) => {
    const c = inner.get(n.id);
    return c ? { id: n.id, width: Math.max(n.width, c.width), height: n.height + c.height } : n;
  });
  const top = flatLayout({ nodes: sized, edges: input.edges });
  const ids = allIds(input);
  const size = Math.max(0, ...ids.map((id) => id + 1));
  const x = new Array<number>(size).fill(0);
  const y = new Array<number>(size).fill(0);
  for (const n of input.nodes) {
    x[n.id] = top.x[n.id]!;
    y[n.id] = top.y[n.id]!;
  }
  const edges = [...top.edges];
  const frames: NonNullable<Positioned["frames"]> = [];
  const containers: NonNullable<Positioned["containers"]> = sized.filter((n) => inner.has(n.id));
  // sizes of every box, for routing the outer edges
  const boxSize = new Map<number, { width: number; height: number }>();
  const collectSizes = (part: LayoutInput) => {
    for (const n of part.nodes) boxSize.set(n.id, n);
    for (const nest of part.nested ?? []) for (const f of nest.frames) collectSizes(f.input);
  };
  collectSizes(input);
  for (const [owner, c] of inner) {
    const own = input.nodes.find((n) => n.id === owner)!;
    const box = sized.find((n) => n.id === owner)!;
    const left = x[owner]! - box.width / 2 + (box.width - c.width) / 2 + FRAME.padding;
    const frameTop = y[owner]! - box.height / 2 + own.height;
    let cursor = left;
    for (const f of c.frames) {
      const width = Math.max(FRAME.minWidth, f.layout.width);
      frames.push({ owner, title: f.title, x: cursor, y: frameTop, width, height: f.layout.height + FRAME.title });
      const dx = cursor + (width - f.layout.width) / 2;
      const dy = frameTop + FRAME.title;
      for (const id of f.ids) {
        x[id] = f.layout.x[id]! + dx;
        y[id] = f.layout.y[id]! + dy;
      }
      for (const e of f.layout.edges)
        edges.push({ from: e.from, to: e.to, points: e.points.map((p) => ({ x: p.x + dx, y: p.y + dy })) });
      for (const g of f.layout.frames ?? []) frames.push({ ...g, x: g.x + dx, y: g.y + dy });
      for (const k of f.layout.containers ?? []) {
        containers.push(k);
        boxSize.set(k.id, k);
      }
      cursor += width + FRAME.padding;
    }
  }
  for (const k of containers) boxSize.set(k.id, k);
  for (const e of input.outer ?? []) {
    const from = boxSize.get(e.from);
    const to = boxSize.get(e.to);
    if (!from || !to) continue;
    const start = { x: x[e.from]!, y: y[e.from]! + from.height / 2 };
    const end = { x: x[e.to]!, y: y[e.to]! - to.height / 2 };
    edges.push({
      from: e.from,
      to: e.to,
      points: [start, { x: start.x, y: start.y + 8 }, { x: end.x, y: end.y - 8 }, end],
    });
  }
  return { ...top, x, y, edges, frames, containers };
}
