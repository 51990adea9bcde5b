/**
 * Banded transposes: a column-major tensor decoded to row-major one band of output rows at a time, reading only
 * what each band needs, so that neither the whole transposed tensor nor its whole stored bytes are ever in memory.
 *
 * A column-major tensor [d0, d1, …, dk] (axes of extent 1 dropped) is stored row-major as [dk]…[d1][d0]: the
 * output's first (slowest) axis d0 is the stored fastest one. Output rows [i0, i0 + h) are therefore, in the stored
 * bytes, one run of h elements in each of the C = d1·…·dk stored columns, d0 elements apart. A band gathers those C
 * runs in stored order ([C][h], which is the column-major tensor [h, d1, …, dk]) and decodes it with decodeTensor:
 * the same transpose kernels, byte swaps, widening, dequantization and casts as a whole tensor, so the bytes are
 * identical. h is the most rows whose output fits in `bandBytes`. When a single output row is larger than that (a
 * very wide tensor with a short first axis), each row i is itself the column-major tensor [d1, …, dk] whose
 * elements lie d0 apart, starting at element i: banded the same way, one row after another.
 *
 * Reads (from a ByteSource with readInto, i.e. a local file or bytes in memory): where runs lie at least
 * `coalesceGap` bytes apart, each run is read straight into its place in the gathered band (one positioned read per
 * run); closer runs (short columns, or elements strided within a row) are read through a window of `windowBytes`
 * and picked out of it, so a band costs at most a few reads per window. A band read through windows is a pass over
 * the whole tensor, so tensors with short columns get fewer, larger bands: at most `maxPasses` passes, each band
 * about 1/maxPasses of the tensor (a 1 GiB Fortran-order [256, 1M] float32 .npy on a loaded 2-core machine:
 * 8 passes, 4.7-5.5 s and 0.7 GiB peak RSS, against 2.5-4 s and 3.1 GiB for the whole-tensor decode).
 *
 * primitiv tensors with a batch (an info with `batch` > 1, logical shape [batch, …dims]) are `batch` column-major
 * samples one after another: banded sample by sample.
 *
 * Memory per stream: the gathered band (reused), the decoded band (fresh for each band: a sink may keep it), the
 * kernels' work memory for a band, and a window when one is needed; all bounded by `bandBytes`, whatever the size
 * of the tensor.
 */
import { TruncatedError } from "../bytes/errors.js";
import {
  type DecodeOptions,
  type TensorInfo,
  decodeTensor,
  decodedDType,
  dtypeBytes,
  elementCount,
  isPlainlyStored,
} from "../tensor.js";
import type { ByteSource } from "./source.js";

/** Band and read sizes (not part of the public API; tests set tiny values to exercise many bands). */
export const BAND_TUNING = {
  /** Output bytes per band, at most (one output element more when an element is larger). */
  bandBytes: 16 << 20,
  /** Runs closer than this many bytes are read through a window instead of one read each. */
  coalesceGap: 16 << 10,
  /** Bytes per window read. */
  windowBytes: 4 << 20,
  /** Passes over a tensor with short columns (read through windows), at most: its bands grow instead. */
  maxPasses: 8,
};

/** Most axes longer than 1 the transpose kernels reorder (beyond, the format's own loader explains the refusal). */
const MAX_TRANSPOSE_AXES = 8;

/** How one column-major tensor is banded. */
export interface BandPlan {
  info: TensorInfo;
  /** Bytes per stored element. */
  storedSize: number;
  /** Bytes per output element (after widening, dequantization or a cast). */
  outSize: number;
  /** Samples one after another (primitiv's batch; 1 otherwise), each the column-major tensor `dims`. */
  samples: number;
  /** One sample's axes longer than 1, fastest-stored first (the output's slowest first). */
  dims: number[];
}

/**
 * The band plan for a column-major tensor, or undefined when the tensor needs no reordering (row-major or a single
 * axis longer than 1, without a batch), has a stored form only its format decodes, or cannot be reordered here.
 */
