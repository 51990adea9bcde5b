/**
 * The graph adapter for ONNX models (`.onnx` files and each network of an `.april` file): a GraphProto → one
 * GraphModel. Initializers and `Constant` values (the onnx module's weights) become weight rows of their
 * consumer's box (`W ⟨32×16×3×3⟩`, `B ⟨32⟩`: the op's input name where the op is well known), linked to the
 * tensor the table lists under the onnx module's weight name (`<node>/<attr>/<name>` inside subgraphs; an april
 * network's weights get `encoder/` … in front). A Constant that is a graph output, or that nothing reads (in
 * this graph or in its subgraphs), keeps its box.
 * Graph inputs (those that are not initializers) and graph outputs are boxes of their own, as in Netron. Node
 * attributes are one line each in the node panel; GRAPH / GRAPHS attributes (If branches, Loop and Scan bodies)
 * are subgraphs that open like graphs. A subgraph's reads of the outer graph's weights are drawn as weight rows
 * too (values computed outside it are not drawn).
 * Small constants (at most 8 elements) the caller decoded with the library (loadConstantValues) show their values
 * (`B = 16000`, `axes = [0]`). Edges carry the declared type of their value, else the shape shape-infer.ts infers
 * (marked with a trailing `*`; ports say `inferred`).
 */
import {
  type OnnxAttribute,
  type OnnxGraph,
  type OnnxModel,
  type OnnxTensor,
  dataTypeName,
  DATA_TYPES,
  nodeLabel,
  weights,
} from "../../../bindings/formats/onnx.js";
import type { DecodeOptions, NamedTensor } from "../../../bindings/tensor.js";
import {
  type GraphDocument,
  type GraphModel,
  type GraphPort,
  type GraphProperties,
  type GraphWeight,
  type NodeSpec,
  buildGraph,
  shapeText,
} from "./graph.js";
import { onnxOpDocUrl } from "./onnx-ops.js";
import { type Dim, type ValueShape, INFERRED_MARK, inferShapes } from "./shape-infer.js";

/** Input names of common ONNX ops (index = input position), as the operator schemas name them. */
const INPUT_NAMES: Record<string, readonly string[]> = {
  Conv: ["X", "W", "B"],
  ConvTranspose: ["X", "W", "B"],
  ConvInteger: ["x", "w", "x_zero_point", "w_zero_point"],
  Gemm: ["A", "B", "C"],
  MatMul: ["A", "B"],
  Add: ["A", "B"],
  Sub: ["A", "B"],
  Mul: ["A", "B"],
  Div: ["A", "B"],
  Pow: ["X", "Y"],
  PRelu: ["X", "slope"],
  BatchNormalization: ["X", "scale", "B", "mean", "var"],
  InstanceNormalization: ["input", "scale", "B"],
  LayerNormalization: ["X", "Scale", "B"],
  LSTM: ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"],
  GRU: ["X", "W", "R", "B", "sequence_lens", "initial_h"],
  RNN: ["X", "W", "R", "B", "sequence_lens", "initial_h"],
  Reshape: ["data", "shape"],
  Expand: ["input", "shape"],
  Tile: ["input", "repeats"],
  Gather: ["data", "indices"],
  Slice: ["data", "starts", "ends", "axes", "steps"],
  Pad: ["data", "pads", "constant_value", "axes"],
  Resize: ["X", "roi", "scales", "sizes"],
  Unsqueeze: ["data", "axes"],
  Squeeze: ["data", "axes"],
  Concat: [],
  Clip: ["input", "min", "max"],
  Where: ["condition", "X", "Y"],
  Equal: ["A", "B"],
  Less: ["A", "B"],
  Greater: ["A", "B"],
  ReduceMean: ["data", "axes"],
  ReduceSum: ["data", "axes"],
  Split: ["input", "split"],
  If: ["cond"],
  Loop: ["M", "cond"],
  QuantizeLinear: ["x", "y_scale", "y_zero_point"],
  DequantizeLinear: ["x", "x_scale", "x_zero_point"],
};

