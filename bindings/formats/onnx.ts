/**
 * ONNX models (`.onnx`): a protobuf ModelProto (onnx/onnx `onnx.proto`). Protobuf wire format, no magic; every
 * field is `varint(field << 3 | wire type)` then its payload (varint, 8 bytes, varint length + bytes, 4 bytes).
 *
 *   ModelProto  1 ir_version | 2-6 producer, domain, version, doc | 7 graph | 8 opset_import | 14 metadata_props
 *   GraphProto  1 node* | 5 initializer* (TensorProto) | 11 input* | 12 output* | 13 value_info* | 15 sparse_initializer*
 *   NodeProto   1 input* | 2 output* | 3 name | 4 op_type | 5 attribute* (subgraphs: 6 g, 11 graphs; tensors: 5 t)
 *   TensorProto 1 dims* | 2 data_type | 8 name | 9 raw_data | 4/5/7/10/11 typed data | 13 external_data | 14 data_location
 *
 * Weights (tensors()) are every initializer and every Constant node's `value`, at every depth; in a subgraph a
 * weight is named `<node name>/<attribute name>/<weight name>` (a node without a name: `<op_type>#<index>`).
 * The code: onnx/model.ts (types and the full field table), wire.ts (the strict read cursor), reader.ts,
 * lazy-read.ts (lazy opens: small range reads, the header walk for asynchronous sources), view.ts, writer.ts,
 * patch.ts, typed-chunks.ts (large typed-field weights decoded and patched in pieces); edit.ts (edits: metadata,
 * renames, shapes, new tensors) and edit-write.ts (write() of an edited model); proto-writer.ts is the shared
 * encoder.
 */
import { ByteReader } from "../bytes/byte-reader.js";
import { asBytes, asSource, bytesOrUndefined } from "../bytes/input.js";
import type { ByteSource } from "../io/source.js";
import { type OnnxModel, type OnnxReadOptions, id } from "./onnx/model.js";
import { parseSmallChunks } from "./onnx/lazy-read.js";
import { looksLikeModel, parseModel } from "./onnx/reader.js";
import { modelBytes } from "./onnx/view.js";
import { type OnnxModelInput, create as encodeModel } from "./onnx/builder.js";
import { type QuantizeOptions, type QuantizeReport, quantizeInPlace } from "./onnx/quantize.js";
import { UnsupportedError } from "../bytes/errors.js";

export { id };
/** The file extensions this format is written with. */
export const extensions: readonly string[] = [".onnx"];

export type {
  OnnxAttribute,
  OnnxAttributeType,
  OnnxDataTypeInfo,
  OnnxExternalData,
  OnnxFrame,
  OnnxGraph,
  OnnxModel,
  OnnxNode,
  OnnxReadOptions,
  OnnxSparseTensor,
  OnnxStorage,
  OnnxTensor,
  OnnxValueInfo,
  OnnxValueType,
} from "./onnx/model.js";
export { ATTRIBUTE_TYPES, DATA_TYPES, MAX_GRAPH_DEPTH, dataTypeName, dataTypeOf } from "./onnx/model.js";
export type { OnnxStorageInfo, OnnxTensorInfo, OnnxWeight } from "./onnx/view.js";
export { blobs, inspect, loadTensor, nodeLabel, tensorInfos, tensors, verify, weights } from "./onnx/view.js";
export { write, writeTo } from "./onnx/edit-write.js";
export { replaceTensors } from "./onnx/patch.js";
export type { OnnxDim, OnnxModelField, SetShapeResult } from "./onnx/edit.js";
export {
  MODEL_FIELDS,
  deleteMetadata,
  makeTensor,
  parseShape,
  renameValue,
  setMetadata,
  setModelField,
  setShape,
} from "./onnx/edit.js";
export type {
  OnnxAttributeInput,
  OnnxAttributeValue,
  OnnxDTypeName,
  OnnxGraphInput,
  OnnxModelInput,
  OnnxNodeInput,
  OnnxTensorInput,
  OnnxValueInfoInput,
} from "./onnx/builder.js";
export { createPieces, ONNX_DTYPES } from "./onnx/builder.js";
export type { Fp16Op, QuantizeMode, QuantizeOptions, QuantizeReport } from "./onnx/quantize.js";
export { FP16_OPS, MIN_WEIGHT_ELEMENTS } from "./onnx/quantize.js";
export type { QuantizeToOptions } from "./onnx/quantize-stream.js";
export { quantizeTo } from "./onnx/quantize-stream.js";

/**
 * A new model from plain objects (graph, nodes, initializers stored as raw_data, inputs/outputs), as the other
 * formats' builders: `write(create(...))` gives its bytes; {@link createPieces} gives them without joining.
 */
export function create(input: OnnxModelInput): OnnxModel {
  return read(encodeModel(input));
}

/** True when the first bytes read as the start of an ONNX ModelProto (see reader.looksLikeModel); never throws. */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  // only the first 64 bytes (detectFormat's DETECT_BYTES) decide, so a head and the whole file agree
  return head !== undefined && looksLikeModel(head.subarray(0, 64));
}

/** The whole model; payloads stay byte ranges of `bytes` (which the result keeps for tensors() and write()). */
export function read(bytes: Uint8Array, options: OnnxReadOptions = {}): OnnxModel {
  const input = asBytes(bytes, "onnx.read");
  const model = parseModel(new ByteReader(input, id), {
    eager: true,
    maxGraphDepth: options.maxGraphDepth,
    origin: input,
    lazyNodes: input,
  });
  modelBytes.set(model, input);
  return model;
}

/** The same object as read(), reading headers only (payloads are never fetched): use loadTensor per weight. */
export async function readFrom(source: ByteSource, options: OnnxReadOptions = {}): Promise<OnnxModel> {
  return parseSmallChunks(asSource(source, "onnx.readFrom"), id, (backing) =>
    parseModel(new ByteReader(backing, id), { eager: false, maxGraphDepth: options.maxGraphDepth }),
  );
}

/**
 * A new model object (the same bytes read again) changed to float16 computation, bfloat16 weights or int8 weights
 * (see onnx/quantize.ts), with what was done. `model` itself is not changed; write() the result to get its bytes.
 * An .april network's model gives a standalone ONNX model (use april.quantize for the whole file).
 */
export function quantizeWithReport(
  model: OnnxModel,
  options: QuantizeOptions,
): {
  /** The new model object, changed. */
  model: OnnxModel;
  /** What was done. */
  report: QuantizeReport;
} {
  const bytes = modelBytes.get(model);
  if (!bytes)
    throw new UnsupportedError(
      id,
      "quantize needs a model read() returned (a lazy readFrom() model has no bytes in memory: convert it from its source with onnx.quantizeTo(source, sink, options))",
      undefined,
      "quantize",
    );
  const whole = model.span.byteOffset === 0 && model.span.byteLength === bytes.length;
  const fresh = read(
    whole ? bytes : bytes.subarray(model.span.byteOffset, model.span.byteOffset + model.span.byteLength),
  );
  const report = quantizeInPlace(fresh, options);
  return { model: fresh, report };
}

/** {@link quantizeWithReport}'s model: a new model object in float16, bfloat16 weights or int8 weights. */
export function quantize(model: OnnxModel, options: QuantizeOptions): OnnxModel {
  return quantizeWithReport(model, options).model;
}
