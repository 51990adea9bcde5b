/**
 * For the quantize tests: a changed model object encoded again from scratch with onnx.create (independent of the
 * writer that writes edits), inputs generated from a graph's declared shapes, and the output comparisons
 * (max |difference|, max relative difference, cosine similarity).
 */
import { create } from "../../bindings/formats/onnx/builder.js";
import type {
  OnnxAttributeInput,
  OnnxGraphInput,
  OnnxTensorInput,
  OnnxValueInfoInput,
} from "../../bindings/formats/onnx/builder.js";
import type {
  OnnxAttribute,
  OnnxGraph,
  OnnxModel,
  OnnxTensor,
  OnnxValueInfo,
} from "../../bindings/formats/onnx/model.js";
import { modelBytes, tensorOf, weightInfo } from "../../bindings/formats/onnx/view.js";
import { ort } from "./ort.js";
import { rng as mulberry32 } from "./rng.js";

function tensorInput(t: OnnxTensor, bytes: Uint8Array | undefined): OnnxTensorInput {
  const values = t.values;
  let data: Uint8Array;
  if (values) data = values;
  else if (t.storage === "none") data = new Uint8Array(0);
  else {
    const w = { name: t.name, tensor: t, kind: "initializer" as const };
    const decoded = tensorOf(bytes!, w, weightInfo(w)).data as ArrayBufferView;
    data = new Uint8Array(decoded.buffer, decoded.byteOffset, decoded.byteLength).slice();
  }
  return { name: t.name, dtype: t.dataType, dims: t.dims, data, docString: t.docString };
}

function valueInput(v: OnnxValueInfo): OnnxValueInfoInput {
  return { name: v.name, dtype: v.type.elemType ?? 1, shape: v.type.shape, docString: v.docString };
}

function attributeInput(a: OnnxAttribute, bytes: Uint8Array | undefined): OnnxAttributeInput {
  switch (a.type) {
    case "FLOAT":
      return { type: "float", value: a.f ?? 0 };
    case "INT":
      return { type: "int", value: a.i ?? 0 };
    case "STRING":
      return { type: "string", value: a.s ?? "" };
    case "TENSOR":
      return { type: "tensor", value: tensorInput(a.t!, bytes) };
    case "GRAPH":
      return { type: "graph", value: graphInput(a.g!, bytes) };
    case "FLOATS":
      return { type: "floats", value: a.floats ?? [] };
    case "INTS":
      return { type: "ints", value: a.ints ?? [] };
    case "STRINGS":
      return { type: "strings", value: a.strings ?? [] };
    case "TENSORS":
      return { type: "tensors", value: (a.tensors ?? []).map((t) => tensorInput(t, bytes)) };
    case "GRAPHS":
      return { type: "graphs", value: (a.graphs ?? []).map((g) => graphInput(g, bytes)) };
    default:
      throw new Error(`rebuild: attribute type ${a.type} not supported`);
  }
}

function graphInput(g: OnnxGraph, bytes: Uint8Array | undefined): OnnxGraphInput {
  return {
    name: g.name,
    nodes: g.nodes.map((n) => ({
      name: n.name,
      opType: n.opType,
      domain: n.domain,
      inputs: n.inputs,
      outputs: n.outputs,
      docString: n.docString,
      attributes: Object.fromEntries(n.attributes.map((a) => [a.name, attributeInput(a, bytes)])),
    })),
    initializers: g.initializers.map((t) => tensorInput(t, bytes)),
    inputs: g.inputs.map(valueInput),
    outputs: g.outputs.map(valueInput),
    valueInfo: g.valueInfo.filter((v) => v.type.kind === "tensor").map(valueInput),
  };
}

/** The model object's current contents as ONNX bytes (everything re-encoded by onnx.create). */
export function rebuild(model: OnnxModel): Uint8Array {
  const bytes = modelBytes.get(model);
  return create({
    irVersion: model.irVersion,
    producerName: model.producerName,
    producerVersion: model.producerVersion,
    opsetImports: model.opsetImports,
    graph: graphInput(model.graph!, bytes),
  });
}

/**
 * Random float inputs (uniform in [-1, 1)) for a graph's inputs: symbolic dims from `dims` (1 otherwise), whole
 * shapes from `shapes`, int64 inputs from `ints` (1 otherwise).
 */
export function generateFeeds(
  model: OnnxModel,
  dims: Record<string, number>,
  ints: Record<string, bigint[]> = {},
  seed = 1,
  shapes: Record<string, number[]> = {},
): Record<string, ort.Tensor> {
  const rng = mulberry32(seed);
  const feeds: Record<string, ort.Tensor> = {};
  const initializers = new Set(model.graph!.initializers.map((t) => t.name));
  for (const v of model.graph!.inputs) {
    if (initializers.has(v.name)) continue;
    const shape = shapes[v.name] ?? (v.type.shape ?? []).map((d) => (typeof d === "number" ? d : (dims[d ?? ""] ?? 1)));
    const count = shape.reduce((a, b) => a * b, 1);
    if (v.type.elemType === 7)
      feeds[v.name] = new ort.Tensor("int64", BigInt64Array.from(ints[v.name] ?? new Array(count).fill(1n)), shape);
    else
      feeds[v.name] = new ort.Tensor(
        "float32",
        Float32Array.from({ length: count }, () => rng() * 2 - 1),
        shape,
      );
  }
  return feeds;
}

export interface Difference {
  maxAbs: number;
  maxRel: number;
  maxRef: number;
  cosine: number;
}

/** How far `got` is from `want` (both widened to float64). */
export function difference(want: ArrayLike<number>, got: ArrayLike<number>): Difference {
  let maxAbs = 0;
  let maxRel = 0;
  let maxRef = 0;
  let dot = 0;
  let a2 = 0;
  let b2 = 0;
  for (let i = 0; i < want.length; i++) {
    const a = Number(want[i]);
    const b = Number(got[i]);
    const d = Math.abs(a - b);
    maxAbs = Math.max(maxAbs, d);
    maxRef = Math.max(maxRef, Math.abs(a));
    if (a !== 0) maxRel = Math.max(maxRel, d / Math.abs(a));
    dot += a * b;
    a2 += a * a;
    b2 += b * b;
  }
  const cosine = a2 === 0 && b2 === 0 ? 1 : dot / Math.sqrt(a2 * b2);
  return { maxAbs, maxRel, maxRef, cosine };
}
