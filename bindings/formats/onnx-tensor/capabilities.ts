/** What onnx-tensor offers beyond reading, for the registry (see FormatCapabilities in ../types.ts and format.ts). */
import * as onnxTensor from "../onnx-tensor.js";
import { tensorChunks } from "../onnx/chunks.js";
import type { FormatCapabilities } from "../types.js";

/** The format's file object, as its read() returns it. */
type File = ReturnType<typeof onnxTensor.read>;

/** What the format offers beyond reading (see FormatCapabilities). */
export const capabilities: FormatCapabilities<typeof onnxTensor, File> = {
  id: onnxTensor.id,
  module: onnxTensor,
  // its TensorProto may keep its data in an external file or in a large typed field, as an ONNX weight does
  tensorChunks,
  unnamedTensor: (file) =>
    file.tensor.name === ""
      ? "a TensorProto without a name: give the tensor's name in the model with --tensor NAME"
      : undefined,
};
