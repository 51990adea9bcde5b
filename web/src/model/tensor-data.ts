/**
 * Reading a tensor's values for statistics, histograms and heatmaps, with no size ceiling: small tensors go
 * through the library's loadTensor (the reference decode for every format); a large tensor whose stored bytes
 * are plain elements (no obfuscation or format-specific coding) is read in chunks straight from its byte range,
 * so a 1 GiB tensor never sits in memory twice. Statistics do not depend on element order, so column-major and
 * batch-last layouts need no transpose here. Runs in the worker; pure enough for vitest.
 */
import {
  type ByteSource,
  type DType,
  type NamedTensor,
  type TensorInfo,
  dtypeBytes,
  kernels,
} from "../../../bindings/index.js";
import { isPlainlyStored } from "../../../bindings/tensor.js";
import {
  type Histogram,
  type StatsData,
  type StatsOptions,
  type TensorStats,
  histogram,
  mergeStats,
  stats,
} from "../compute.js";

/** What the worker needs of an opened file. */
export interface TensorSource {
  source: ByteSource;
  loadTensor(info: TensorInfo, options?: { dtype?: "float32" | undefined }): Promise<NamedTensor>;
}

/** Chunk size for streamed reads: big enough that per-read overhead vanishes, small enough to keep memory flat. */
export const CHUNK_BYTES = 16 * 1024 * 1024;

const NUMERIC = new Set<string>([
  "float16",
  "float32",
  "float64",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
]);
/** bfloat16 and float8 (safetensors): read widened to float32 by the library's kernels. */
const NARROW_FLOATS = new Set<string>(["bfloat16", "float8_e4m3", "float8_e5m2"]);

/** True for dtypes the statistics cover (numbers; not complex, char or opaque types). */
export function hasStatistics(dtype: string): boolean {
  return NUMERIC.has(dtype) || NARROW_FLOATS.has(dtype);
}

/** Loads a tensor for its values: as stored, except bfloat16/float8 which come widened to float32. */
export function loadValues(from: Pick<TensorSource, "loadTensor">, info: TensorInfo): Promise<NamedTensor> {
  return from.loadTensor(info, NARROW_FLOATS.has(info.dtype) ? { dtype: "float32" } : undefined);
}

/** Why a dtype has no statistics (for the table's note). */
export function noStatisticsReason(dtype: string): string {
  return `no statistics for ${dtype} (not a real number type)`;
}

/** True when the stored bytes of `info` are its elements as they are (possibly big-endian or in another order). */
export function rawReadable(info: TensorInfo): boolean {
  return NUMERIC.has(info.dtype) && isPlainlyStored(info);
}

/** A real copy at offset 0 (slice() of a Node Buffer would be a view of the caller's bytes). */
function copyOf(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.byteLength);
  out.set(bytes);
  return out;
}

/** The typed array and stats options for stored elements of `dtype` in `bytes` (copied when unaligned). */
export function elementsOf(
  dtype: DType,
  bytes: Uint8Array,
  quantization?: { scale: number; offset: number },
): { data: StatsData; options: StatsOptions } {
  const size = dtypeBytes(dtype);
  const aligned = bytes.byteOffset % size === 0 ? bytes : copyOf(bytes);
  const { buffer, byteOffset } = aligned;
  const length = aligned.byteLength / size;
  const options: StatsOptions = {};
  let data: StatsData;
  switch (dtype) {
    case "float16":
      data = new Uint16Array(buffer, byteOffset, length);
      options.dtype = "float16";
      break;
    case "float32":
      data = new Float32Array(buffer, byteOffset, length);
      break;
    case "float64":
      data = new Float64Array(buffer, byteOffset, length);
      break;
    case "int8":
      data = new Int8Array(buffer, byteOffset, length);
      break;
    case "uint8":
    case "bool":
      data = new Uint8Array(buffer, byteOffset, length);
      break;
    case "int16":
      data = new Int16Array(buffer, byteOffset, length);
      break;
    case "uint16":
      data = new Uint16Array(buffer, byteOffset, length);
      break;
    case "int32":
      data = new Int32Array(buffer, byteOffset, length);
      break;
    case "uint32":
      data = new Uint32Array(buffer, byteOffset, length);
      break;
    case "int64":
      data = new BigInt64Array(buffer, byteOffset, length);
      break;
    case "uint64":
      data = new BigUint64Array(buffer, byteOffset, length);
      break;
    default:
      throw new RangeError(noStatisticsReason(dtype));
  }
  if (quantization && dtype === "int8") {
    options.scale = quantization.scale;
    options.offset = quantization.offset;
  }
  return { data, options };
}

