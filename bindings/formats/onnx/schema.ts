/**
 * Every field of every message of ONNX's `onnx.proto` and `onnx-ml.proto` (onnx/onnx v1.22.0, IR version 13):
 * its number, its wire type, and for a message-typed field the message. The reader reads the fields the object
 * model holds (model.ts) and passes over the others with this table: a field listed here is known (its wire type
 * checked, a nested message walked for fields that are really unknown), a field not listed is unknown (counted,
 * kept as bytes). Detection and the lazy header walk use the same table.
 *
 * Wire types: 0 varint (int32, int64, uint64, enums), 1 fixed64 (double), 2 length-delimited (string, bytes,
 * messages, packed repeated scalars), 5 fixed32 (float). `packed`: a repeated scalar, one value of its own wire
 * type per tag or several packed in one length-delimited field.
 */
import { WIRE_FIXED32, WIRE_FIXED64, WIRE_LEN, WIRE_VARINT } from "./wire.js";

/** One field of a message. */
export interface FieldSpec {
  /** The field's name in onnx.proto (for error paths). */
  name: string;
  /** Its wire type (a packed repeated scalar: the wire type of one element). */
  wire: number;
  /** A repeated scalar: packed (length-delimited) or one element per tag. */
  packed?: boolean;
  /** A string (UTF-8 text; bytes fields are not marked). */
  text?: boolean;
  /** A message-typed field: the message's fields. */
  message?: MessageSchema;
}

/** The fields of one message, by number. */
export interface MessageSchema {
  /** The message's name in onnx.proto. */
  readonly name: string;
  readonly fields: { [field: number]: FieldSpec | undefined };
}

const varint = (name: string): FieldSpec => ({ name, wire: WIRE_VARINT });
const packedVarint = (name: string): FieldSpec => ({ name, wire: WIRE_VARINT, packed: true });
const text = (name: string): FieldSpec => ({ name, wire: WIRE_LEN, text: true });
const bytes = (name: string): FieldSpec => ({ name, wire: WIRE_LEN });
const message = (name: string, schema: MessageSchema): FieldSpec => ({ name, wire: WIRE_LEN, message: schema });
const schema = (name: string): MessageSchema => ({ name, fields: {} });

export const STRING_STRING_ENTRY = schema("StringStringEntryProto");
export const OPERATOR_SET_ID = schema("OperatorSetIdProto");
export const TENSOR_SEGMENT = schema("TensorProto.Segment");
export const TENSOR = schema("TensorProto");
export const SPARSE_TENSOR = schema("SparseTensorProto");
export const DIMENSION = schema("TensorShapeProto.Dimension");
export const TENSOR_SHAPE = schema("TensorShapeProto");
export const TYPE_TENSOR = schema("TypeProto.Tensor");
export const TYPE_SEQUENCE = schema("TypeProto.Sequence");
export const TYPE_MAP = schema("TypeProto.Map");
export const TYPE_OPTIONAL = schema("TypeProto.Optional");
export const TYPE_SPARSE_TENSOR = schema("TypeProto.SparseTensor");
export const TYPE_OPAQUE = schema("TypeProto.Opaque");
export const TYPE = schema("TypeProto");
export const VALUE_INFO = schema("ValueInfoProto");
export const ATTRIBUTE = schema("AttributeProto");
export const INT_INT_LIST_ENTRY = schema("IntIntListEntryProto");
export const SIMPLE_SHARDED_DIM = schema("SimpleShardedDimProto");
export const SHARDED_DIM = schema("ShardedDimProto");
export const SHARDING_SPEC = schema("ShardingSpecProto");
export const NODE_DEVICE_CONFIGURATION = schema("NodeDeviceConfigurationProto");
export const NODE = schema("NodeProto");
export const TENSOR_ANNOTATION = schema("TensorAnnotation");
export const GRAPH = schema("GraphProto");
export const TRAINING_INFO = schema("TrainingInfoProto");
export const FUNCTION = schema("FunctionProto");
export const DEVICE_CONFIGURATION = schema("DeviceConfigurationProto");
export const MODEL = schema("ModelProto");

