/**
 * Editing an ONNX model: the object read() returns is changed in place and write() stores the change
 * (edit-write.ts). These functions are the common edits, checked (a RangeError names what is wrong and nothing is
 * changed): metadata_props entries, ModelProto fields, renaming a value everywhere it is used, a value's shape.
 * Any other edit is a plain change to the object (nodes, attributes, initializers added, removed or replaced; a
 * new tensor from {@link makeTensor}).
 */
import { type OnnxTensorInput, tensorInputBytes } from "./builder.js";
import type { OnnxGraph, OnnxModel, OnnxNode, OnnxTensor, OnnxValueInfo } from "./model.js";

/**
 * A new tensor for an initializer or a TENSOR attribute: stored as raw_data from `values` by write(). The
 * elements of a typed array or Uint8Array are used as they are (not copied: do not change them before writing).
 */
export function makeTensor(input: OnnxTensorInput): OnnxTensor {
  if (input === null || typeof input !== "object")
    throw new TypeError("tensorfile: onnx.makeTensor takes { name, dtype, dims, data }");
  const { dataType, bytes } = tensorInputBytes(input, "onnx.makeTensor");
  return {
    name: input.name ?? "",
    dataType,
    dims: [...input.dims],
    docString: input.docString ?? "",
    storage: "raw_data",
    data: { byteOffset: 0, byteLength: 0 },
    frames: [],
    values: bytes,
  };
}

function fail(fn: string, detail: string): never {
  throw new RangeError(`tensorfile: onnx.${fn}: ${detail}`);
}

/** Sets metadata_props `key` to `value`: the first entry with that key is changed (a later duplicate removed), or one is added. */
export function setMetadata(model: OnnxModel, key: string, value: string): void {
  if (typeof key !== "string" || typeof value !== "string")
    throw new TypeError("tensorfile: onnx.setMetadata takes a key and a value (strings)");
  const first = model.metadataProps.findIndex((e) => e.key === key);
  if (first < 0) {
    model.metadataProps.push({ key, value });
    return;
  }
  if (model.metadataProps[first]!.value !== value) model.metadataProps[first] = { key, value };
  for (let i = model.metadataProps.length - 1; i > first; i--)
    if (model.metadataProps[i]!.key === key) model.metadataProps.splice(i, 1);
}

/** Removes every metadata_props entry named `key` (a RangeError when there is none). */
export function deleteMetadata(model: OnnxModel, key: string): void {
  const kept = model.metadataProps.filter((e) => e.key !== key);
  if (kept.length === model.metadataProps.length) {
    fail(
      "deleteMetadata",
      `the model has no metadata key ${JSON.stringify(key)} (it has ${model.metadataProps.map((e) => JSON.stringify(e.key)).join(", ") || "none"})`,
    );
  }
  model.metadataProps.splice(0, model.metadataProps.length, ...kept);
}

/** The ModelProto fields {@link setModelField} sets, by their ONNX names. */
export const MODEL_FIELDS = [
  "producer_name",
  "producer_version",
  "domain",
  "doc_string",
  "model_version",
  "graph_name",
  "graph_doc_string",
] as const;
/** One of {@link MODEL_FIELDS}. */
export type OnnxModelField = (typeof MODEL_FIELDS)[number];

/** Sets a ModelProto field (or the main graph's name / doc_string) from text; model_version must be an integer. */
export function setModelField(model: OnnxModel, field: OnnxModelField | (string & {}), value: string): void {
  switch (field) {
    case "producer_name":
      model.producerName = value;
      return;
    case "producer_version":
      model.producerVersion = value;
      return;
    case "domain":
      model.domain = value;
      return;
    case "doc_string":
      model.docString = value;
      return;
    case "model_version": {
      if (!/^-?\d{1,16}$/.test(value) || !Number.isSafeInteger(Number(value)))
        fail("setModelField", `model_version takes an integer, not ${JSON.stringify(value)}`);
      model.modelVersion = Number(value);
      return;
    }
    case "graph_name":
    case "graph_doc_string":
      if (!model.graph) fail("setModelField", "the model has no graph");
      if (field === "graph_name") model.graph.name = value;
      else model.graph.docString = value;
      return;
    default:
      fail("setModelField", `${JSON.stringify(field)} is not a field it sets (${MODEL_FIELDS.join(", ")})`);
  }
}