/** A decoded tensor's data and stats options (float16 halves, int8 with its quantization). */
export function tensorElements(
  tensor: NamedTensor,
  info: Pick<TensorInfo, "quantization"> | undefined,
): { data: StatsData; options: StatsOptions } {
  const bytes = new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  return elementsOf(tensor.dtype, bytes, tensor.dtype === "int8" ? info?.quantization : undefined);
}

/** Stored bytes of `info` (the whole tensor or a chunk of it) as elements: big-endian ones byte-swapped in a copy. */
export function storedElements(info: TensorInfo, bytes: Uint8Array): { data: StatsData; options: StatsOptions } {
  const size = dtypeBytes(info.dtype);
  if (info.byteOrder === "be" && size > 1) {
    bytes = copyOf(bytes);
    kernels.byteSwap(bytes, size as 2 | 4 | 8);
  }
  return elementsOf(info.dtype, bytes, info.quantization);
}

export interface ReadProgress {
  /** Called with bytes done so far of this tensor. */
  onProgress?: ((bytesDone: number) => void) | undefined;
  /** Checked between chunks; true stops with a "cancelled" error. */
  isCancelled?: (() => boolean) | undefined;
  chunkBytes?: number | undefined;
}

export class CancelledError extends Error {
  override name = "CancelledError";
  constructor() {
    super("cancelled");
  }
}

/**
 * Calls `visit` with the tensor's elements: once with the whole decoded tensor, or chunk by chunk for a large
 * plain tensor (big-endian chunks are byte-swapped first).
 */
export async function forEachChunk(
  from: TensorSource,
  info: TensorInfo,
  visit: (data: StatsData, options: StatsOptions) => void,
  progress: ReadProgress = {},
): Promise<void> {
  const chunkBytes = progress.chunkBytes ?? CHUNK_BYTES;
  if (!rawReadable(info) || info.byteLength <= chunkBytes) {
    const tensor = await loadValues(from, info);
    if (progress.isCancelled?.()) throw new CancelledError();
    const { data, options } = tensorElements(tensor, info);
    visit(data, options);
    progress.onProgress?.(info.byteLength);
    return;
  }
  const size = dtypeBytes(info.dtype);
  const step = Math.max(size, chunkBytes - (chunkBytes % size));
  // the next chunk is read while this one is computed (file reads run off the thread): two chunks in memory at most
  const readChunk = (done: number) => {
    const read = readFully(from.source, info.byteOffset + done, Math.min(step, info.byteLength - done));
    read.catch(() => {}); // awaited in its turn, which reports the error; a cancelled loop leaves it unawaited
    return read;
  };
  let next: Promise<Uint8Array> | undefined = readChunk(0);
  for (let done = 0; done < info.byteLength; done += step) {
    const length = Math.min(step, info.byteLength - done);
    const pending: Promise<Uint8Array> = next!;
    next = done + step < info.byteLength ? readChunk(done + step) : undefined;
    if (progress.isCancelled?.()) throw new CancelledError();
    const { data, options } = storedElements(info, await pending);
    visit(data, options);
    progress.onProgress?.(done + length);
  }
}

/** Exactly [offset, offset + length) of a source, asking again after short reads. */
export async function readFully(source: ByteSource, offset: number, length: number): Promise<Uint8Array> {
  const first = await source.read(offset, length);
  if (first.length === length) return first;
  const out = new Uint8Array(length);
  out.set(first);
  let done = first.length;
  while (done < length) {
    const more = await source.read(offset + done, length - done);
    if (more.length === 0)
      throw new RangeError(
        `the file ends at ${offset + done}, inside a tensor that needs ${length} bytes from ${offset}`,
      );
    out.set(more.subarray(0, length - done), done);
    done += more.length;
  }
  return out;
}

/** Statistics of one tensor, streamed. */
export async function tensorStats(
  from: TensorSource,
  info: TensorInfo,
  progress: ReadProgress = {},
): Promise<TensorStats> {
  let total: TensorStats | undefined;
  await forEachChunk(
    from,
    info,
    (data, options) => {
      const part = stats(data, options);
      total = total ? mergeStats(total, part) : part;
    },
    progress,
  );
  return total ?? stats(new Float32Array(0));
}

