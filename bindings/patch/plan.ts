/**
 * A patch as a plan over the original file: a sorted list of byte ranges to replace (everything between them
 * is copied from the source unchanged), made and checked before a byte is written, then run into a sink
 * chunk by chunk. For the formats whose tensors keep their size when replaced (bw2l, tsm and .csta, primitiv,
 * binary SPRAAK) every edit is exactly the stored tensor's range; april (networks change size) and SPRAAK
 * ASCII/gzip data replace larger ranges.
 */
import { type ByteSource, readExactly } from "../io/source.js";
import * as kernels from "../kernels/index.js";
import {
  type DType,
  type NamedTensor,
  type TensorInfo,
  type TypedArray,
  dtypeBytes,
  isStandardDType,
  viewAs,
} from "../tensor.js";
import { TruncatedError, patchError } from "../bytes/errors.js";
import type { ByteSink } from "../io/sink.js";
import {
  type ChunkReuse,
  type StoredForm,
  checkReplacement,
  chunkReuse,
  encodeChunks,
  replacementData,
} from "./encode.js";
import { type Incoming, type ReplaceOptions, checkUnknown } from "./input.js";

export interface PatchEdit {
  /** The source range this edit replaces. */
  offset: number;
  length: number;
  /**
   * The new bytes for it, in order. Chunks are never written to afterwards (a sink may keep them), unless
   * `reuse` is given: then the sink is done with each chunk once it has been handed over, and memory is reused.
   */
  produce(reuse?: ChunkReuse): AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** Exactly `length` new bytes (checked while running). */
  sameSize: boolean;
}

export interface PatchPlan {
  edits: PatchEdit[];
  /** Names replaced, in file order. */
  replaced: string[];
  /** Names in the file not replaced, in file order. */
  kept: string[];
  /** Names given that the file does not hold (only with { partial: true }; otherwise an error). */
  unknown: string[];
  /** bw2l v1 int8 tensors re-encoded with their layer's fresh scale and offset (not given, but changed). */
  requantized: string[];
  /** Size of the patched file. */
  outputSize: number;
  /**
   * Other files of the output, written after it (an ONNX model's external data files, with the externalSink
   * option: formats/onnx/external-write.ts).
   */
  external?: { location: string; size: number; write(sink: ByteSink): Promise<number> }[] | undefined;
}

export type Sink = (chunk: Uint8Array) => Promise<void> | void;

/** How a format turns the encoded bytes of a tensor at absolute offset `at` into the bytes it stores (.csta: XOR). */
export type ChunkTransform = (chunk: Uint8Array, at: number) => Uint8Array;

export function storedForm(info: TensorInfo): StoredForm {
  const batch = (info as { batch?: number }).batch;
  return {
    name: info.name,
    dtype: info.dtype,
    shape: info.shape,
    layout: info.layout,
    byteOrder: info.byteOrder,
    ...(batch !== undefined ? { batch } : {}),
  };
}

/** A raw-bytes replacement (a Uint8Array, for april networks) where a tensor is expected: TypeError. */
export function asTensor(name: string, value: NamedTensor | Uint8Array): NamedTensor {
  if (value instanceof Uint8Array && !("dtype" in value)) {
    throw patchError(
      "not-a-tensor",
      `tensorfile: the replacement for "${name}" is raw bytes (a Uint8Array); tensors are replaced by NamedTensors`,
      { tensor: name },
    );
  }
  return value as NamedTensor;
}

function nonUnitAxes(shape: readonly number[]): number {
  return shape.filter((d) => d !== 1).length;
}

/** True when stored bytes of `from` are already the bytes `to` stores: same dtype, both row-major little-endian. */
function storedAlike(from: TensorInfo, to: TensorInfo): boolean {
  return (
    from.dtype === to.dtype &&
    rowMajorLittleEndian(from) &&
    rowMajorLittleEndian(to) &&
    from.byteLength === to.byteLength
  );
}

/**
 * One buffer a plan reads weights' stored bytes into, reused from tensor to tensor (grown when needed). It lives
 * in WebAssembly memory of its own (kernels.allocate), where the transpose kernel reads it in place.
 */
export interface RawBuffer {
  bytes?: Uint8Array | undefined;
}

function rowMajorLittleEndian(i: TensorInfo): boolean {
  return rowMajorStored(i) && (i.byteOrder === "le" || dtypeBytes(i.dtype) === 1);
}

/** True when a tensor is stored row-major in effect (row-major, or at most one axis longer than 1): no transpose. */
function rowMajorStored(i: TensorInfo): boolean {
  return i.layout === "row-major" || nonUnitAxes(i.shape) <= 1;
}

/**
 * Bytes per element of a format-specific dtype given as raw uint8 bytes (one more axis, as in safetensors),
 * which the encoder handles element by element; 1 otherwise.
 */
