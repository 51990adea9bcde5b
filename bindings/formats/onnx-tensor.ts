/**
 * ONNX TensorProto files (`.pb`): one protobuf TensorProto (onnx/onnx `onnx.proto`) on its own, as ONNX's test
 * data sets (`test_data_set_0/input_0.pb`, `output_0.pb`) and onnxruntime's tests keep inputs and outputs. An
 * input format: read, inspected, converted, diffed and used as patch weights, never written as a re-encode target.
 *
 *   TensorProto  1 dims* | 2 data_type | 8 name | 9 raw_data | 4/5/7/10/11 typed data (float_data, int32_data,
 *                int64_data, double_data, uint64_data) | 6 string_data* | 12 doc_string | 13 external_data |
 *                14 data_location
 *
 * Protobuf wire format, no magic: content detection is conservative (the first 64 bytes read as a TensorProto in
 * field order with a known data_type; onnx-tensor/detect.ts), and a file named `.pb` is opened as one whatever its
 * head (readFromAny with a named source: CLI paths, loadFile, openFile, a File). The tensor is named by the
 * proto's `name`, or `tensor`. Parsing and decoding are the ONNX reader's (every data type ONNX has, raw_data or
 * typed fields); a STRING tensor is listed, not decoded; external data is refused with a SourceError; a
 * SequenceProto or OptionalProto `.pb` is refused saying what it is.
 */
import { ByteReader } from "../bytes/byte-reader.js";
import { asBytes, asSource, bytesOrUndefined, copyBytes } from "../bytes/input.js";
import * as lazy from "../io/lazy.js";
import type { ByteSource } from "../io/source.js";
import { checkWriterInput } from "../bytes/arguments.js";
import { looksLikeTensorProto } from "./onnx-tensor/detect.js";
import { type OnnxTensorFile, DEFAULT_NAME, id } from "./onnx-tensor/model.js";
import { parseTensorFile } from "./onnx-tensor/reader.js";
import { fileBytes } from "./onnx-tensor/view.js";

export { id, DEFAULT_NAME };
export type { OnnxTensorFile };
/** The file extensions this format is written with. */
export const extensions: readonly string[] = [".pb"];
/** An input format: read, converted, inspected, never written as a re-encode target. */
export const inputOnly = true;

export { blobs, inspect, loadTensor, tensorInfos, tensors, verify } from "./onnx-tensor/view.js";
export type { OnnxTensorInfo } from "./onnx/view.js";

/** True when the first 64 bytes read as the start of a TensorProto (see onnx-tensor/detect.ts); never throws. */
export function detect(value: Uint8Array): boolean {
  const head = bytesOrUndefined(value);
  return head !== undefined && looksLikeTensorProto(head);
}

/** The whole file, every check; the data stays a range of `bytes` (which the result keeps for tensors()). */
export function read(bytes: Uint8Array): OnnxTensorFile {
  const input = asBytes(bytes, "onnx-tensor.read");
  const file = parseTensorFile(new ByteReader(input, id), true);
  fileBytes.set(file, input);
  return file;
}

/** The same object as read(), reading the TensorProto's fields only (raw_data is not fetched): use loadTensor. */
export async function readFrom(source: ByteSource): Promise<OnnxTensorFile> {
  return lazy.parseFrom(asSource(source, "onnx-tensor.readFrom"), id, (backing) =>
    parseTensorFile(new ByteReader(backing, id), false),
  );
}

/** The file's bytes again (a copy; needs a read() result). */
export function write(file: OnnxTensorFile): Uint8Array {
  checkWriterInput(file, "onnx-tensor.write", "an onnx-tensor file (from read())");
  const bytes = fileBytes.get(file);
  if (!bytes)
    throw new TypeError("onnx-tensor.write: this file object has no bytes (a readFrom() result); read() the file");
  return copyBytes(bytes);
}