/** The histogram range for statistics: [min, max] of the finite values, widened when they are all equal. */
export function histogramRange(s: TensorStats): { lo: number; hi: number } {
  if (!(s.finite > 0)) return { lo: 0, hi: 1 };
  if (s.min === s.max) {
    const pad = s.min === 0 ? 0.5 : Math.abs(s.min) * 0.5;
    return { lo: s.min - pad, hi: s.max + pad };
  }
  return { lo: s.min, hi: s.max };
}

/** A histogram of one tensor over [lo, hi], streamed like tensorStats. */
export async function tensorHistogram(
  from: TensorSource,
  info: TensorInfo,
  bins: number,
  lo: number,
  hi: number,
  progress: ReadProgress = {},
): Promise<Histogram> {
  let total: Histogram | undefined;
  await forEachChunk(
    from,
    info,
    (data, options) => {
      const part = histogram(data, bins, lo, hi, options);
      if (!total) total = part;
      else {
        for (let i = 0; i < bins; i++) total.counts[i]! += part.counts[i]!;
        total.below += part.below;
        total.above += part.above;
        total.nan += part.nan;
        total.posInf += part.posInf;
        total.negInf += part.negInf;
      }
    },
    progress,
  );
  return total ?? histogram(new Float32Array(0), bins, lo, hi);
}

/**
 * Statistics and histogram together: one read for tensors decoded whole, two passes for streamed ones, one
 * when the statistics are `known` already (the table computed them): the histogram's range comes from them.
 */
export async function statsAndHistogram(
  from: TensorSource,
  info: TensorInfo,
  bins: number,
  progress: ReadProgress = {},
  known?: TensorStats,
): Promise<{ stats: TensorStats; histogram: Histogram }> {
  if (known && rawReadable(info) && info.byteLength > (progress.chunkBytes ?? CHUNK_BYTES)) {
    const { lo, hi } = histogramRange(known);
    return { stats: known, histogram: await tensorHistogram(from, info, bins, lo, hi, progress) };
  }
  if (!rawReadable(info) || info.byteLength <= (progress.chunkBytes ?? CHUNK_BYTES)) {
    const tensor = await loadValues(from, info);
    const { data, options } = tensorElements(tensor, info);
    const s = stats(data, options);
    const { lo, hi } = histogramRange(s);
    progress.onProgress?.(info.byteLength);
    return { stats: s, histogram: histogram(data, bins, lo, hi, options) };
  }
  const half = (n: number) => progress.onProgress?.(n / 2);
  const s = await tensorStats(from, info, { ...progress, onProgress: half });
  const { lo, hi } = histogramRange(s);
  const h = await tensorHistogram(from, info, bins, lo, hi, {
    ...progress,
    onProgress: (n) => progress.onProgress?.(info.byteLength / 2 + n / 2),
  });
  return { stats: s, histogram: h };
}

/** Above this many elements, integer tensors' values for heatmaps are kept as float32 (4 bytes each, not 8). */
export const EXACT_NUMBERS_MAX_ELEMENTS = 16 * 1024 * 1024;

/**
 * The tensor's values as numbers (for heatmaps, slices and the value grid): float32/float64 as they are, float16
 * widened, int8 dequantized, integers exactly as float64 up to EXACT_NUMBERS_MAX_ELEMENTS and as float32 above.
 */
export function numbersOf(tensor: NamedTensor, info?: TensorInfo): Float64Array | Float32Array {
  if (tensor.dtype === "float32") return tensor.data;
  if (tensor.dtype === "float64") return tensor.data;
  return elementNumbers(tensorElements(tensor, info));
}

/**
 * Elements as numbers: float32/float64 as they are, float16 widened to float32, int8 dequantized, integers
 * exactly as float64 up to EXACT_NUMBERS_MAX_ELEMENTS and as float32 above.
 */
export function elementNumbers({
  data,
  options,
}: {
  data: StatsData;
  options: StatsOptions;
}): Float64Array | Float32Array {
  if (data instanceof Float32Array || data instanceof Float64Array) return data;
  if (options.dtype === "float16") return kernels.f16ToF32(data as Uint16Array);
  const out = data.length <= EXACT_NUMBERS_MAX_ELEMENTS ? new Float64Array(data.length) : new Float32Array(data.length);
  const scale = options.scale ?? 1;
  const offset = options.offset ?? 0;
  const quantized = options.scale !== undefined || options.offset !== undefined;
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
    for (let i = 0; i < data.length; i++) out[i] = Number(data[i]!);
  } else if (quantized) {
    for (let i = 0; i < data.length; i++) out[i] = (data[i]! - offset) * scale;
  } else {
    out.set(data);
  }
  return out;
}
