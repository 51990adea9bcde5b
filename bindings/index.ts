/**
 * tensorfile: read and write wav2letter (BW2L), april-asr, TenniS/SeetaFace6, primitiv, SPRAAK and ONNX files; read
 * safetensors, npy, npz and ONNX TensorProto (.pb) files.
 * Public surface: docs/guide.md and the format pages docs/formats/<format>.md.
 */
export * as bw2l from "./formats/bw2l.js";
export * as april from "./formats/april.js";
export * as tsm from "./formats/tsm.js";
export * as primitiv from "./formats/primitiv.js";
export * as spraak from "./formats/spraak.js";
export * as onnx from "./formats/onnx.js";
export * as safetensors from "./formats/safetensors.js";
export * as npy from "./formats/npy.js";
export * as npz from "./formats/npz.js";
export * as onnxTensor from "./formats/onnx-tensor.js";
export * as kernels from "./kernels/index.js";
export {
  FORMATS,
  DETECT_BYTES,
  detectFormat,
  formatModule,
  formatOfName,
  loadTensor,
  readAny,
  readFromAny,
  unknownFormatError,
} from "./any.js";
export { writeSafetensors, planSafetensors } from "./export/safetensors.js";
export { writeNpy, npyHeader } from "./export/npy.js";
export { writeSafetensorsTo, writeNpyTo } from "./export/stream.js";
export type { ByteSink, LazyTensorRef, LazyTensors, NodeWritableLike, StreamWriteOptions } from "./export/stream.js";
export type { AnyFile, AnyLazyFile, FormatFiles, FormatModules } from "./any.js";
export {
  FormatError,
  TruncatedError,
  BadMagicError,
  UnsupportedVersionError,
  CorruptDataError,
  LimitError,
  UnsupportedError,
  FORMAT_ERROR_CODES,
  isFormatError,
  PatchError,
  isPatchError,
} from "./bytes/errors.js";
export type { FormatErrorCode, PatchErrorDetails, PatchErrorFields, PatchProblem } from "./bytes/errors.js";
export { decodeTensor, dtypeBytes, elementCount } from "./tensor.js";
export type {
  DType,
  StandardDType,
  FormatSpecificDType,
  NarrowFloatDType,
  NamedTensor,
  TensorInfo,
  TypedArray,
  Quantization,
  DecodeOptions,
} from "./tensor.js";
export type {
  FormatId,
  InputFormatId,
  FormatModule,
  InspectResult,
  InspectTensor,
  EmbeddedBlob,
} from "./formats/types.js";
export { ByteReader } from "./bytes/byte-reader.js";
export type { ByteRange } from "./bytes/byte-reader.js";
export { ByteWriter } from "./bytes/byte-writer.js";
export { DEFAULT_URL_IDLE_TIMEOUT_MS, fromBytes, fromBlob, fromFile, fromUrl, SourceError } from "./io/source.js";
export { DEFAULT_URL_MIN_BYTES_PER_SECOND } from "./io/url-checks.js";
export { loadFile, openFile, loadBlob, loadSource } from "./load-file.js";
export type { LoadOptions, LoadedFile, OpenOptions, OpenedFile } from "./load-file.js";
export { withExternalData } from "./io/external-data.js";
export type { ExternalDataOption, ExternalDataRequest, ExternalDataResolver } from "./io/external-data.js";
export type { ByteSource, UrlSourceOptions } from "./io/source.js";
// issue 15: compare two files' tensors
export { diffTensors } from "./diff.js";
export type { DiffInput, DiffOptions, DiffProgress, DiffResult, TensorDiff } from "./diff.js";
// issue 15: put new weights back into a model
export { patch, patchFrom, patchTo } from "./patch.js";
export type {
  ExternalPatchOptions,
  LazyTensorsWithSource,
  PatchOptions,
  PatchResult,
  PatchSummary,
  PatchToOptions,
  PatchToResult,
  PatchValue,
  ReplaceOptions,
  TensorsHolder,
  TensorsInput,
  Weights,
} from "./patch.js";
