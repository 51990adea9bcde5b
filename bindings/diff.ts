/**
 * diffTensors: compares the tensors of two files (or two lists of tensors) name by name, one pair in memory at
 * a time, with the WASM SIMD reduction kernels.diffStats doing the arithmetic.
 *
 * Values are widened for the comparison: float16, bfloat16, float8, float32, (u)int8, (u)int16 and bool to float32
 * (exact) in cache-sized chunks, then compared in f64 by the kernel; float64, (u)int32 and (u)int64 in f64 by a
 * plain loop with the same rules (int64 beyond 2^53 loses precision). Other dtypes (complex, char, opaque
 * TenniS types) are compared element by element as raw bytes (no magnitudes).
 *
 * NaN handling: a NaN opposite a NaN at the same place counts as equal; a NaN opposite a number (and an
 * infinity opposite anything but the same infinity) counts as differing and makes maxAbs and maxRel Infinity.
 * Tolerance: an element is equal when |a - b| <= atol + rtol * |b| (numpy.isclose with B as the reference);
 * with the defaults (0, 0) only identical values are equal.
 */
import * as kernels from "./kernels/index.js";
import * as js from "./kernels/diff-js.js";
import type { DiffStatsResult } from "./kernels/index.js";
import { type DType, type NamedTensor, dtypeBytes, elementCount } from "./tensor.js";
import { type DiffInput, type Side, FLOAT32_EXACT, elementReader, SLICE_ELEMENTS, sideOf } from "./diff-inputs.js";

export type { DiffInput } from "./diff-inputs.js";

/** How one tensor present in both files compares. */
export interface TensorDiff {
  /** The tensor's name. */
  name: string;
  /**
   * "equal": same dtype and shape, every element within the tolerances; "different": same dtype and shape,
   * some element outside them; "dtype": the dtypes differ (values are still compared when the shapes agree);
   * "shape": the shapes differ (no values compared).
   */
  status: "equal" | "different" | "dtype" | "shape";
  /** Its dtype in A. */
  dtypeA: string;
  /** Its dtype in B. */
  dtypeB: string;
  /** Its shape in A. */
  shapeA: number[];
  /** Its shape in B. */
  shapeB: number[];
  /** Elements compared (0 when the shapes differ). */
  elements: number;
  /** Elements outside the tolerances (null when nothing was compared). */
  differing: number | null;
  /** Largest |a - b| (null for shapes that differ and for dtypes compared as raw bytes). */
  maxAbs: number | null;
  /** Largest |a - b| / |b| (Infinity where b is 0 and a is not). */
  maxRel: number | null;
  /** a·b / (|a| |b|) over the elements where both are finite (1 for two zero tensors, 0 when one is zero). */
  cosine: number | null;
}

/** What {@link diffTensors} returns. */
export interface DiffResult {
  /** No tensor only in one side, and every common tensor "equal". */
  equal: boolean;
  /** Names only in A, in A's order. */
  onlyA: string[];
  /** Names only in B, in B's order. */
  onlyB: string[];
  /** One entry per name in both, in A's order. */
  tensors: TensorDiff[];
}

/** What {@link DiffOptions.onProgress} is told after each tensor. */
export interface DiffProgress {
  /** Common tensors compared so far (this one included). */
  done: number;
  /** Common tensors in all. */
  total: number;
  /** The tensor just compared. */
  name: string;
  /** Bytes of A and B loaded for it. */
  bytes: number;
}

/** Options of {@link diffTensors}. */
export interface DiffOptions {
  /** Absolute tolerance (default 0). */
  atol?: number | undefined;
  /** Relative tolerance, relative to B (default 0). */
  rtol?: number | undefined;
  /** Called after each common tensor. */
  onProgress?: ((progress: DiffProgress) => void) | undefined;
}

function checkTolerance(value: number | undefined, name: string): number {
  if (value === undefined) return 0;
  if (typeof value !== "number" || !(value >= 0) || value === Infinity) {
    throw new RangeError(`tensorfile: diffTensors ${name} must be a finite number >= 0, not ${String(value)}`);
  }
  return value;
}

/** Compared in f64. */
const FLOAT64_PATH = new Set(["float64", "int32", "uint32", "int64", "uint64"]);

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

