/**
 * ONNX views: the weights (every initializer and Constant `value`, at every depth, with their path names),
 * tensorInfos/tensors/loadTensor (raw_data as plain byte ranges; typed fields decoded from their TensorProto;
 * external data read through external.ts), inspect, verify, blobs.
 */
import { CorruptDataError, UnsupportedError } from "../../bytes/errors.js";
import { type ByteBacking, ByteReader } from "../../bytes/byte-reader.js";
import * as lazy from "../../io/lazy.js";
import { dictionary, uniqueNames } from "../../bytes/names.js";
import { type ByteSource, readExactly } from "../../io/source.js";
import {
  type DType,
  type DecodeOptions,
  type NamedTensor,
  type TensorInfo,
  decodeRowMajorTensor,
  elementCount,
} from "../../tensor.js";
import type { EmbeddedBlob, InspectResult, InspectTensor } from "../types.js";
import {
  DATA_TYPES,
  type OnnxDataTypeInfo,
  type OnnxGraph,
  type OnnxModel,
  type OnnxNode,
  type OnnxStorage,
  type OnnxTensor,
  type OnnxValueInfo,
  TYPED_FIELD_NUMBERS,
  dataTypeName,
  id,
  rawByteLength,
} from "./model.js";
import { noFolderError, readExternalBytes } from "./external.js";
import { ProtoCursor, WIRE_LEN, protoText, putEntry, readVarintAt, varintValue } from "./wire.js";
import { visitWaitingNodes } from "./reader-graph.js";
import { type ScannedConstant, scannedConstant } from "./reader-scan.js";

/** The bytes of a read() result (readFrom() results have none). */
export const modelBytes = new WeakMap<object, Uint8Array>();

/** One weight: an initializer or a Constant node's `value` tensor, at any graph depth. */
export interface OnnxWeight {
  /** The weight's name: its ONNX name, prefixed by `<node>/<attribute>/` per enclosing subgraph. */
  name: string;
  /** Its TensorProto. */
  tensor: OnnxTensor;
  /** `initializer` (GraphProto field 5) or `constant` (a Constant node's `value` attribute). */
  kind: "initializer" | "constant";
}

/** How a weight's TensorInfo says where its data is beyond a plain byte range. */
export interface OnnxStorageInfo {
  /** The TensorProto field holding the data (a typed field, or `external`). */
  storage: OnnxStorage;
  /** TensorProto.DataType code (see {@link dataTypeName}). */
  dataType: number;
  /** external: the file beside the model. */
  location?: string | undefined;
}

/**
 * A weight's TensorInfo: byteOffset/byteLength are the raw_data (or packed float/double) payload in the model
 * bytes; for typed fields they span the TensorProto body, for external data the range in the external file.
 */
export type OnnxTensorInfo = TensorInfo & {
  /** Set when the data is not a plain little-endian byte range of the model (typed fields, external). */
  onnx?: OnnxStorageInfo | undefined;
};

/** The label of a node in weight paths: its name, or `<op_type>#<index in its graph>` when it has none. */
export function nodeLabel(node: { name: string; opType: string }, index: number): string {
  return node.name !== "" ? node.name : `${node.opType}#${index}`;
}

function isWeightTensor(t: OnnxTensor): boolean {
  const info = DATA_TYPES[t.dataType];
  return info !== undefined && info.dtype !== undefined;
}

/**
 * Every weight of `model`, in file order per graph (initializers, then nodes' Constants and subgraphs), with
 * distinct names: a repeated name gets `#2`, `#3`, … skipping names already taken (bytes/names.ts uniqueNames).
 */
export function weights(model: OnnxModel): OnnxWeight[] {
  const out: OnnxWeight[] = [];
  const add = (name: string, tensor: OnnxTensor, kind: OnnxWeight["kind"]) => {
    if (!isWeightTensor(tensor)) return;
    out.push({ name, tensor, kind });
  };
  const walk = (g: OnnxGraph, prefix: string) => {
    for (const t of g.initializers) add(prefix + t.name, t, "initializer");
    g.nodes.forEach((node, i) => nodeWeights(node, i, prefix, add, walk));
  };
  if (model.graph) walk(model.graph, "");
  const names = uniqueNames(out.map((w) => w.name));
  out.forEach((w, i) => (w.name = names[i]!));
  return out;
}

