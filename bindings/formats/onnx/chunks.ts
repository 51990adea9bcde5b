/**
 * ONNX's streamed tensor chunks (its `tensorChunks` capability, and onnx-tensor's): a weight in an external file is
 * read from that file a chunk at a time as a raw_data weight is, and a large typed-field weight (int32_data,
 * float_data, …) a window of its entries at a time (typed-chunks.ts). Export (export/stream.ts) asks for it through
 * the registry, so it never tells ONNX's weights from others'.
 */
import { plainChunks } from "../../io/plain-chunks.js";
import type { ByteSource } from "../../io/source.js";
import type { DecodeOptions, TensorInfo } from "../../tensor.js";
import { isExternal, openExternal } from "./external.js";
import { streamsTypedField, typedFieldChunks } from "./typed-chunks.js";

/**
 * The decoded bytes of `info`'s weight in pieces when it is stored in an external file (whatever its size: the
 * model's source does not hold it) or is a typed-field weight over TYPED_CHUNK_TUNING.minBytes; undefined for any
 * other (export then reads it as a plainly stored tensor or loads it whole).
 */
export function tensorChunks(
  source: ByteSource,
  info: TensorInfo,
  decode: DecodeOptions | undefined,
  pieceElements: number,
): AsyncGenerator<Uint8Array> | undefined {
  if (isExternal(info)) return externalChunks(source, info, decode, pieceElements);
  if (streamsTypedField(info)) return typedFieldChunks(source, info, decode);
  return undefined;
}

/** An external weight (external.ts finds and opens its file), read and decoded `pieceElements` at a time. */
async function* externalChunks(
  source: ByteSource,
  info: TensorInfo,
  decode: DecodeOptions | undefined,
  pieceElements: number,
): AsyncGenerator<Uint8Array> {
  const opened = await openExternal(source, info);
  try {
    yield* plainChunks(opened.source, opened.info, decode, pieceElements);
  } finally {
    await opened.close();
  }
}