/** A weight row's label: the op's input name, else `W` for a matrix or bigger, else `in<position>`. */
export function onnxWeightLabel(opType: string, position: number, rank: number): string {
  const known = Object.hasOwn(INPUT_NAMES, opType) ? INPUT_NAMES[opType]![position] : undefined; // (op types from the file)
  if (known) return known;
  return rank >= 2 ? "W" : `in${position}`;
}

function listText(items: readonly (number | string)[], max = 16): string {
  const shown = items.slice(0, max).join(", ");
  return `[${shown}${items.length > max ? `, … (${items.length})` : ""}]`;
}

function tensorText(t: OnnxTensor): string {
  return `${DATA_TYPES[t.dataType]?.dtype ?? dataTypeName(t.dataType)} ${shapeText(t.dims)}${t.name ? ` ${t.name}` : ""}`;
}

/** Attributes whose INT value is a TensorProto.DataType (shown by name: `to = FLOAT16`), by op type. */
const DATA_TYPE_ATTRIBUTES: Record<string, readonly string[]> = {
  Cast: ["to"],
  EyeLike: ["dtype"],
  RandomNormal: ["dtype"],
  RandomNormalLike: ["dtype"],
  RandomUniform: ["dtype"],
  RandomUniformLike: ["dtype"],
  Multinomial: ["dtype"],
  Bernoulli: ["dtype"],
  QuantizeLinear: ["output_dtype"],
  DynamicQuantizeLinear: ["output_dtype"],
};

/** Whether `attribute` of `opType` holds a data type number. */
export function isDataTypeAttribute(opType: string, attribute: string): boolean {
  return Object.hasOwn(DATA_TYPE_ATTRIBUTES, opType) && DATA_TYPE_ATTRIBUTES[opType]!.includes(attribute);
}

/** One attribute as one line of the node panel; `opType` names enum values (Cast's `to`: `FLOAT16`, not `10`). */
export function onnxAttributeText(a: OnnxAttribute, opType = ""): string {
  const clip = (text: string) => (text.length > 200 ? `${text.slice(0, 199)}…` : text);
  switch (a.type) {
    case "FLOAT":
      return String(a.f ?? 0);
    case "INT":
      return isDataTypeAttribute(opType, a.name) ? dataTypeName(Number(a.i ?? 0)) : String(a.i ?? 0);
    case "STRING":
      return clip(JSON.stringify(a.s ?? ""));
    case "FLOATS":
      return listText(a.floats ?? []);
    case "INTS":
      return listText(a.ints ?? []);
    case "STRINGS":
      return clip(listText((a.strings ?? []).map((s) => JSON.stringify(s))));
    case "TENSOR":
      return a.t ? tensorText(a.t) : "tensor";
    case "TENSORS":
      return listText((a.tensors ?? []).map(tensorText), 4);
    case "GRAPH":
      return `graph ${a.g?.name || a.name} (${a.g?.nodes.length ?? 0} nodes)`;
    case "GRAPHS":
      return `${a.graphs?.length ?? 0} graphs`;
    case "SPARSE_TENSOR":
      return a.sparseTensor ? `sparse ${shapeText(a.sparseTensor.dims)}` : "sparse tensor";
    default:
      return a.refAttrName ? `→ ${a.refAttrName}` : a.type.toLowerCase();
  }
}

/** A value's type as text: `float32 ⟨1×3×?⟩` (symbolic dims by name). */
function valueTypeText(type: OnnxGraph["inputs"][number]["type"]): string {
  const elem =
    type.elemType !== undefined ? (DATA_TYPES[type.elemType]?.dtype ?? dataTypeName(type.elemType)) : type.kind;
  return type.shape ? `${elem} ⟨${type.shape.map((d) => d ?? "?").join("×")}⟩` : elem;
}

