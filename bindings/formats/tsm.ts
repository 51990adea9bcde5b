/**
 * TenniS modules (.tsm) and SeetaFace6 containers (.csta). All integers little-endian.
 *
 *   .tsm   fake u32 | code u32 = 0x19910929 | reserved u8[120]
 *          | inputs: n u32 + u32 × n | outputs: n u32 + u32 × n
 *          | node_count u32 | node × node_count
 *          node   = param_count u32 | (key_len u32 + key | packed) × param_count | n u32 + input index u32 × n
 *          packed = field_count u32 | (dtype u8 | ndims u32 | dim u32 × ndims | raw bytes) × field_count
 *   .csta  "fast" | XOR(key bf97dfd5cf720000) of: code u32 = 0x19910929 | STA tree | padding
 *          the module is the tree's binary at ["backbone"]["tsm"]
 *
 * Details: tsm/module.ts (the module), tsm/csta.ts (the container), tsm/graph.ts (the graph view); tsm/reader.ts,
 * writer.ts and view.ts implement what this facade exports, tsm/model.ts holds the file object's types. The
 * TenniS → ONNX converter sits above the formats, in ../convert/tsm/.
 * Tensors (the uniform view) are the `value` of every `<const>` node, named by the node's `#name`
 * (`#name/0` … `#name/k-1` for a packed value of k > 1 fields), in the stored shape.
 */
export type { TsmField, TsmHeader, TsmModule, TsmNode, TsmParam } from "./tsm/module.js";
export type { CstaContainer, StaEntry, StaValue } from "./tsm/csta.js";
export type { TsmAttrValue, TsmGraph, TsmGraphNode, TsmOpaqueValue, TsmUnloadedValue } from "./tsm/graph.js";
export { TSM_DTYPES, tsmDTypeCode, tsmDTypeName } from "./tsm/dtypes.js";
export { fieldString, fieldValue, paramValue } from "./tsm/graph.js";
export { MODULE_CODE, LAZY_ATTRIBUTE_BYTES } from "./tsm/module.js";
export { create } from "./tsm/builder.js";
export type { TsmCreateInput, TsmNodeInput, TsmFieldInput } from "./tsm/builder.js";
export { CSTA_KEY, STA_CODE, staToPlain, staLookup } from "./tsm/csta.js";
export { id, extensions } from "./tsm/model.js";
export type { TsmFile, TsmTensorInfo } from "./tsm/model.js";
export { detect, read, readFrom } from "./tsm/reader.js";
export { write, writeTo, writeCsta } from "./tsm/writer.js";
export type { WriteCstaOptions } from "./tsm/writer.js";
export { blobs, cstaMeta, graph, inspect, loadTensor, tensorInfos, tensors, verify } from "./tsm/view.js";
// issue 15: replace tensors by name (patch)
export { replaceTensors } from "./tsm/patch.js";
// issue 25: TenniS / SeetaFace6 modules out to ONNX
export {
  toOnnx,
  toOnnxPieces,
  onnxSupport,
  describeBlockers,
  TsmOnnxUnsupportedError,
  SUPPORTED_OPS as ONNX_SUPPORTED_OPS,
} from "../convert/tsm/to-onnx.js";
export type { ToOnnxOptions, OnnxBlocker } from "../convert/tsm/to-onnx.js";