export function planBands(info: TensorInfo, decode?: DecodeOptions): BandPlan | undefined {
  if (info.layout !== "column-major" || !isPlainlyStored(info, { batches: true })) return undefined;
  const batch = (info as TensorInfo & { batch?: number }).batch ?? 1;
  if (batch > 1 && info.shape[0] !== batch) return undefined;
  const storedSize = dtypeBytes(info.dtype);
  if (![1, 2, 4].includes(storedSize) && storedSize % 8 !== 0) return undefined;
  const count = elementCount(info.shape);
  if (!Number.isSafeInteger(count) || count === 0) return undefined;
  const dims = (batch > 1 ? info.shape.slice(1) : info.shape).filter((d) => d !== 1);
  if (dims.length > MAX_TRANSPOSE_AXES) return undefined;
  if (dims.length < 2) {
    if (batch === 1) return undefined; // nothing to reorder: plain chunks do it
    // samples of one axis are stored as the output is (primitiv decodes them as row-major)
    return { info, storedSize, outSize: dtypeBytes(decodedDType(info, decode)), samples: 1, dims: [count] };
  }
  return { info, storedSize, outSize: dtypeBytes(decodedDType(info, decode)), samples: batch, dims };
}

/** The decoded size of a planned tensor. */
export function plannedBytes(plan: BandPlan): number {
  return elementCount(plan.info.shape) * plan.outSize;
}

/**
 * One band: `runs` runs of `length` elements; run c starts at stored element `first + c * step`, its elements
 * `stride` apart. Gathered in that order they are the column-major tensor `shape`.
 */
export interface Band {
  first: number;
  step: number;
  runs: number;
  length: number;
  stride: number;
  shape: number[];
}

/** How bands are sized: the output budget, and for reads through windows the passes allowed (see bandsOf). */
interface BandSizing {
  outSize: number;
  storedSize: number;
  budget: number;
  /** Reads through windows: at most this many passes over a piece (0: no limit, bands of `budget` only). */
  maxPasses: number;
  coalesceGap: number;
}

/** The bands of the column-major tensor `dims` whose element 0 is stored element `base`, elements `stride` apart. */
function* bandsOfPiece(dims: readonly number[], base: number, stride: number, sizing: BandSizing): Generator<Band> {
  const { outSize, budget } = sizing;
  const d0 = dims[0]!;
  const rest = dims.slice(1);
  const rowElements = elementCount(rest);
  if (rest.length === 0) {
    const per = Math.max(1, Math.floor(budget / outSize));
    for (let i0 = 0; i0 < d0; i0 += per) {
      const n = Math.min(per, d0 - i0);
      yield { first: base + stride * i0, step: 0, runs: 1, length: n, stride, shape: [n] };
    }
    return;
  }
  let h = Math.min(d0, Math.floor(budget / (rowElements * outSize)));
  // Runs closer than coalesceGap (short columns) are read through windows: each band is then a pass over the
  // whole piece, and bands of `budget` would make d0 / h passes (a [256, 1M] float32 tensor: 128 reads of 1 GiB).
  // Such pieces get bands of d0 / maxPasses rows instead (about 1/maxPasses of the piece, well within the
  // 1.5x-the-tensor goal for transposed tensors); with d0 <= maxPasses, rows one at a time (below) already are.
  const windowed = stride > 1 || (d0 - Math.max(1, h)) * sizing.storedSize < sizing.coalesceGap;
  if (sizing.maxPasses > 0 && windowed && d0 > sizing.maxPasses) h = Math.max(h, Math.ceil(d0 / sizing.maxPasses));
  if (h >= 1) {
    for (let i0 = 0; i0 < d0; i0 += h) {
      const n = Math.min(h, d0 - i0);
      yield { first: base + stride * i0, step: stride * d0, runs: rowElements, length: n, stride, shape: [n, ...rest] };
    }
    return;
  }
  // one output row is larger than a band: each row is the column-major tensor `rest`, elements d0 apart
  for (let i = 0; i < d0; i++) yield* bandsOfPiece(rest, base + stride * i, stride * d0, sizing);
}

