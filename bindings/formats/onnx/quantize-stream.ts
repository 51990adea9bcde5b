/**
 * quantize() for a model that is not in memory: `quantizeTo(source, sink, options)` writes the bytes
 * `write(quantize(read(all of source), options))` gives (byte for byte), holding the model's structure, one weight
 * at a time and a chunk of the copied ranges, not the model.
 *
 * How: the model is parsed as read() parses it, through small range reads (lazy-read.ts), and every byte the
 * parser reads is copied into a sparse image of the file: an array of the file's size in which only those ranges
 * (the graph's structure, tensor headers) and the gaps too small for write() to keep by reference are filled.
 * The operating system commits memory only for the pages written, so the image of a 1 GiB model costs about its
 * structure. quantize() and write() (edit-write.ts) then run over that image unchanged: the weights they convert
 * are read from the source one at a time (WeightAccess), and a converted weight larger than a few KiB is left as a
 * stand-in of its length until it is written. The pieces write() returns are then swapped, as the sink takes them:
 * a view of the image becomes the same range read from the source in chunks, a stand-in becomes its weight,
 * converted then. Everything write() decides (which messages change, their lengths) it decides on the same
 * structure as in memory, so the bytes are the same.
 *
 * Sources that read synchronously (files opened by fromFile/openFile/the CLI, fromBytes) stream; others (Blobs,
 * URLs) are read whole first, as quantize() needs them. The report's counts of values clamped and flushed are
 * final once the pieces are written.
 */
import { type ByteSink, writePiecesTo } from "../../io/sink.js";
import { type ByteBacking, ByteReader } from "../../bytes/byte-reader.js";
import { type ByteSource, rangeChunks, readExactly, sourceSize } from "../../io/source.js";
import { writePieces } from "./edit-write.js";
import { parseSmallChunks } from "./lazy-read.js";
import { type OnnxModel, id } from "./model.js";
import { RAW_BY_REFERENCE_BYTES } from "./proto-writer.js";
import {
  type QuantizeOptions,
  type QuantizeReport,
  type WeightAccess,
  type WeightSource,
  checkQuantize,
  floatValues,
  quantizeInPlace,
} from "./quantize.js";
import { parseModel } from "./reader.js";
import { modelBytes } from "./view.js";

/** The size of the chunks copied ranges are read and written in. */
export const QUANTIZE_CHUNK_BYTES = 8 * 1024 * 1024;
/** The size of the pieces a weight is read and converted in (a multiple of 4: whole float32 values). */
export const WEIGHT_PIECE_BYTES = 16 * 1024 * 1024;

/** A piece of the output: bytes, or chunks made as the sink takes them. */
export type OutputPiece = Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

/** A model parsed into a sparse image of its source (see the module comment). */
export interface SparseModel {
  /** The model, as read() gives it for the image. */
  model: OnnxModel;
  /** The image: the source's size, filled where the parser read and in the small gaps between. */
  image: Uint8Array;
  /** The source it stands for. */
  source: ByteSource;
}

function readSyncExactly(source: ByteSource, offset: number, length: number): Uint8Array {
  const got = source.readSync!(offset, length);
  if (got.length < length)
    throw new RangeError(`tensorfile: onnx: the source gave ${got.length} of ${length} bytes at ${offset}`);
  return got.length === length ? got : got.subarray(0, length);
}

/**
 * Parses the model of `from` (read whole first when it cannot read synchronously) as read() does into a sparse image, and fills the gaps
 * of the image shorter than write() copies by value (RAW_BY_REFERENCE_BYTES), so every piece write() builds by
 * value holds the source's bytes. Rejects with read()'s error for a malformed model.
 */
export async function readSparse(
  from: ByteSource,
  options: { maxGraphDepth?: number | undefined } = {},
): Promise<SparseModel> {
  const source = await synchronousSource(from);
  const { size } = await sourceSize(source);
  const image = new Uint8Array(size);
  const copied = new WeakSet<Uint8Array>();
  const filled: [number, number][] = [];
  const model = await parseSmallChunks(
    source,
    id,
    (backing) => {
      const recording: ByteBacking = {
        size: backing.size,
        window(offset, length) {
          const w = backing.window(offset, length);
          if (!copied.has(w.bytes)) {
            image.set(w.bytes, w.start);
            copied.add(w.bytes);
            filled.push([w.start, w.start + w.bytes.length]);
          }
          return { bytes: image.subarray(w.start, w.start + w.bytes.length), start: w.start };
        },
      };
      // read()'s options: varint-typed payloads are counted from their bytes (so they are in the image)
      return parseModel(new ByteReader(recording, id), {
        eager: true,
        maxGraphDepth: options.maxGraphDepth,
        origin: image,
      });
    },
    { varintPayloads: true },
  );
  filled.sort((a, b) => a[0] - b[0]);
  let at = 0;
  const fillGap = (start: number, end: number) => {
    if (end > start && end - start < RAW_BY_REFERENCE_BYTES)
      image.set(readSyncExactly(source, start, end - start), start);
  };
  for (const [start, end] of filled) {
    fillGap(at, start);
    at = Math.max(at, end);
  }
  fillGap(at, size);
  modelBytes.set(model, image);
  return { model, image, source };
}

