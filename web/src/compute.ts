/**
 * The page's numeric reductions behind one small module: per-tensor statistics, their merge (for chunked
 * tensors), histograms and the diff of two files.
 *
 * TEMPORARY: plain-TypeScript stand-ins with exactly the signatures of the library's coming `kernels.stats`,
 * `kernels.mergeStats`, `kernels.histogram` (branch i17k, WASM SIMD) and `diffTensors` (branch i15p). When those
 * land on main, this file becomes re-exports of them and the code below goes.
 */
import type { NamedTensor, TensorInfo } from "../../bindings/index.js";

export interface TensorStats {
  /** Elements looked at (finite and not). */
  count: number;
  /** Over finite values; NaN when there are none. */
  min: number;
  max: number;
  sum: number;
  sumSquares: number;
  mean: number;
  std: number;
  nan: number;
  posInf: number;
  negInf: number;
  zeros: number;
  finite: number;
}

export type StatsData =
  | Float32Array | Float64Array | Uint16Array | Int8Array | Uint8Array | Int16Array | Int32Array | Uint32Array
  | BigInt64Array | BigUint64Array;

export interface StatsOptions {
  /** "float16": `data` is a Uint16Array of raw halves. */
  dtype?: "float16" | undefined;
  /** int8 (or any integer array) with value = (q - offset) * scale. */
  scale?: number | undefined;
  offset?: number | undefined;
}

export interface Histogram {
  counts: Float64Array;
  /** Finite values below lo / above hi. */
  below: number;
  above: number;
  nan: number;
  posInf: number;
  negInf: number;
  lo: number;
  hi: number;
}

/** The value of element i of `data` as the options read it. */
function reader(data: StatsData, options: StatsOptions): (i: number) => number {
  if (options.dtype === "float16") {
    const halves = data as Uint16Array;
    return (i) => halfToNumber(halves[i]!);
  }
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) {
    const big = data;
    return (i) => Number(big[i]!);
  }
  const plain = data as Exclude<StatsData, BigInt64Array | BigUint64Array>;
  if (options.scale !== undefined || options.offset !== undefined) {
    const scale = options.scale ?? 1;
    const offset = options.offset ?? 0;
    return (i) => (plain[i]! - offset) * scale;
  }
  return (i) => plain[i]!;
}

