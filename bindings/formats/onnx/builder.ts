/**
 * Building a new ONNX model (ModelProto, onnx/onnx.proto3) from plain objects. Field numbers written:
 *
 *   ModelProto        1 ir_version | 2 producer_name | 3 producer_version | 4 domain | 5 model_version
 *                     | 6 doc_string | 7 graph | 8 opset_import (1 domain, 2 version) | 14 metadata_props (1 key, 2 value)
 *   GraphProto        1 node | 2 name | 5 initializer | 10 doc_string | 11 input | 12 output | 13 value_info
 *   NodeProto         1 input | 2 output | 3 name | 4 op_type | 5 attribute | 6 doc_string | 7 domain
 *   AttributeProto    1 name | 2 f | 3 i | 4 s | 5 t | 6 g | 7 floats | 8 ints | 9 strings | 10 tensors
 *                     | 11 graphs | 13 doc_string | 20 type
 *   TensorProto       1 dims (packed int64) | 2 data_type | 8 name | 9 raw_data (little-endian) | 12 doc_string
 *   ValueInfoProto    1 name | 2 type (TypeProto: 1 tensor_type (1 elem_type, 2 shape (1 dim: 1 dim_value | 2 dim_param)))
 *
 * Every tensor is stored as raw_data (little-endian, as ONNX requires), whatever typed array it came in.
 * builder-values.ts holds the data types, the value checks and the tensor writer; this module the attributes,
 * nodes, graphs and the model.
 */
import { ProtoWriter } from "./proto-writer.js";
import {
  type OnnxTensorInput,
  type OnnxValueInfoInput,
  describe,
  dtypeCode,
  float32,
  int64,
  listOf,
  optionalText,
  plainObject,
  text,
  writeTensor,
} from "./builder-values.js";

export {
  ONNX_DTYPES,
  type OnnxDTypeName,
  type OnnxTensorInput,
  type OnnxValueInfoInput,
  tensorInputBytes,
} from "./builder-values.js";

/** A node attribute as `onnx.create` takes it: one typed value (or list) in the field its kind names. */
export type OnnxAttributeInput =
  | {
      /** FLOAT. */
      type: "float";
      /** Field 2 f, stored as float32. */
      value: number;
    }
  | {
      /** INT. */
      type: "int";
      /** Field 3 i (int64). */
      value: number | bigint;
    }
  | {
      /** STRING. */
      type: "string";
      /** Field 4 s: text (stored as UTF-8) or bytes. */
      value: string | Uint8Array;
    }
  | {
      /** TENSOR. */
      type: "tensor";
      /** Field 5 t. */
      value: OnnxTensorInput;
    }
  | {
      /** GRAPH. */
      type: "graph";
      /** Field 6 g: a subgraph (e.g. an If branch). */
      value: OnnxGraphInput;
    }
  | {
      /** FLOATS. */
      type: "floats";
      /** Field 7 floats (packed float32). */
      value: readonly number[];
    }
  | {
      /** INTS. */
      type: "ints";
      /** Field 8 ints (packed int64). */
      value: readonly (number | bigint)[];
    }
  | {
      /** STRINGS. */
      type: "strings";
      /** Field 9 strings: text (stored as UTF-8) or bytes each. */
      value: readonly (string | Uint8Array)[];
    }
  | {
      /** TENSORS. */
      type: "tensors";
      /** Field 10 tensors. */
      value: readonly OnnxTensorInput[];
    }
  | {
      /** GRAPHS. */
      type: "graphs";
      /** Field 11 graphs. */
      value: readonly OnnxGraphInput[];
    };

/**
 * An attribute value: the explicit form, or a shorthand: a safe integer or a bigint (int64) is INT, another number
 * FLOAT (float32), a string STRING, an array INTS when every item is a safe integer or every item a bigint (FLOATS
 * when every item is a number). Anything else (nested or mixed arrays, booleans…) is a TypeError.
 */
export type OnnxAttributeValue = OnnxAttributeInput | number | bigint | string | readonly number[];

/** A node (NodeProto): one operator call. */
export interface OnnxNodeInput {
  /** Field 3 name (omitted when undefined). */
  name?: string | undefined;
  /** Field 4 op_type, e.g. `Conv`. */
  opType: string;
  /** Field 7 domain (omitted when empty: the default ai.onnx). */
  domain?: string | undefined;
  /** Input value names ("" for an omitted optional input). */
  inputs: readonly string[];
  /** Output value names. */
  outputs: readonly string[];
  /** Field 5 attribute: values by attribute name (written in the object's key order). */
  attributes?: Record<string, OnnxAttributeValue> | undefined;
  /** Field 6 doc_string (omitted when empty). */
  docString?: string | undefined;
}