/** Elements [start, end) of `tensor` as float32 in `out` (its first end - start elements). */
function widenChunk(tensor: NamedTensor, start: number, end: number, out: Float32Array): Float32Array {
  const n = end - start;
  const target = out.subarray(0, n);
  const dtype = tensor.dtype as string;
  const data = tensor.data as ArrayBufferView & { subarray(a: number, b: number): ArrayBufferView & ArrayLike<number> };
  if (dtype === "float32") return (data as Float32Array).subarray(start, end);
  if (dtype === "float16") return kernels.f16ToF32((data as Uint16Array).subarray(start, end), target);
  if (dtype === "bfloat16") {
    const halves = data instanceof Uint16Array ? data : halvesOf(tensor.data as Uint8Array);
    return kernels.bf16ToF32(halves.subarray(start, end), target);
  }
  if (dtype === "float8_e4m3") return kernels.f8e4m3ToF32((tensor.data as Uint8Array).subarray(start, end), target);
  if (dtype === "float8_e5m2") return kernels.f8e5m2ToF32((tensor.data as Uint8Array).subarray(start, end), target);
  target.set(data.subarray(start, end));
  return target;
}

/** Raw little-endian bytes as 16-bit words (a view when aligned, else a copy). */
function halvesOf(bytes: Uint8Array): Uint16Array {
  const length = bytes.byteLength >>> 1;
  if (bytes.byteOffset % 2 === 0) return new Uint16Array(bytes.buffer, bytes.byteOffset, length);
  const copy = new Uint16Array(length);
  new Uint8Array(copy.buffer).set(bytes.subarray(0, 2 * length));
  return copy;
}

/** Elements [start, end) of a and b compared (widened in DIFF_CHUNK pieces), as one slice's statistics. */
function sliceStats(
  a: NamedTensor,
  b: NamedTensor,
  start: number,
  end: number,
  atol: number,
  rtol: number,
  buffers: { a?: Float32Array; b?: Float32Array },
): DiffStatsResult {
  if (a.dtype === "float32" && b.dtype === "float32")
    return kernels.diffStats(a.data.subarray(start, end), b.data.subarray(start, end), atol, rtol);
  const chunk = kernels.DIFF_CHUNK;
  buffers.a ??= new Float32Array(chunk);
  buffers.b ??= new Float32Array(chunk);
  let total = kernels.emptyDiffStats();
  for (let at = start; at < end; at += chunk) {
    const stop = Math.min(end, at + chunk);
    total = kernels.mergeDiffStats(
      total,
      kernels.diffStats(widenChunk(a, at, stop, buffers.a), widenChunk(b, at, stop, buffers.b), atol, rtol),
    );
  }
  return total;
}

/**
 * Statistics over slices of SLICE_ELEMENTS, merged in order: the same grouping whether the tensors are in
 * memory or read slice by slice, so both give the same bits.
 */
function statsFloat32(a: NamedTensor, b: NamedTensor, count: number, atol: number, rtol: number): DiffStatsResult {
  let total = kernels.emptyDiffStats();
  const buffers = {};
  for (let start = 0; start < count; start += SLICE_ELEMENTS) {
    total = kernels.mergeDiffStats(
      total,
      sliceStats(a, b, start, Math.min(count, start + SLICE_ELEMENTS), atol, rtol, buffers),
    );
  }
  return total;
}

/** Two slices of float32 in one WebAssembly memory of their own, so diffStats runs on them in place. */
interface ResidentPair {
  a: Float32Array;
  b: Float32Array;
}

function residentPair(): ResidentPair {
  const both = kernels.allocate(Float32Array, 2 * SLICE_ELEMENTS);
  return { a: both.subarray(0, SLICE_ELEMENTS), b: both.subarray(SLICE_ELEMENTS) };
}

/**
 * statsFloat32 over two tensors read slice by slice, the next slices read while this one is compared (two
 * slices of each in memory). Two float32 tensors whose sources can read into memory they are given go straight
 * into WebAssembly memory (two reused pairs of slices), with no copy and no new memory per slice.
 */
async function streamedStats(
  sideA: Side,
  i: number,
  sideB: Side,
  j: number,
  count: number,
  atol: number,
  rtol: number,
  pairs: ResidentPair[],
): Promise<DiffStatsResult> {
  let total = kernels.emptyDiffStats();
  const float32 = sideA.entries[i]!.dtype === "float32" && sideB.entries[j]!.dtype === "float32";
  if (float32 && sideA.sliceInto && sideB.sliceInto) {
    while (pairs.length < 2) pairs.push(residentPair());
    const read = async (start: number, pair: ResidentPair) => {
      const end = Math.min(count, start + SLICE_ELEMENTS);
      await Promise.all([
        sideA.sliceInto!(i, start, end, kernels.bytesOf(pair.a)),
        sideB.sliceInto!(j, start, end, kernels.bytesOf(pair.b)),
      ]);
      return end - start;
    };
    let pending = count > 0 ? read(0, pairs[0]!) : undefined;
    for (let start = 0, k = 0; start < count; start += SLICE_ELEMENTS, k ^= 1) {
      const n = await pending!;
      pending = start + SLICE_ELEMENTS < count ? read(start + SLICE_ELEMENTS, pairs[k ^ 1]!) : undefined;
      const pair = pairs[k]!;
      total = kernels.mergeDiffStats(
        total,
        kernels.diffStats(pair.a.subarray(0, n), pair.b.subarray(0, n), atol, rtol),
      );
    }
    return total;
  }
  const buffers = {};
  const read = (start: number) => {
    const end = Math.min(count, start + SLICE_ELEMENTS);
    return Promise.all([sideA.slice!(i, start, end), sideB.slice!(j, start, end)]);
  };
  let pending = count > 0 ? read(0) : undefined;
  for (let start = 0; start < count; start += SLICE_ELEMENTS) {
    const [a, b] = await pending!;
    pending = start + SLICE_ELEMENTS < count ? read(start + SLICE_ELEMENTS) : undefined;
    total = kernels.mergeDiffStats(total, sliceStats(a, b, 0, a.data.length, atol, rtol, buffers));
  }
  return total;
}