/** quantizeInPlace's weight access for a sparse model: weights read from the source, large results deferred. */
function sourceAccess(
  sparse: SparseModel,
  deferred: Map<Uint8Array, () => Iterable<Uint8Array>>,
  pieceBytes: number,
): WeightAccess {
  const { source, image } = sparse;
  return {
    *pieces(weight: WeightSource): Iterable<Float32Array> {
      const t = weight.tensor;
      const range = t.storage === "raw_data" ? t.data : t.packed;
      if (!range) {
        // float_data as one tag per value (rare): its message is put in the image and decoded there
        const own = t.frames[t.frames.length - 1]!;
        image.set(readSyncExactly(source, own.tagAt, own.bodyEnd - own.tagAt), own.tagAt);
        yield floatValues(image, weight);
        return;
      }
      // in pieces of at most pieceBytes, each a fresh array from the source (quantize may change it)
      for (let at = 0; at < range.byteLength; at += pieceBytes) {
        const n = Math.min(pieceBytes, range.byteLength - at);
        const bytes = readSyncExactly(source, range.byteOffset + at, n);
        if (bytes.byteOffset % 4 === 0) yield new Float32Array(bytes.buffer, bytes.byteOffset, n / 4);
        else yield new Float32Array(bytes.slice().buffer);
      }
    },
    defer(byteLength, produce) {
      if (byteLength < RAW_BY_REFERENCE_BYTES) return undefined;
      const standIn = new Uint8Array(byteLength);
      deferred.set(standIn, produce);
      return standIn;
    },
  };
}

/** A converted model's output pieces, with its report (final once the pieces are written) and byte count. */
export interface QuantizedPieces {
  pieces: OutputPiece[];
  /** The output's size in bytes. */
  size: number;
  report: QuantizeReport;
}

/** quantize() of a sparse model, as pieces to write (see the module comment); weights are read in pieces of `pieceBytes`. */
export function quantizeSparse(
  sparse: SparseModel,
  options: QuantizeOptions,
  pieceBytes = WEIGHT_PIECE_BYTES,
): QuantizedPieces {
  if (!(pieceBytes > 0 && pieceBytes % 4 === 0))
    throw new RangeError(`tensorfile: onnx: pieceBytes must be a positive multiple of 4, not ${pieceBytes}`);
  const deferred = new Map<Uint8Array, () => Iterable<Uint8Array>>();
  const report = quantizeInPlace(sparse.model, options, sparse.image, sourceAccess(sparse, deferred, pieceBytes));
  const buffer = sparse.image.buffer;
  let size = 0;
  const pieces = writePieces(sparse.model).map((piece): OutputPiece => {
    size += piece.length;
    const produce = deferred.get(piece);
    if (produce) return { [Symbol.iterator]: () => produce()[Symbol.iterator]() };
    if (piece.buffer === buffer)
      return rangeChunks(sparse.source, piece.byteOffset, piece.byteOffset + piece.length, QUANTIZE_CHUNK_BYTES, id);
    return piece;
  });
  return { pieces, size, report };
}

/** A source that reads synchronously: `source` itself, or (Blobs, URLs) its bytes read whole. */
export async function synchronousSource(source: ByteSource): Promise<ByteSource> {
  if (source.readSync) return source;
  const { size } = await sourceSize(source);
  const bytes = await readExactly(source, 0, size, id);
  return {
    size,
    name: source.name,
    read: async (offset, length) => bytes.subarray(offset, offset + length),
    readSync: (offset, length) => bytes.subarray(offset, offset + length),
  };
}

/** The output pieces of `source` converted (read()'s errors and refusals first), its size and the report. */
export async function quantizedPieces(source: ByteSource, options: QuantizeOptions): Promise<QuantizedPieces> {
  const sparse = await readSparse(source);
  checkQuantize(sparse.model, options);
  return quantizeSparse(sparse, options);
}

/** quantizeTo() options: quantize()'s, and whether to end a stream sink (default true). */
export interface QuantizeToOptions extends QuantizeOptions {
  /** Close/end a stream sink when done (default true). */
  end?: boolean | undefined;
}

/**
 * Writes into `sink` the bytes `write(quantize(read(all of source), options))` gives, holding the model's
 * structure and one weight at a time; resolves to the report. Refusals (a bad mode, bf16 below opset 13) and
 * read()'s errors reject before anything is written.
 */
export async function quantizeTo(
  source: ByteSource,
  sink: ByteSink,
  options: QuantizeToOptions,
): Promise<QuantizeReport> {
  const { pieces, report } = await quantizedPieces(source, options);
  await writePiecesTo(sink, pieces, { end: options.end, caller: "onnx.quantizeTo" });
  return report;
}
