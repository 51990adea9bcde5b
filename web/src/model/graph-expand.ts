/**
 * Subgraphs expanded in place: an `If`'s branches, a `Loop`'s or `Scan`'s body drawn as nested boxes inside their
 * node's box, one frame per branch (`then_branch`, `else_branch`, `body`), instead of only opening as a view of
 * their own. `expandGraph` flattens the shown graph and the expanded subgraphs into one GraphModel (the graph's own
 * nodes keep their ids; each branch's nodes follow, ids remapped), so search, selection, the side panel, painting
 * and the SVG export work on nested boxes as on any box. The layout gets the nesting (LayoutInput.nested, layout.ts):
 * each branch is laid out on its own and its frame sits inside its node's box, in the node's layer.
 *
 * A subgraph reads values of the graphs around it by name without an edge (ONNX scoping: a name it uses but does
 * not define comes from the enclosing graphs, innermost first). Those reads are drawn as edges from their producer
 * box (resolved through the scopes, as graph-onnx.ts resolves weights) into each nested box that reads them. Reads
 * of outer weights are weight rows already, and are not edges.
 *
 * Expanded nodes are named by a key, their path from the shown graph: the node's name at the top, and
 * `<outer key>:<branch>><name>` for one inside an expanded branch (`If_0:then_branch>If_3`). The URL keeps the keys.
 */
import type { GraphEdge, GraphModel, GraphNode, Positioned } from "./graph.js";
import type { LayoutInput } from "./layout.js";

/** One expanded branch: the frame drawn inside its owner's box. */
export interface ExpandedBranch {
  /** The expanded node (an id of the flattened model). */
  owner: number;
  /** The subgraph's name in its node (`then_branch`, `body`). */
  title: string;
  /** Its boxes (ids of the flattened model), in the subgraph's order. */
  nodes: number[];
}

export interface ExpandedGraph {
  /** The shown graph with the expanded branches' boxes after its own (the same object when nothing is expanded). */
  model: GraphModel;
  /** Each box's key (its path from the shown graph; the expansion key when it has subgraphs), by flattened id. */
  keys: string[];
  /**
   * The subgraph steps (`<node>:<subgraph>`, the URL's `sg=`) from the shown graph to the graph holding each box,
   * by flattened id: empty for the shown graph's own boxes.
   */
  steps: string[][];
  branches: ExpandedBranch[];
  /** Edges from a producer outside a branch to the nested boxes reading its value by name (also in model.edges). */
  outerEdges: GraphEdge[];
  /** What the layout needs: sizes, edges and the nesting. */
  layout: LayoutInput;
}

/** The separator between a branch step and a nested node's name in an expansion key. */
export const KEY_SEPARATOR = ">";

/** The names a node reads from its graph's scope: its input values (not its weight rows) and its subgraphs' free names. */
function namesRead(node: GraphNode, free: (graph: GraphModel) => Set<string>): Set<string> {
  const weights = new Set(node.weights.map((w) => w.name));
  const names = new Set<string>();
  for (const port of node.ports?.inputs ?? []) if (port.name !== "" && !weights.has(port.name)) names.add(port.name);
  // a graph output that is a value of an outer graph (a branch returning `x` as it is) has no edge in its graph
  if (node.kind === "output" && node.inputs.length === 0 && node.weights.length === 0) names.add(node.name);
  for (const sub of node.subgraphs) for (const name of free(sub.graph)) names.add(name);
  return names;
}

/** Names a graph defines: its input boxes' values and every node's outputs. */
function definedNames(graph: GraphModel): Set<string> {
  const names = new Set<string>();
  for (const node of graph.nodes) for (const output of node.outputs) if (output !== "") names.add(output);
  return names;
}

/**
 * The shown graph with the subgraphs of the nodes whose keys are in `expanded` drawn in place. Keys that name no
 * node with subgraphs (a stale link) are ignored. With nothing expanded, the model is returned as it is.
 */