/** A tensor's data as bytes (a view). */
function dataBytesOf(tensor: NamedTensor): Uint8Array {
  return new Uint8Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
}

function asNumbers(tensor: NamedTensor): ArrayLike<number> {
  const data = tensor.data as ArrayLike<number | bigint>;
  if (data instanceof BigInt64Array || data instanceof BigUint64Array)
    return Float64Array.from(data as ArrayLike<bigint>, Number);
  if (
    tensor.dtype === "float16" ||
    tensor.dtype === "bfloat16" ||
    tensor.dtype === "float8_e4m3" ||
    tensor.dtype === "float8_e5m2"
  ) {
    const out = new Float32Array(data.length);
    widenChunk(tensor, 0, data.length, out);
    return out;
  }
  return data as ArrayLike<number>;
}

/** Element-wise raw-byte comparison for dtypes without magnitudes. */
function differingRaw(a: NamedTensor, b: NamedTensor, count: number): number {
  const x = new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
  const y = new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength);
  if (x.length !== y.length || count === 0) return x.length === y.length ? 0 : count;
  const size = x.length / count;
  let differing = 0;
  for (let e = 0; e < count; e++) {
    for (let k = e * size; k < (e + 1) * size; k++) {
      if (x[k] !== y[k]) {
        differing++;
        break;
      }
    }
  }
  return differing;
}

function cosineOf(s: DiffStatsResult): number {
  if (s.normA2 === 0 && s.normB2 === 0) return 1;
  if (s.normA2 === 0 || s.normB2 === 0) return 0;
  const c = s.dot / (Math.sqrt(s.normA2) * Math.sqrt(s.normB2));
  return Math.max(-1, Math.min(1, c));
}

type DiffBase = Pick<TensorDiff, "name" | "dtypeA" | "dtypeB" | "shapeA" | "shapeB">;

function fromStats(base: DiffBase, count: number, stats: DiffStatsResult): TensorDiff {
  const status = base.dtypeA !== base.dtypeB ? "dtype" : stats.differing === 0 ? "equal" : "different";
  return {
    ...base,
    status,
    elements: count,
    differing: stats.differing,
    maxAbs: stats.maxAbs,
    maxRel: stats.maxRel,
    cosine: cosineOf(stats),
  };
}

function compare(name: string, a: NamedTensor, b: NamedTensor, atol: number, rtol: number): TensorDiff {
  const base = {
    name,
    dtypeA: a.dtype as string,
    dtypeB: b.dtype as string,
    shapeA: a.shape.slice(),
    shapeB: b.shape.slice(),
  };
  if (!sameShape(a.shape, b.shape)) {
    return { ...base, status: "shape", elements: 0, differing: null, maxAbs: null, maxRel: null, cosine: null };
  }
  const count = elementCount(a.shape);
  const dtypeStatus = a.dtype === b.dtype ? undefined : ("dtype" as const);
  let stats: DiffStatsResult | undefined;
  if (FLOAT32_EXACT.has(a.dtype) && FLOAT32_EXACT.has(b.dtype)) stats = statsFloat32(a, b, count, atol, rtol);
  else if (
    (FLOAT32_EXACT.has(a.dtype) || FLOAT64_PATH.has(a.dtype)) &&
    (FLOAT32_EXACT.has(b.dtype) || FLOAT64_PATH.has(b.dtype))
  ) {
    stats = js.diffStats(asNumbers(a), asNumbers(b), atol, rtol); // the TS twin, in f64
  }
  if (stats) return fromStats(base, count, stats);
  // raw bytes: only meaningful for one dtype on both sides
  const differing = dtypeStatus ? count : differingRaw(a, b, count);
  const status = dtypeStatus ?? (differing === 0 ? "equal" : "different");
  return { ...base, status, elements: count, differing, maxAbs: null, maxRel: null, cosine: null };
}

