/**
 * Reading a TensorProto file: the ONNX reader's TensorProto parser (parseTensorProto: every check a model's
 * weight gets) over the whole file. A file that does not parse but has the shape of a SequenceProto or an
 * OptionalProto (ONNX test data keeps sequence and optional inputs in `.pb` files too) is refused saying so.
 */
import { UnsupportedError, isFormatError } from "../../bytes/errors.js";
import type { ByteReader } from "../../bytes/byte-reader.js";
import { DATA_TYPES, dataTypeName } from "../onnx/model.js";
import { parseTensorProto } from "../onnx/reader.js";
import { DEFAULT_NAME, type OnnxTensorFile, id } from "./model.js";

/** Parses the file in `r` (eager: read(); lazy: readFrom(), payloads left as ranges). */
export function parseTensorFile(r: ByteReader, eager: boolean): OnnxTensorFile {
  try {
    // varint-typed entries are counted on lazy opens too (their bytes are the file's, fetched once), so read()
    // and readFrom() accept and refuse the same files
    const { tensor, unknownFieldCount } = parseTensorProto(r, { eager, countVarints: true, root: "tensor" });
    // a file is its one tensor: without a data type this reader knows, there is none
    if (DATA_TYPES[tensor.dataType] === undefined) {
      const detail =
        tensor.dataType === 0
          ? "the TensorProto has no data_type (UNDEFINED): it holds no tensor"
          : `${dataTypeName(tensor.dataType)} is not an ONNX data type this reader knows`;
      throw new UnsupportedError(id, detail, 0, "tensor.data_type");
    }
    return { name: tensor.name !== "" ? tensor.name : DEFAULT_NAME, tensor, unknownFieldCount, byteLength: r.fileSize };
  } catch (error) {
    if (!isFormatError(error)) throw error;
    const other = containerShape(r);
    if (other) {
      throw new UnsupportedError(
        id,
        `this is an ONNX ${other.kind}${other.name ? ` "${other.name}"` : ""} (elem_type ${other.elemType}, ${other.values} value${other.values === 1 ? "" : "s"}), not a TensorProto: tensorfile reads single-tensor .pb files`,
        0,
        "tensor",
      );
    }
    throw error;
  }
}

/** Largest file looked at as a SequenceProto/OptionalProto when it is not a TensorProto. */
const MAX_CONTAINER_BYTES = 16 << 20;

const ELEM_TYPES = ["UNDEFINED", "TENSOR", "SPARSE_TENSOR", "SEQUENCE", "MAP", "OPTIONAL"];

/**
 * The shape of a SequenceProto/OptionalProto (1 name, 2 elem_type 0-5, 3-7 values as messages, nothing else),
 * or undefined. Only asked after the TensorProto parse failed, so it never turns away a tensor.
 */
function containerShape(r: ByteReader): { kind: string; name: string; elemType: string; values: number } | undefined {
  const size = r.fileSize;
  // (a lazy open fetches what this reads: a container is looked for only in files of up to 16 MiB)
  if (size > MAX_CONTAINER_BYTES) return undefined;
  const bytes = r.viewOf({ byteOffset: 0, byteLength: size });
  let i = 0;
  const varint = (): number => {
    let v = 0;
    for (let k = 0; k < 8; k++) {
      if (i >= bytes.length) return -1;
      const b = bytes[i++]!;
      v += (b & 0x7f) * 2 ** (7 * k);
      if ((b & 0x80) === 0) return v;
    }
    return -1;
  };
  let name = "";
  let elemType = -1;
  let values = 0;
  let valueField = 0;
  while (i < bytes.length) {
    const tag = varint();
    if (tag < 0) return undefined;
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (field === 2 && wire === 0) {
      elemType = varint();
      if (elemType < 0 || elemType >= ELEM_TYPES.length) return undefined;
      continue;
    }
    if (wire !== 2 || field < 1 || field > 7) return undefined;
    const length = varint();
    if (length < 0 || i + length > bytes.length) return undefined;
    if (field === 1) {
      try {
        name = new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(i, i + length));
      } catch {
        return undefined;
      }
    } else {
      if (valueField !== 0 && valueField !== field) return undefined;
      valueField = field;
      values++;
    }
    i += length;
  }
  if (elemType < 0) return undefined;
  return {
    kind: values > 1 ? "SequenceProto" : "SequenceProto or OptionalProto",
    name,
    elemType: ELEM_TYPES[elemType]!,
    values,
  };
}