/** A graph (GraphProto): the main graph or a subgraph attribute's value. */
export interface OnnxGraphInput {
  /** Field 2 name. */
  name: string;
  /** Field 1 node, in this order (ONNX expects a topological order). */
  nodes: readonly OnnxNodeInput[];
  /** Field 5 initializer: the weights (each needs a name). */
  initializers?: readonly OnnxTensorInput[] | undefined;
  /** Field 11 input. */
  inputs: readonly OnnxValueInfoInput[];
  /** Field 12 output. */
  outputs: readonly OnnxValueInfoInput[];
  /** Field 13 value_info: optional types of intermediate values. */
  valueInfo?: readonly OnnxValueInfoInput[] | undefined;
  /** Field 10 doc_string (omitted when empty). */
  docString?: string | undefined;
}

/** A whole model for {@link create}: a graph plus ModelProto header fields (defaults as noted). */
export interface OnnxModelInput {
  /** Default 8 (the IR version of opset 17). */
  irVersion?: number | undefined;
  /** Default [{ domain: "", version: 17 }]. */
  opsetImports?:
    | readonly {
        /** Field 1 domain (default "": ai.onnx). */
        domain?: string | undefined;
        /** Field 2 version: the opset version. */
        version: number;
      }[]
    | undefined;
  /** Field 2 producer_name (default `tensorfile`). */
  producerName?: string | undefined;
  /** Field 3 producer_version (omitted when undefined). */
  producerVersion?: string | undefined;
  /** Field 4 domain (omitted when undefined). */
  domain?: string | undefined;
  /** Field 5 model_version (omitted when undefined). */
  modelVersion?: number | undefined;
  /** Field 6 doc_string (omitted when empty). */
  docString?: string | undefined;
  /** Field 14 metadata_props: key/value pairs. */
  metadata?: Record<string, string> | undefined;
  /** Field 7 graph: the main graph. */
  graph: OnnxGraphInput;
}

const ATTR = {
  float: 1,
  int: 2,
  string: 3,
  tensor: 4,
  graph: 5,
  floats: 6,
  ints: 7,
  strings: 8,
  tensors: 9,
  graphs: 10,
} as const;

function writeValueInfo(w: ProtoWriter, input: unknown, where: string): void {
  const v = plainObject<OnnxValueInfoInput>(input, where);
  const name = text(v.name, `${where}.name`);
  const what = `${where} "${name}"`;
  const code = dtypeCode(v.dtype, what, false);
  const shape = v.shape === undefined ? undefined : listOf<number | string | null>(v.shape, `${what}.shape`);
  shape?.forEach((d, i) => {
    if (d === null) return;
    if (typeof d === "string") text(d, `${what}.shape[${i}]`);
    else if (typeof d !== "number")
      throw new TypeError(`onnx.create: ${what}.shape[${i}] must be a number, a name or null, not ${describe(d)}`);
    else if (!Number.isSafeInteger(d) || d < 0)
      throw new RangeError(`onnx.create: ${what}.shape[${i}] is ${d} (a dim is a non-negative integer)`);
  });
  const docString = optionalText(v.docString, `${what}.docString`);
  w.stringField(1, name);
  w.messageField(2, (type) =>
    type.messageField(1, (tensor) => {
      tensor.uintField(1, code);
      if (shape) {
        tensor.messageField(2, (dims) => {
          for (const d of shape) {
            dims.messageField(1, (dim) => {
              if (typeof d === "number") dim.uintField(1, d);
              else if (typeof d === "string") dim.stringField(2, d);
            });
          }
        });
      }
    }),
  );
  if (docString) w.stringField(3, docString);
}

/**
 * The explicit form of an attribute value, every item checked. Shorthands: a safe integer or a bigint is INT, any
 * other number FLOAT; a list of safe integers or of bigints INTS, of numbers FLOATS; a string STRING.
 */
