/**
 * What diffTensors compares, as one `Side` per input: a lazy file (streamed in slices or decoded pieces where its
 * stored bytes allow), a file read whole, or a list of tensors.
 */
import { type LazyTensors, decodeInChunks } from "./export/stream.js";
import { TruncatedError } from "./bytes/errors.js";
import { capabilitiesOf } from "./formats/registry.js";
import { type ByteSource, readExactly } from "./io/source.js";
import { type DType, type NamedTensor, type TensorInfo, decodedDType, dtypeBytes, viewAs } from "./tensor.js";

/** What diffTensors compares: a lazy file (readFromAny()), a file read whole (readAny(): `tensors()`), or tensors. */
export type DiffInput =
  | LazyTensors
  | {
      /** The file's tensors. */
      tensors(): NamedTensor[];
    }
  | readonly NamedTensor[];

export interface Side {
  entries: { name: string; dtype: string; shape: number[] }[];
  load(index: number): Promise<NamedTensor>;
  /** Elements [start, end) of tensor `index`, read as stored (only where `streams(index)`). */
  slice?(index: number, start: number, end: number): Promise<NamedTensor>;
  /** True when tensor `index` can be read in slices: its stored bytes are its row-major little-endian values. */
  streams(index: number): boolean;
  /** Reads the stored bytes of elements [start, end) into `target` (sources with readInto only). */
  sliceInto?(index: number, start: number, end: number, target: Uint8Array): Promise<void>;
  /**
   * Tensor `index` decoded in pieces of bounded size (16 MiB, or bands of rows of a column-major tensor), for
   * lazy files with a source; undefined where that is not possible.
   */
  pieces?(index: number): AsyncGenerator<Uint8Array> | undefined;
}

/** Tensors larger than this (stored bytes) are compared from decoded pieces rather than loaded whole. */
const PIECES_ABOVE_BYTES = 16 * 1024 * 1024;

/** Reads `n` elements at a time out of a tensor's decoded pieces (one piece buffered). */
export function elementReader(
  pieces: AsyncGenerator<Uint8Array>,
  name: string,
  dtype: DType,
): (n: number) => Promise<NamedTensor> {
  const size = dtypeBytes(dtype);
  let buffered: Uint8Array = new Uint8Array(0);
  return async (n) => {
    const want = n * size;
    const out = new Uint8Array(want);
    let filled = 0;
    while (filled < want) {
      if (buffered.length === 0) {
        const step = await pieces.next();
        if (step.done) throw new RangeError(`tensorfile: tensor "${name}" decoded to fewer bytes than its shape needs`);
        buffered = step.value;
        continue;
      }
      const take = Math.min(buffered.length, want - filled);
      out.set(buffered.subarray(0, take), filled);
      filled += take;
      buffered = buffered.subarray(take);
    }
    return { name, dtype, shape: [n], data: viewAs(dtype, out) } as NamedTensor;
  };
}

/** A lazy file with the source it reads from (what the CLI opens): its safetensors/npy tensors stream in slices. */
type LazyWithSource = LazyTensors & { source?: ByteSource | undefined };

/** Elements compared per slice when streaming (a multiple of kernels.DIFF_CHUNK; 2 MiB of float32, cache-sized). */
export const SLICE_ELEMENTS = 1 << 19;

function streamable(info: TensorInfo): boolean {
  const rowMajor = info.layout === "row-major" || info.shape.filter((d) => d !== 1).length <= 1;
  const size = dtypeBytes(info.dtype);
  return (
    // the tensor's plain bytes (decodeTensor alone reads them): the format's rawReadable capability
    info.format !== undefined &&
    capabilitiesOf(info.format)?.rawReadable === true &&
    rowMajor &&
    (info.byteOrder === "le" || size === 1) &&
    FLOAT32_EXACT.has(info.dtype) &&
    size > 0
  );
}

function isLazy(input: unknown): input is LazyTensors {
  return (
    typeof (input as LazyTensors)?.tensorInfos === "function" &&
    typeof (input as LazyTensors)?.loadTensor === "function"
  );
}

export function sideOf(input: DiffInput, label: "a" | "b"): Side {
  if (isLazy(input)) {
    const infos = input.tensorInfos();
    const source = (input as LazyWithSource).source;
    const side: Side = {
      entries: infos.map((i) => ({ name: i.name, dtype: i.dtype, shape: i.shape })),
      load: (k) => input.loadTensor(infos[k]!),
      streams: (k) => source !== undefined && typeof source.read === "function" && streamable(infos[k]!),
    };
    if (source) {
      side.pieces = (k) => {
        const info = infos[k]!;
        if (
          info.byteLength <= PIECES_ABOVE_BYTES ||
          decodedDType(info) !== info.dtype ||
          !FLOAT32_EXACT.has(info.dtype)
        )
          return undefined;
        return decodeInChunks({ ...input, source }, info, {});
      };
    }
    if (source) {
      side.slice = async (k, start, end) => {
        const info = infos[k]!;
        const size = dtypeBytes(info.dtype);
        const bytes = await readExactly(
          source,
          info.byteOffset + start * size,
          (end - start) * size,
          info.format ?? "tensorfile",
          info.name,
        );
        return {
          name: info.name,
          dtype: info.dtype,
          shape: [end - start],
          data: viewAs(info.dtype, bytes),
        } as NamedTensor;
      };
      const readInto = source.readInto?.bind(source);
      if (readInto) {
        side.sliceInto = async (k, start, end, target) => {
          const info = infos[k]!;
          const size = dtypeBytes(info.dtype);
          const at = info.byteOffset + start * size;
          const got = await readInto(target.subarray(0, (end - start) * size), at);
          if (got !== (end - start) * size)
            throw new TruncatedError(info.format ?? "tensorfile", at + got, info.name, (end - start) * size - got, 0);
        };
      }
    }
    return side;
  }
  let list: readonly NamedTensor[];
  if (Array.isArray(input)) list = input;
  else if (typeof (input as { tensors?: unknown })?.tensors === "function")
    list = (input as { tensors(): NamedTensor[] }).tensors();
  else
    throw new TypeError(
      `tensorfile: diffTensors(a, b) takes lazy files (readFromAny), files read whole (readAny) or arrays of NamedTensors; ${label} is none of these`,
    );
  list.forEach((t, i) => {
    if (
      t === null ||
      typeof t !== "object" ||
      typeof t.name !== "string" ||
      !Array.isArray(t.shape) ||
      !ArrayBuffer.isView(t.data)
    ) {
      throw new TypeError(
        `tensorfile: diffTensors: ${label}[${i}] is not a NamedTensor ({ name, dtype, shape, data })`,
      );
    }
  });
  return {
    entries: list.map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape })),
    load: async (k) => list[k]!,
    streams: () => false,
  };
}

/** Widened to float32 exactly, in chunks. */
export const FLOAT32_EXACT = new Set([
  "float16",
  "bfloat16",
  "float8_e4m3",
  "float8_e5m2",
  "float32",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "bool",
]);
