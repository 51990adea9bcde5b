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
 */
import { ProtoWriter } from "./proto-writer.js";

/** ONNX TensorProto.DataType codes by name. */
export const ONNX_DTYPES = {
  /** FLOAT. */
  float32: 1,
  /** UINT8. */
  uint8: 2,
  /** INT8. */
  int8: 3,
  /** UINT16. */
  uint16: 4,
  /** INT16. */
  int16: 5,
  /** INT32. */
  int32: 6,
  /** INT64. */
  int64: 7,
  /** STRING: for value infos; a string tensor cannot be stored (create() writes raw_data only). */
  string: 8,
  /** BOOL, one byte per element. */
  bool: 9,
  /** FLOAT16 (numbers are taken as the raw 16-bit patterns). */
  float16: 10,
  /** DOUBLE. */
  float64: 11,
  /** UINT32. */
  uint32: 12,
  /** UINT64. */
  uint64: 13,
  /** COMPLEX64: data as bytes or a typed array (no number list), (real, imaginary) float32 pairs. */
  complex64: 14,
  /** COMPLEX128: data as bytes or a typed array (no number list), (real, imaginary) float64 pairs. */
  complex128: 15,
  /** BFLOAT16 (numbers are taken as the raw 16-bit patterns). */
  bfloat16: 16,
} as const;
/** A dtype name accepted by the builder (a key of {@link ONNX_DTYPES}). */
export type OnnxDTypeName = keyof typeof ONNX_DTYPES;

const DTYPE_BYTES: Record<number, number> = { 1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 14: 8, 15: 16, 16: 2 };

/** A tensor to store (an initializer or a TENSOR attribute), written as raw_data. */
export interface OnnxTensorInput {
  /** Field 8 name (initializers need one: nodes refer to it). */
  name?: string | undefined;
  /** A dtype name or a TensorProto.DataType code. */
  dtype: OnnxDTypeName | number;
  /** Field 1 dims: non-negative integers, [] for a scalar; their product times the element size must match `data`. */
  dims: readonly number[];
  /**
   * The elements: raw little-endian bytes, or a typed array / number list (converted to the dtype's bytes).
   * Typed arrays are taken by their bytes (on a big-endian host they would be wrong; every supported host is LE).
   */
  data: Uint8Array | ArrayBufferView | readonly number[] | readonly bigint[];
  /** Field 12 doc_string (omitted when empty). */
  docString?: string | undefined;
}

/** A graph input, output or value_info entry: a named tensor value with its element type and shape. */
export interface OnnxValueInfoInput {
  /** Field 1 name. */
  name: string;
  /** The element type (tensor_type elem_type): a dtype name or a TensorProto.DataType code. */
  dtype: OnnxDTypeName | number;
  /** Dims: a number, a symbolic name (dim_param) or null for an unknown dim. Omit shape for an unknown rank. */
  shape?: readonly (number | string | null)[] | undefined;
  /** Field 3 doc_string (omitted when empty). */
  docString?: string | undefined;
}

/** An attribute with its type spelled out (AttributeProto field 20 type and the value field it selects). */
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
 * An attribute value: the explicit form, or a shorthand: an integer number or bigint is INT, another number
 * FLOAT, a string STRING, a number array INTS when every item is an integer (FLOATS otherwise).
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
  opsetImports?: readonly {
    /** Field 1 domain (default "": ai.onnx). */
    domain?: string | undefined;
    /** Field 2 version: the opset version. */
    version: number;
  }[] | undefined;
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

const ATTR = { float: 1, int: 2, string: 3, tensor: 4, graph: 5, floats: 6, ints: 7, strings: 8, tensors: 9, graphs: 10 } as const;

function dtypeCode(dtype: OnnxDTypeName | number): number {
  const code = typeof dtype === "number" ? dtype : ONNX_DTYPES[dtype];
  if (!Number.isInteger(code) || code <= 0) throw new TypeError(`onnx.create: unknown dtype ${String(dtype)}`);
  return code;
}

