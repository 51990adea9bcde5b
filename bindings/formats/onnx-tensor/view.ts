/**
 * The views of a TensorProto file: its one tensor through the ONNX weight code (weightInfo, tensorOf, loadTensor:
 * raw_data as a byte range; typed fields, float16, int64, … decoded from the TensorProto), inspect and verify.
 * STRING tensors are listed by inspect and never decoded; external data (a file beside the .pb) is refused.
 */
import { UnsupportedError } from "../../bytes/errors.js";
import * as lazy from "../../io/lazy.js";
import { type ByteSource, SourceError } from "../../io/source.js";
import { type DecodeOptions, type NamedTensor, type TensorInfo, elementCount } from "../../tensor.js";
import type { EmbeddedBlob, InspectResult } from "../types.js";
import { DATA_TYPES, dataTypeName, rawByteLength } from "../onnx/model.js";
import {
  type OnnxTensorInfo,
  type OnnxWeight,
  loadTensor as loadOnnxWeight,
  tensorOf,
  weightInfo,
} from "../onnx/view.js";
import { type OnnxTensorFile, id } from "./model.js";

/** The bytes of a read() result (readFrom() results have none). */
export const fileBytes = new WeakMap<object, Uint8Array>();

/** The file's tensor as a weight, or undefined for a tensor without a dtype (STRING, UNDEFINED). */
function weightOf(file: OnnxTensorFile): OnnxWeight | undefined {
  const type = DATA_TYPES[file.tensor.dataType];
  return type?.dtype !== undefined ? { name: file.name, tensor: file.tensor, kind: "initializer" } : undefined;
}

/** The TensorInfo of the tensor (none for a STRING or UNDEFINED tensor); nothing is decoded. */
export function tensorInfos(file: OnnxTensorFile): OnnxTensorInfo[] {
  const w = weightOf(file);
  return w ? [{ ...weightInfo(w), format: id }] : [];
}

function externalRefused(file: OnnxTensorFile): SourceError {
  return new SourceError(
    `onnx-tensor "${file.name}" keeps its data in the external file ${JSON.stringify(file.tensor.external?.location)}: a bare TensorProto's external data is not read (convert it with onnx first)`,
  );
}

/** The tensor of a read() result, decoded (row-major); [] for a STRING tensor. */
export function tensors(file: OnnxTensorFile, options?: DecodeOptions): NamedTensor[] {
  lazy.assertEager(file, id);
  const bytes = fileBytes.get(file);
  if (!bytes)
    throw new UnsupportedError(id, "this file object has no bytes (use a read() result)", undefined, "tensors");
  const w = weightOf(file);
  if (!w) return [];
  if (file.tensor.storage === "external") throw externalRefused(file);
  return [tensorOf(bytes, w, weightInfo(w), options)];
}

/** Reads and decodes the tensor of a readFrom() result. */
export async function loadTensor(source: ByteSource, info: TensorInfo, options?: DecodeOptions): Promise<NamedTensor> {
  const onnx = (info as OnnxTensorInfo).onnx;
  if (onnx?.storage === "external") {
    throw new SourceError(
      `onnx-tensor "${info.name}" keeps its data in the external file ${JSON.stringify(onnx.location)}: a bare TensorProto's external data is not read`,
    );
  }
  return loadOnnxWeight(source, info, options);
}

/** What `tensorfile inspect --json` prints: the tensor, its data type, storage, and a STRING tensor's count. */
export function inspect(file: OnnxTensorFile): InspectResult {
  const t = file.tensor;
  const type = DATA_TYPES[t.dataType];
  const count = elementCount(t.dims);
  const rows = tensorInfos(file).map((info) => ({
    name: info.name,
    dtype: info.dtype,
    shape: info.shape,
    byteLength: rawByteLength(type!, count),
  }));
  return {
    format: id,
    version: null,
    meta: { name: t.name, dataType: dataTypeName(t.dataType), dims: t.dims.slice(), docString: t.docString },
    tensors: rows,
    storage: t.storage,
    strings: t.dataType === 8 ? [{ name: file.name, dims: t.dims.slice(), count: t.stringCount ?? 0 }] : [],
    externalData: t.external ? [{ name: file.name, ...t.external }] : [],
    unknownFields: file.unknownFieldCount,
  };
}

/** Warnings: a tensor that is not decoded (STRING, external data), stored-bytes types, unknown fields. */
export function verify(file: OnnxTensorFile): string[] {
  const t = file.tensor;
  const type = DATA_TYPES[t.dataType];
  const warnings: string[] = [];
  if (!type) warnings.push(`${dataTypeName(t.dataType)} is not an ONNX data type this reader knows`);
  else if (type.dtype === undefined)
    warnings.push(`"${file.name}" is a ${type.name} tensor of ${t.stringCount ?? 0} strings: listed, not decoded`);
  else if (type.asStoredBytes) warnings.push(`"${file.name}" is ${type.name}: shown as its stored bytes (uint8)`);
  if (t.storage === "external")
    warnings.push(`"${file.name}" is in the external file ${JSON.stringify(t.external!.location)}, which is not read`);
  if (file.unknownFieldCount > 0)
    warnings.push(`${file.unknownFieldCount} fields this reader does not know are kept as bytes`);
  return warnings;
}

/** None: the file is one tensor. */
export function blobs(_file: OnnxTensorFile): EmbeddedBlob[] {
  return [];
}
