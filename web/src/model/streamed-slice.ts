/**
 * Heatmaps of tensors too large to decode whole (issue 17: no size ceiling): the slice is read straight from the
 * tensor's stored bytes in chunks and reduced on the fly into the screen-sized grid, so a 4 GiB matrix needs
 * two chunks and the grid in memory, never the tensor. Only for tensors whose stored bytes are plain elements
 * (rawReadable: row- or column-major, either byte order, float16 halves, quantized int8); the others are
 * decoded whole by their format (with the worker's size cap).
 *
 * The stored flat index of slice cell (r, c) is base + r·rowStride + c·colStride, with the strides of the stored
 * layout (column-major: the first axis fastest). Only the flat range from cell (0, 0) to the last cell is read.
 * The results equal `reduce(normalizeColumns?(extractSlice(values)))` of the decoded tensor (cell means summed in
 * storage order, which for row-major rows is the same order; otherwise equal up to rounding).
 */
import { type TensorInfo, dtypeBytes } from "../../../bindings/index.js";
import type { Reduced, SliceSpec } from "./heatmap.js";
import {
  CHUNK_BYTES,
  CancelledError,
  type ReadProgress,
  type TensorSource,
  elementNumbers,
  readFully,
  storedElements,
} from "./tensor-data.js";

/** Strides of the stored layout, in elements. */
export function storedStrides(info: Pick<TensorInfo, "shape" | "layout">): number[] {
  const { shape } = info;
  const strides = new Array<number>(shape.length);
  let s = 1;
  if (info.layout === "column-major") {
    for (let k = 0; k < shape.length; k++) {
      strides[k] = s;
      s *= shape[k]!;
    }
  } else {
    for (let k = shape.length - 1; k >= 0; k--) {
      strides[k] = s;
      s *= shape[k]!;
    }
  }
  return strides;
}

interface Geometry {
  rows: number;
  cols: number;
  base: number;
  rowStride: number;
  colStride: number;
  /** One past the last stored element the slice touches. */
  end: number;
}

function geometry(info: TensorInfo, spec: SliceSpec): Geometry {
  const strides = storedStrides(info);
  const rows = spec.rowAxis >= 0 ? info.shape[spec.rowAxis]! : 1;
  const cols = spec.colAxis >= 0 ? info.shape[spec.colAxis]! : 1;
  const rowStride = spec.rowAxis >= 0 ? strides[spec.rowAxis]! : 0;
  const colStride = spec.colAxis >= 0 ? strides[spec.colAxis]! : 0;
  let base = 0;
  for (let k = 0; k < info.shape.length; k++) {
    if (k !== spec.rowAxis && k !== spec.colAxis) base += (spec.fixed[k] ?? 0) * strides[k]!;
  }
  const end = rows === 0 || cols === 0 ? base : base + (rows - 1) * rowStride + (cols - 1) * colStride + 1;
  return { rows, cols, base, rowStride, colStride, end };
}

type Numbers = Float64Array | Float32Array;

/** Stored elements as numbers (byte-swapped, widened, dequantized as the tensor says); float32/float64 as views. */
function numbersOfBytes(info: TensorInfo, bytes: Uint8Array): Numbers {
  return elementNumbers(storedElements(info, bytes));
}

/**
 * A run of `count` slice cells from (row, col), along the row (dr 0, dc 1) or down the column (dr 1, dc 0):
 * cell k is values[at + k * step]. Runs come in storage order.
 */
type RunVisitor = (
  row: number,
  col: number,
  dr: 0 | 1,
  dc: 0 | 1,
  count: number,
  values: Numbers,
  at: number,
  step: number,
) => void;

/** The indices i in [0, n) with lo <= start + i·stride <= hi (stride > 0), as [i0, i1] (empty when i0 > i1). */
function within(start: number, stride: number, n: number, lo: number, hi: number): [number, number] {
  return [Math.max(0, Math.ceil((lo - start) / stride)), Math.min(n - 1, Math.floor((hi - start) / stride))];
}

