/**
 * april.quantize for a file that is not in memory: `quantizeTo(source, sink, options)` writes the bytes
 * `write(quantize(read(all of source), options))` gives, each network converted as onnx.quantizeTo converts a
 * model (onnx/quantize-stream.ts: its structure in a sparse image, weights read from the source one at a time),
 * the header and params encoded as write() encodes them.
 */
import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { type ByteSource, rangeChunks } from "../../io/source.js";
import {
  type OutputPiece,
  QUANTIZE_CHUNK_BYTES,
  type QuantizeOptions,
  type QuantizeReport,
  type SparseModel,
  checkQuantize,
  quantizeSparse,
  readSparse,
  synchronousSource,
} from "../onnx/embed.js";
import { NETWORK_NAMES, type NetworkName, id, isRange } from "./model.js";
import { readFrom } from "./reader.js";
import { encodeHeaderAndParams } from "./writer.js";

/** Bytes [start, start + length) of a source that reads synchronously, as a source of its own. */
function rangeSource(source: ByteSource, start: number, length: number, name: string): ByteSource {
  const clip = (offset: number, n: number) => Math.max(0, Math.min(n, length - offset));
  return {
    size: length,
    name: `${source.name ?? "april"}:${name}`,
    read: (offset, n) => source.read(start + offset, clip(offset, n)),
    readSync: (offset, n) => source.readSync!(start + offset, clip(offset, n)),
  };
}

/** The output pieces of the converted file, its size, and the report per network (final once written). */
export async function quantizedPieces(
  source: ByteSource,
  options: QuantizeOptions,
): Promise<{
  pieces: OutputPiece[];
  size: number;
  reports: Partial<Record<NetworkName, QuantizeReport>>;
}> {
  const sync = await synchronousSource(source);
  const file = await readFrom(sync);
  const sparse: Partial<Record<NetworkName, SparseModel>> = {};
  for (const name of NETWORK_NAMES) {
    const range = file.networks[name];
    if (!isRange(range)) throw new TypeError(`april: readFrom() gave networks.${name} as bytes, not a range`);
    if (file.onnx?.[name]) sparse[name] = await readSparse(rangeSource(sync, range.byteOffset, range.byteLength, name));
  }
  // refusals (bf16 below opset 13) come before any network is converted
  for (const name of NETWORK_NAMES) if (sparse[name]) checkQuantize(sparse[name].model, options, name);
  const reports: Partial<Record<NetworkName, QuantizeReport>> = {};
  const networks = NETWORK_NAMES.map((name) => {
    const model = sparse[name];
    if (model) {
      const converted = quantizeSparse(model, options);
      reports[name] = converted.report;
      return converted;
    }
    const range = file.networks[name] as { byteOffset: number; byteLength: number };
    return {
      pieces: [
        rangeChunks(sync, range.byteOffset, range.byteOffset + range.byteLength, QUANTIZE_CHUNK_BYTES, id, name),
      ],
      size: range.byteLength,
    };
  });
  const { header, params } = encodeHeaderAndParams(
    file,
    networks.map((n) => n.size),
  );
  const pieces: OutputPiece[] = [header, ...networks.flatMap((n) => n.pieces), params];
  return { pieces, size: header.length + params.length + networks.reduce((s, n) => s + n.size, 0), reports };
}

/** quantizeTo() options: quantize()'s, and whether to end a stream sink (default true). */
export interface QuantizeToOptions extends QuantizeOptions {
  /** Close/end a stream sink when done (default true). */
  end?: boolean | undefined;
}

/**
 * Writes into `sink` the bytes `write(quantize(read(all of source), options))` gives, network by network and
 * weight by weight; resolves to the report per network. Refusals and read()'s errors reject before anything is
 * written.
 */
export async function quantizeTo(
  source: ByteSource,
  sink: ByteSink,
  options: QuantizeToOptions,
): Promise<Partial<Record<NetworkName, QuantizeReport>>> {
  const { pieces, reports } = await quantizedPieces(source, options);
  await writePiecesTo(sink, pieces, { end: options.end, caller: "april.quantizeTo" });
  return reports;
}
