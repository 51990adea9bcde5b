/**
 * The graph view's model, format-neutral: a file has one or more graphs (a picker chooses), a graph has nodes
 * (id, name, op type, producer nodes, output names, attributes as text, weights with dtype and shape, subgraphs
 * that open like graphs) and its inputs and outputs. Weights are drawn INSIDE their consumer's box, as Netron
 * does (`W ⟨32×16×3×3⟩`), not as a box each. Format adapters build `GraphDocument`s from their own structures
 * (graph-tsm.ts for TenniS / SeetaFace6; an ONNX or april adapter only has to fill `NodeSpec`s the same way);
 * `buildGraph` adds what the view needs: consumers, edges, op counts, display sizes.
 */

/** A weight (an initializer, a TenniS `<const>` feeding an op) shown as a row of its consumer's box. */
export interface GraphWeight {
  /** Short label in the box: `W`, `B`, an ONNX input name… */
  label: string;
  /** The weight's own name (its node or initializer name), searchable. */
  name: string;
  /** Names of the file's tensors holding it (keys of the tensor table; empty if the table does not list it). */
  tensors: string[];
  dtype: string;
  shape: number[];
  /** A small constant's elements as text (`16000`, `[1, -1, 64]`): the row reads `B = 16000`. */
  value?: string | undefined;
}

/** A value a node reads or writes, with its declared (or inferred) type when known: `float32 ⟨1×3×?⟩`. */
export interface GraphPort {
  name: string;
  /** dtype and shape as text; undefined when the model does not say. */
  type?: string | undefined;
  /** The type was inferred (by the adapter's shape inference), not declared by the model. */
  inferred?: boolean | undefined;
}

/** What the "Properties" panel shows about the model a graph belongs to. */
export interface GraphProperties {
  /** `ONNX`, `TenniS`… */
  format: string;
  /** Label → value lines: producer, IR version, opsets, domain, model version, doc string. */
  fields: [string, string][];
  /** metadata_props (or a format's header keys), in file order. */
  metadata: [string, string][];
  inputs: GraphPort[];
  outputs: GraphPort[];
}

/** What an adapter gives for one node; ids are dense (0 … n−1) within their graph. */
export interface NodeSpec {
  id: number;
  name: string;
  op: string;
  kind: "input" | "output" | "const" | "op";
  /** Producer node ids (one edge each, in input order). */
  inputs: number[];
  /** Names of the values the node produces (for search and the side panel). */
  outputs: string[];
  /** Attribute name → one-line value. */
  attrs: [string, string][];
  weights: GraphWeight[];
  /** Tensors of a standalone constant node (one kept as a box: no op consumes it, or it is an output). */
  tensors: string[];
  /** Graphs held by the node (ONNX If/Loop/Scan bodies), opened from the side panel. */
  subgraphs: { name: string; graph: GraphModel }[];
  /** The values it reads and writes with their types (the node panel), when the adapter knows them. */
  ports?: { inputs: GraphPort[]; outputs: GraphPort[] } | undefined;
  /** The declared type of the value each producer edge carries (parallel to `inputs`): edge labels. */
  inputLabels?: (string | undefined)[] | undefined;
  /** Short `name = value` lines drawn in the box under its weights (`to = FLOAT16`, `axes = [0]`). */
  inline?: string[] | undefined;
  /** The operator's documentation (ONNX: onnx.ai's page of the op). */
  docUrl?: string | undefined;
}

export interface GraphNode extends NodeSpec {
  consumers: number[];
  width: number;
  height: number;
}

export interface GraphEdge {
  from: number;
  to: number;
  /** The type of the value it carries (`float32 ⟨1×80⟩`) when the model declares it. */
  label?: string | undefined;
}