export function expandGraph(model: GraphModel, expanded: ReadonlySet<string>): ExpandedGraph {
  const keys = model.nodes.map((n) => n.name);
  const steps: string[][] = model.nodes.map(() => []);
  const topLayout: LayoutInput = {
    nodes: model.nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
    edges: model.edges.map((e) => ({ from: e.from, to: e.to })),
  };
  if (expanded.size === 0 || !model.nodes.some((n) => n.subgraphs.length > 0 && expanded.has(n.name)))
    return { model, keys, steps, branches: [], outerEdges: [], layout: topLayout };

  const freeCache = new Map<GraphModel, Set<string>>();
  const free = (graph: GraphModel): Set<string> => {
    let names = freeCache.get(graph);
    if (!names) {
      const defined = definedNames(graph);
      names = new Set();
      for (const node of graph.nodes) for (const name of namesRead(node, free)) if (!defined.has(name)) names.add(name);
      freeCache.set(graph, names);
    }
    return names;
  };

  const nodes: GraphNode[] = model.nodes.map((n) => ({ ...n }));
  const edges: GraphEdge[] = [...model.edges];
  const branches: ExpandedBranch[] = [];
  const outerEdges: GraphEdge[] = [];
  /** A graph instance: its producers by value name (flattened ids) and the instance around it. */
  interface Scope {
    producers: Map<string, number>;
    parent: Scope | undefined;
  }
  const producersOf = (ids: readonly number[]) => {
    const producers = new Map<string, number>();
    for (const id of ids)
      for (const output of nodes[id]!.outputs) if (output !== "" && !producers.has(output)) producers.set(output, id);
    return producers;
  };
  const resolve = (scope: Scope | undefined, name: string): number | undefined => {
    for (let s = scope; s; s = s.parent) {
      const id = s.producers.get(name);
      if (id !== undefined) return id;
    }
    return undefined;
  };

  // expands the boxes of one graph instance (ids) whose keys are asked for; depth first, so a nested frame's boxes
  // follow their owner's
  const expandIn = (ids: readonly number[], scope: Scope, layout: LayoutInput) => {
    for (const id of ids) {
      const owner = nodes[id]!;
      if (owner.subgraphs.length === 0 || !expanded.has(keys[id]!)) continue;
      const nest: NonNullable<LayoutInput["nested"]>[number] = { owner: id, frames: [] };
      (layout.nested ??= []).push(nest);
      for (const sub of owner.subgraphs) {
        const base = nodes.length;
        const step = `${owner.name}:${sub.name}`;
        const branchIds = sub.graph.nodes.map((n) => base + n.id);
        for (const n of sub.graph.nodes) {
          nodes.push({
            ...n,
            id: base + n.id,
            inputs: n.inputs.map((i) => base + i),
            consumers: n.consumers.map((c) => base + c),
          });
          keys.push(`${keys[id]!}:${sub.name}${KEY_SEPARATOR}${n.name}`);
          steps.push([...steps[id]!, step]);
        }
        const branchEdges = sub.graph.edges.map((e) => ({ ...e, from: base + e.from, to: base + e.to }));
        edges.push(...branchEdges);
        branches.push({ owner: id, title: sub.name, nodes: branchIds });
        const frame: LayoutInput = {
          nodes: branchIds.map((b) => ({ id: b, width: nodes[b]!.width, height: nodes[b]!.height })),
          edges: branchEdges.map((e) => ({ from: e.from, to: e.to })),
        };
        nest.frames.push({ title: sub.name, input: frame });
        const inner: Scope = { producers: producersOf(branchIds), parent: scope };
        // the values the branch's boxes read from outside it: an edge from their producer into each reader
        for (const n of sub.graph.nodes) {
          const reader = base + n.id;
          for (const name of namesRead(n, free)) {
            if (inner.producers.has(name)) continue;
            const from = resolve(scope, name);
            if (from === undefined || from === reader) continue;
            const type = n.ports?.inputs.find((p) => p.name === name)?.type;
            const edge: GraphEdge = type !== undefined ? { from, to: reader, label: type } : { from, to: reader };
            outerEdges.push(edge);
            edges.push(edge);
            nodes[from]!.consumers = [...nodes[from]!.consumers, reader];
            nodes[reader]!.inputs = [...nodes[reader]!.inputs, from];
          }
        }
        expandIn(branchIds, inner, frame);
      }
    }
  };
  expandIn(
    model.nodes.map((n) => n.id),
    { producers: producersOf(model.nodes.map((n) => n.id)), parent: undefined },
    topLayout,
  );
  topLayout.outer = outerEdges.map((e) => ({ from: e.from, to: e.to }));
  return {
    model: { ...model, nodes, edges },
    keys,
    steps,
    branches,
    outerEdges,
    layout: topLayout,
  };
}

/** Gives the expanded boxes of the flattened model the sizes the layout gave them (they hold their frames). */
export function applyContainerSizes(expanded: ExpandedGraph, layout: Positioned): void {
  if (expanded.branches.length === 0) return; // the model is the shown graph itself: never resized
  for (const c of layout.containers ?? []) {
    const node = expanded.model.nodes[c.id];
    if (!node) continue;
    node.width = c.width;
    node.height = c.height;
  }
}