/**
 * Visits every slice cell in runs, reading the slice's stored range chunk by chunk (the next one read ahead).
 * Runs follow the axis with the smaller stride, so a chunk costs its elements plus the other axis' lines it
 * touches (not every line of the slice).
 */
async function forEachRun(
  from: TensorSource,
  info: TensorInfo,
  g: Geometry,
  visit: RunVisitor,
  progress: ReadProgress,
  pass: { index: number; of: number },
): Promise<void> {
  if (g.end <= g.base) return;
  const size = dtypeBytes(info.dtype);
  const chunkElements = Math.max(1, Math.floor((progress.chunkBytes ?? CHUNK_BYTES) / size));
  const read = (first: number) => {
    const promise = readFully(
      from.source,
      info.byteOffset + first * size,
      Math.min(chunkElements, g.end - first) * size,
    );
    promise.catch(() => {}); // awaited in its turn; a cancelled loop leaves it unawaited
    return promise;
  };
  // lines along the axis with the smaller (nonzero) stride; a 1-wide axis has stride 0 and is the outer one
  const alongCols = g.colStride !== 0 && (g.rowStride === 0 || g.colStride <= g.rowStride);
  const [lines, lineStride, runLength, runStride] = alongCols
    ? [g.rows, g.rowStride, g.cols, g.colStride]
    : [g.cols, g.colStride, g.rows, g.rowStride];
  const total = g.end - g.base;
  let next: Promise<Uint8Array> | undefined = read(g.base);
  for (let first = g.base; first < g.end; first += chunkElements) {
    const pending: Promise<Uint8Array> = next!;
    next = first + chunkElements < g.end ? read(first + chunkElements) : undefined;
    if (progress.isCancelled?.()) throw new CancelledError();
    const values = numbersOfBytes(info, await pending);
    const last = first + values.length - 1; // inclusive
    // the lines whose stored span [lineStart, lineStart + (runLength - 1)·runStride] meets [first, last]
    const [l0, l1] =
      lineStride === 0 ? [0, lines - 1] : within(g.base, lineStride, lines, first - (runLength - 1) * runStride, last);
    for (let line = l0; line <= l1; line++) {
      const lineStart = g.base + line * lineStride;
      const [k0, k1] =
        runStride === 0
          ? lineStart >= first && lineStart <= last
            ? [0, 0]
            : [1, 0]
          : within(lineStart, runStride, runLength, first, last);
      if (k0 > k1) continue;
      const at = lineStart + k0 * runStride - first;
      if (alongCols) visit(line, k0, 0, 1, k1 - k0 + 1, values, at, runStride);
      else visit(k0, line, 1, 0, k1 - k0 + 1, values, at, runStride);
    }
    // reported against the whole tensor's bytes (what the page shows as the total), reaching it at the end
    progress.onProgress?.(((pass.index + (last + 1 - g.base) / total) / pass.of) * info.byteLength);
  }
}

/**
 * The slice reduced to at most maxRows × maxCols cells (means of the finite values of each block), optionally
 * with every column normalised to zero mean and unit variance first (two passes over the slice's bytes).
 */