Object.assign(STRING_STRING_ENTRY.fields, { 1: text("key"), 2: text("value") });
Object.assign(OPERATOR_SET_ID.fields, { 1: text("domain"), 2: varint("version") });
Object.assign(TENSOR_SEGMENT.fields, { 1: varint("begin"), 2: varint("end") });
Object.assign(TENSOR.fields, {
  1: packedVarint("dims"),
  2: varint("data_type"),
  3: message("segment", TENSOR_SEGMENT),
  4: { name: "float_data", wire: WIRE_FIXED32, packed: true },
  5: packedVarint("int32_data"),
  6: bytes("string_data"),
  7: packedVarint("int64_data"),
  8: text("name"),
  9: bytes("raw_data"),
  10: { name: "double_data", wire: WIRE_FIXED64, packed: true },
  11: packedVarint("uint64_data"),
  12: text("doc_string"),
  13: message("external_data", STRING_STRING_ENTRY),
  14: varint("data_location"),
  16: message("metadata_props", STRING_STRING_ENTRY),
});
Object.assign(SPARSE_TENSOR.fields, {
  1: message("values", TENSOR),
  2: message("indices", TENSOR),
  3: packedVarint("dims"),
});
Object.assign(DIMENSION.fields, { 1: varint("dim_value"), 2: text("dim_param"), 3: text("denotation") });
Object.assign(TENSOR_SHAPE.fields, { 1: message("dim", DIMENSION) });
Object.assign(TYPE_TENSOR.fields, { 1: varint("elem_type"), 2: message("shape", TENSOR_SHAPE) });
Object.assign(TYPE_SEQUENCE.fields, { 1: message("elem_type", TYPE) });
Object.assign(TYPE_MAP.fields, { 1: varint("key_type"), 2: message("value_type", TYPE) });
Object.assign(TYPE_OPTIONAL.fields, { 1: message("elem_type", TYPE) });
Object.assign(TYPE_SPARSE_TENSOR.fields, { 1: varint("elem_type"), 2: message("shape", TENSOR_SHAPE) });
Object.assign(TYPE_OPAQUE.fields, { 1: text("domain"), 2: text("name") });
Object.assign(TYPE.fields, {
  1: message("tensor_type", TYPE_TENSOR),
  4: message("sequence_type", TYPE_SEQUENCE),
  5: message("map_type", TYPE_MAP),
  6: text("denotation"),
  7: message("opaque_type", TYPE_OPAQUE),
  8: message("sparse_tensor_type", TYPE_SPARSE_TENSOR),
  9: message("optional_type", TYPE_OPTIONAL),
});
Object.assign(VALUE_INFO.fields, {
  1: text("name"),
  2: message("type", TYPE),
  3: text("doc_string"),
  4: message("metadata_props", STRING_STRING_ENTRY),
});
Object.assign(ATTRIBUTE.fields, {
  1: text("name"),
  2: { name: "f", wire: WIRE_FIXED32 },
  3: varint("i"),
  4: bytes("s"),
  5: message("t", TENSOR),
  6: message("g", GRAPH),
  7: { name: "floats", wire: WIRE_FIXED32, packed: true },
  8: packedVarint("ints"),
  9: bytes("strings"),
  10: message("tensors", TENSOR),
  11: message("graphs", GRAPH),
  13: text("doc_string"),
  14: message("tp", TYPE),
  15: message("type_protos", TYPE),
  20: varint("type"),
  21: text("ref_attr_name"),
  22: message("sparse_tensor", SPARSE_TENSOR),
  23: message("sparse_tensors", SPARSE_TENSOR),
});
Object.assign(INT_INT_LIST_ENTRY.fields, { 1: varint("key"), 2: packedVarint("value") });
Object.assign(SIMPLE_SHARDED_DIM.fields, { 1: varint("dim_value"), 2: text("dim_param"), 3: varint("num_shards") });
Object.assign(SHARDED_DIM.fields, { 1: varint("axis"), 2: message("simple_sharding", SIMPLE_SHARDED_DIM) });
Object.assign(SHARDING_SPEC.fields, {
  1: text("tensor_name"),
  2: packedVarint("device"),
  3: message("index_to_device_group_map", INT_INT_LIST_ENTRY),
  4: message("sharded_dim", SHARDED_DIM),
});
Object.assign(NODE_DEVICE_CONFIGURATION.fields, {
  1: text("configuration_id"),
  2: message("sharding_spec", SHARDING_SPEC),
  3: varint("pipeline_stage"),
});
Object.assign(NODE.fields, {
  1: text("input"),
  2: text("output"),
  3: text("name"),
  4: text("op_type"),
  5: message("attribute", ATTRIBUTE),
  6: text("doc_string"),
  7: text("domain"),
  8: text("overload"),
  9: message("metadata_props", STRING_STRING_ENTRY),
  10: message("device_configurations", NODE_DEVICE_CONFIGURATION),
});
Object.assign(TENSOR_ANNOTATION.fields, {
  1: text("tensor_name"),
  2: message("quant_parameter_tensor_names", STRING_STRING_ENTRY),
});
Object.assign(GRAPH.fields, {
  1: message("node", NODE),
  2: text("name"),
  5: message("initializer", TENSOR),
  10: text("doc_string"),
  11: message("input", VALUE_INFO),
  12: message("output", VALUE_INFO),
  13: message("value_info", VALUE_INFO),
  14: message("quantization_annotation", TENSOR_ANNOTATION),
  15: message("sparse_initializer", SPARSE_TENSOR),
  16: message("metadata_props", STRING_STRING_ENTRY),
});
Object.assign(TRAINING_INFO.fields, {
  1: message("initialization", GRAPH),
  2: message("algorithm", GRAPH),
  3: message("initialization_binding", STRING_STRING_ENTRY),
  4: message("update_binding", STRING_STRING_ENTRY),
});
Object.assign(FUNCTION.fields, {
  1: text("name"),
  4: text("input"),
  5: text("output"),
  6: text("attribute"),
  7: message("node", NODE),
  8: text("doc_string"),
  9: message("opset_import", OPERATOR_SET_ID),
  10: text("domain"),
  11: message("attribute_proto", ATTRIBUTE),
  12: message("value_info", VALUE_INFO),
  13: text("overload"),
  14: message("metadata_props", STRING_STRING_ENTRY),
});
Object.assign(DEVICE_CONFIGURATION.fields, { 1: text("name"), 2: varint("num_devices"), 3: text("device") });
Object.assign(MODEL.fields, {
  1: varint("ir_version"),
  2: text("producer_name"),
  3: text("producer_version"),
  4: text("domain"),
  5: varint("model_version"),
  6: text("doc_string"),
  7: message("graph", GRAPH),
  8: message("opset_import", OPERATOR_SET_ID),
  14: message("metadata_props", STRING_STRING_ENTRY),
  20: message("training_info", TRAINING_INFO),
  25: message("functions", FUNCTION),
  26: message("configuration", DEVICE_CONFIGURATION),
});

/** True when wire type `wire` is what `spec` declares (a packed repeated scalar: also length-delimited). */
export function wireMatches(spec: FieldSpec, wire: number): boolean {
  return spec.wire === wire || (spec.packed === true && wire === WIRE_LEN);
}