export function halfToNumber(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

function finish(partial: Omit<TensorStats, "mean" | "std">): TensorStats {
  const { finite, sum, sumSquares } = partial;
  const mean = finite > 0 ? sum / finite : NaN;
  const variance = finite > 0 ? Math.max(0, sumSquares / finite - mean * mean) : NaN;
  return { ...partial, mean, std: Math.sqrt(variance) };
}

/** min, max, sum, sum of squares (f64), NaN/±Inf/zero counts and mean/std over the finite values. */
export function stats(data: StatsData, options: StatsOptions = {}): TensorStats {
  if (options.dtype === undefined && options.scale === undefined && options.offset === undefined &&
    !(data instanceof BigInt64Array) && !(data instanceof BigUint64Array)) {
    return plainStats(data);
  }
  const value = reader(data, options);
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let sumSquares = 0;
  let nan = 0;
  let posInf = 0;
  let negInf = 0;
  let zeros = 0;
  const count = data.length;
  for (let i = 0; i < count; i++) {
    const v = value(i);
    if (v - v !== 0) {
      if (v !== v) nan++;
      else if (v > 0) posInf++;
      else negInf++;
      continue;
    }
    if (v < min) min = v;
    if (v > max) max = v;
    if (v === 0) zeros++;
    sum += v;
    sumSquares += v * v;
  }
  const finite = count - nan - posInf - negInf;
  return finish({ count, min: finite > 0 ? min : NaN, max: finite > 0 ? max : NaN, sum, sumSquares, nan, posInf, negInf, zeros, finite });
}

/** stats() for arrays read as they are (no per-element conversion): one tight loop. */
function plainStats(data: Exclude<StatsData, BigInt64Array | BigUint64Array>): TensorStats {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let sumSquares = 0;
  let nonFinite = 0;
  let zeros = 0;
  const count = data.length;
  for (let i = 0; i < count; i++) {
    const v = data[i]!;
    if (v - v !== 0) {
      nonFinite++;
      continue;
    }
    if (v < min) min = v;
    if (v > max) max = v;
    if (v === 0) zeros++;
    sum += v;
    sumSquares += v * v;
  }
  let nan = 0;
  let posInf = 0;
  let negInf = 0;
  if (nonFinite > 0) {
    for (let i = 0; i < count; i++) {
      const v = data[i]!;
      if (v !== v) nan++;
      else if (v === Infinity) posInf++;
      else if (v === -Infinity) negInf++;
    }
  }
  const finite = count - nonFinite;
  return finish({ count, min: finite > 0 ? min : NaN, max: finite > 0 ? max : NaN, sum, sumSquares, nan, posInf, negInf, zeros, finite });
}

/** The statistics of two parts taken together (chunks of one tensor). */
export function mergeStats(a: TensorStats, b: TensorStats): TensorStats {
  const pick = (x: number, y: number, f: (p: number, q: number) => number) => (Number.isNaN(x) ? y : Number.isNaN(y) ? x : f(x, y));
  return finish({
    count: a.count + b.count,
    min: pick(a.min, b.min, Math.min),
    max: pick(a.max, b.max, Math.max),
    sum: a.sum + b.sum,
    sumSquares: a.sumSquares + b.sumSquares,
    nan: a.nan + b.nan,
    posInf: a.posInf + b.posInf,
    negInf: a.negInf + b.negInf,
    zeros: a.zeros + b.zeros,
    finite: a.finite + b.finite,
  });
}

/** `bins` equal bins over [lo, hi] (hi in the last bin); finite values outside and non-finite ones counted apart. */
export function histogram(data: StatsData, bins: number, lo: number, hi: number, options: StatsOptions = {}): Histogram {
  const value = reader(data, options);
  const counts = new Float64Array(bins);
  let below = 0;
  let above = 0;
  let nan = 0;
  let posInf = 0;
  let negInf = 0;
  const width = hi - lo;
  const scale = width > 0 ? bins / width : 0;
  for (let i = 0; i < data.length; i++) {
    const v = value(i);
    if (v !== v) nan++;
    else if (v === Infinity) posInf++;
    else if (v === -Infinity) negInf++;
    else if (v < lo) below++;
    else if (v > hi) above++;
    else {
      const bin = Math.min(bins - 1, Math.floor((v - lo) * scale));
      counts[bin]! += 1;
    }
  }
  return { counts, below, above, nan, posInf, negInf, lo, hi };
}

// ---- diff (TEMPORARY stand-in for i15p's diffTensors) ----

export interface TensorDiff {
  name: string;
  status: "equal" | "different" | "dtype" | "shape";
  dtypeA: string;
  dtypeB: string;
  shapeA: number[];
  shapeB: number[];
  elements: number;
  differing: number;
  maxAbs: number;
  maxRel: number;
  cosine: number;
}

export interface DiffResult {
  equal: boolean;
  onlyA: string[];
  onlyB: string[];
  tensors: TensorDiff[];
}

export interface LazyTensors {
  tensorInfos(): TensorInfo[];
  loadTensor(info: TensorInfo, options?: { dtype?: "float32" | undefined }): Promise<NamedTensor>;
}

export interface DiffOptions {
  atol?: number | undefined;
  rtol?: number | undefined;
  onProgress?: ((done: number, total: number, name: string) => void) | undefined;
}

function numbers(tensor: NamedTensor): Float64Array {
  const data = tensor.data;
  if (tensor.dtype === "float16") return Float64Array.from(tensor.data, halfToNumber);
  if (data instanceof BigInt64Array || data instanceof BigUint64Array) return Float64Array.from(data, Number);
  if (tensor.dtype === "float32" || tensor.dtype === "float64" || tensor.dtype === "int8" || tensor.dtype === "uint8" ||
    tensor.dtype === "int16" || tensor.dtype === "uint16" || tensor.dtype === "int32" || tensor.dtype === "uint32" || tensor.dtype === "bool") {
    return Float64Array.from(data as Float32Array);
  }
  return Float64Array.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
}

/**
 * Matches tensors by name and compares the common ones one pair at a time: max |a - b|, max |a - b| / |b|, the
 * number of elements with |a - b| > atol + rtol |b|, and cosine similarity. NaN in the same place in both counts
 * as equal.
 */
export async function diffTensors(a: LazyTensors, b: LazyTensors, options: DiffOptions = {}): Promise<DiffResult> {
  const atol = options.atol ?? 0;
  const rtol = options.rtol ?? 0;
  const infosA = a.tensorInfos();
  const infosB = b.tensorInfos();
  const byNameB = new Map(infosB.map((i) => [i.name, i]));
  const namesA = new Set(infosA.map((i) => i.name));
  const onlyA = infosA.filter((i) => !byNameB.has(i.name)).map((i) => i.name);
  const onlyB = infosB.filter((i) => !namesA.has(i.name)).map((i) => i.name);
  const common = infosA.filter((i) => byNameB.has(i.name));
  const tensors: TensorDiff[] = [];
  for (const [k, infoA] of common.entries()) {
    const infoB = byNameB.get(infoA.name)!;
    options.onProgress?.(k, common.length, infoA.name);
    const base = { name: infoA.name, dtypeA: infoA.dtype, dtypeB: infoB.dtype, shapeA: infoA.shape.slice(), shapeB: infoB.shape.slice() };
    const elements = infoA.shape.reduce((x, y) => x * y, 1);
    if (infoA.shape.length !== infoB.shape.length || infoA.shape.some((d, i) => d !== infoB.shape[i])) {
      tensors.push({ ...base, status: "shape", elements, differing: elements, maxAbs: NaN, maxRel: NaN, cosine: NaN });
      continue;
    }
    const x = numbers(await a.loadTensor(infoA, { dtype: "float32" }));
    const y = numbers(await b.loadTensor(infoB, { dtype: "float32" }));
    let maxAbs = 0;
    let maxRel = 0;
    let differing = 0;
    let dot = 0;
    let normA = 0;
    let normB = 0;
    for (let i = 0; i < x.length; i++) {
      const p = x[i]!;
      const q = y[i]!;
      if (p !== p || q !== q) {
        if ((p !== p) !== (q !== q)) differing++;
        continue;
      }
      const d = Math.abs(p - q);
      if (d === d) {
        if (d > maxAbs) maxAbs = d;
        const rel = q !== 0 ? d / Math.abs(q) : d > 0 ? Infinity : 0;
        if (rel > maxRel) maxRel = rel;
        if (d > atol + rtol * Math.abs(q)) differing++;
      } else if (p !== q) differing++;
      dot += p * q;
      normA += p * p;
      normB += q * q;
    }
    const cosine = normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : normA === normB ? 1 : 0;
    const status = infoA.dtype !== infoB.dtype ? "dtype" : differing > 0 ? "different" : "equal";
    tensors.push({ ...base, status, elements, differing, maxAbs, maxRel, cosine });
  }
  options.onProgress?.(common.length, common.length, "");
  const equal = onlyA.length === 0 && onlyB.length === 0 && tensors.every((t) => t.status === "equal");
  return { equal, onlyA, onlyB, tensors };
}