/**
 * Every band of a plan, in output order: bands of at most `budget` output bytes, except that with `maxPasses` (for
 * reads from a source) tensors with short columns get fewer, larger bands (see bandsOfPiece).
 */
export function* bandsOf(plan: BandPlan, budget = BAND_TUNING.bandBytes, maxPasses = 0): Generator<Band> {
  const sizing: BandSizing = {
    outSize: plan.outSize,
    storedSize: plan.storedSize,
    budget,
    maxPasses,
    coalesceGap: BAND_TUNING.coalesceGap,
  };
  const sampleElements = elementCount(plan.dims);
  for (let s = 0; s < plan.samples; s++) yield* bandsOfPiece(plan.dims, s * sampleElements, 1, sizing);
}

/** Where a band's gathering stands: the run and the element within it still to copy. */
interface Cursor {
  run: number;
  element: number;
}

/** Stored byte position (from the tensor's first byte) of the cursor's element. */
function positionOf(band: Band, cursor: Cursor, size: number): number {
  return (band.first + cursor.run * band.step + cursor.element * band.stride) * size;
}

/** Byte just after the band's last stored element. */
function bandEnd(band: Band, size: number): number {
  return (band.first + (band.runs - 1) * band.step + (band.length - 1) * band.stride + 1) * size;
}

/** Copies `count` elements of `size` bytes, `step` bytes apart in `src` from `from`, contiguously to `dst` at `to`. */
function copyElements(
  src: Uint8Array,
  from: number,
  step: number,
  dst: Uint8Array,
  to: number,
  count: number,
  size: number,
): void {
  const bytes = count * size;
  if (step === size) {
    if (bytes >= 64) {
      dst.set(src.subarray(from, from + bytes), to);
      return;
    }
    for (let b = 0; b < bytes; b++) dst[to + b] = src[from + b]!;
    return;
  }
  for (let e = 0; e < count; e++) {
    const at = from + e * step;
    const into = to + e * size;
    for (let b = 0; b < size; b++) dst[into + b] = src[at + b]!;
  }
}

/**
 * Copies the band's elements, from the cursor on, that lie inside `window` (stored bytes [windowStart,
 * windowStart + window.length)) into `target`; advances the cursor. Returns the stored byte position of the next
 * element still needed, or -1 when the band is complete.
 */
function copyCovered(
  band: Band,
  size: number,
  cursor: Cursor,
  window: Uint8Array,
  windowStart: number,
  target: Uint8Array,
): number {
  const windowEnd = windowStart + window.length;
  const strideBytes = band.stride * size;
  while (cursor.run < band.runs) {
    const at = positionOf(band, cursor, size);
    if (at < windowStart || at + size > windowEnd) return at;
    const left = band.length - cursor.element;
    const fit = Math.min(left, Math.floor((windowEnd - at - size) / strideBytes) + 1);
    copyElements(
      window,
      at - windowStart,
      strideBytes,
      target,
      (cursor.run * band.length + cursor.element) * size,
      fit,
      size,
    );
    cursor.element += fit;
    if (cursor.element === band.length) {
      cursor.run++;
      cursor.element = 0;
    }
  }
  return -1;
}