/** Every value name the graph's nodes read, those its subgraphs read (from its scope) included. */
function valuesRead(graph: OnnxGraph, into = new Set<string>()): Set<string> {
  for (const node of graph.nodes) {
    for (const input of node.inputs) if (input !== "") into.add(input);
    for (const a of node.attributes) {
      if (a.g) valuesRead(a.g, into);
      for (const sub of a.graphs ?? []) valuesRead(sub, into);
    }
  }
  return into;
}

/** Where a value comes from: a box of the graph, or a weight (an initializer or a folded Constant). */
type Source = { box: number } | { weight: OnnxTensor; name: string };

interface Scope {
  /** Weight values visible from the graph (its own and its enclosing graphs'), by value name. */
  weights: Map<string, { weight: OnnxTensor; name: string }>;
  /** Declared types of values visible from the graph (inputs, outputs, value_info, weights), by value name. */
  types: Map<string, string>;
  /** Types visible from the graph as shapes, declared and inferred (shape-infer.ts), by value name. */
  shapes: Map<string, ValueShape>;
  /** Labels of inferred types (`float32 ⟨1×64⟩*`) of values the model declares no shape for, by value name. */
  inferred: Map<string, string>;
  /** The elements of small constants the caller decoded (loadConstantValues). */
  values: ConstantValues;
}

/** At most this many attributes are drawn inside a box. */
const INLINE_MAX = 4;

/** An attribute as a box line (`to = FLOAT16`, `axis = 1`, `axes = [0]`), or undefined when it is too big to inline. */
export function onnxInlineAttribute(a: OnnxAttribute, opType: string): string | undefined {
  if (a.type === "INT" || a.type === "FLOAT") return `${a.name} = ${onnxAttributeText(a, opType)}`;
  if ((a.type === "INTS" || a.type === "FLOATS") && (a.type === "INTS" ? a.ints : a.floats)!.length <= 4)
    return `${a.name} = ${onnxAttributeText(a, opType)}`;
  if (a.type === "STRING" && (a.s ?? "").length <= 16) return `${a.name} = ${onnxAttributeText(a, opType)}`;
  return undefined;
}

function tensorType(t: OnnxTensor): string {
  return `${DATA_TYPES[t.dataType]?.dtype ?? dataTypeName(t.dataType)} ${shapeText(t.dims)}`;
}

/** A small constant's elements, decoded by the library (loadConstantValues): as box text, and as integers. */
export interface ConstantValue {
  /** `16000`, `[0]`, `[1, -1, 64]`, `0.5`, `true`: ints as ints, floats as their shortest round trip. */
  text: string;
  /** The elements when they are integers (shape inference reads Reshape's shape, Unsqueeze's axes…). */
  ints?: number[] | undefined;
  /** The elements of a float constant (Resize's scales). */
  floats?: number[] | undefined;
}

/** Decoded small constants by TensorProto (empty: boxes show `B ⟨⟩` and inference reads no constant). */
export type ConstantValues = ReadonlyMap<OnnxTensor, ConstantValue>;

/** Constants of at most this many elements are shown with their values (`axes = [0]`). */
export const INLINE_VALUE_MAX_ELEMENTS = 8;
/** A value longer than this as text keeps its shape row (`B ⟨8⟩`). */
const INLINE_VALUE_MAX_CHARS = 40;

/** Small constants read at the same time. */
const LOAD_BATCH = 16;

const NARROW_FLOATS = new Set(["float16", "bfloat16", "float8_e4m3", "float8_e5m2"]);

/** The shortest decimal that reads back as the same float32 (`0.1`, not `0.10000000149011612`). */
function float32Text(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  for (let p = 1; p <= 9; p++) {
    const text = String(Number(v.toPrecision(p)));
    if (Math.fround(Number(text)) === v) return text;
  }
  return String(v);
}

