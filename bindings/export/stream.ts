/**
 * Streaming forms of the safetensors and npy writers: the file goes into a sink piece by piece (the header, then
 * each tensor's bytes as they are), so a large file never exists whole in memory. With a lazy file as the
 * source, tensors are loaded one at a time, in the order the safetensors layout puts them, while the previous one
 * is being written: at most two tensors are in memory. With the file's source too (openFile()), a large tensor is
 * never whole in memory either: a plainly stored one streams 16 MiB at a time, a column-major one (to be
 * transposed) in bands of at most 16 MiB of output rows read straight from the file (io/banded.ts).
 *
 * A sink is one of:
 * - a function `(chunk) => void | Promise<void>` (awaited before the next chunk);
 * - a WHATWG `WritableStream<Uint8Array>` (browsers, Deno, Node): written through its writer, honouring
 *   backpressure, and closed at the end unless `{ end: false }`;
 * - a Node `Writable` (`fs.createWriteStream(path)`, `process.stdout`, a socket): `write()` with backpressure
 *   ('drain'), and `end()` at the end (awaiting 'finish' or 'close') unless `{ end: false }`.
 * Chunks are views of the tensors' own memory, never reused by tensorfile afterwards.
 */
import type { DecodeOptions, NamedTensor, TensorInfo } from "../tensor.js";
import { decodedDType, elementCount, isPlainlyStored } from "../tensor.js";
import type { ByteSource } from "../io/source.js";
import { BAND_TUNING, bandedChunks, canReadBands, planBands, plannedBytes } from "../io/banded.js";
import { plainChunks } from "../io/plain-chunks.js";
import { checkTensor } from "./check.js";
import { capabilitiesOf } from "../formats/registry.js";
import {
  type ByteSink,
  type LazyTensors,
  type NodeWritableLike,
  type SinkWriter,
  sinkWriter,
  writePiecesTo,
} from "../io/sink.js";
import { npyHeader } from "./npy.js";
import { planSafetensors } from "./safetensors.js";

// the sinks and the lazy-file interface live below the formats (io/sink.ts), which write through them
export { type ByteSink, type LazyTensors, type NodeWritableLike, type SinkWriter, sinkWriter, writePiecesTo };

/** Tensors up to this size are loaded while the previous one is written; larger ones one after another. */
const OVERLAP_BYTES = 16 * 1024 * 1024;

/** Elements per chunk when a plainly stored tensor streams in pieces (16 MiB of float32). */
export const STREAM_CHUNK_ELEMENTS = 4 * 1024 * 1024;

/**
 * True when the tensor's stored bytes decode piece by piece on their own: no format-specific stored form (a
 * .csta's obfuscation, primitiv batches, SPRAAK gzip/ASCII/G.711, npz members), no reordering of axes.
 */
function streamsInChunks(info: TensorInfo): boolean {
  if (!isPlainlyStored(info) || (info.layout === "column-major" && info.shape.filter((d) => d > 1).length > 1))
    return false;
  return elementCount(info.shape) > STREAM_CHUNK_ELEMENTS;
}

/**
 * True when the tensor streams from `source` in pieces of bounded size: a plainly stored tensor 16 MiB at a time,
 * a column-major one (that must be transposed) in bands of output rows (io/banded.ts) when the source can read
 * into a buffer (local files, bytes). Small tensors are loaded whole (one piece is as good).
 */
function streamsFrom(
  source: ByteSource | undefined,
  info: TensorInfo,
  decode: DecodeOptions | undefined,
): source is ByteSource {
  if (source === undefined) return false;
  if (streamsInChunks(info)) return true;
  const plan = canReadBands(source) ? planBands(info, decode) : undefined;
  return plan !== undefined && plannedBytes(plan) > BAND_TUNING.bandBytes;
}

/**
 * The pieces of a tensor streamed from `source`, or undefined for one loaded whole: a stored form of the format's
 * own that it streams (its tensorChunks capability: npz's deflated members, ONNX's external and typed-field
 * weights), else what streamsFrom() allows.
 */