function numbersToBytes(code: number, values: readonly (number | bigint)[]): Uint8Array {
  const size = DTYPE_BYTES[code];
  if (size === undefined) throw new TypeError(`onnx.create: dtype ${code} needs raw bytes`);
  const out = new Uint8Array(values.length * size);
  const view = new DataView(out.buffer);
  values.forEach((v, i) => {
    const at = i * size;
    switch (code) {
      case 1: view.setFloat32(at, Number(v), true); break;
      case 11: view.setFloat64(at, Number(v), true); break;
      case 2: case 9: view.setUint8(at, Number(v)); break;
      case 3: view.setInt8(at, Number(v)); break;
      case 4: case 10: case 16: view.setUint16(at, Number(v), true); break; // float16/bfloat16: the raw bits
      case 5: view.setInt16(at, Number(v), true); break;
      case 6: view.setInt32(at, Number(v), true); break;
      case 12: view.setUint32(at, Number(v), true); break;
      case 7: view.setBigInt64(at, BigInt(v), true); break;
      case 13: view.setBigUint64(at, BigInt(v), true); break;
      default: throw new TypeError(`onnx.create: dtype ${code} needs raw bytes`);
    }
  });
  return out;
}

function tensorBytes(code: number, data: OnnxTensorInput["data"]): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return numbersToBytes(code, data as readonly (number | bigint)[]);
}

/**
 * A tensor input's data type code and elements in raw_data layout (a typed array's own bytes, not copied), its
 * dims and size checked (`fn` names the caller in errors).
 */
export function tensorInputBytes(t: OnnxTensorInput, fn = "onnx.create"): { dataType: number; bytes: Uint8Array } {
  const code = dtypeCode(t.dtype);
  const bytes = tensorBytes(code, t.data);
  let count = 1;
  for (const d of t.dims) {
    if (!Number.isInteger(d) || d < 0) throw new RangeError(`${fn}: tensor ${t.name ?? ""} has a bad dim ${d}`);
    count *= d;
  }
  const size = DTYPE_BYTES[code];
  if (size !== undefined && bytes.length !== count * size) {
    throw new RangeError(`${fn}: tensor ${t.name ?? ""} has ${bytes.length} bytes, its dims [${t.dims.join(", ")}] need ${count * size}`);
  }
  return { dataType: code, bytes };
}

function writeTensor(w: ProtoWriter, t: OnnxTensorInput): void {
  const { dataType: code, bytes } = tensorInputBytes(t);
  if (t.dims.length > 0) w.packedVarintField(1, t.dims);
  w.uintField(2, code);
  if (t.name !== undefined) w.stringField(8, t.name);
  w.bytesField(9, bytes);
  if (t.docString) w.stringField(12, t.docString);
}

function writeValueInfo(w: ProtoWriter, v: OnnxValueInfoInput): void {
  w.stringField(1, v.name);
  w.messageField(2, (type) => type.messageField(1, (tensor) => {
    tensor.uintField(1, dtypeCode(v.dtype));
    if (v.shape) {
      tensor.messageField(2, (shape) => {
        for (const d of v.shape!) {
          shape.messageField(1, (dim) => {
            if (typeof d === "number") dim.uintField(1, d);
            else if (typeof d === "string") dim.stringField(2, d);
          });
        }
      });
    }
  }));
  if (v.docString) w.stringField(3, v.docString);
}

function isIntegerList(values: readonly number[]): boolean {
  return values.every((v) => Number.isInteger(v));
}

function normaliseAttribute(value: OnnxAttributeValue): OnnxAttributeInput {
  if (typeof value === "bigint") return { type: "int", value };
  if (typeof value === "number") return Number.isInteger(value) ? { type: "int", value } : { type: "float", value };
  if (typeof value === "string") return { type: "string", value };
  if (Array.isArray(value)) {
    const list = value as readonly number[];
    return isIntegerList(list) ? { type: "ints", value: list } : { type: "floats", value: list };
  }
  return value as OnnxAttributeInput;
}

const encoder = new TextEncoder();
const asBytes = (s: string | Uint8Array): Uint8Array => (typeof s === "string" ? encoder.encode(s) : s);