/** A decoded tensor as a ConstantValue (undefined for a dtype shown by shape only, e.g. complex or raw bytes). */
export function constantValueOf(tensor: NamedTensor): ConstantValue | undefined {
  const data = tensor.data as ArrayLike<number | bigint>;
  const items: string[] = [];
  const ints: number[] = [];
  const floats: number[] = [];
  let integral = true;
  for (let k = 0; k < data.length; k++) {
    const v = data[k]!;
    if (typeof v === "bigint") {
      items.push(String(v));
      ints.push(Number(v));
    } else if (tensor.dtype === "bool") {
      items.push(v !== 0 ? "true" : "false");
      integral = false;
    } else if (tensor.dtype === "float32") {
      items.push(float32Text(v));
      floats.push(v);
      integral = false;
    } else if (tensor.dtype === "float64") {
      items.push(String(v));
      floats.push(v);
      integral = false;
    } else if (/^u?int(8|16|32)$/.test(tensor.dtype)) {
      items.push(String(v));
      ints.push(v);
    } else return undefined;
  }
  const nested = (dims: readonly number[], at: number): [string, number] => {
    if (dims.length === 0) return [items[at] ?? "", at + 1];
    const parts: string[] = [];
    for (let k = 0; k < dims[0]!; k++) {
      const [text, next] = nested(dims.slice(1), at);
      parts.push(text);
      at = next;
    }
    return [`[${parts.join(", ")}]`, at];
  };
  return {
    text: nested(tensor.shape, 0)[0],
    ints: integral ? ints : undefined,
    floats: floats.length === data.length && data.length > 0 ? floats : undefined,
  };
}

/** The weights small enough to be shown with their values: at most `maxElements`, stored in the file (not external). */
export function smallConstants(model: OnnxModel, maxElements = INLINE_VALUE_MAX_ELEMENTS): OnnxTensor[] {
  return weights(model)
    .map((w) => w.tensor)
    .filter(
      (t) =>
        t.storage !== "external" &&
        DATA_TYPES[t.dataType]?.dtype !== undefined &&
        t.dims.reduce((p, d) => p * d, 1) <= maxElements,
    );
}

/**
 * Decodes a model's small constants with `load` (the format's loadTensor over the opened file; narrow floats are
 * asked for as float32). A constant that fails to load is shown by its shape, as before.
 */
export async function loadConstantValues(
  model: OnnxModel,
  load: (t: OnnxTensor, options: DecodeOptions) => Promise<NamedTensor | undefined>,
): Promise<Map<OnnxTensor, ConstantValue>> {
  const values = new Map<OnnxTensor, ConstantValue>();
  const one = async (t: OnnxTensor) => {
    const dtype = DATA_TYPES[t.dataType]?.dtype ?? "";
    try {
      const tensor = await load(t, NARROW_FLOATS.has(dtype) ? { dtype: "float32" } : {});
      const value = tensor ? constantValueOf(tensor) : undefined;
      if (value) values.set(t, value);
    } catch {
      // a damaged constant: its row keeps the shape (the table shows the error when it is opened)
    }
  };
  // a few reads at a time: a model with thousands of small constants is not read one round trip after another
  const all = smallConstants(model);
  for (let k = 0; k < all.length; k += LOAD_BATCH) await Promise.all(all.slice(k, k + LOAD_BATCH).map(one));
  return values;
}

/** A shape as ValueShape dims. */
function declaredShape(
  elemType: number | undefined,
  dims: readonly (number | string | null)[] | undefined,
): ValueShape {
  return { elemType, dims: dims ? [...dims] : undefined };
}

/** An inferred type as an edge label: `float32 ⟨1×?×64⟩*` (symbolic dims by name, unknown ones `?`). */
export function inferredTypeText(shape: ValueShape): string | undefined {
  if (!shape.dims) return undefined;
  const elem = shape.elemType !== undefined ? (DATA_TYPES[shape.elemType]?.dtype ?? dataTypeName(shape.elemType)) : "?";
  return `${elem} ⟨${shape.dims.map((d: Dim) => d ?? "?").join("×")}⟩${INFERRED_MARK}`;
}

