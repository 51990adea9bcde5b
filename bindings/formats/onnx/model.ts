/**
 * ONNX models (onnx/onnx `onnx.proto`, proto2 syntax; protobuf wire format, see wire.ts). The object model that
 * read() returns. Field numbers read into it (every other field is kept as bytes, which write() copies; the
 * other fields onnx.proto declares up to ONNX 1.22 are listed in schema.ts: known, checked, not counted as unknown):
 *
 *   ModelProto      1 ir_version int64 | 2 producer_name | 3 producer_version | 4 domain | 5 model_version int64 |
 *                   6 doc_string | 7 graph GraphProto | 8 opset_import {1 domain, 2 version int64} |
 *                   14 metadata_props {1 key, 2 value} | 20 training_info | 25 functions (counted)
 *   GraphProto      1 node | 2 name | 5 initializer TensorProto | 10 doc_string | 11 input | 12 output |
 *                   13 value_info ValueInfoProto | 15 sparse_initializer {1 values, 2 indices, 3 dims}
 *   NodeProto       1 input | 2 output | 3 name | 4 op_type | 5 attribute | 6 doc_string | 7 domain
 *   AttributeProto  1 name | 20 type | 2 f float | 3 i int64 | 4 s bytes | 5 t TensorProto | 6 g GraphProto |
 *                   7 floats | 8 ints | 9 strings | 10 tensors | 11 graphs | 13 doc_string | 21 ref_attr_name |
 *                   22 sparse_tensor | 23 sparse_tensors | 14 tp | 15 type_protos
 *   TensorProto     1 dims int64 | 2 data_type int32 | 4 float_data | 5 int32_data | 6 string_data | 7 int64_data |
 *                   8 name | 9 raw_data | 10 double_data | 11 uint64_data | 12 doc_string |
 *                   13 external_data {1 key, 2 value} | 14 data_location (1 = EXTERNAL)
 *   ValueInfoProto  1 name | 2 type TypeProto {1 tensor_type {1 elem_type, 2 shape {1 dim {1 dim_value, 2 dim_param}}},
 *                   4 sequence_type {1 elem_type TypeProto}, 5 map_type {1 key_type, 2 value_type TypeProto},
 *                   8 sparse_tensor_type, 9 optional_type {1 elem_type TypeProto}} | 3 doc_string
 *
 * raw_data is little-endian, row-major, packed; typed fields hold one element per entry (int32_data carries the
 * 8/16-bit types and float16/bfloat16/float8 as their bit patterns; float_data/double_data hold complex numbers
 * as (real, imaginary) pairs). Weights (tensors()) are every initializer and every Constant node's `value`, at
 * every depth; a weight in a subgraph is named `<node name>/<attribute name>/<name>` (GRAPHS attributes add the
 * graph's index: `<node>/<attribute>/<i>/<name>`); a Constant's weight is named by its output.
 */
import type { ByteRange } from "../../bytes/byte-reader.js";
import type { DType } from "../../tensor.js";

/** The format's id. */
export const id = "onnx" as const;

/** Subgraphs (If/Loop/Scan bodies) nested deeper than this are refused. */
export const MAX_GRAPH_DEPTH = 32;

/** Where a length-delimited field is: its tag, its length varint, its body (absolute offsets). */
export interface OnnxFrame {
  /** Offset of the field's tag varint. */
  readonly tagAt: number;
  /** Offset of its length varint (right after the tag). */
  readonly lengthAt: number;
  /** Size of the length varint in bytes (bodyStart - lengthAt). */
  readonly lengthBytes: number;
  /** Offset of the first byte of the body (the nested message). */
  readonly bodyStart: number;
  /** Offset just past the body (exclusive). */
  readonly bodyEnd: number;
}

/**
 * Where a tensor's elements are: a TensorProto field (raw_data 9, float_data 4, int32_data 5, int64_data 7,
 * double_data 10, uint64_data 11, string_data 6), `external` (data_location 14 = EXTERNAL, see
 * {@link OnnxExternalData}) or `none` (no data field).
 */
export type OnnxStorage =
  | "raw_data"
  | "float_data"
  | "int32_data"
  | "int64_data"
  | "double_data"
  | "uint64_data"
  | "string_data"
  | "external"
  | "none";

/** The TensorProto field number of each typed data field (4 float_data, 5 int32_data, 7 int64_data, 10 double_data, 11 uint64_data). */
export const TYPED_FIELD_NUMBERS: Readonly<Partial<Record<OnnxStorage, number>>> = {
  float_data: 4,
  int32_data: 5,
  int64_data: 7,
  double_data: 10,
  uint64_data: 11,
};

