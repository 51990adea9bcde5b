/**
 * npz's streamed tensor chunks (its `tensorChunks` capability): a large deflated member holding a row-major (or
 * 1-D) tensor inflates into pieces that are decoded as they come, so an honestly declared 2 GiB member of a 2 MB
 * file never sits in memory whole. Export (export/stream.ts) asks for it through the registry.
 */
import { CorruptDataError } from "../../bytes/errors.js";
import type { ByteSource } from "../../io/source.js";
import { type DecodeOptions, type TensorInfo, decodeTensor, dtypeBytes, elementCount } from "../../tensor.js";
import { type NpzMemberRef, inflateMemberPieces, memberOf } from "./members.js";

/**
 * The decoded bytes of `info`'s tensor in pieces of `pieceElements` elements, when it is a deflated member larger
 * than four such pieces of bytes whose tensor decodes piece by piece; undefined for any other (loaded otherwise).
 */
export function tensorChunks(
  source: ByteSource,
  info: TensorInfo,
  decode: DecodeOptions | undefined,
  pieceElements: number,
): AsyncGenerator<Uint8Array> | undefined {
  const member = memberOf(info);
  if (member?.method !== "deflated") return undefined;
  if (info.layout === "column-major" && info.shape.filter((d) => d > 1).length > 1) return undefined;
  const size = dtypeBytes(info.dtype);
  const large = size > 0 && info.byteLength === elementCount(info.shape) * size && info.byteLength > pieceElements * 4;
  return large ? deflatedChunks(source, info, member, decode, pieceElements) : undefined;
}

/** The pieces of a streamed deflated member: its data (after the .npy header) decoded `pieceElements` at a time. */
async function* deflatedChunks(
  source: ByteSource,
  info: TensorInfo,
  member: NpzMemberRef,
  decode: DecodeOptions | undefined,
  pieceElements: number,
): AsyncGenerator<Uint8Array> {
  const format = info.format ?? "npz";
  const field = `members[${JSON.stringify(`${info.name}.npy`)}].data`;
  const size = dtypeBytes(info.dtype);
  const pieceBytes = pieceElements * size;
  let skip = member.arrayOffset;
  let left = info.byteLength;
  let piece = new Uint8Array(Math.min(pieceBytes, left));
  let filled = 0;
  let done = 0;
  const decoded = (bytes: Uint8Array): Uint8Array => {
    const part: TensorInfo = {
      ...info,
      shape: [bytes.length / size],
      byteOffset: info.byteOffset,
      byteLength: bytes.length,
      layout: "row-major",
    };
    const tensor = decodeTensor(bytes, part, { dtype: decode?.dtype }, format);
    return new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  };
  for await (let chunk of inflateMemberPieces(source, member, format, field)) {
    if (skip > 0) {
      const drop = Math.min(skip, chunk.length);
      skip -= drop;
      chunk = chunk.subarray(drop);
    }
    while (chunk.length > 0 && left > 0) {
      const take = Math.min(chunk.length, piece.length - filled, left);
      piece.set(chunk.subarray(0, take), filled);
      filled += take;
      left -= take;
      chunk = chunk.subarray(take);
      if (filled === piece.length) {
        yield decoded(piece);
        done += piece.length;
        piece = new Uint8Array(Math.min(pieceBytes, left)); // a fresh one: the piece handed out may be a view of the last
        filled = 0;
      }
    }
  }
  if (done !== info.byteLength) {
    throw new CorruptDataError(
      format,
      `the inflated member holds ${done + filled} bytes of data, the header says ${info.byteLength}`,
      member.dataOffset,
      field,
    );
  }
}