function rawBytesUnit(from: string, stored: DType): number {
  return from === "uint8" && !isStandardDType(stored) ? Math.max(1, dtypeBytes(stored)) : 1;
}

/** The plan's reused buffer, at least `length` bytes (grown when needed). */
function sharedBuffer(shared: RawBuffer, length: number): Uint8Array {
  if (!shared.bytes || shared.bytes.byteLength < length) {
    shared.bytes = undefined; // let the smaller one go first
    try {
      shared.bytes = kernels.allocate(Uint8Array, Math.max(length, 8));
    } catch {
      shared.bytes = new Uint8Array(length); // beyond a 4 GiB WebAssembly memory: an ordinary buffer
    }
  }
  return shared.bytes;
}

/**
 * Tuning (tests make it small): bytes of a replacement read and converted at a time when its conversion into
 * the stored form is elementwise (rounded down to whole elements).
 */
export const PATCH_TUNING = { pieceBytes: 16 << 20 };

/**
 * One tensor's edit, run when its turn comes: weights stored as the model stores them are copied through in
 * chunks; plain row-major weights (sources with readInto) that only need an elementwise conversion (dtype cast,
 * byte swap) into a row-major stored form are read and encoded piece by piece (PATCH_TUNING.pieceBytes) in the
 * plan's one reused buffer; those that must be reordered (a column-major stored form) are read whole into that
 * buffer; anything else is loaded with the weights' loadTensor. Then encoded into the stored form in chunks.
 * Every route gives the same bytes: the encoding is elementwise wherever the replacement is cut into pieces.
 */
export function tensorEdit(
  info: TensorInfo,
  incoming: Incoming,
  transform?: ChunkTransform,
  shared: RawBuffer = {},
): PatchEdit {
  return {
    offset: info.byteOffset,
    length: info.byteLength,
    sameSize: true,
    async *produce(reuse?: ChunkReuse) {
      const raw = incoming.raw;
      if (raw && storedAlike(raw.info, info)) {
        // the weights store these bytes already: copy them through, never holding the tensor whole
        if (reuse && raw.readInto) {
          for (let at = 0; at < info.byteLength; at += RAW_PIECE) {
            const piece = reuse.take(Math.min(RAW_PIECE, info.byteLength - at));
            await raw.readInto(piece, at);
            yield transform ? transform(piece, info.byteOffset + at) : piece;
          }
          return;
        }
        let at = info.byteOffset;
        for await (const chunk of raw.chunks()) {
          yield transform ? transform(chunk, at) : chunk;
          at += chunk.length;
        }
        return;
      }
      if (raw?.readInto && rowMajorLittleEndian(raw.info) && rowMajorStored(info)) {
        // an elementwise conversion (cast, byte swap) into a row-major stored form: read and encode the
        // replacement a piece of whole elements at a time, in one reused buffer, never holding the tensor whole
        const readInto = raw.readInto;
        const from = raw.info.dtype;
        const unit = rawBytesUnit(from, info.dtype);
        const stride = Math.max(1, dtypeBytes(from)) * unit;
        const pieceBytes = Math.max(stride, Math.floor(PATCH_TUNING.pieceBytes / stride) * stride);
        const length = raw.info.byteLength;
        const buffer = sharedBuffer(shared, Math.min(length, pieceBytes));
        let out = info.byteOffset;
        for (let at = 0; at < length; at += pieceBytes) {
          const n = Math.min(pieceBytes, length - at);
          const bytes = buffer.subarray(0, n);
          await readInto(bytes, at);
          const form: StoredForm = {
            name: info.name,
            dtype: info.dtype,
            shape: [n / stride],
            layout: "row-major",
            byteOrder: info.byteOrder,
          };
          for (const chunk of encodeChunks(viewAs(from, bytes), from, form, reuse)) {
            // a view of the reused buffer must not reach a sink that may keep it
            const owned = !reuse && chunk.buffer === buffer.buffer ? chunk.slice() : chunk;
            yield transform ? transform(owned, out) : owned;
            out += chunk.length;
          }
        }
        return;
      }
      let data: TypedArray;
      let dtype: string;
      if (raw?.readInto && rowMajorLittleEndian(raw.info)) {
        // a transpose into a column-major stored form needs the whole tensor: read it into the reused buffer
        const length = raw.info.byteLength;
        const bytes = sharedBuffer(shared, length).subarray(0, length);
        await raw.readInto(bytes);
        data = viewAs(raw.info.dtype, bytes);
        dtype = raw.info.dtype;
      } else {
        const value = asTensor(info.name, await incoming.load());
        data = replacementData(info, value);
        dtype = value.dtype;
      }
      let at = info.byteOffset;
      for (const chunk of encodeChunks(data, dtype, storedForm(info), reuse)) {
        // a view of the reused buffer must not reach a sink that may keep it
        const owned = !reuse && chunk.buffer === shared.bytes?.buffer ? chunk.slice() : chunk;
        yield transform ? transform(owned, at) : owned;
        at += chunk.length;
      }
    },
  };
}