/** The logical shape: the dims, or [stored bytes] for the 4-bit types shown as their bytes. */
function logicalShape(info: OnnxDataTypeInfo, dims: number[]): number[] {
  return info.bits === 4 ? [rawByteLength(info, elementCount(dims))] : dims.slice();
}

export function weightInfo(w: OnnxWeight, prefix = ""): OnnxTensorInfo {
  const t = w.tensor;
  const type = DATA_TYPES[t.dataType]!;
  const own = t.frames[t.frames.length - 1];
  const base = {
    name: prefix + w.name,
    dtype: type.dtype!,
    shape: logicalShape(type, t.dims),
    byteOrder: "le" as const,
    layout: "row-major" as const,
    format: id,
  };
  const bytes = rawByteLength(type, elementCount(t.dims));
  // a new tensor (makeTensor) or new elements set on one: they are in `values`, not in the model's bytes yet
  if (t.values) return { ...base, byteOffset: 0, byteLength: t.values.length };
  if (t.packed) return { ...base, byteOffset: t.packed.byteOffset, byteLength: t.packed.byteLength };
  switch (t.storage) {
    case "raw_data":
      return { ...base, byteOffset: t.data.byteOffset, byteLength: t.data.byteLength };
    case "none":
      return { ...base, byteOffset: own?.bodyStart ?? 0, byteLength: 0 };
    case "external":
      return {
        ...base,
        byteOffset: t.external!.offset,
        byteLength: bytes,
        onnx: { storage: "external", dataType: t.dataType, location: t.external!.location },
      };
    default:
      return {
        ...base,
        byteOffset: own!.bodyStart,
        byteLength: own!.bodyEnd - own!.bodyStart,
        onnx: { storage: t.storage, dataType: t.dataType },
      };
  }
}

/** The TensorInfo of every weight ({@link weights} order); nothing is decoded. */
export function tensorInfos(model: OnnxModel): OnnxTensorInfo[] {
  return weights(model).map((w) => weightInfo(w));
}

// ------------------------------------------------------------------------------------- typed-field decode

/** A ByteBacking over `bytes` placed at absolute offset `base` (so errors name file offsets). */
export function backingAt(bytes: Uint8Array, base: number): ByteBacking {
  return { size: base + bytes.length, window: () => ({ bytes, start: base }) };
}

/** Writes the varints of packed bytes as `width`-byte little-endian integers (two's complement kept). */
function varintsInto(
  src: Uint8Array,
  from: number,
  to: number,
  out: DataView,
  at: number,
  width: number,
  base: number,
  field: string,
): number {
  let i = from;
  while (i < to) {
    const n = readVarintAt(src, i, to);
    if (n === 0) throw new CorruptDataError(id, "packed varint runs past the end of its field", base + i, field);
    if (n < 0) throw new CorruptDataError(id, "varint longer than 10 bytes", base + i, field);
    if (at + width > out.byteLength) throw new CorruptDataError(id, "more entries than the dims hold", base + i, field);
    putEntry(out, at, width, varintValue.lo, varintValue.hi);
    at += width;
    i += n;
  }
  return at;
}

/**
 * The stored elements of a typed-field tensor as raw_data would hold them (little-endian, `dtype` width), from its
 * TensorProto body (`body`, at absolute offset `base`). CORRUPT when the entries do not fill the dims exactly.
 */
