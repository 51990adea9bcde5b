/**
 * The onnx-tensor format as the registry (../registry.ts) sees it: its reading functions, and apart from them (so that a
 * reader-only bundle drops the rest) what it offers beyond reading.
 */
import * as onnxTensor from "../onnx-tensor.js";
import type { FormatCapabilities, FormatReading } from "../types.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof onnxTensor.read>;

/** What detection and the readers need: no writer, builder or patcher is reachable from here. */
export const reading: FormatReading<File> = {
  id: onnxTensor.id,
  extensions: onnxTensor.extensions,
  chosenByName: true,
  detect: onnxTensor.detect,
  read: onnxTensor.read,
  readFrom: onnxTensor.readFrom,
  tensors: onnxTensor.tensors,
  tensorInfos: onnxTensor.tensorInfos,
  loadTensor: onnxTensor.loadTensor,
};

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof onnxTensor, File> = {
  id: onnxTensor.id,
  module: onnxTensor,
  unnamedTensor: (file) => (file.tensor.name === "" ? "a TensorProto without a name: give the tensor's name in the model with --tensor NAME" : undefined),
};