/** A tensor stored outside the model (TensorProto field 13 external_data, key/value pairs). */
export interface OnnxExternalData {
  /** The `location` key: a file path relative to the model's folder (never absolute, never `..`). */
  readonly location: string;
  /** The `offset` key: byte offset of the data in that file (0 when absent). */
  readonly offset: number;
  /** undefined: to the end of the file. */
  readonly length: number | undefined;
  /** The `checksum` key (SHA-1, as written), when present; not verified. */
  readonly checksum?: string | undefined;
}

/** A TensorProto: header fields and where its data is (byte ranges; payloads are not copied). */
export interface OnnxTensor {
  /** Field 8 name ("" when absent). */
  name: string;
  /** TensorProto.DataType (1 FLOAT, 2 UINT8, … 16 BFLOAT16, 17-20 FLOAT8*, 21 UINT4, 22 INT4, 23 FLOAT4E2M1). */
  dataType: number;
  /** Field 1 dims ([] for a scalar). */
  dims: number[];
  /** Field 12 doc_string ("" when absent). */
  docString: string;
  /** Which field holds the elements (as read; a new tensor: `raw_data` with its elements in `values`). */
  readonly storage: OnnxStorage;
  /**
   * raw_data: the payload's range. Typed fields: the range from the first to the end of the last data field
   * (tags included). external/none: empty.
   */
  readonly data: ByteRange;
  /**
   * float_data/double_data stored as one packed field: its payload, which is exactly raw_data's layout
   * (little-endian floats), so the weight is read, loaded and patched in place like raw_data.
   */
  readonly packed?: ByteRange | undefined;
  /** storage `external`: where the data is. */
  readonly external?: OnnxExternalData | undefined;
  /** STRING tensors: the number of strings (shown by inspect, never a weight). */
  readonly stringCount?: number | undefined;
  /** The TensorProto message: its frame and those enclosing it, outermost first (the last is its own; [] for a new tensor). */
  readonly frames: OnnxFrame[];
  /**
   * New elements that write() stores as raw_data (little-endian, row-major, packed, as raw_data lays them out),
   * replacing whatever the tensor held: set it on a new tensor (onnx.makeTensor) or to change a tensor's values.
   * read() leaves it undefined.
   */
  values?: Uint8Array | undefined;
}

/** A SparseTensorProto (a sparse initializer or SPARSE_TENSOR attribute); shown by inspect, never a weight. */
export interface OnnxSparseTensor {
  /** Field 1 values: the non-zero elements (a 1-D tensor; an empty tensor when absent). */
  values: OnnxTensor;
  /** Field 2 indices: int64 positions, [NNZ] linearised or [NNZ, rank] (an empty tensor when absent). */
  indices: OnnxTensor;
  /** Field 3 dims: the dense shape. */
  dims: number[];
}

/** AttributeProto.AttributeType names; {@link ATTRIBUTE_TYPES} maps the field-20 code to them. */
export type OnnxAttributeType =
  | "UNDEFINED"
  | "FLOAT"
  | "INT"
  | "STRING"
  | "TENSOR"
  | "GRAPH"
  | "FLOATS"
  | "INTS"
  | "STRINGS"
  | "TENSORS"
  | "GRAPHS"
  | "SPARSE_TENSOR"
  | "SPARSE_TENSORS"
  | "TYPE_PROTO"
  | "TYPE_PROTOS";

/** The attribute type names indexed by their AttributeProto.AttributeType code (0 UNDEFINED … 14 TYPE_PROTOS). */
export const ATTRIBUTE_TYPES: readonly OnnxAttributeType[] = [
  "UNDEFINED",
  "FLOAT",
  "INT",
  "STRING",
  "TENSOR",
  "GRAPH",
  "FLOATS",
  "INTS",
  "STRINGS",
  "TENSORS",
  "GRAPHS",
  "SPARSE_TENSOR",
  "SPARSE_TENSORS",
  "TYPE_PROTO",
  "TYPE_PROTOS",
];

/** A node attribute (AttributeProto): the value is in the member its `type` names. */
export interface OnnxAttribute {
  /** Field 1 name. */
  name: string;
  /** The declared type (or, when absent as in IR < 0.0.2, inferred from the field present). */
  type: OnnxAttributeType;
  /** Field 2 f: FLOAT (float32). */
  f?: number | undefined;
  /** Field 3 i: INT (int64, within ±2^53). */
  i?: number | undefined;
  /** `s` as UTF-8 text (invalid bytes become U+FFFD). */
  s?: string | undefined;
  /** Field 5 t: TENSOR (a Constant's `value` is a weight). */
  t?: OnnxTensor | undefined;
  /** Field 6 g: GRAPH, a subgraph (If then/else_branch, Loop/Scan body). */
  g?: OnnxGraph | undefined;
  /** Field 7 floats: FLOATS. */
  floats?: number[] | undefined;
  /** Field 8 ints: INTS (each within ±2^53). */
  ints?: number[] | undefined;
  /** Field 9 strings: STRINGS, each as UTF-8 text. */
  strings?: string[] | undefined;
  /** Field 10 tensors: TENSORS. */
  tensors?: OnnxTensor[] | undefined;
  /** Field 11 graphs: GRAPHS. */
  graphs?: OnnxGraph[] | undefined;
  /** Field 22 sparse_tensor: SPARSE_TENSOR. */
  sparseTensor?: OnnxSparseTensor | undefined;
  /** Field 21 ref_attr_name: in a function body, the caller's attribute this one refers to. */
  refAttrName?: string | undefined;
  /** Field 13 doc_string. */
  docString?: string | undefined;
}