/** The names a graph defines itself: inputs, initializers (sparse too) and node outputs. */
function definedNames(g: OnnxGraph): Set<string> {
  const names = new Set<string>();
  for (const v of g.inputs) names.add(v.name);
  for (const t of g.initializers) names.add(t.name);
  for (const s of g.sparseInitializers) names.add(s.values.name);
  for (const n of g.nodes) for (const o of n.outputs) if (o !== "") names.add(o);
  return names;
}

/** Every value name a graph mentions: its own definitions, outputs, value_info and node inputs. */
function mentionedNames(g: OnnxGraph): Set<string> {
  const names = definedNames(g);
  for (const v of [...g.outputs, ...g.valueInfo]) names.add(v.name);
  for (const n of g.nodes) for (const i of n.inputs) if (i !== "") names.add(i);
  return names;
}

function subgraphs(g: OnnxGraph): OnnxGraph[] {
  const out: OnnxGraph[] = [];
  for (const n of g.nodes) {
    for (const a of n.attributes) {
      if (a.g) out.push(a.g);
      if (a.graphs) out.push(...a.graphs);
    }
  }
  return out;
}

/**
 * Renames the value `from` of the main graph to `to` everywhere: graph inputs, outputs, value_info, initializers,
 * node inputs and outputs, and inside subgraphs where they use the outer value (a subgraph that defines its own
 * `from` shadows it and is left alone). A RangeError, nothing changed, when `from` is no value of the main graph,
 * when `to` is already a name there, or when a subgraph that uses `from` defines its own `to`. Returns the number
 * of places renamed.
 */
export function renameValue(model: OnnxModel, from: string, to: string): number {
  if (typeof from !== "string" || typeof to !== "string")
    throw new TypeError("tensorfile: onnx.renameValue takes two names (strings)");
  const graph = model.graph;
  if (!graph) fail("renameValue", "the model has no graph");
  if (from === "" || to === "") fail("renameValue", "a value name cannot be empty");
  const names = mentionedNames(graph);
  if (!names.has(from)) fail("renameValue", `the graph has no value named ${JSON.stringify(from)}`);
  if (from === to) return 0;
  if (names.has(to)) fail("renameValue", `the graph already has a value named ${JSON.stringify(to)}`);
  // the graphs to rename in: the main graph and every subgraph reached without shadowing `from`
  const targets: OnnxGraph[] = [];
  const visit = (g: OnnxGraph, outer: boolean) => {
    if (!outer && definedNames(g).has(from)) return;
    if (!outer && mentionedNames(g).has(to) && usesName(g, from))
      fail(
        "renameValue",
        `a subgraph (${JSON.stringify(g.name)}) uses ${JSON.stringify(from)} and has its own value named ${JSON.stringify(to)}`,
      );
    targets.push(g);
    for (const sub of subgraphs(g)) visit(sub, false);
  };
  visit(graph, true);
  let count = 0;
  const rename = (list: string[]) =>
    list.forEach((name, i) => {
      if (name === from) {
        list[i] = to;
        count++;
      }
    });
  const renameInfo = (infos: OnnxValueInfo[]) => {
    for (const v of infos) {
      if (v.name === from) {
        v.name = to;
        count++;
      }
    }
  };
  for (const g of targets) {
    renameInfo(g.inputs);
    renameInfo(g.outputs);
    renameInfo(g.valueInfo);
    for (const t of g.initializers) {
      if (t.name === from) {
        t.name = to;
        count++;
      }
    }
    for (const s of g.sparseInitializers) {
      if (s.values.name === from) {
        s.values.name = to;
        count++;
      }
    }
    for (const n of g.nodes) {
      rename(n.inputs);
      rename(n.outputs);
    }
  }
  return count;
}