export async function streamedSlice(
  from: TensorSource,
  info: TensorInfo,
  spec: SliceSpec,
  maxRows: number,
  maxCols: number,
  options: ReadProgress & { normalize?: boolean | undefined } = {},
): Promise<Reduced & { fullRows: number; fullCols: number }> {
  const g = geometry(info, spec);
  const rowStep = Math.max(1, Math.ceil(g.rows / Math.max(1, maxRows)));
  const colStep = Math.max(1, Math.ceil(g.cols / Math.max(1, maxCols)));
  const rows = Math.ceil(g.rows / rowStep);
  const cols = Math.ceil(g.cols / colStep);
  const passes = options.normalize ? 2 : 1;
  let mean: Float64Array | undefined;
  let std: Float64Array | undefined;
  if (options.normalize) {
    // as normalizeColumns: mean and population std of each column's finite values (non-finite values stay as they are)
    const n = new Float64Array(g.cols);
    const sum = new Float64Array(g.cols);
    const squares = new Float64Array(g.cols);
    await forEachRun(
      from,
      info,
      g,
      (_row, col, _dr, dc, count, values, at, step) => {
        for (let k = 0, c = col, i = at; k < count; k++, c += dc, i += step) {
          const v = values[i]!;
          if (v - v !== 0) continue;
          n[c]! += 1;
          sum[c]! += v;
          squares[c]! += v * v;
        }
      },
      options,
      { index: 0, of: passes },
    );
    mean = new Float64Array(g.cols);
    std = new Float64Array(g.cols);
    for (let c = 0; c < g.cols; c++) {
      mean[c] = n[c]! > 0 ? sum[c]! / n[c]! : 0;
      std[c] = n[c]! > 0 ? Math.sqrt(Math.max(0, squares[c]! / n[c]! - mean[c]! * mean[c]!)) : 0;
    }
  }
  const unreduced = rowStep === 1 && colStep === 1;
  const data = new Float64Array(rows * cols);
  // unreduced: the cells themselves, non-finite values included (what reduce() returns for a small matrix)
  const sums = unreduced ? data : new Float64Array(rows * cols);
  const counts = unreduced ? undefined : new Float64Array(rows * cols);
  await forEachRun(
    from,
    info,
    g,
    (row, col, dr, dc, count, values, at, step) => {
      for (let k = 0, r = row, c = col, i = at; k < count; k++, r += dr, c += dc, i += step) {
        let v = values[i]!;
        if (v - v !== 0) {
          if (!counts) data[r * cols + c] = v;
          continue;
        }
        if (mean) v = std![c]! > 0 ? (v - mean[c]!) / std![c]! : 0;
        if (!counts) {
          data[r * cols + c] = v;
        } else {
          const cell = Math.floor(r / rowStep) * cols + Math.floor(c / colStep);
          sums[cell]! += v;
          counts[cell]! += 1;
        }
      }
    },
    options,
    { index: passes - 1, of: passes },
  );
  if (counts) for (let i = 0; i < data.length; i++) data[i] = counts[i]! > 0 ? sums[i]! / counts[i]! : NaN;
  return { rows, cols, data, rowStep, colStep, fullRows: g.rows, fullCols: g.cols };
}

/** The exact values of slice cells [row0, row0 + rows) × [col0, col0 + cols) (NaN outside), one small read per cell row. */
export async function streamedRegion(
  from: TensorSource,
  info: TensorInfo,
  spec: SliceSpec,
  row0: number,
  col0: number,
  rows: number,
  cols: number,
): Promise<Float64Array> {
  const g = geometry(info, spec);
  const size = dtypeBytes(info.dtype);
  const out = new Float64Array(rows * cols).fill(NaN);
  for (let r = 0; r < rows; r++) {
    const row = row0 + r;
    if (row < 0 || row >= g.rows) continue;
    const c0 = Math.max(0, col0);
    const c1 = Math.min(g.cols, col0 + cols);
    if (c1 <= c0) continue;
    const first = g.base + row * g.rowStride + c0 * g.colStride;
    const span = (c1 - c0 - 1) * g.colStride + 1;
    if (span > 64 * 1024) {
      // far-apart cells (a column of a row-major matrix): one read each
      for (let c = c0; c < c1; c++) {
        const at = g.base + row * g.rowStride + c * g.colStride;
        out[r * cols + (c - col0)] = numbersOfBytes(
          info,
          await readFully(from.source, info.byteOffset + at * size, size),
        )[0]!;
      }
      continue;
    }
    const values = numbersOfBytes(info, await readFully(from.source, info.byteOffset + first * size, span * size));
    for (let c = c0; c < c1; c++) out[r * cols + (c - col0)] = values[(c - c0) * g.colStride]!;
  }
  return out;
}