export interface GraphModel {
  name: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  inputs: number[];
  outputs: number[];
  ops: [string, number][];
  /** Nodes of the file's own graph before weights were folded into their consumers (`tensorfile inspect`'s `nodes`). */
  sourceNodes: number;
  /** Nodes at every depth: this graph's and its subgraphs' (If/Loop/Scan bodies), nested ones included. */
  nodesWithSubgraphs: number;
  /** Subgraphs at every depth (`tensorfile inspect`'s `subgraphs`). */
  subgraphCount: number;
  /** Why there is no graph to draw (an april network that is not readable ONNX); the view shows it instead. */
  error?: string | undefined;
  /** The model's properties (top-level graphs; the Properties panel). */
  properties?: GraphProperties | undefined;
}

/** The graphs of one file (an april file: its three networks; a TenniS module: one). */
export interface GraphDocument {
  graphs: GraphModel[];
}

export interface Positioned {
  /** Centre of each node, by id. */
  x: number[];
  y: number[];
  width: number;
  height: number;
  /** Edge polylines. */
  edges: { from: number; to: number; points: { x: number; y: number }[] }[];
  engine: "dagre" | "layered";
  /** Expanded subgraphs (graph-expand.ts): one frame per branch, inside its owner's box (top-left corner, size). */
  frames?: { owner: number; title: string; x: number; y: number; width: number; height: number }[] | undefined;
  /** The sizes of expanded boxes, which grow to hold their frames (the others keep their model's size). */
  containers?: { id: number; width: number; height: number }[] | undefined;
}

/** Box metrics in layout units (CSS pixels at zoom 1): the op line, then one line per weight. */
export const BOX = { header: 24, row: 16, padding: 6, font: 12, smallFont: 11, charWidth: 7 } as const;

/** A frame's geometry inside an expanded box: its title line, the room around frames, the least frame width. */
export const FRAME = { title: 20, padding: 10, minWidth: 120 } as const;

/** `⟨32×16×3×3⟩`; a scalar is `⟨⟩`. */
export function shapeText(shape: readonly number[]): string {
  return `⟨${shape.join("×")}⟩`;
}

/** The text of a weight row: `W ⟨32×16×3×3⟩`, or a small constant's value: `axes = [0]`. */
export function weightText(weight: GraphWeight): string {
  if (weight.value !== undefined) return `${weight.label} = ${weight.value}`;
  return `${weight.label} ${shapeText(weight.shape)}`;
}

/** The header text of a box: the op, or for graph inputs/outputs and standalone constants their name too. */
export function headerText(node: NodeSpec): string {
  if (node.kind === "op") return node.op;
  return node.kind === "const" ? `${node.op} ${node.name}` : node.name;
}

/** The text rows of a box under its header: weights (`W ⟨32×16×3×3⟩`), then inline attributes (`to = FLOAT16`). */
export function boxRows(node: NodeSpec): string[] {
  return [...node.weights.map(weightText), ...(node.inline ?? [])];
}

function boxSize(node: NodeSpec): { width: number; height: number } {
  const rows = boxRows(node);
  const longest = Math.max(Math.min(headerText(node).length, 40), ...rows.map((r) => r.length));
  const width = Math.max(80, Math.min(320, longest * BOX.charWidth + 24));
  const height = BOX.header + (rows.length > 0 ? rows.length * BOX.row + BOX.padding : 0);
  return { width, height };
}