/** The column-major band decoded (fresh memory: a sink may keep it), as bytes. */
function decodeBand(gathered: Uint8Array, band: Band, plan: BandPlan, decode: DecodeOptions | undefined): Uint8Array {
  const { info } = plan;
  const bandInfo: TensorInfo = {
    ...info,
    shape: band.shape,
    layout: "column-major",
    byteOffset: info.byteOffset + band.first * plan.storedSize,
    byteLength: gathered.length,
  };
  const data = decodeTensor(gathered, bandInfo, { dtype: decode?.dtype, copy: true }, info.format ?? "tensorfile").data;
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

/** True when bands can be read from this source (positioned reads into a buffer: local files, bytes in memory). */
export function canReadBands(
  source: ByteSource | undefined,
): source is ByteSource & { readInto(target: Uint8Array, offset: number): Promise<number> } {
  return source !== undefined && typeof source.readInto === "function";
}

/** Reads exactly `target.length` bytes at `position`, or TRUNCATED naming the tensor. */
async function readFully(
  source: ByteSource & { readInto(target: Uint8Array, offset: number): Promise<number> },
  target: Uint8Array,
  position: number,
  plan: BandPlan,
): Promise<void> {
  let done = 0;
  while (done < target.length) {
    const n = await source.readInto(target.subarray(done), position + done);
    if (n <= 0)
      throw new TruncatedError(
        plan.info.format ?? "tensorfile",
        position + done,
        plan.info.name,
        target.length - done,
        0,
      );
    done += n;
  }
}

/**
 * The row-major bytes of a column-major tensor stored in `source`, band by band (each at most `bandBytes` of
 * output). The source needs readInto (canReadBands). Throws TRUNCATED, as reading the whole tensor would, before
 * any band when the source is too short.
 */
export async function* bandedChunks(
  source: ByteSource,
  plan: BandPlan,
  decode?: DecodeOptions,
): AsyncGenerator<Uint8Array> {
  if (!canReadBands(source)) throw new TypeError("tensorfile: banded reads need a ByteSource with readInto()");
  const { info, storedSize: size } = plan;
  const format = info.format ?? "tensorfile";
  if (source.size !== undefined && info.byteOffset + info.byteLength > source.size) {
    const got = Math.max(0, source.size - info.byteOffset);
    throw new TruncatedError(format, info.byteOffset + got, info.name, info.byteLength - got, 0);
  }
  const { coalesceGap, windowBytes } = BAND_TUNING;
  let gathered = new Uint8Array(0);
  let window: Uint8Array | undefined;
  for (const band of bandsOf(plan, BAND_TUNING.bandBytes, BAND_TUNING.maxPasses)) {
    const bytes = band.runs * band.length * size;
    if (gathered.length < bytes) gathered = new Uint8Array(bytes);
    const target = gathered.subarray(0, bytes);
    const runBytes = band.length * size;
    if (band.stride === 1 && (band.runs === 1 || (band.step - band.length) * size >= coalesceGap)) {
      // runs far apart: each read straight into its place
      for (let c = 0; c < band.runs; c++) {
        await readFully(
          source,
          target.subarray(c * runBytes, (c + 1) * runBytes),
          info.byteOffset + (band.first + c * band.step) * size,
          plan,
        );
      }
    } else {
      // close runs or strided elements: windows of the stored bytes, the band's elements picked out of them
      window ??= new Uint8Array(Math.max(windowBytes, size));
      const end = bandEnd(band, size);
      const cursor: Cursor = { run: 0, element: 0 };
      let next = positionOf(band, cursor, size);
      while (next >= 0) {
        const view = window.subarray(0, Math.min(window.length, end - next));
        await readFully(source, view, info.byteOffset + next, plan);
        next = copyCovered(band, size, cursor, view, next, target);
      }
    }
    yield decodeBand(target, band, plan, decode);
  }
}

/**
 * The same bands from the tensor's stored bytes in memory (`stored`: exactly info.byteLength bytes, any alignment),
 * synchronously: a whole transposed copy is never made.
 */
export function* bandedChunksOfBytes(
  stored: Uint8Array,
  plan: BandPlan,
  decode?: DecodeOptions,
): Generator<Uint8Array> {
  if (stored.length !== plan.info.byteLength)
    throw new RangeError(
      `tensorfile: ${stored.length} stored bytes for tensor "${plan.info.name}" of ${plan.info.byteLength}`,
    );
  let gathered = new Uint8Array(0);
  for (const band of bandsOf(plan)) {
    const bytes = band.runs * band.length * plan.storedSize;
    if (gathered.length < bytes) gathered = new Uint8Array(bytes);
    const target = gathered.subarray(0, bytes);
    copyCovered(band, plan.storedSize, { run: 0, element: 0 }, stored, 0, target);
    yield decodeBand(target, band, plan, decode);
  }
}