/** True when `g` or a subgraph of it (not shadowing it) reads `name` from outside. */
function usesName(g: OnnxGraph, name: string): boolean {
  if (g.nodes.some((n) => n.inputs.includes(name)) || g.outputs.some((v) => v.name === name)) return true;
  return subgraphs(g).some((sub) => !definedNames(sub).has(name) && usesName(sub, name));
}

/** One dim: a size, a symbolic name (dim_param) or null (unknown). */
export type OnnxDim = number | string | null;

/**
 * Reads a shape written as `1x80x9`, `Nx80`, `1,80,9` (commas when a name holds an "x") or `` (a scalar): each
 * dim a size, a symbolic name, or `?` for an unknown dim.
 */
export function parseShape(text: string): OnnxDim[] {
  const trimmed = text.trim();
  if (trimmed === "" || trimmed === "[]") return [];
  const parts = trimmed
    .replace(/^\[|\]$/g, "")
    .split(trimmed.includes(",") ? "," : "x")
    .map((p) => p.trim());
  return parts.map((p) => {
    if (/^\d+$/.test(p)) {
      const n = Number(p);
      if (!Number.isSafeInteger(n)) fail("parseShape", `dim ${p} is beyond 2^53`);
      return n;
    }
    if (p === "?") return null;
    if (/^[A-Za-z_][\w.:/-]*$/.test(p)) return p;
    return fail("parseShape", `${JSON.stringify(p)} in ${JSON.stringify(text)} is not a dim (a size, a name or ?)`);
  });
}

/** What {@link setShape} did besides setting the shape. */
export interface SetShapeResult {
  /**
   * The values computed from the edited one whose declared shape was removed, so that a runtime infers it again
   * from the new shape: `value_info` entries (of the main graph or a subgraph) are dropped, and subgraph outputs
   * keep their element type without a shape. A declared shape there was recorded by the exporter for the old
   * shape and can contradict what shape inference now finds (onnxruntime refuses such a model). Main graph
   * outputs are left as they are (they are the model's interface: set them with setShape too).
   */
  droppedShapes: string[];
}

/**
 * Sets the shape of the main graph's input, output or value_info named `name` (every entry of that name): dims
 * are sizes, symbolic names or null. A RangeError, nothing changed, for an unknown name, a value whose type is no
 * tensor, or a rank other than the declared one (a value of unknown rank takes any). When the new shape fixes a
 * size it did not have, the declared shapes of the values computed from it are removed (see {@link SetShapeResult}).
 */
export function setShape(model: OnnxModel, name: string, dims: readonly OnnxDim[]): SetShapeResult {
  const graph = model.graph;
  if (!graph) fail("setShape", "the model has no graph");
  if (!Array.isArray(dims as unknown)) throw new TypeError("tensorfile: onnx.setShape takes the dims as an array");
  for (const d of dims) {
    if (!(d === null || typeof d === "string" || (typeof d === "number" && Number.isSafeInteger(d) && d >= 0))) {
      fail("setShape", `a dim is a size (a non-negative integer), a name or null, not ${JSON.stringify(d)}`);
    }
  }
  const entries = [...graph.inputs, ...graph.outputs, ...graph.valueInfo].filter((v) => v.name === name);
  if (entries.length === 0) {
    const known = [...graph.inputs, ...graph.outputs, ...graph.valueInfo].map((v) => JSON.stringify(v.name));
    fail(
      "setShape",
      `no graph input, output or value_info is named ${JSON.stringify(name)} (${known.slice(0, 20).join(", ") || "there are none"})`,
    );
  }
  for (const v of entries) {
    if (v.type.kind !== "tensor" && v.type.kind !== "sparse_tensor")
      fail("setShape", `${JSON.stringify(name)} is a ${v.type.kind} value, not a tensor`);
    if (v.type.shape !== undefined && v.type.shape.length !== dims.length) {
      fail(
        "setShape",
        `${JSON.stringify(name)} has rank ${v.type.shape.length} ([${v.type.shape.map((d) => d ?? "?").join(", ")}]), the new shape has rank ${dims.length}`,
      );
    }
  }
  const initializer = graph.initializers.find((t) => t.name === name);
  if (
    initializer &&
    (initializer.dims.length !== dims.length || dims.some((d, i) => typeof d === "number" && d !== initializer.dims[i]))
  ) {
    fail("setShape", `${JSON.stringify(name)} is also an initializer of dims [${initializer.dims.join(", ")}]`);
  }
  const changed = entries.some((v) => fixesNewDims(v.type.shape, dims));
  for (const v of entries) v.type.shape = [...dims];
  return { droppedShapes: changed ? dropDownstreamShapes(graph, name) : [] };
}