/**
 * Compares the tensors of `a` and `b` by name. Lazy inputs are read one tensor pair at a time (the pair is
 * dropped before the next is loaded), so two multi-GB files need memory for one pair only. See the module
 * comment for the NaN, infinity and tolerance rules.
 */
export async function diffTensors(a: DiffInput, b: DiffInput, options: DiffOptions = {}): Promise<DiffResult> {
  if (options === null || typeof options !== "object")
    throw new TypeError("tensorfile: diffTensors options must be an object");
  const atol = checkTolerance(options.atol, "atol");
  const rtol = checkTolerance(options.rtol, "rtol");
  const sideA = sideOf(a, "a");
  const sideB = sideOf(b, "b");
  const indexB = new Map<string, number>();
  sideB.entries.forEach((e, i) => {
    if (!indexB.has(e.name)) indexB.set(e.name, i);
  });
  const namesA = new Set(sideA.entries.map((e) => e.name));
  const seenA = new Set<string>();
  const common: [number, number][] = [];
  const onlyA: string[] = [];
  sideA.entries.forEach((e, i) => {
    if (seenA.has(e.name)) return; // a repeated name: the first one is compared
    seenA.add(e.name);
    const j = indexB.get(e.name);
    if (j === undefined) onlyA.push(e.name);
    else common.push([i, j]);
  });
  const onlyB = [...indexB.keys()].filter((name) => !namesA.has(name));
  const tensors: TensorDiff[] = [];
  const pairs: ResidentPair[] = [];
  for (const [n, [i, j]] of common.entries()) {
    const ea = sideA.entries[i]!;
    const eb = sideB.entries[j]!;
    let diff: TensorDiff;
    let bytes = 0;
    if (!sameShape(ea.shape, eb.shape)) {
      diff = compare(
        ea.name,
        { ...ea, data: new Uint8Array(0) } as NamedTensor,
        { ...eb, data: new Uint8Array(0) } as NamedTensor,
        atol,
        rtol,
      );
    } else if (sideA.streams(i) && sideB.streams(j)) {
      // both stored as plain row-major values: compared slice by slice, never loaded whole
      const count = elementCount(ea.shape);
      const stats = await streamedStats(sideA, i, sideB, j, count, atol, rtol, pairs);
      bytes = count * (dtypeBytes(ea.dtype as DType) + dtypeBytes(eb.dtype as DType));
      diff = fromStats(
        { name: ea.name, dtypeA: ea.dtype, dtypeB: eb.dtype, shapeA: ea.shape.slice(), shapeB: eb.shape.slice() },
        count,
        stats,
      );
    } else if (
      FLOAT32_EXACT.has(ea.dtype) &&
      FLOAT32_EXACT.has(eb.dtype) &&
      (sideA.pieces?.(i) !== undefined || sideB.pieces?.(j) !== undefined)
    ) {
      // large (column-major, compressed, big-endian, …) tensors: compared from their decoded pieces, slice by
      // slice in the same grouping as in memory (the same bits), never loaded whole
      const count = elementCount(ea.shape);
      const piecesOf = async function* (side: Side, k: number): AsyncGenerator<Uint8Array> {
        const pieces = side.pieces?.(k);
        if (pieces) yield* pieces;
        else yield new Uint8Array(dataBytesOf(await side.load(k)));
      };
      const readA = elementReader(piecesOf(sideA, i), ea.name, ea.dtype as DType);
      const readB = elementReader(piecesOf(sideB, j), eb.name, eb.dtype as DType);
      let stats = kernels.emptyDiffStats();
      const buffers = {};
      for (let start = 0; start < count; start += SLICE_ELEMENTS) {
        const n = Math.min(SLICE_ELEMENTS, count - start);
        const a = await readA(n);
        const b = await readB(n);
        stats = kernels.mergeDiffStats(stats, sliceStats(a, b, 0, n, atol, rtol, buffers));
      }
      bytes = count * (dtypeBytes(ea.dtype as DType) + dtypeBytes(eb.dtype as DType));
      diff = fromStats(
        { name: ea.name, dtypeA: ea.dtype, dtypeB: eb.dtype, shapeA: ea.shape.slice(), shapeB: eb.shape.slice() },
        count,
        stats,
      );
    } else {
      const ta = await sideA.load(i);
      const tb = await sideB.load(j);
      bytes = ta.data.byteLength + tb.data.byteLength;
      diff = compare(ea.name, ta, tb, atol, rtol);
    }
    tensors.push(diff);
    options.onProgress?.({ done: n + 1, total: common.length, name: ea.name, bytes });
  }
  const equal = onlyA.length === 0 && onlyB.length === 0 && tensors.every((t) => t.status === "equal");
  return { equal, onlyA, onlyB, tensors };
}