/** Adds consumers, edges, op counts and box sizes to an adapter's nodes. */
export function buildGraph(
  name: string,
  specs: NodeSpec[],
  inputs: number[],
  outputs: number[],
  sourceNodes = specs.length,
): GraphModel {
  specs.forEach((spec, i) => {
    if (spec.id !== i)
      throw new Error(`graph ${name}: node ids must be 0 … n−1 in order (node ${i} has id ${spec.id})`);
  });
  const consumers: number[][] = specs.map(() => []);
  const edges: GraphEdge[] = [];
  for (const spec of specs) {
    spec.inputs.forEach((from, k) => {
      if (!(from >= 0 && from < specs.length)) return;
      consumers[from]!.push(spec.id);
      const label = spec.inputLabels?.[k];
      edges.push(label !== undefined ? { from, to: spec.id, label } : { from, to: spec.id });
    });
  }
  const nodes: GraphNode[] = specs.map((spec) => ({
    ...spec,
    inputs: spec.inputs.filter((i) => i >= 0 && i < specs.length),
    consumers: consumers[spec.id]!,
    ...boxSize(spec),
  }));
  const counts = new Map<string, number>();
  for (const spec of specs) counts.set(spec.op, (counts.get(spec.op) ?? 0) + 1);
  const ops = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  let nodesWithSubgraphs = sourceNodes;
  let subgraphCount = 0;
  for (const spec of specs)
    for (const sub of spec.subgraphs) {
      nodesWithSubgraphs += sub.graph.nodesWithSubgraphs;
      subgraphCount += 1 + sub.graph.subgraphCount;
    }
  return { name, nodes, edges, inputs, outputs, ops, sourceNodes, nodesWithSubgraphs, subgraphCount };
}

/**
 * What a graph's node count says, the same everywhere it is shown (graph panel, Properties, the legend) and the
 * same as `tensorfile inspect`: the graph's own nodes, then those of its subgraphs when it has any
 * ("765 nodes (812 with 25 subgraphs)").
 */
export function nodeCountText(model: Pick<GraphModel, "sourceNodes" | "nodesWithSubgraphs" | "subgraphCount">): {
  nodes: string;
  withSubgraphs: string;
} {
  const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
  return {
    nodes: plural(model.sourceNodes, "node"),
    withSubgraphs:
      model.subgraphCount > 0
        ? `${model.nodesWithSubgraphs.toLocaleString("en-US")} with ${plural(model.subgraphCount, "subgraph")}`
        : "",
  };
}

/** The node whose box contains (x, y) in layout coordinates. */
export function nodeAt(model: GraphModel, layout: Positioned, x: number, y: number): GraphNode | undefined {
  // the last one: a box drawn inside an expanded box (graph-expand.ts) comes after it and wins
  for (let k = model.nodes.length - 1; k >= 0; k--) {
    const n = model.nodes[k]!;
    if (Math.abs(x - layout.x[n.id]!) <= n.width / 2 && Math.abs(y - layout.y[n.id]!) <= n.height / 2) return n;
  }
  return undefined;
}

/** Every tensor name the graph shows (weights and standalone constants), subgraphs included. */
export function graphTensors(model: GraphModel): string[] {
  return model.nodes.flatMap((n) => [
    ...n.tensors,
    ...n.weights.flatMap((w) => w.tensors),
    ...n.subgraphs.flatMap((s) => graphTensors(s.graph)),
  ]);
}

export interface SearchHit {
  node: number;
  /** What matched: the node's name, its op, a weight's name or an output's name. */
  field: "name" | "op" | "weight" | "output";
}

/**
 * Nodes matching a query (case-insensitive substring; `"quoted"` for an exact match) by name, op type, weight
 * name or output name, in node order; a node appears once, with the first field that matched.
 */
export function searchGraph(model: GraphModel, query: string): SearchHit[] {
  const trimmed = query.trim();
  if (trimmed === "") return [];
  const exact = /^".*"$/.test(trimmed) && trimmed.length >= 2;
  const needle = (exact ? trimmed.slice(1, -1) : trimmed).toLowerCase();
  const matches = (text: string) => (exact ? text.toLowerCase() === needle : text.toLowerCase().includes(needle));
  const hits: SearchHit[] = [];
  for (const node of model.nodes) {
    let field: SearchHit["field"] | undefined;
    if (matches(node.name)) field = "name";
    else if (matches(node.op)) field = "op";
    else if (node.weights.some((w) => matches(w.name) || w.tensors.some(matches))) field = "weight";
    else if (node.outputs.some(matches)) field = "output";
    if (field) hits.push({ node: node.id, field });
  }
  return hits;
}