function normaliseAttribute(value: unknown, what: string): OnnxAttributeInput {
  if (typeof value === "bigint") return { type: "int", value: int64(value, what) };
  if (typeof value === "number")
    return Number.isSafeInteger(value) ? { type: "int", value } : { type: "float", value: float32(value, what) };
  if (typeof value === "string") return { type: "string", value: text(value, what) };
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === "bigint" || Number.isSafeInteger(v))) {
      if (value.some((v) => typeof v === "bigint") && value.some((v) => typeof v === "number")) {
        throw new TypeError(
          `onnx.create: ${what} mixes numbers and bigints (give one kind, or the explicit { type: "ints", value })`,
        );
      }
      return { type: "ints", value: value.map((v, i) => int64(v, `${what}[${i}]`)) };
    }
    return { type: "floats", value: value.map((v, i) => float32(v, `${what}[${i}]`)) };
  }
  const a = plainObject<OnnxAttributeInput>(value, what);
  const items = <T>(list: unknown, check: (item: unknown, at: string) => T): T[] =>
    listOf(list, `${what}.value`).map((v, i) => check(v, `${what}.value[${i}]`));
  switch (a.type) {
    case "float":
      return { type: "float", value: float32(a.value, `${what}.value`) };
    case "int":
      return { type: "int", value: int64(a.value, `${what}.value`) };
    case "string":
      return { type: "string", value: a.value instanceof Uint8Array ? a.value : text(a.value, `${what}.value`) };
    // a tensor or graph is checked field by field as it is written (writeTensor, writeGraph)
    case "tensor":
      return { type: "tensor", value: a.value as OnnxTensorInput };
    case "graph":
      return { type: "graph", value: a.value as OnnxGraphInput };
    case "floats":
      return { type: "floats", value: items(a.value, float32) };
    case "ints":
      return { type: "ints", value: items(a.value, (v, at) => int64(v, at)) };
    case "strings":
      return { type: "strings", value: items(a.value, (v, at) => (v instanceof Uint8Array ? v : text(v, at))) };
    case "tensors":
      return { type: "tensors", value: listOf<OnnxTensorInput>(a.value, `${what}.value`) };
    case "graphs":
      return { type: "graphs", value: listOf<OnnxGraphInput>(a.value, `${what}.value`) };
    default:
      throw new TypeError(`onnx.create: ${what} has an unknown type ${describe(a.type)}`);
  }
}

const encoder = new TextEncoder();
const asBytes = (s: string | Uint8Array): Uint8Array => (typeof s === "string" ? encoder.encode(s) : s);

function writeAttribute(w: ProtoWriter, name: string, input: unknown, where: string): void {
  const what = `${where} attribute ${JSON.stringify(name)}`;
  const a = normaliseAttribute(input, what);
  w.stringField(1, text(name, `${where} attribute name`));
  switch (a.type) {
    case "float":
      w.floatField(2, a.value);
      break;
    case "int":
      w.uintField(3, a.value);
      break;
    case "string":
      w.bytesField(4, asBytes(a.value));
      break;
    case "tensor":
      w.messageField(5, (t) => writeTensor(t, a.value, `${what}.value`));
      break;
    case "graph":
      w.messageField(6, (g) => writeGraph(g, a.value, `${what}.value`));
      break;
    case "floats":
      w.packedFloatField(7, a.value);
      break;
    case "ints":
      w.packedVarintField(8, a.value);
      break;
    case "strings":
      for (const s of a.value) w.bytesField(9, asBytes(s));
      break;
    case "tensors":
      a.value.forEach((t, k) => w.messageField(10, (m) => writeTensor(m, t, `${what}.value[${k}]`)));
      break;
    case "graphs":
      a.value.forEach((g, k) => w.messageField(11, (m) => writeGraph(m, g, `${what}.value[${k}]`)));
      break;
  }
  w.uintField(20, ATTR[a.type]);
}

function writeNode(w: ProtoWriter, input: unknown, where: string): void {
  const n = plainObject<OnnxNodeInput>(input, where);
  const name = optionalText(n.name, `${where}.name`);
  const what = name === undefined ? where : `${where} "${name}"`;
  const inputs = listOf(n.inputs, `${what}.inputs`).map((v, i) => text(v, `${what}.inputs[${i}]`));
  const outputs = listOf(n.outputs, `${what}.outputs`).map((v, i) => text(v, `${what}.outputs[${i}]`));
  const opType = text(n.opType, `${what}.opType`);
  const attributes = n.attributes === undefined ? {} : plainObject(n.attributes, `${what}.attributes`);
  const docString = optionalText(n.docString, `${what}.docString`);
  const domain = optionalText(n.domain, `${what}.domain`);
  for (const i of inputs) w.stringField(1, i);
  for (const o of outputs) w.stringField(2, o);
  if (name !== undefined) w.stringField(3, name);
  w.stringField(4, opType);
  for (const [key, value] of Object.entries(attributes)) w.messageField(5, (a) => writeAttribute(a, key, value, what));
  if (docString) w.stringField(6, docString);
  if (domain) w.stringField(7, domain);
}

