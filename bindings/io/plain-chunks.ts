/**
 * A plainly stored tensor read and decoded a chunk at a time, so memory stays at a chunk whatever its size: what
 * export streams for a large raw tensor, and what a format's tensorChunks capability streams once it knows where
 * the plain bytes are (ONNX: a weight in an external file).
 */
import { type DecodeOptions, type TensorInfo, decodeTensor, dtypeBytes, elementCount } from "../tensor.js";
import { type ByteSource, readExactly } from "./source.js";

/** The decoded bytes of `info`'s tensor, stored plainly in `source`, in pieces of `pieceElements` elements. */
export async function* plainChunks(
  source: ByteSource,
  info: TensorInfo,
  decode: DecodeOptions | undefined,
  pieceElements: number,
): AsyncGenerator<Uint8Array> {
  const size = dtypeBytes(info.dtype);
  const count = elementCount(info.shape);
  const format = info.format ?? "tensorfile";
  for (let start = 0; start < count; start += pieceElements) {
    const n = Math.min(pieceElements, count - start);
    const at = info.byteOffset + start * size;
    const stored = await readExactly(source, at, n * size, format, info.name);
    const piece: TensorInfo = { ...info, shape: [n], byteOffset: at, byteLength: n * size, layout: "row-major" };
    const data = decodeTensor(stored, piece, { dtype: decode?.dtype }, format).data;
    yield new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
}