export function decodeTypedBody(
  body: Uint8Array,
  base: number,
  storage: OnnxStorage,
  dataType: number,
  field = "tensor",
): Uint8Array {
  const type = DATA_TYPES[dataType];
  if (!type) throw new UnsupportedError(id, `${dataTypeName(dataType)} has no decoder`, base, field);
  const r = new ByteReader(backingAt(body, base), id, { start: base, end: base + body.length });
  const c = new ProtoCursor(r, base, base + body.length, 1, field);
  const dims: number[] = [];
  const pieces: { start: number; end: number; packed: boolean }[] = [];
  const fieldNumber = TYPED_FIELD_NUMBERS[storage];
  if (fieldNumber === undefined) throw new UnsupportedError(id, `storage ${storage} is not a typed field`, base, field);
  for (let head = c.next(); head; head = c.next()) {
    if (head.field === 1) {
      if (head.wire === WIRE_LEN) {
        const span = c.len(`${field}.dims`);
        const resume = c.pos;
        const inner = new ProtoCursor(r, span.start, span.end, 2, `${field}.dims`, c.top);
        while (!inner.done) dims.push(inner.int64(`${field}.dims`));
        r.pos = resume;
      } else dims.push(c.int64(`${field}.dims`));
    } else if (head.field === fieldNumber) {
      const start = c.pos;
      if (head.wire === WIRE_LEN) {
        const span = c.len(`${field}.${storage}`);
        pieces.push({ start: span.start, end: span.end, packed: true });
      } else {
        c.skip(head, `${field}.${storage}`);
        pieces.push({ start, end: c.pos, packed: false });
      }
    } else c.skip(head, `${field}.field${head.field}`);
  }
  const count = elementCount(dims);
  const byteLength = rawByteLength(type, count);
  const fixed = storage === "float_data" || storage === "double_data";
  if (fixed && pieces.length === 1 && pieces[0]!.packed && pieces[0]!.end - pieces[0]!.start === byteLength) {
    // one packed float/double field: its bytes are raw_data's already (a view, no copy)
    return body.subarray(pieces[0]!.start - base, pieces[0]!.end - base);
  }
  const out = new Uint8Array(byteLength);
  const view = new DataView(out.buffer);
  let at = 0;
  const fixedWidth = storage === "float_data" ? 4 : storage === "double_data" ? 8 : 0;
  for (const p of pieces) {
    if (fixedWidth > 0) {
      const n = p.end - p.start;
      if (at + n > out.length)
        throw new CorruptDataError(id, "more entries than the dims hold", p.start, `${field}.${storage}`);
      out.set(body.subarray(p.start - base, p.end - base), at);
      at += n;
    } else {
      // entries are one element each (4-bit types: one byte of two elements)
      const width = type.bits === 4 ? 1 : type.bits / 8;
      at = varintsInto(body, p.start - base, p.end - base, view, at, width, base, `${field}.${storage}`);
    }
  }
  if (at !== out.length) {
    throw new CorruptDataError(
      id,
      `dims [${dims.join(", ")}] of ${type.name} take ${out.length} bytes, ${storage} holds ${at}`,
      base,
      `${field}.${storage}`,
    );
  }
  return out;
}

// ------------------------------------------------------------------------------------------ tensors

function decodeWeight(bytes: Uint8Array, info: OnnxTensorInfo, options: DecodeOptions | undefined): NamedTensor {
  // without `onnx` (a rest copy: `delete` would leave an object in slow dictionary mode, one per weight)
  const { onnx: _storage, ...rest } = info;
  const plain: TensorInfo = { ...rest, byteLength: bytes.length };
  const tensor = decodeRowMajorTensor(bytes, plain, options, id);
  tensor.shape = info.shape.slice();
  return tensor;
}

