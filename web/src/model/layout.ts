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

/**
 * The most boxes a frame of an expanded subgraph is laid out with dagre: fewer than a graph's, as the edges from a
 * frame's ports to readers far down the branch are long (dagre took 8.5 s for a 500-box body whose ten readers of
 * one outer value were spread along it, our layered layout 0.1 s).
 */
export const FRAME_DAGRE_MAX_NODES = 200;

function flatLayout(input: LayoutInput, dagreMax = DAGRE_MAX_NODES): Positioned {
  if (input.nodes.length > dagreMax) return layeredLayout(input.nodes, input.edges);
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

type Point = { x: number; y: number };

/** A nested layout's result, with the paths of outer edges from the frame's entry points (ports) to their readers. */
interface NestedResult {
  layout: Positioned;
  /**
   * By `from>to`: the points from the port of `from` in this graph's top rank down to the reader `to`, or when `from`
   * is a box of this graph, from its bottom (routed around boxes) into the frame and on to the reader.
   */
  paths: Map<string, Point[]>;
}

/**
 * Expanded subgraphs: each branch is laid out on its own (recursively: a branch may hold expanded boxes too), its
 * owner's box grows to hold the branches' frames side by side under its own header and rows, then the graph is
 * laid out with those sizes and the frames' boxes are moved into place. A value a branch reads from outside enters
 * its frame through a small port laid out with the branch (one per producer, in its top rank, edges to its readers
 * routed by the engine like any edge). In the graph that holds the producer, an edge from it to the expanded box
 * is laid out too (so the box ranks below it and the engine routes the edge between boxes, with dummy points like
 * any long edge); the drawn edge runs from the producer's bottom along that route to the box's top, straight down
 * to the frame's top above the port, then along the port's edges to the reader (through the ports of deeper
 * frames).
 */
export function nestedLayout(input: LayoutInput): Positioned {
  const ids = allIds(input);
  let nextPort = ids.reduce((max, id) => Math.max(max, id), -1) + 1;
  const outer = input.outer ?? [];
  const result = nestedPart(input, outer, () => nextPort++, DAGRE_MAX_NODES);
  const known = new Set(ids);
  const edges = [...result.layout.edges];
  for (const e of outer) {
    // each path runs from its producer's bottom (nestedPart routes it in the graph that holds the producer)
    const path = result.paths.get(`${e.from}>${e.to}`);
    if (!path || !known.has(e.to)) continue;
    edges.push({ from: e.from, to: e.to, points: path });
  }
  return { ...result.layout, edges };
}

/** One graph of a nested layout: `outer` are the outer edges of the whole layout; ports get ids from `portId`. */
function nestedPart(
  input: LayoutInput,
  outer: readonly { from: number; to: number }[],
  portId: () => number,
  dagreMax: number,
): NestedResult {
  const inner = new Map<
    number,
    {
      frames: {
        title: string;
        result: NestedResult;
        ids: number[];
        ports: Map<number, number>;
        entries: Map<number, number>;
      }[];
      width: number;
      height: number;
    }
  >();
  for (const nest of input.nested ?? []) {
    const frames = nest.frames.map((f) => {
      const frameIds = allIds(f.input);
      const inside = new Set(frameIds);
      // the box of the frame that holds each id: itself, or the expanded box it is nested in
      const entries = new Map<number, number>();
      for (const n of f.input.nodes) entries.set(n.id, n.id);
      for (const deeper of f.input.nested ?? [])
        for (const g of deeper.frames) for (const id of allIds(g.input)) entries.set(id, deeper.owner);
      const ports = new Map<number, number>();
      const nodes = [...f.input.nodes];
      const edges = [...f.input.edges];
      const linked = new Set<string>();
      for (const e of outer) {
        if (inside.has(e.from) || !inside.has(e.to)) continue;
        let port = ports.get(e.from);
        if (port === undefined) {
          port = portId();
          ports.set(e.from, port);
          nodes.push({ id: port, width: 8, height: 8 });
        }
        const entry = entries.get(e.to)!;
        if (!linked.has(`${port}>${entry}`)) {
          linked.add(`${port}>${entry}`);
          edges.push({ from: port, to: entry });
        }
      }
      const result = nestedPart({ ...f.input, nodes, edges }, outer, portId, FRAME_DAGRE_MAX_NODES);
      return { title: f.title, result, ids: frameIds, ports, entries };
    });
    const widths = frames.map((f) => Math.max(FRAME.minWidth, f.result.layout.width));
    const width = widths.reduce((a, b) => a + b, 0) + FRAME.padding * (frames.length + 1);
    const height = Math.max(0, ...frames.map((f) => f.result.layout.height + FRAME.title)) + FRAME.padding;
    inner.set(nest.owner, { frames, width, height });
  }
  const sized = input.nodes.map((n) => {
    const c = inner.get(n.id);
    return c ? { id: n.id, width: Math.max(n.width, c.width), height: n.height + c.height } : n;
  });
  // an outer edge from a box of this graph to a reader inside one of its expanded boxes is laid out as an edge to
  // that box too: the engine ranks the box below the producer and routes the edge between boxes (dummy points)
  const own = new Set(input.nodes.map((n) => n.id));
  const holderOf = new Map<number, number>();
  for (const [owner, c] of inner) for (const f of c.frames) for (const id of f.ids) holderOf.set(id, owner);
  const routed = outer.filter((e) => own.has(e.from) && holderOf.has(e.to));
  const routeEdges = routed.map((e) => ({ from: e.from, to: holderOf.get(e.to)! }));
  const top = flatLayout({ nodes: sized, edges: [...input.edges, ...routeEdges] }, dagreMax);
  const routes = new Map<string, Point[]>();
  top.edges.splice(input.edges.length).forEach((route, k) => {
    const e = routed[k]!;
    routes.set(`${e.from}>${e.to}`, route.points.slice(1, -1));
  });
  const heightOf = new Map(sized.map((n) => [n.id, n.height]));
  const size = allIds(input).reduce((max, id) => Math.max(max, id + 1), top.x.length);
  const x = new Array<number>(size).fill(0);
  const y = new Array<number>(size).fill(0);
  for (const n of input.nodes) {
    x[n.id] = top.x[n.id]!;
    y[n.id] = top.y[n.id]!;
  }
  const edges = [...top.edges];
  const paths = new Map<string, Point[]>();
  const frames: NonNullable<Positioned["frames"]> = [];
  const containers: NonNullable<Positioned["containers"]> = sized.filter((n) => inner.has(n.id));
  for (const [owner, c] of inner) {
    const ownBox = input.nodes.find((n) => n.id === owner)!;
    const box = sized.find((n) => n.id === owner)!;
    const frameTop = y[owner]! - box.height / 2 + ownBox.height;
    let cursor = x[owner]! - box.width / 2 + (box.width - c.width) / 2 + FRAME.padding;
    for (const f of c.frames) {
      const layout = f.result.layout;
      const width = Math.max(FRAME.minWidth, layout.width);
      frames.push({ owner, title: f.title, x: cursor, y: frameTop, width, height: layout.height + FRAME.title });
      const dx = cursor + (width - layout.width) / 2;
      const dy = frameTop + FRAME.title;
      const shift = (p: Point) => ({ x: p.x + dx, y: p.y + dy });
      for (const id of f.ids) {
        x[id] = layout.x[id]! + dx;
        y[id] = layout.y[id]! + dy;
      }
      const portIds = new Set(f.ports.values());
      const portEdges = new Map<string, Point[]>();
      for (const e of layout.edges) {
        if (portIds.has(e.from)) portEdges.set(`${e.from}>${e.to}`, e.points);
        else edges.push({ from: e.from, to: e.to, points: e.points.map(shift) });
      }
      for (const g of layout.frames ?? []) frames.push({ ...g, x: g.x + dx, y: g.y + dy });
      for (const k of layout.containers ?? []) containers.push(k);
      // outer edges entering this frame: its port, the port's edge to the box holding the reader, and when the
      // reader is nested deeper, the path inside that box's frame
      for (const e of outer) {
        const port = f.ports.get(e.from);
        const entry = f.entries.get(e.to);
        if (port === undefined || entry === undefined) continue;
        const points = [{ x: layout.x[port]!, y: layout.y[port]! }, ...(portEdges.get(`${port}>${entry}`) ?? [])];
        if (entry !== e.to) points.push(...(f.result.paths.get(`${e.from}>${e.to}`) ?? []));
        const inFrame = points.map(shift);
        if (!own.has(e.from)) {
          paths.set(`${e.from}>${e.to}`, inFrame);
          continue;
        }
        // from the producer's bottom along its route to the expanded box, down through the box's own rows to
        // the frame's top above the port, then to the port
        const start = { x: x[e.from]!, y: y[e.from]! + heightOf.get(e.from)! / 2 };
        const portX = inFrame[0]!.x;
        const ownerTop = y[owner]! - box.height / 2;
        paths.set(`${e.from}>${e.to}`, [
          start,
          ...(routes.get(`${e.from}>${e.to}`) ?? [{ x: start.x, y: start.y + 8 }]),
          { x: portX, y: ownerTop },
          { x: portX, y: frameTop },
          ...inFrame,
        ]);
      }
      // outer edges from a producer inside this frame to a reader deeper in it: laid out already, moved along
      for (const [key, points] of f.result.paths) if (!paths.has(key)) paths.set(key, points.map(shift));
      cursor += width + FRAME.padding;
    }
  }
  return { layout: { ...top, x, y, edges, frames, containers }, paths };
}
