/**
 * What ONNX offers the formats that embed ONNX models (april's networks): the one module of onnx/ they import, so
 * that a format never reaches into another's folder. Names that would be ambiguous outside onnx/ say "model".
 */
export type { OnnxModel } from "./model.js";
export { parseSmallChunks } from "./lazy-read.js";
export { type VarintCounter, looksLikeModel, parseModel } from "./reader.js";
export {
  type OnnxTensorInfo,
  inspectExtras,
  inspectTensors,
  loadTensor as loadModelTensor,
  modelBytes,
  tensorOf,
  verify as verifyModel,
  weightInfo,
  weights,
} from "./view.js";
export { write as writeModel, writePieces as writeModelPieces } from "./edit-write.js";
export { type ModelPlan, planModel, replaceTensors as replaceModelTensors } from "./patch.js";
export { type QuantizeOptions, type QuantizeReport, checkQuantize, quantizeInPlace } from "./quantize.js";
export { REWRITE_CHUNK_BYTES } from "./rewrite-from.js";
export {
  type OutputPiece,
  QUANTIZE_CHUNK_BYTES,
  type SparseModel,
  quantizeSparse,
  readSparse,
  synchronousSource,
} from "./quantize-stream.js";