/**
 * The graph of one GraphProto. `tensorName` maps a weight's TensorProto to the name the file's tensor table lists
 * it under (undefined: the table does not list it, e.g. a string tensor); `values` holds the small constants the
 * caller decoded (shown inline, and read by the shape inference).
 */
export function onnxGraphModel(
  graph: OnnxGraph,
  tensorName: (t: OnnxTensor) => string | undefined,
  name = graph.name || "graph",
  outer?: Scope,
  values: ConstantValues = outer?.values ?? new Map(),
): GraphModel {
  const initializerNames = new Set(graph.initializers.map((t) => t.name));
  const outputNames = new Set(graph.outputs.map((o) => o.name));
  const consumed = valuesRead(graph);
  const scope: Scope = {
    weights: new Map(outer?.weights),
    types: new Map(outer?.types),
    shapes: new Map(outer?.shapes),
    inferred: new Map(outer?.inferred),
    values,
  };
  for (const t of graph.initializers) scope.weights.set(t.name, { weight: t, name: t.name });
  for (const t of graph.initializers) scope.types.set(t.name, tensorType(t));
  for (const t of graph.initializers) scope.shapes.set(t.name, declaredShape(t.dataType, t.dims));
  for (const v of [...graph.inputs, ...graph.outputs, ...graph.valueInfo])
    if (v.type.kind !== "unknown") {
      scope.types.set(v.name, valueTypeText(v.type));
      if (v.type.kind === "tensor") scope.shapes.set(v.name, declaredShape(v.type.elemType, v.type.shape));
      scope.inferred.delete(v.name);
    }
  const constantValue = (node: OnnxGraph["nodes"][number]) =>
    node.opType === "Constant" && (node.domain === "" || node.domain === "ai.onnx") && node.outputs.length === 1
      ? node.attributes.find((a) => a.name === "value" && a.t)?.t
      : undefined;
  const folded = new Set<number>();
  graph.nodes.forEach((node, i) => {
    const value = constantValue(node);
    const output = node.outputs[0]!;
    if (value && consumed.has(output) && !outputNames.has(output)) {
      folded.add(i);
      scope.weights.set(output, { weight: value, name: output });
    }
    if (value && !scope.types.has(output)) scope.types.set(output, tensorType(value));
    if (value && scope.shapes.get(output)?.dims === undefined)
      scope.shapes.set(output, declaredShape(value.dataType, value.dims));
  });
  // shapes of the values the model declares none for (inferred labels end with INFERRED_MARK)
  const constantInts = new Map<string, number[]>();
  const constantFloats = new Map<string, number[]>();
  for (const [value, w] of scope.weights) {
    const decoded = values.get(w.weight);
    if (decoded?.ints && w.weight.dims.length <= 1) constantInts.set(value, decoded.ints);
    if (decoded?.floats && w.weight.dims.length <= 1) constantFloats.set(value, decoded.floats);
  }
  for (const [value, shape] of inferShapes(graph, scope.shapes, constantInts, constantFloats)) {
    scope.shapes.set(value, shape);
    const text = inferredTypeText(shape);
    if (text !== undefined) scope.inferred.set(value, text);
  }
  /** A value's edge label: its declared type when that has a shape, else an inferred one, else what is declared. */
  const labelOf = (value: string): string | undefined => scope.inferred.get(value) ?? scope.types.get(value);

  const specs: NodeSpec[] = [];
  const sources = new Map<string, Source>();
  const inputIds: number[] = [];
  const outputIds: number[] = [];
  const inlineValue = (t: OnnxTensor): string | undefined => {
    const text = values.get(t)?.text;
    return text !== undefined && text.length <= INLINE_VALUE_MAX_CHARS ? text : undefined;
  };
  const weightRow = (opType: string, position: number, w: { weight: OnnxTensor; name: string }): GraphWeight => {
    const tensor = tensorName(w.weight);
    return {
      label: onnxWeightLabel(opType, position, w.weight.dims.length),
      name: w.name,
      tensors: tensor !== undefined ? [tensor] : [],
      dtype: DATA_TYPES[w.weight.dataType]?.dtype ?? dataTypeName(w.weight.dataType),
      shape: [...w.weight.dims],
      value: inlineValue(w.weight),
    };
  };

  for (const input of graph.inputs) {
    if (initializerNames.has(input.name)) continue; // IR < 4 lists initializers as inputs too
    const id = specs.length;
    specs.push({
      id,
      name: input.name,
      op: "input",
      kind: "input",
      inputs: [],
      outputs: [input.name],
      attrs: [["type", valueTypeText(input.type)]],
      weights: [],
      tensors: [],
      subgraphs: [],
    });
    sources.set(input.name, { box: id });
    inputIds.push(id);
  }
  // every node's box id first, then the links: a node list that is not in producer order (ISNet's) still gets
  // all its edges (the first producer of a name wins, as graph inputs come before nodes)
  const boxOf = new Map<number, number>();
  graph.nodes.forEach((node, i) => {
    if (folded.has(i)) return;
    const id = inputIds.length + boxOf.size;
    boxOf.set(i, id);
    for (const output of node.outputs) if (output !== "" && !sources.has(output)) sources.set(output, { box: id });
  });
  graph.nodes.forEach((node, i) => {
    const id = boxOf.get(i);
    if (id === undefined) return;
    const label = nodeLabel(node, i);
    const inputs: number[] = [];
    const inputLabels: (string | undefined)[] = [];
    const rows: GraphWeight[] = [];
    node.inputs.forEach((value, position) => {
      if (value === "") return;
      const source = sources.get(value);
      if (source && "box" in source && source.box !== id) {
        inputs.push(source.box);
        inputLabels.push(labelOf(value));
        return;
      }
      const w = scope.weights.get(value);
      if (w) rows.push(weightRow(node.opType, position, w));
    });
    const attrs: [string, string][] = node.attributes.map((a) => [a.name, onnxAttributeText(a, node.opType)]);
    if (node.domain !== "" && node.domain !== "ai.onnx") attrs.unshift(["#domain", node.domain]);
    const subgraphs: NodeSpec["subgraphs"] = [];
    for (const a of node.attributes) {
      if (a.g) subgraphs.push({ name: a.name, graph: onnxGraphModel(a.g, tensorName, a.g.name || a.name, scope) });
      a.graphs?.forEach((sub, k) =>
        subgraphs.push({
          name: `${a.name}/${k}`,
          graph: onnxGraphModel(sub, tensorName, sub.name || `${a.name}/${k}`, scope),
        }),
      );
    }
    const value = constantValue(node);
    const tensor = value ? tensorName(value) : undefined;
    const port = (name: string): GraphPort => {
      const inferred = name === "" ? undefined : scope.inferred.get(name);
      if (inferred !== undefined) return { name, type: inferred.slice(0, -INFERRED_MARK.length), inferred: true };
      return { name, type: name === "" ? undefined : scope.types.get(name) };
    };
    const inline = node.attributes
      .map((a) => onnxInlineAttribute(a, node.opType))
      .filter((line): line is string => line !== undefined);
    specs.push({
      id,
      name: label,
      op: node.opType,
      kind: value ? "const" : "op",
      inputs,
      outputs: [...node.outputs],
      attrs,
      weights: rows,
      tensors: tensor !== undefined ? [tensor] : [],
      subgraphs,
      ports: { inputs: node.inputs.map(port), outputs: node.outputs.map(port) },
      inputLabels,
      inline: value
        ? undefined
        : inline.length > INLINE_MAX
          ? [...inline.slice(0, INLINE_MAX - 1), `… ${inline.length - INLINE_MAX + 1} more`]
          : inline,
      docUrl: onnxOpDocUrl(node.opType, node.domain),
    });
  });
  for (const output of graph.outputs) {
    const id = specs.length;
    const source = sources.get(output.name);
    const w = source ? undefined : scope.weights.get(output.name);
    specs.push({
      id,
      name: output.name,
      op: "output",
      kind: "output",
      inputs: source && "box" in source ? [source.box] : [],
      inputLabels: [labelOf(output.name)],
      outputs: [],
      attrs: [["type", valueTypeText(output.type)]],
      weights: w ? [weightRow("", 0, w)] : [],
      tensors: [],
      subgraphs: [],
    });
    outputIds.push(id);
  }
  return buildGraph(name, specs, inputIds, outputIds, graph.nodes.length);
}