function writeAttribute(w: ProtoWriter, name: string, input: OnnxAttributeValue): void {
  const a = normaliseAttribute(input);
  w.stringField(1, name);
  switch (a.type) {
    case "float": w.floatField(2, a.value); break;
    case "int": w.uintField(3, a.value); break;
    case "string": w.bytesField(4, asBytes(a.value)); break;
    case "tensor": w.messageField(5, (t) => writeTensor(t, a.value)); break;
    case "graph": w.messageField(6, (g) => writeGraph(g, a.value, `attribute ${name}`)); break;
    case "floats": w.packedFloatField(7, a.value); break;
    case "ints": w.packedVarintField(8, a.value); break;
    case "strings": for (const s of a.value) w.bytesField(9, asBytes(s)); break;
    case "tensors": for (const t of a.value) w.messageField(10, (m) => writeTensor(m, t)); break;
    case "graphs": a.value.forEach((g, k) => w.messageField(11, (m) => writeGraph(m, g, `attribute ${name}[${k}]`))); break;
    default: throw new TypeError(`onnx.create: attribute ${name} has an unknown type`);
  }
  w.uintField(20, ATTR[a.type]);
}

function writeNode(w: ProtoWriter, n: OnnxNodeInput): void {
  for (const i of n.inputs) w.stringField(1, i);
  for (const o of n.outputs) w.stringField(2, o);
  if (n.name !== undefined) w.stringField(3, n.name);
  w.stringField(4, n.opType);
  for (const [key, value] of Object.entries(n.attributes ?? {})) w.messageField(5, (a) => writeAttribute(a, key, value));
  if (n.docString) w.stringField(6, n.docString);
  if (n.domain) w.stringField(7, n.domain);
}

/** `value` as a list (a clear TypeError for anything else; undefined is [] where the field is optional). */
function listOf<T>(value: readonly T[] | undefined, what: string, optional = false): readonly T[] {
  if (value === undefined && optional) return [];
  if (!Array.isArray(value)) {
    throw new TypeError(`tensorfile: onnx.create(): ${what} must be an array${optional ? " (or left out)" : ""}, not ${value === null ? "null" : typeof value}`);
  }
  return value;
}

function writeGraph(w: ProtoWriter, g: OnnxGraphInput, where: string): void {
  if (g === null || typeof g !== "object") throw new TypeError(`tensorfile: onnx.create(): ${where} must be an object with name, nodes, inputs and outputs`);
  for (const n of listOf(g.nodes, `${where}.nodes`)) w.messageField(1, (m) => writeNode(m, n));
  w.stringField(2, g.name ?? "");
  for (const t of listOf(g.initializers, `${where}.initializers`, true)) w.messageField(5, (m) => writeTensor(m, t));
  if (g.docString) w.stringField(10, g.docString);
  for (const v of listOf(g.inputs, `${where}.inputs`)) w.messageField(11, (m) => writeValueInfo(m, v));
  for (const v of listOf(g.outputs, `${where}.outputs`)) w.messageField(12, (m) => writeValueInfo(m, v));
  for (const v of listOf(g.valueInfo, `${where}.valueInfo`, true)) w.messageField(13, (m) => writeValueInfo(m, v));
}

function modelWriter(model: OnnxModelInput): ProtoWriter {
  if (model === null || typeof model !== "object") throw new TypeError("tensorfile: onnx.create() takes an object like { graph: { name, nodes, inputs, outputs, initializers } }");
  const w = new ProtoWriter();
  w.uintField(1, model.irVersion ?? 8);
  w.stringField(2, model.producerName ?? "tensorfile");
  if (model.producerVersion !== undefined) w.stringField(3, model.producerVersion);
  if (model.domain !== undefined) w.stringField(4, model.domain);
  if (model.modelVersion !== undefined) w.uintField(5, model.modelVersion);
  if (model.docString) w.stringField(6, model.docString);
  w.messageField(7, (g) => writeGraph(g, model.graph, "graph"));
  for (const op of model.opsetImports ?? [{ domain: "", version: 17 }]) {
    w.messageField(8, (m) => m.stringField(1, op.domain ?? "").uintField(2, op.version));
  }
  for (const [key, value] of Object.entries(model.metadata ?? {})) w.messageField(14, (m) => m.stringField(1, key).stringField(2, value));
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
