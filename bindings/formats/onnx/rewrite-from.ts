/**
 * write(read(bytes)) for a model that is not in memory: the model is checked as read() checks it (a lazy parse
 * over small range reads that also counts the entries of varint-typed payloads, in windows it does not keep, as
 * read() does), then its bytes, which is what write() gives for a model without replacements, are copied from the
 * source in chunks. So `tensorfile convert big.onnx copy.onnx` holds a chunk, not the model.
 */
import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { ByteReader } from "../../bytes/byte-reader.js";
import { type ByteSource, rangeChunks } from "../../io/source.js";
import { parseSmallChunks } from "./lazy-read.js";
import { id } from "./model.js";
import { parseModel } from "./reader.js";

/** The size of the pieces a streamed rewrite reads and writes. */
export const REWRITE_CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * The pieces of `write(read(all of source))`, after read()'s checks (which reject with read()'s error): chunks
 * read from the source as they are consumed.
 */
export async function rewritePieces(source: ByteSource): Promise<AsyncIterable<Uint8Array>[]> {
  const model = await parseSmallChunks(
    source,
    id,
    (backing, countVarints) =>
      parseModel(new ByteReader(backing, id), { eager: false, countVarints: true, varintCounter: countVarints }),
    { varintPayloads: true },
  );
  const { byteOffset, byteLength } = model.span;
  return [rangeChunks(source, byteOffset, byteOffset + byteLength, REWRITE_CHUNK_BYTES, id)];
}

/**
 * Streams into `sink` the bytes `write(read(all of source))` gives; rejects with read()'s error (before anything
 * is written) when read() would. Resolves to the byte count.
 */
export async function rewriteFrom(
  source: ByteSource,
  sink: ByteSink,
  options: { end?: boolean | undefined } = {},
): Promise<number> {
  return writePiecesTo(sink, await rewritePieces(source), { end: options.end, caller: "onnx rewrite" });
}