/** The tensor-table names of a model's weights (onnx.weights()), by TensorProto, with `prefix` in front. */
export function onnxTensorNames(model: OnnxModel, prefix = ""): (t: OnnxTensor) => string | undefined {
  const names = new Map<OnnxTensor, string>();
  for (const w of weights(model)) names.set(w.tensor, prefix + w.name);
  return (t) => names.get(t);
}

/** What the Properties panel shows of an ONNX model: producer, IR version, opsets, metadata_props, inputs, outputs. */
export function onnxProperties(model: OnnxModel): GraphProperties {
  const graph = model.graph;
  const initializers = new Set(graph?.initializers.map((t) => t.name) ?? []);
  const port = (v: OnnxGraph["inputs"][number]): GraphPort => ({ name: v.name, type: valueTypeText(v.type) });
  const fields: [string, string][] = [
    ["producer", [model.producerName, model.producerVersion].filter((t) => t !== "").join(" ") || "(not stated)"],
    ["IR version", String(model.irVersion)],
    [
      "opset",
      model.opsetImports.map((o) => `${o.domain === "" ? "ai.onnx" : o.domain} ${o.version}`).join(", ") || "(none)",
    ],
  ];
  if (model.domain) fields.push(["domain", model.domain]);
  if (model.modelVersion) fields.push(["model version", String(model.modelVersion)]);
  if (model.docString)
    fields.push(["doc", model.docString.length > 400 ? `${model.docString.slice(0, 399)}…` : model.docString]);
  if (graph?.name) fields.push(["graph", graph.name]);
  return {
    format: "ONNX",
    fields,
    metadata: model.metadataProps.map((p) => [p.key, p.value]),
    inputs: (graph?.inputs ?? []).filter((v) => !initializers.has(v.name)).map(port),
    outputs: (graph?.outputs ?? []).map(port),
  };
}