/** The weights of a read() result, decoded (row-major; typed fields converted to the dtype's array). */
export function tensors(model: OnnxModel, options?: DecodeOptions): NamedTensor[] {
  lazy.assertEager(model, id);
  const bytes = modelBytes.get(model);
  if (!bytes)
    throw new UnsupportedError(id, "this model object has no bytes (use a read() result)", undefined, "tensors");
  // graphs whose nodes were never accessed give their Constants' weights from the node bytes (no node objects)
  const found: { name: string; weight: OnnxWeight | undefined; scanned: ScannedConstant | undefined }[] = [];
  const walk = (g: OnnxGraph, prefix: string) => {
    for (const t of g.initializers)
      if (isWeightTensor(t))
        found.push({ name: prefix + t.name, weight: { name: "", tensor: t, kind: "initializer" }, scanned: undefined });
    const pushParsed = (name: string, tensor: OnnxTensor, kind: OnnxWeight["kind"]) => {
      found.push({ name, weight: { name: "", tensor, kind }, scanned: undefined });
    };
    const waiting = visitWaitingNodes(g, (node, nodeBytes, start, end, i) => {
      if (node) {
        nodeWeights(node, i, prefix, pushParsed, walk);
        return;
      }
      const c = scannedConstant(nodeBytes, start, end, protoText);
      if (c && DATA_TYPES[c.dataType]?.dtype !== undefined)
        found.push({
          name: prefix + (c.output || c.tensorName || (c.name !== "" ? c.name : `Constant#${i}`)),
          weight: undefined,
          scanned: c,
        });
    });
    if (!waiting) g.nodes.forEach((node, i) => nodeWeights(node, i, prefix, pushParsed, walk));
  };
  if (model.graph) walk(model.graph, "");
  const names = uniqueNames(found.map((f) => f.name));
  return found.map((f, i) => {
    const name = names[i]!;
    if (f.weight) {
      f.weight.name = name;
      return tensorOf(bytes, f.weight, weightInfo(f.weight), options);
    }
    const c = f.scanned!;
    const type = DATA_TYPES[c.dataType]!;
    const raw = c.rawStart >= 0;
    const info: TensorInfo = {
      name,
      dtype: type.dtype!,
      shape: logicalShape(type, c.dims),
      byteOrder: "le",
      layout: "row-major",
      format: id,
      byteOffset: raw ? c.rawStart : c.bodyStart,
      byteLength: raw ? c.rawEnd - c.rawStart : 0,
    };
    const data = bytes.subarray(info.byteOffset, info.byteOffset + info.byteLength);
    return decodeWeight(data, info, { ...options, copy: options?.copy ?? false });
  });
}

/** The weight of a Constant `node` (the `index`th of its graph) and those of its subgraphs (`walk`), as weights() names them. */
function nodeWeights(
  node: OnnxNode,
  index: number,
  prefix: string,
  add: (name: string, tensor: OnnxTensor, kind: OnnxWeight["kind"]) => void,
  walk: (g: OnnxGraph, prefix: string) => void,
): void {
  const label = nodeLabel(node, index);
  if (node.opType === "Constant" && (node.domain === "" || node.domain === "ai.onnx")) {
    const value = node.attributes.find((a) => a.name === "value" && a.t);
    if (value?.t && isWeightTensor(value.t))
      add(prefix + (node.outputs[0] || value.t.name || label), value.t, "constant");
  }
  for (const a of node.attributes) {
    if (a.g) walk(a.g, `${prefix}${label}/${a.name}/`);
    a.graphs?.forEach((sub, k) => walk(sub, `${prefix}${label}/${a.name}/${k}/`));
  }
}

/** One weight of a model whose bytes are in memory (`bytes`: the whole file). */
export function tensorOf(bytes: Uint8Array, w: OnnxWeight, info: OnnxTensorInfo, options?: DecodeOptions): NamedTensor {
  const t = w.tensor;
  if (t.values) return decodeWeight(t.values, info, { ...options, copy: options?.copy ?? false });
  if (t.storage === "external")
    throw noFolderError(
      undefined,
      info,
      "open the model from its path (loadFile, openFile, fromFile or the CLI), or name the folder with the externalData option",
    );
  if (info.onnx) {
    const own = t.frames[t.frames.length - 1]!;
    const body = bytes.subarray(own.bodyStart, own.bodyEnd);
    return decodeWeight(decodeTypedBody(body, own.bodyStart, t.storage, t.dataType, info.name), info, options);
  }
  return decodeWeight(bytes.subarray(info.byteOffset, info.byteOffset + info.byteLength), info, {
    ...options,
    copy: options?.copy ?? false,
  });
}

/** Reads and decodes one weight of a readFrom() result (typed fields: its TensorProto is read and decoded). */
export async function loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor> {
  const onnx = (info as OnnxTensorInfo).onnx;
  if (!onnx) return lazy.loadRowMajorTensor(source, info, { ...options, format: id });
  if (onnx.storage === "external")
    return decodeWeight(await readExternalBytes(source, info), info as OnnxTensorInfo, options);
  const body = await readExactly(source, info.byteOffset, info.byteLength, id, info.name);
  return decodeWeight(
    decodeTypedBody(body, info.byteOffset, onnx.storage, onnx.dataType, info.name),
    info as OnnxTensorInfo,
    options,
  );
}

// ------------------------------------------------------------------------------------------- inspect