/** Checks a replacement's dtype and shape (before loading it); "bytes" values cannot replace a tensor. */
export function checkIncoming(
  info: { name: string; dtype: string; shape: readonly number[] },
  incoming: Incoming,
): void {
  if (incoming.dtype === "bytes") {
    throw patchError(
      "not-a-tensor",
      `tensorfile: the replacement for "${info.name}" is raw bytes (a Uint8Array); tensors are replaced by NamedTensors`,
      { tensor: info.name },
    );
  }
  checkReplacement(info, incoming);
}

/** Names in file order without repeats. */
function unique(names: Iterable<string>): string[] {
  return [...new Set(names)];
}

/**
 * The plan for formats whose tensors are fixed-size ranges: one edit per stored tensor with a replacement
 * (a name stored twice, as a TenniS module may, is replaced at both places). `special` lets a format take over
 * some tensors (bw2l re-quantization): it returns the edits for them and the names it handled.
 */
export function rangePlan(
  format: string,
  size: number,
  infos: readonly TensorInfo[],
  incoming: ReadonlyMap<string, Incoming>,
  options: ReplaceOptions,
  transform?: ChunkTransform,
  special?: (matched: TensorInfo[]) => { edits: PatchEdit[]; handled: Set<TensorInfo>; requantized: string[] },
): PatchPlan {
  const fileNames = unique(infos.map((i) => i.name));
  const inFile = new Set(fileNames);
  const unknown = [...incoming.keys()].filter((name) => !inFile.has(name));
  checkUnknown(unknown, fileNames, format, options);
  const matched = infos.filter((info) => incoming.has(info.name));
  const extra = special ? special(matched) : { edits: [], handled: new Set<TensorInfo>(), requantized: [] };
  const edits = [...extra.edits];
  const shared: RawBuffer = {};
  for (const info of matched) {
    if (extra.handled.has(info)) continue;
    const given = incoming.get(info.name)!;
    checkIncoming(info, given);
    edits.push(tensorEdit(info, given, transform, shared));
  }
  edits.sort((a, b) => a.offset - b.offset);
  for (let i = 1; i < edits.length; i++) {
    if (edits[i]!.offset < edits[i - 1]!.offset + edits[i - 1]!.length)
      throw new Error(`tensorfile: internal error: overlapping patch ranges in a ${format} file`);
  }
  const replaced = unique(matched.map((i) => i.name));
  const kept = fileNames.filter((n) => !incoming.has(n));
  return { edits, replaced, kept, unknown, requantized: extra.requantized, outputSize: size };
}

/** Bytes copied per read of unchanged ranges. */
const COPY_CHUNK = 8 << 20;
/** Bytes per read when copying a tensor the weights store as the model does, into reused memory. */
const RAW_PIECE = 4 << 20;

/** Copies source bytes [from, to) to the sink in chunks (into one reused buffer when allowed and possible). */
async function copyRange(
  source: ByteSource,
  from: number,
  to: number,
  sink: Sink,
  format: string,
  reuse?: ChunkReuse,
): Promise<void> {
  for (let at = from; at < to; at += COPY_CHUNK) {
    const n = Math.min(COPY_CHUNK, to - at);
    if (reuse && source.readInto) {
      const piece = reuse.take(n);
      const got = await source.readInto(piece, at);
      if (got !== n) throw new TruncatedError(format, at + got, undefined, n - got, 0);
      await sink(piece);
    } else {
      await sink(await readExactly(source, at, n, format));
    }
  }
}

/**
 * Runs a plan: unchanged ranges copied from the source, edits produced in place of theirs. Returns bytes
 * written. With `reuseChunks` the sink must be done with each chunk when its call (or promise) completes.
 */
export async function runPlan(
  source: ByteSource,
  size: number,
  plan: PatchPlan,
  sink: Sink,
  format: string,
  reuseChunks = false,
): Promise<number> {
  const reuse = reuseChunks ? chunkReuse() : undefined;
  let pos = 0;
  let written = 0;
  const emit = async (chunk: Uint8Array) => {
    if (chunk.length === 0) return;
    written += chunk.length;
    await sink(chunk);
  };
  for (const edit of plan.edits) {
    await copyRange(source, pos, edit.offset, emit, format, reuse);
    let produced = 0;
    for await (const chunk of edit.produce(reuse)) {
      produced += chunk.length;
      await emit(chunk);
    }
    if (edit.sameSize && produced !== edit.length) {
      throw new Error(
        `tensorfile: internal error: a ${format} patch produced ${produced} bytes for a range of ${edit.length}`,
      );
    }
    pos = edit.offset + edit.length;
  }
  await copyRange(source, pos, size, emit, format, reuse);
  return written;
}