/** The graph of a model; a model without a graph gives a graph that says so. */
export function onnxModelGraph(model: OnnxModel, name?: string, prefix = "", values?: ConstantValues): GraphModel {
  if (!model.graph) return unavailableGraph(name ?? "graph", "the model has no graph");
  return {
    ...onnxGraphModel(
      model.graph,
      onnxTensorNames(model, prefix),
      name ?? (model.graph.name || "graph"),
      undefined,
      values,
    ),
    properties: onnxProperties(model),
  };
}

/** A graph that shows why there is none (an april network that is not readable ONNX). */
export function unavailableGraph(name: string, reason: string): GraphModel {
  return { ...buildGraph(name, [], [], [], 0), error: reason };
}

/** The graph of an ONNX model; `values`: its small constants, decoded (loadConstantValues). */
export function onnxGraphDocument(model: OnnxModel, values?: ConstantValues): GraphDocument {
  return { graphs: [onnxModelGraph(model, undefined, "", values)] };
}

/** The april networks in file order (encoder, decoder, joiner); weights are named `<network>/<weight name>`. */
export function aprilGraphDocument(
  file: {
    onnx?: Partial<Record<string, OnnxModel>> | undefined;
    onnxErrors?: Partial<Record<string, string>> | undefined;
  },
  networks: readonly string[],
  values?: ConstantValues,
): GraphDocument {
  return {
    graphs: networks.map((network) => {
      const model = file.onnx?.[network];
      if (!model) return unavailableGraph(network, file.onnxErrors?.[network] ?? "not a readable ONNX model");
      return onnxModelGraph(model, network, `${network}/`, values);
    }),
  };
}