function streamedPieces(
  source: ByteSource | undefined,
  info: TensorInfo,
  decode: DecodeOptions | undefined,
): AsyncGenerator<Uint8Array> | undefined {
  if (source === undefined) return undefined;
  const own = info.format === undefined ? undefined : capabilitiesOf(info.format)?.tensorChunks;
  const ownPieces = own?.(source, info, decode, STREAM_CHUNK_ELEMENTS);
  if (ownPieces !== undefined) return ownPieces;
  if (!streamsFrom(source, info, decode)) return undefined;
  if (streamsInChunks(info)) return plainChunks(source, info, decode, STREAM_CHUNK_ELEMENTS);
  return bandedChunks(source, planBands(info, decode)!, decode);
}

/**
 * The decoded bytes of one tensor of a lazy file, in pieces: a plainly stored tensor read and decoded 16 MiB at a
 * time, a column-major one in bands of rows, a stored form of the format's own as its tensorChunks capability
 * streams it (a large ONNX typed-field weight a window of its entries at a time), when the file has its source; any
 * other loaded whole (one piece).
 */
export async function* decodeInChunks(
  file: LazyTensors,
  info: TensorInfo,
  decode: DecodeOptions | undefined,
): AsyncGenerator<Uint8Array> {
  const pieces = streamedPieces(file.source, info, decode);
  if (pieces !== undefined) yield* pieces;
  else yield dataBytes(await file.loadTensor(info, decode));
}

/** Options of {@link writeSafetensorsTo} and {@link writeNpyTo}. */
export interface StreamWriteOptions {
  /** Extra `__metadata__` entries (safetensors only; "format": "pt" is always there). */
  metadata?: Record<string, string> | undefined;
  /** Decode options for tensors loaded from a lazy file (e.g. `{ dtype: "float32" }`). */
  decode?: DecodeOptions | undefined;
  /** Called after each tensor is handed to the sink: bytes written so far, the total, the tensor's name. */
  onProgress?: ((written: number, total: number, name: string) => void) | undefined;
  /** Close/end a stream sink when done (default true). Functions are never "closed". */
  end?: boolean | undefined;
}

function isLazy(tensors: unknown): tensors is LazyTensors {
  return (
    typeof tensors === "object" &&
    tensors !== null &&
    typeof (tensors as LazyTensors).tensorInfos === "function" &&
    typeof (tensors as LazyTensors).loadTensor === "function"
  );
}