/** A NodeProto: one operator call. */
export interface OnnxNode {
  /** Field 3 name ("" when absent; weight paths then use `<op_type>#<index>`). */
  name: string;
  /** Field 4 op_type, e.g. `Conv`. */
  opType: string;
  /** Field 7 domain ("" is the default ai.onnx). */
  domain: string;
  /** Field 1 input: value names read ("" for an omitted optional input). */
  inputs: string[];
  /** Field 2 output: value names produced. */
  outputs: string[];
  /** Field 5 attribute, in file order. */
  attributes: OnnxAttribute[];
  /** Field 6 doc_string. */
  docString: string;
}

/** A value's type: a tensor's element type and shape (dims are numbers or symbolic names; null when unknown). */
export interface OnnxValueType {
  /**
   * Which TypeProto member is set (1 tensor_type, 8 sparse_tensor_type, 4 sequence_type, 5 map_type, 9 optional_type);
   * `unknown` when none is (or onnx-ml's 7 opaque_type).
   */
  kind: "tensor" | "sparse_tensor" | "sequence" | "map" | "optional" | "unknown";
  /** tensor/sparse_tensor: elem_type, a TensorProto.DataType code (see {@link dataTypeName}). */
  elemType?: number | undefined;
  /** undefined: rank unknown. */
  shape?: (number | string | null)[] | undefined;
  /** map: key_type, a TensorProto.DataType code. */
  keyType?: number | undefined;
  /** sequence/optional: the elements' type (elem_type); map: the values' type (value_type). */
  elem?: OnnxValueType | undefined;
}

/** A ValueInfoProto: a named value's declared type (graph inputs, outputs, value_info). */
export interface OnnxValueInfo {
  /** Field 1 name. */
  name: string;
  /** Field 2 type (`unknown` kind when absent). */
  type: OnnxValueType;
  /** Field 3 doc_string. */
  docString: string;
}

/** A GraphProto: the main graph or a subgraph. */
export interface OnnxGraph {
  /** Field 2 name. */
  name: string;
  /** Field 10 doc_string. */
  docString: string;
  /** Field 1 node, in file order (normally topological). */
  nodes: OnnxNode[];
  /** Field 5 initializer: the stored weights. */
  initializers: OnnxTensor[];
  /** Field 15 sparse_initializer. */
  sparseInitializers: OnnxSparseTensor[];
  /** Field 11 input (may also list initializers, as IR < 4 required). */
  inputs: OnnxValueInfo[];
  /** Field 12 output. */
  outputs: OnnxValueInfo[];
  /** Field 13 value_info: types of intermediate values. */
  valueInfo: OnnxValueInfo[];
}

/** A ModelProto, as read() and readFrom() return it. */
export interface OnnxModel {
  /** Field 1 ir_version (0 when absent, which verify() reports). */
  irVersion: number;
  /** Field 2 producer_name, e.g. `pytorch`. */
  producerName: string;
  /** Field 3 producer_version. */
  producerVersion: string;
  /** Field 4 domain (reverse-DNS of the model's namespace). */
  domain: string;
  /** Field 5 model_version. */
  modelVersion: number;
  /** Field 6 doc_string. */
  docString: string;
  /** Field 8 opset_import: the operator sets the graph uses. */
  opsetImports: {
    /** Field 1 domain ("" is the default ai.onnx). */
    domain: string;
    /** Field 2 version: the opset version. */
    version: number;
  }[];
  /** Field 14 metadata_props, in file order. */
  metadataProps: {
    /** Field 1 key. */
    key: string;
    /** Field 2 value. */
    value: string;
  }[];
  /** Field 7 graph; undefined when the model has none. */
  graph: OnnxGraph | undefined;
  /** Number of model-local functions (field 25); their bodies are walked for unknown fields, not held. */
  readonly functionCount: number;
  /** Fields of any message this reader does not know, kept as bytes (write() copies them), as read. */
  readonly unknownFieldCount: number;
  /** Where the model is: [start, end) of the file (an .april network: its range). */
  readonly span: ByteRange;
  /**
   * Replacement values (by weight name) that write() stores: the element bytes in the weight's dtype, row-major,
   * little-endian. replaceTensors() sets it; read() leaves it undefined.
   */
  replacements?: ReadonlyMap<string, Uint8Array> | undefined;
}