function walkTensors(model: OnnxModel, visit: (t: OnnxTensor, name: string, where: string) => void): void {
  const walk = (g: OnnxGraph, prefix: string) => {
    for (const t of g.initializers) visit(t, prefix + t.name, "initializer");
    g.nodes.forEach((node, i) => {
      const label = nodeLabel(node, i);
      for (const a of node.attributes) {
        if (a.t) visit(a.t, `${prefix}${label}/${a.name}`, node.opType === "Constant" ? "constant" : "attribute");
        a.tensors?.forEach((t, k) => visit(t, `${prefix}${label}/${a.name}/${k}`, "attribute"));
        if (a.g) walk(a.g, `${prefix}${label}/${a.name}/`);
        a.graphs?.forEach((sub, k) => walk(sub, `${prefix}${label}/${a.name}/${k}/`));
      }
    });
  };
  if (model.graph) walk(model.graph, "");
}

function graphSummary(g: OnnxGraph): Record<string, unknown> {
  const ops = dictionary<number>(); // op types from the file: "constructor", "__proto__" are counted like any other
  let subgraphs = 0;
  const count = (graph: OnnxGraph) => {
    for (const n of graph.nodes) {
      ops[n.opType] = (ops[n.opType] ?? 0) + 1;
      for (const a of n.attributes) {
        for (const sub of [...(a.g ? [a.g] : []), ...(a.graphs ?? [])]) {
          subgraphs++;
          count(sub);
        }
      }
    }
  };
  count(g);
  const shapeOf = (v: {
    name: string;
    type: { elemType?: number | undefined; shape?: (number | string | null)[] | undefined };
  }) => ({
    name: v.name,
    elemType: v.type.elemType === undefined ? null : dataTypeName(v.type.elemType),
    shape: v.type.shape ?? null,
  });
  return {
    name: g.name,
    nodes: g.nodes.length,
    initializers: g.initializers.length,
    subgraphs,
    ops,
    inputs: g.inputs.map(shapeOf),
    outputs: g.outputs.map(shapeOf),
  };
}

/** The inspect rows of `model`'s weights (names prefixed by `prefix`). */
export function inspectTensors(model: OnnxModel, prefix = ""): InspectTensor[] {
  return weights(model).map((w) => {
    const info = weightInfo(w, prefix);
    return {
      name: info.name,
      dtype: info.dtype,
      shape: info.shape,
      byteLength: rawByteLength(DATA_TYPES[w.tensor.dataType]!, elementCount(w.tensor.dims)),
    };
  });
}

/** What inspect shows of a model beyond its weights: strings, sparse initializers, external data, the graph. */
export function inspectExtras(model: OnnxModel, prefix = ""): Record<string, unknown> {
  const strings: unknown[] = [];
  const external: unknown[] = [];
  const storage: Record<string, number> = {};
  walkTensors(model, (t, name) => {
    if (t.dataType === 8) strings.push({ name: prefix + name, dims: t.dims, count: t.stringCount ?? 0 });
  });
  for (const w of weights(model)) {
    storage[w.tensor.storage] = (storage[w.tensor.storage] ?? 0) + 1;
    if (w.tensor.external) external.push({ name: prefix + w.name, ...w.tensor.external });
  }
  const sparse = (model.graph?.sparseInitializers ?? []).map((s) => ({
    name: prefix + s.values.name,
    dims: s.dims,
    values: {
      dtype: DATA_TYPES[s.values.dataType]?.dtype ?? dataTypeName(s.values.dataType),
      count: elementCount(s.values.dims),
    },
    indices: {
      dtype: DATA_TYPES[s.indices.dataType]?.dtype ?? dataTypeName(s.indices.dataType),
      shape: s.indices.dims,
    },
  }));
  return {
    graph: model.graph ? graphSummary(model.graph) : null,
    storage,
    strings,
    sparseInitializers: sparse,
    externalData: external,
    unknownFields: model.unknownFieldCount,
    functions: model.functionCount,
  };
}

/**
 * A summary: ir_version, the producer/opset/metadata fields, every weight, the main graph's inputs and outputs
 * (name, dtype, shape: sizes, dim_param names, null for unknown; null for an unknown rank), the main graph (inputs, outputs,
 * counts of nodes, ops and subgraphs), storage kinds, STRING tensors, sparse initializers, external data, and
 * the unknown-field and function counts.
 */