function dataBytes(tensor: NamedTensor): Uint8Array {
  const data = tensor.data;
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Writes a safetensors file into `sink`: the same bytes writeSafetensors() returns. `tensors` is an array of
 * NamedTensors or a lazy file (readFromAny(), openFile()), whose tensors are then loaded one at a time.
 * Resolves to the number of bytes written. Nothing is written when a tensor is refused up front.
 */
export async function writeSafetensorsTo(
  sink: ByteSink,
  tensors: readonly NamedTensor[] | LazyTensors,
  options: StreamWriteOptions = {},
): Promise<number> {
  const lazy = isLazy(tensors) ? tensors : undefined;
  if (!lazy && !Array.isArray(tensors as unknown)) {
    throw new TypeError(
      "tensorfile: writeSafetensorsTo() takes an array of NamedTensors or a lazy file (readFromAny(), openFile())",
    );
  }
  const infos = lazy ? lazy.tensorInfos() : undefined;
  const eager = lazy ? undefined : (tensors as readonly NamedTensor[]);
  eager?.forEach((t, i) => checkTensor(t, `tensor ${i}`));
  const entries = infos
    ? infos.map((info) => ({ name: info.name, dtype: decodedDType(info, options.decode), shape: info.shape }))
    : eager!.map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape }));
  const plan = planSafetensors(entries, options.metadata);
  const writer = sinkWriter(sink, options.end ?? true, "writeSafetensorsTo");
  let written = 0;
  try {
    await writer.write(plan.header);
    written += plan.header.length;
    // the next tensor loads while the sink takes the previous one
    // the pieces of tensor k when it streams (not started: a generator runs only when iterated), or undefined
    const chunks = (k: number): AsyncGenerator<Uint8Array> | undefined => {
      const slot = plan.layout[k];
      const info = slot === undefined ? undefined : infos?.[slot.index];
      return info === undefined ? undefined : streamedPieces(lazy?.source, info, options.decode);
    };
    const load = (k: number): Promise<NamedTensor> | undefined => {
      const slot = plan.layout[k];
      if (!slot || chunks(k) !== undefined) return undefined;
      return lazy ? lazy.loadTensor(infos![slot.index]!, options.decode) : Promise.resolve(eager![slot.index]!);
    };
    let next = load(0);
    for (let k = 0; k < plan.layout.length; k++) {
      const slot = plan.layout[k]!;
      const pieces = chunks(k);
      if (pieces !== undefined) {
        // a large tensor: read, decode and write 16 MiB (a chunk or a band of rows) at a time
        let bytes = 0;
        for await (const piece of pieces) {
          await writer.write(piece);
          bytes += piece.length;
        }
        if (bytes !== slot.end - slot.begin) {
          throw new RangeError(
            `tensorfile: tensor "${slot.name}" decoded to ${bytes} bytes; its header entry says ${slot.end - slot.begin}`,
          );
        }
        written += bytes;
        options.onProgress?.(written, plan.size, slot.name);
        next = load(k + 1);
        continue;
      }
      const tensor = await next!;
      // a small tensor: the next one loads while this one is written; a large one is written first, so that
      // two large tensors (and their decode work memory) are never in memory at once
      const overlap = slot.end - slot.begin <= OVERLAP_BYTES;
      next = overlap ? load(k + 1) : undefined;
      next?.catch(() => undefined); // awaited in its turn
      if (lazy) checkTensor(tensor, `tensor "${slot.name}"`);
      const bytes = dataBytes(tensor);
      if (bytes.length !== slot.end - slot.begin) {
        throw new RangeError(
          `tensorfile: tensor "${slot.name}" decoded to ${bytes.length} bytes; its header entry says ${slot.end - slot.begin}`,
        );
      }
      await writer.write(bytes);
      written += bytes.length;
      options.onProgress?.(written, plan.size, slot.name);
      if (!overlap) next = load(k + 1);
    }
    await writer.finish();
  } catch (error) {
    await writer.abort(error);
    throw error;
  }
  return written;
}

/** One tensor of a lazy file, for writeNpyTo: loaded (or streamed in chunks) only when written. */
export interface LazyTensorRef {
  /** The lazily read file the tensor is in. */
  file: LazyTensors;
  /** Which tensor of it. */
  info: TensorInfo;
  /** How to decode it (`{ dtype: "float32" }`). */
  decode?: DecodeOptions | undefined;
}

function isLazyRef(value: unknown): value is LazyTensorRef {
  return (
    typeof value === "object" &&
    value !== null &&
    isLazy((value as LazyTensorRef).file) &&
    typeof (value as LazyTensorRef).info === "object"
  );
}

/**
 * Writes one tensor as a `.npy` file into `sink` (the same bytes writeNpy() returns); resolves to the byte count.
 * `tensor` is a NamedTensor, or `{ file, info, decode? }` naming one tensor of a lazy file: a plainly stored one
 * then streams in chunks when the file has its `source` (openFile()), so memory stays flat whatever its size.
 */
export async function writeNpyTo(
  sink: ByteSink,
  tensor: NamedTensor | LazyTensorRef,
  options: Pick<StreamWriteOptions, "end"> = {},
): Promise<number> {
  const chunks = isLazyRef(tensor) ? streamedPieces(tensor.file.source, tensor.info, tensor.decode) : undefined;
  if (isLazyRef(tensor) && chunks !== undefined) {
    const { info, decode } = tensor;
    const pieces = [npyHeader(decodedDType(info, decode), info.shape), chunks];
    return writePiecesTo(sink, pieces, { end: options.end, caller: "writeNpyTo" });
  }
  const loaded = isLazyRef(tensor) ? await tensor.file.loadTensor(tensor.info, tensor.decode) : tensor;
  checkTensor(loaded, "writeNpyTo() tensor");
  return writePiecesTo(sink, [npyHeader(loaded.dtype, loaded.shape), dataBytes(loaded)], {
    end: options.end,
    caller: "writeNpyTo",
  });
}