/** `value` as a list (a clear TypeError for anything else; undefined is [] where the field is optional). */
function writeGraph(w: ProtoWriter, g: OnnxGraphInput, where: string): void {
  if (g === null || typeof g !== "object" || Array.isArray(g))
    throw new TypeError(`tensorfile: onnx.create(): ${where} must be an object with name, nodes, inputs and outputs`);
  const name = g.name === undefined ? "" : text(g.name, `${where}.name`);
  const docString = optionalText(g.docString, `${where}.docString`);
  listOf(g.nodes, `${where}.nodes`).forEach((n, k) =>
    w.messageField(1, (m) => writeNode(m, n, `${where}.nodes[${k}]`)),
  );
  w.stringField(2, name);
  listOf(g.initializers, `${where}.initializers`, true).forEach((t, k) =>
    w.messageField(5, (m) => writeTensor(m, t, `${where}.initializers[${k}]`)),
  );
  if (docString) w.stringField(10, docString);
  listOf(g.inputs, `${where}.inputs`).forEach((v, k) =>
    w.messageField(11, (m) => writeValueInfo(m, v, `${where}.inputs[${k}]`)),
  );
  listOf(g.outputs, `${where}.outputs`).forEach((v, k) =>
    w.messageField(12, (m) => writeValueInfo(m, v, `${where}.outputs[${k}]`)),
  );
  listOf(g.valueInfo, `${where}.valueInfo`, true).forEach((v, k) =>
    w.messageField(13, (m) => writeValueInfo(m, v, `${where}.valueInfo[${k}]`)),
  );
}

function modelWriter(model: OnnxModelInput): ProtoWriter {
  if (model === null || typeof model !== "object" || Array.isArray(model))
    throw new TypeError(
      "tensorfile: onnx.create() takes an object like { graph: { name, nodes, inputs, outputs, initializers } }",
    );
  const w = new ProtoWriter();
  w.uintField(1, model.irVersion === undefined ? 8 : int64(model.irVersion, "irVersion", 0n));
  w.stringField(2, model.producerName === undefined ? "tensorfile" : text(model.producerName, "producerName"));
  const producerVersion = optionalText(model.producerVersion, "producerVersion");
  if (producerVersion !== undefined) w.stringField(3, producerVersion);
  const domain = optionalText(model.domain, "domain");
  if (domain !== undefined) w.stringField(4, domain);
  if (model.modelVersion !== undefined) w.uintField(5, int64(model.modelVersion, "modelVersion"));
  const docString = optionalText(model.docString, "docString");
  if (docString) w.stringField(6, docString);
  w.messageField(7, (g) => writeGraph(g, model.graph, "graph"));
  listOf(model.opsetImports ?? [{ domain: "", version: 17 }], "opsetImports").forEach((input, k) => {
    const op = plainObject(input, `opsetImports[${k}]`) as { domain?: unknown; version?: unknown };
    const opDomain = op.domain === undefined ? "" : text(op.domain, `opsetImports[${k}].domain`);
    const version = int64(op.version, `opsetImports[${k}].version`, 0n);
    w.messageField(8, (m) => m.stringField(1, opDomain).uintField(2, version));
  });
  const metadata = model.metadata === undefined ? {} : plainObject(model.metadata, "metadata");
  for (const [key, value] of Object.entries(metadata)) {
    const k = text(key, "a metadata key");
    const v = text(value, `metadata[${JSON.stringify(key)}]`);
    w.messageField(14, (m) => m.stringField(1, k).stringField(2, v));
  }
  return w;
}

/** The ModelProto bytes of `model`. */
export function create(model: OnnxModelInput): Uint8Array {
  return modelWriter(model).finish();
}

/** The same bytes as pieces (large initializers are the caller's arrays, not copied), e.g. for a stream. */
export function createPieces(model: OnnxModelInput): Uint8Array[] {
  return modelWriter(model).pieces();
}