/** read()/readFrom() options. */
export interface OnnxReadOptions {
  /** Subgraph nesting limit (default MAX_GRAPH_DEPTH). */
  maxGraphDepth?: number | undefined;
}

/** One data type: its name, tensorfile dtype (undefined: no tensorfile dtype), element bits, typed field. */
export interface OnnxDataTypeInfo {
  /** The TensorProto.DataType name, e.g. `FLOAT`. */
  name: string;
  /** The tensorfile dtype of its weights (uint8 for the types shown as stored bytes; undefined for STRING). */
  dtype: DType | undefined;
  /** Bits per element in raw_data. */
  bits: number;
  /** The typed field that holds it when not in raw_data. */
  field: Exclude<OnnxStorage, "raw_data" | "external" | "none"> | undefined;
  /** Exposed as its stored bytes (uint8, shape [byteLength]): the 4-bit types and float8 kinds without a dtype. */
  asStoredBytes?: boolean | undefined;
}

/** The TensorProto.DataType codes this reader knows (1 FLOAT … 24 FLOAT8E8M0), by code. */
export const DATA_TYPES: Readonly<Record<number, OnnxDataTypeInfo>> = {
  1: { name: "FLOAT", dtype: "float32", bits: 32, field: "float_data" },
  2: { name: "UINT8", dtype: "uint8", bits: 8, field: "int32_data" },
  3: { name: "INT8", dtype: "int8", bits: 8, field: "int32_data" },
  4: { name: "UINT16", dtype: "uint16", bits: 16, field: "int32_data" },
  5: { name: "INT16", dtype: "int16", bits: 16, field: "int32_data" },
  6: { name: "INT32", dtype: "int32", bits: 32, field: "int32_data" },
  7: { name: "INT64", dtype: "int64", bits: 64, field: "int64_data" },
  8: { name: "STRING", dtype: undefined, bits: 0, field: "string_data" },
  9: { name: "BOOL", dtype: "bool", bits: 8, field: "int32_data" },
  10: { name: "FLOAT16", dtype: "float16", bits: 16, field: "int32_data" },
  11: { name: "DOUBLE", dtype: "float64", bits: 64, field: "double_data" },
  12: { name: "UINT32", dtype: "uint32", bits: 32, field: "uint64_data" },
  13: { name: "UINT64", dtype: "uint64", bits: 64, field: "uint64_data" },
  14: { name: "COMPLEX64", dtype: "complex64", bits: 64, field: "float_data" },
  15: { name: "COMPLEX128", dtype: "complex128", bits: 128, field: "double_data" },
  16: { name: "BFLOAT16", dtype: "bfloat16", bits: 16, field: "int32_data" },
  17: { name: "FLOAT8E4M3FN", dtype: "float8_e4m3", bits: 8, field: "int32_data" },
  18: { name: "FLOAT8E4M3FNUZ", dtype: "uint8", bits: 8, field: "int32_data", asStoredBytes: true },
  19: { name: "FLOAT8E5M2", dtype: "float8_e5m2", bits: 8, field: "int32_data" },
  20: { name: "FLOAT8E5M2FNUZ", dtype: "uint8", bits: 8, field: "int32_data", asStoredBytes: true },
  21: { name: "UINT4", dtype: "uint8", bits: 4, field: "int32_data", asStoredBytes: true },
  22: { name: "INT4", dtype: "uint8", bits: 4, field: "int32_data", asStoredBytes: true },
  23: { name: "FLOAT4E2M1", dtype: "uint8", bits: 4, field: "int32_data", asStoredBytes: true },
  24: { name: "FLOAT8E8M0", dtype: "uint8", bits: 8, field: "int32_data", asStoredBytes: true },
};

/** The name of a TensorProto.DataType code: `FLOAT`, `UNDEFINED` for 0, `data type <n>` for an unknown code. */
export function dataTypeName(dataType: number): string {
  return DATA_TYPES[dataType]?.name ?? (dataType === 0 ? "UNDEFINED" : `data type ${dataType}`);
}

/** Stored bytes of `count` elements of `dataType` in raw_data (4-bit types: two per byte, rounded up). */
export function rawByteLength(info: OnnxDataTypeInfo, count: number): number {
  return info.bits === 4 ? Math.ceil(count / 2) : (count * info.bits) / 8;
}

/** The data type of a tensorfile dtype (for writers), or undefined. */
export function dataTypeOf(dtype: DType): number | undefined {
  for (const [key, info] of Object.entries(DATA_TYPES))
    if (info.dtype === dtype && !info.asStoredBytes) return Number(key);
  return undefined;
}
