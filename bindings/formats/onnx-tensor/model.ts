/**
 * The types of an ONNX TensorProto file (`.pb`, as in ONNX's test data sets): one tensor, read with the ONNX
 * reader's TensorProto parser.
 */
import type { OnnxTensor } from "../onnx/model.js";

/** The format's id. */
export const id = "onnx-tensor" as const;

/** The name of the file's tensor when the TensorProto has no `name`. */
export const DEFAULT_NAME = "tensor";

/** What read() and readFrom() return: the TensorProto and the name its tensor gets. */
export interface OnnxTensorFile {
  /** The tensor's name in tensors()/tensorInfos(): the proto's `name`, or `tensor` when it has none. */
  name: string;
  /**
   * The TensorProto as the ONNX reader reads a model's weights: name, data type, dims, which field holds the data
   * and where it is (byte ranges of the file).
   */
  tensor: OnnxTensor;
  /** Fields this reader does not know (3 segment, 16 metadata_props, newer ones), kept as bytes. */
  unknownFieldCount: number;
  /** The file's size in bytes. */
  byteLength: number;
}
