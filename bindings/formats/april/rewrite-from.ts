/**
 * write(read(bytes)) for an .april file that is not in memory: readFrom() checks the header and the params as
 * read() does (and opens the networks' ONNX headers, whose faults read() records, not throws), the header and the
 * params are encoded as write() encodes them, and the three networks, which write() passes through as they are,
 * are copied from the source in chunks. So `tensorfile convert big.april copy.april` holds a chunk, not the file.
 */
import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { type ByteSource, rangeChunks } from "../../io/source.js";
import { REWRITE_CHUNK_BYTES } from "../onnx/embed.js";
import { NETWORK_NAMES, id, isRange } from "./model.js";
import { readFrom } from "./reader.js";
import { encodeHeaderAndParams } from "./writer.js";

/**
 * The pieces of `write(read(all of source))`, after read()'s and write()'s checks (which reject with their
 * errors): the header, the networks as chunks read from the source as they are consumed, the params.
 */
export async function rewritePieces(source: ByteSource): Promise<(Uint8Array | AsyncIterable<Uint8Array>)[]> {
  const file = await readFrom(source);
  const ranges = NETWORK_NAMES.map((name) => {
    const network = file.networks[name];
    if (!isRange(network)) throw new TypeError(`april: readFrom() gave networks.${name} as bytes, not a range`);
    return { name, start: network.byteOffset, end: network.byteOffset + network.byteLength };
  });
  const { header, params } = encodeHeaderAndParams(
    file,
    ranges.map((r) => r.end - r.start),
  );
  return [header, ...ranges.map((r) => rangeChunks(source, r.start, r.end, REWRITE_CHUNK_BYTES, id, r.name)), params];
}

/**
 * Streams into `sink` the bytes `write(read(all of source))` gives; rejects with read()'s or write()'s error
 * (before anything is written) when they would. Resolves to the byte count.
 */
export async function rewriteFrom(
  source: ByteSource,
  sink: ByteSink,
  options: { end?: boolean | undefined } = {},
): Promise<number> {
  return writePiecesTo(sink, await rewritePieces(source), { end: options.end, caller: "april rewrite" });
}