export function inspect(model: OnnxModel): InspectResult {
  const initializers = new Set(model.graph?.initializers.map((t) => t.name) ?? []);
  const valueOf = (v: OnnxValueInfo) => ({
    name: v.name,
    dtype: v.type.elemType === undefined ? null : (DATA_TYPES[v.type.elemType]?.dtype ?? dataTypeName(v.type.elemType)),
    shape: v.type.shape ?? null,
    ...(v.type.kind === "tensor" ? {} : { kind: v.type.kind }),
  });
  return {
    format: id,
    version: model.irVersion,
    meta: {
      producerName: model.producerName,
      producerVersion: model.producerVersion,
      domain: model.domain,
      modelVersion: model.modelVersion,
      docString: model.docString,
      opsetImports: model.opsetImports,
      metadataProps: model.metadataProps,
    },
    tensors: inspectTensors(model),
    // the main graph's inputs (initializers listed as inputs, as IR < 4 wants, left out) and outputs
    inputs: (model.graph?.inputs ?? []).filter((v) => !initializers.has(v.name)).map(valueOf),
    outputs: (model.graph?.outputs ?? []).map(valueOf),
    ...inspectExtras(model),
  };
}

/** Warnings: what onnxruntime would refuse or what looks wrong but is readable. */
export function verify(model: OnnxModel): string[] {
  const warnings: string[] = [];
  if (model.irVersion === 0) warnings.push("ir_version is missing (0)");
  if (!model.graph) warnings.push("the model has no graph");
  if (model.opsetImports.length === 0) warnings.push("no opset_import: runtimes assume nothing and refuse the model");
  if (model.unknownFieldCount > 0)
    warnings.push(`${model.unknownFieldCount} fields this reader does not know are kept as bytes`);
  for (const w of weights(model)) {
    const type = DATA_TYPES[w.tensor.dataType]!;
    if (type.asStoredBytes) warnings.push(`weight "${w.name}" is ${type.name}: shown as its stored bytes (uint8)`);
    if (w.tensor.storage === "external")
      warnings.push(`weight "${w.name}" is in the external file ${JSON.stringify(w.tensor.external!.location)}`);
  }
  // the names in scope: each defined name with the number of enclosing graphs that define it. A subgraph sees its
  // own names and every enclosing graph's; its names are added on entry and taken out on exit, so the check is
  // linear in the names of all graphs (a copy of the enclosing names per subgraph was quadratic: 8,000 If nodes)
  const inScope = new Map<string, number>();
  const checkGraph = (g: OnnxGraph, where: string) => {
    const own: string[] = [];
    const define = (name: string) => {
      inScope.set(name, (inScope.get(name) ?? 0) + 1);
      own.push(name);
    };
    for (const v of g.inputs) define(v.name);
    for (const t of g.initializers) define(t.name);
    for (const s of g.sparseInitializers) define(s.values.name);
    for (const n of g.nodes) for (const o of n.outputs) define(o);
    g.nodes.forEach((n, i) => {
      for (const input of n.inputs) {
        if (input !== "" && !inScope.has(input))
          warnings.push(`${where}node ${nodeLabel(n, i)} (${n.opType}) reads "${input}", which nothing defines`);
      }
      for (const a of n.attributes) {
        if (a.g) checkGraph(a.g, `${where}${nodeLabel(n, i)}/${a.name}: `);
        a.graphs?.forEach((sub, k) => checkGraph(sub, `${where}${nodeLabel(n, i)}/${a.name}/${k}: `));
      }
    });
    for (const o of g.outputs)
      if (!inScope.has(o.name)) warnings.push(`${where}graph output "${o.name}" is not produced`);
    for (const name of own) {
      const left = inScope.get(name)! - 1;
      if (left === 0) inScope.delete(name);
      else inScope.set(name, left);
    }
  };
  if (model.graph) checkGraph(model.graph, "");
  return warnings.slice(0, 1000);
}

/** None: an ONNX model's weights are its tensors (extract writes them as .npy). */
export function blobs(_model: OnnxModel): EmbeddedBlob[] {
  return [];
}

export type { DType };