/**
 * True when `next` fixes a size `before` did not have (a number where there was a name, an unknown dim, another
 * number, or no shape): only then can shape inference find something the declared shapes downstream contradict.
 * A symbolic or unknown dim in place of a size tells it less, never something else.
 */
function fixesNewDims(before: readonly OnnxDim[] | undefined, next: readonly OnnxDim[]): boolean {
  return next.some((d, i) => typeof d === "number" && before?.[i] !== d);
}

/** Every graph: `g` and its subgraphs, at any depth. */
function allGraphs(g: OnnxGraph): OnnxGraph[] {
  const out = [g];
  for (let i = 0; i < out.length; i++) out.push(...subgraphs(out[i]!));
  return out;
}

/**
 * The names computed from `source` (not `source` itself), through nodes and through subgraphs: a node whose
 * subgraph reads such a value or outputs one has all its outputs computed from it. Names are followed across
 * scopes without regard to shadowing, which can only remove more declared shapes than needed, never fewer.
 */
function downstreamOf(graph: OnnxGraph, source: string): Set<string> {
  const reached = new Set<string>([source]);
  const graphs = allGraphs(graph);
  const nodeGraphs = (n: OnnxNode): OnnxGraph[] =>
    n.attributes.flatMap((a) => [...(a.g ? [a.g] : []), ...(a.graphs ?? [])]);
  const fed = (n: OnnxNode): boolean => n.inputs.some((i) => reached.has(i)) || nodeGraphs(n).some(touches);
  const touches = (g: OnnxGraph): boolean => g.outputs.some((v) => reached.has(v.name)) || g.nodes.some(fed);
  for (let grew = true; grew;) {
    grew = false;
    for (const g of graphs) {
      for (const n of g.nodes) {
        if (n.outputs.every((o) => o === "" || reached.has(o)) || !fed(n)) continue;
        for (const o of n.outputs) if (o !== "") reached.add(o);
        grew = true;
      }
    }
  }
  reached.delete(source);
  return reached;
}

/** Removes the declared shapes of the values computed from `source` (see SetShapeResult); returns their names. */
function dropDownstreamShapes(graph: OnnxGraph, source: string): string[] {
  const reached = downstreamOf(graph, source);
  const dropped: string[] = [];
  for (const g of allGraphs(graph)) {
    const kept = g.valueInfo.filter((v) => !reached.has(v.name));
    for (const v of g.valueInfo) if (reached.has(v.name)) dropped.push(v.name);
    if (kept.length !== g.valueInfo.length) g.valueInfo.splice(0, g.valueInfo.length, ...kept);
    if (g === graph) continue;
    for (const v of g.outputs) {
      if (reached.has(v.name) && v.type.kind === "tensor" && v.type.shape !== undefined) {
        v.type.shape = undefined;
        dropped.push(v.name);
      }
    }
  }
  return dropped;
}
