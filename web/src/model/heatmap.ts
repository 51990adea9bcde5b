/**
 * The heatmap's model: a 2-D slice of an N-D tensor (two axes shown, an index for each other axis), reduced to
 * at most a screen's worth of cells, colour maps as 256-entry tables, value ranges (min/max, 1–99 percentile,
 * symmetric around 0), per-feature normalisation, and the RGBA pixels. Two orientations: "matrix" (row 0 at the
 * top, as arrays print) and "speech" (a SPRAAK [frames × features] track: time on x, feature 0 at the bottom,
 * as every spectrogram). Pure functions over numbers; the worker and the canvas code call them.
 */

export interface SliceSpec {
  /** The axis drawn down the rows (-1: a single row, for 0-d and 1-d tensors). */
  rowAxis: number;
  /** The axis drawn across the columns (-1: a single column, for 0-d tensors). */
  colAxis: number;
  /** An index for every axis (those of rowAxis and colAxis are ignored). */
  fixed: number[];
}

export interface Matrix {
  rows: number;
  cols: number;
  /** Row-major rows × cols values. */
  data: Float64Array;
}

/**
 * The matrix of a 2-D tensor, the only axis of a 1-D one; for N-d tensors the two largest axes (the later one
 * on a tie, in their order), e.g. [out, in] of a [out, in, kh, kw] convolution weight.
 */
export function defaultSlice(shape: readonly number[]): SliceSpec {
  const n = shape.length;
  let rowAxis = n >= 2 ? n - 2 : -1;
  let colAxis = n >= 1 ? n - 1 : -1;
  if (n >= 3) {
    const bySize = shape.map((d, k) => ({ d, k })).sort((a, b) => b.d - a.d || b.k - a.k);
    [rowAxis, colAxis] = [bySize[0]!.k, bySize[1]!.k].sort((a, b) => a - b) as [number, number];
  }
  return { rowAxis, colAxis, fixed: shape.map(() => 0) };
}

/** A slice spec with its axes distinct and inside the shape and its indices in range. */
export function clampSlice(shape: readonly number[], spec: SliceSpec): SliceSpec {
  const fallback = defaultSlice(shape);
  const n = shape.length;
  let rowAxis =
    Number.isInteger(spec.rowAxis) && spec.rowAxis >= -1 && spec.rowAxis < n ? spec.rowAxis : fallback.rowAxis;
  let colAxis =
    Number.isInteger(spec.colAxis) && spec.colAxis >= -1 && spec.colAxis < n ? spec.colAxis : fallback.colAxis;
  if (n >= 2 && (rowAxis === colAxis || rowAxis < 0 || colAxis < 0)) {
    rowAxis = fallback.rowAxis;
    colAxis = fallback.colAxis;
  }
  if (n === 1) {
    rowAxis = -1;
    colAxis = 0;
  }
  const fixed = shape.map((d, i) => Math.max(0, Math.min(Math.max(0, d - 1), Math.trunc(spec.fixed[i] ?? 0) || 0)));
  return { rowAxis, colAxis, fixed };
}

/** Row-major strides of a shape. */
export function stridesOf(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i]!;
  }
  return strides;
}

/** Rows and columns the slice has. */
export function sliceDims(shape: readonly number[], spec: SliceSpec): { rows: number; cols: number } {
  return {
    rows: spec.rowAxis >= 0 ? shape[spec.rowAxis]! : 1,
    cols: spec.colAxis >= 0 ? shape[spec.colAxis]! : 1,
  };
}

/** The flat (row-major) index of slice cell (r, c). */
export function flatIndex(shape: readonly number[], spec: SliceSpec, r: number, c: number): number {
  const strides = stridesOf(shape);
  let at = 0;
  for (let k = 0; k < shape.length; k++) {
    if (k === spec.rowAxis) at += r * strides[k]!;
    else if (k === spec.colAxis) at += c * strides[k]!;
    else at += (spec.fixed[k] ?? 0) * strides[k]!;
  }
  return at;
}

/** The full N-d index of slice cell (r, c). */
export function fullIndex(shape: readonly number[], spec: SliceSpec, r: number, c: number): number[] {
  return shape.map((_, k) => (k === spec.rowAxis ? r : k === spec.colAxis ? c : (spec.fixed[k] ?? 0)));
}

/** The slice's values as a rows × cols matrix. */
export function extractSlice(values: ArrayLike<number>, shape: readonly number[], spec: SliceSpec): Matrix {
  const { rows, cols } = sliceDims(shape, spec);
  const strides = stridesOf(shape);
  const rowStride = spec.rowAxis >= 0 ? strides[spec.rowAxis]! : 0;
  const colStride = spec.colAxis >= 0 ? strides[spec.colAxis]! : 0;
  const base = flatIndex(shape, spec, 0, 0);
  const data = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    const rowBase = base + r * rowStride;
    for (let c = 0; c < cols; c++) data[r * cols + c] = values[rowBase + c * colStride]!;
  }
  return { rows, cols, data };
}

export interface Reduced extends Matrix {
  /** Source rows / columns per cell (1 when not reduced). */
  rowStep: number;
  colStep: number;
}

/**
 * The matrix reduced to at most maxRows × maxCols cells, each the mean of the finite values of its block (NaN
 * when a block has none), as Praat draws long tracks with several frames per pixel column.
 */
export function reduce(matrix: Matrix, maxRows: number, maxCols: number): Reduced {
  const rowStep = Math.max(1, Math.ceil(matrix.rows / Math.max(1, maxRows)));
  const colStep = Math.max(1, Math.ceil(matrix.cols / Math.max(1, maxCols)));
  if (rowStep === 1 && colStep === 1) return { ...matrix, rowStep, colStep };
  const rows = Math.ceil(matrix.rows / rowStep);
  const cols = Math.ceil(matrix.cols / colStep);
  const sums = new Float64Array(rows * cols);
  const counts = new Uint32Array(rows * cols);
  for (let r = 0; r < matrix.rows; r++) {
    const outRow = Math.floor(r / rowStep) * cols;
    for (let c = 0; c < matrix.cols; c++) {
      const v = matrix.data[r * matrix.cols + c]!;
      if (v - v !== 0) continue;
      const at = outRow + Math.floor(c / colStep);
      sums[at]! += v;
      counts[at]! += 1;
    }
  }
  const data = new Float64Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = counts[i]! > 0 ? sums[i]! / counts[i]! : NaN;
  return { rows, cols, data, rowStep, colStep };
}

/** Each column (feature) to zero mean and unit variance over the rows (frames): SPRAAK's per-parameter view. */
export function normalizeColumns(matrix: Matrix): Matrix {
  const { rows, cols } = matrix;
  const data = new Float64Array(matrix.data.length);
  for (let c = 0; c < cols; c++) {
    let n = 0;
    let sum = 0;
    let squares = 0;
    for (let r = 0; r < rows; r++) {
      const v = matrix.data[r * cols + c]!;
      if (v - v !== 0) continue;
      n++;
      sum += v;
      squares += v * v;
    }
    const mean = n > 0 ? sum / n : 0;
    const std = n > 0 ? Math.sqrt(Math.max(0, squares / n - mean * mean)) : 0;
    for (let r = 0; r < rows; r++) {
      const v = matrix.data[r * cols + c]!;
      data[r * cols + c] = v - v !== 0 ? v : std > 0 ? (v - mean) / std : 0;
    }
  }
  return { rows, cols, data };
}

export type RangeMode = "minmax" | "percentile" | "symmetric";

/** The value range the colours span: min..max, the 1st..99th percentile, or ±max|v| (centred on 0). */
export function valueRange(data: ArrayLike<number>, mode: RangeMode): { lo: number; hi: number } {
  let lo = Infinity;
  let hi = -Infinity;
  let finite = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if (v - v !== 0) continue;
    finite++;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (finite === 0) return { lo: 0, hi: 1 };
  if (mode === "percentile" && finite > 2) {
    const step = Math.max(1, Math.floor(data.length / 200_000));
    const sample: number[] = [];
    for (let i = 0; i < data.length; i += step) {
      const v = data[i]!;
      if (v - v === 0) sample.push(v);
    }
    sample.sort((a, b) => a - b);
    const at = (p: number) => sample[Math.min(sample.length - 1, Math.max(0, Math.round(p * (sample.length - 1))))]!;
    lo = at(0.01);
    hi = at(0.99);
  }
  if (mode === "symmetric") {
    const m = Math.max(Math.abs(lo), Math.abs(hi));
    lo = -m;
    hi = m;
  }
  if (lo === hi) {
    const pad = lo === 0 ? 1 : Math.abs(lo) * 0.5;
    return { lo: lo - pad, hi: hi + pad };
  }
  return { lo, hi };
}

export type ColourMapName = "viridis" | "grey" | "diverging";

const VIRIDIS_STOPS = [
  [68, 1, 84],
  [72, 40, 120],
  [62, 73, 137],
  [49, 104, 142],
  [38, 130, 142],
  [31, 158, 137],
  [53, 183, 121],
  [110, 206, 88],
  [253, 231, 37],
];
/** Blue – light grey – red, centred (Moreland's cool-warm). */
const DIVERGING_STOPS = [
  [59, 76, 192],
  [141, 176, 254],
  [221, 221, 221],
  [244, 154, 123],
  [180, 4, 38],
];
const GREY_STOPS = [
  [0, 0, 0],
  [255, 255, 255],
];

const mapCache = new Map<ColourMapName, Uint8Array>();

/** 256 RGB triples from `stops` spaced evenly, linearly interpolated. */
function interpolate(stops: number[][]): Uint8Array {
  const table = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (stops.length - 1);
    const k = Math.min(stops.length - 2, Math.floor(t));
    const f = t - k;
    for (let ch = 0; ch < 3; ch++) table[i * 3 + ch] = Math.round(stops[k]![ch]! * (1 - f) + stops[k + 1]![ch]! * f);
  }
  return table;
}

/** A colour map as 256 RGB triples. */
export function colourMap(name: ColourMapName): Uint8Array {
  let table = mapCache.get(name);
  if (!table) {
    table = interpolate(name === "viridis" ? VIRIDIS_STOPS : name === "diverging" ? DIVERGING_STOPS : GREY_STOPS);
    mapCache.set(name, table);
  }
  return table;
}

/** The colour map that suits a range: diverging when it spans zero on both sides by a fair margin. */
export function suggestedMap(lo: number, hi: number): ColourMapName {
  return lo < 0 && hi > 0 && Math.min(-lo, hi) >= 0.1 * Math.max(-lo, hi) ? "diverging" : "viridis";
}

export type Orientation = "matrix" | "speech";

export interface RenderOptions {
  map: ColourMapName;
  lo: number;
  hi: number;
  orientation: Orientation;
}

/** NaN cells are drawn in this colour (magenta, in no colour map). */
export const NAN_RGB = [255, 0, 255] as const;

/** Image size of a matrix in an orientation. */
export function imageSize(
  matrix: { rows: number; cols: number },
  orientation: Orientation,
): { width: number; height: number } {
  return orientation === "speech"
    ? { width: matrix.rows, height: matrix.cols }
    : { width: matrix.cols, height: matrix.rows };
}

/** The matrix cell (row, col) under image pixel (x, y); undefined outside. */
export function cellAt(
  matrix: { rows: number; cols: number },
  orientation: Orientation,
  x: number,
  y: number,
): { row: number; col: number } | undefined {
  const { width, height } = imageSize(matrix, orientation);
  if (!(x >= 0 && y >= 0 && x < width && y < height)) return undefined;
  const px = Math.floor(x);
  const py = Math.floor(y);
  return orientation === "speech" ? { row: px, col: height - 1 - py } : { row: py, col: px };
}

/** RGBA pixels of the matrix (one pixel per cell). ±Inf clamp to the ends of the map; NaN is NAN_RGB. */
export function renderRGBA(
  matrix: Matrix,
  options: RenderOptions,
): { width: number; height: number; pixels: Uint8ClampedArray<ArrayBuffer> } {
  const { width, height } = imageSize(matrix, options.orientation);
  const pixels = new Uint8ClampedArray(width * height * 4);
  const table = colourMap(options.map);
  const span = options.hi - options.lo;
  const scale = span > 0 ? 255 / span : 0;
  for (let r = 0; r < matrix.rows; r++) {
    for (let c = 0; c < matrix.cols; c++) {
      const v = matrix.data[r * matrix.cols + c]!;
      const x = options.orientation === "speech" ? r : c;
      const y = options.orientation === "speech" ? height - 1 - c : r;
      const p = (y * width + x) * 4;
      if (v !== v) {
        pixels[p] = NAN_RGB[0];
        pixels[p + 1] = NAN_RGB[1];
        pixels[p + 2] = NAN_RGB[2];
      } else {
        const k = Math.max(0, Math.min(255, Math.round((v - options.lo) * scale))) * 3;
        pixels[p] = table[k]!;
        pixels[p + 1] = table[k + 1]!;
        pixels[p + 2] = table[k + 2]!;
      }
      pixels[p + 3] = 255;
    }
  }
  return { width, height, pixels };
}

/** One row of the matrix (a frame of a speech track: its features), for the single-frame plot. */
export function matrixRow(matrix: Matrix, row: number): Float64Array {
  const r = Math.max(0, Math.min(matrix.rows - 1, row));
  return matrix.data.slice(r * matrix.cols, (r + 1) * matrix.cols);
}

/** Up to size × size exact values around (row, col), for the region value grid. */
export function regionWindow(
  rows: number,
  cols: number,
  row: number,
  col: number,
  size = 8,
): { row0: number; col0: number; rows: number; cols: number } {
  const h = Math.min(size, rows);
  const w = Math.min(size, cols);
  const row0 = Math.max(0, Math.min(rows - h, row - Math.floor(h / 2)));
  const col0 = Math.max(0, Math.min(cols - w, col - Math.floor(w / 2)));
  return { row0, col0, rows: h, cols: w };
}

/** How far a heatmap's cells may be stretched from square so that a wide (or tall) matrix fills its panel. */
export const MAX_CELL_ASPECT = 8;

/**
 * The drawn size of an `imageWidth` × `imageHeight` heatmap in an area: `fill` stretches to the area (speech
 * tracks); otherwise square cells (whole screen pixels when the image is smaller), then a wide or tall matrix
 * is stretched along its short side, up to MAX_CELL_ASPECT, so it does not leave most of the panel empty; a
 * one-row or one-column strip stays at least 24 px.
 */
export function heatmapDrawSize(
  imageWidth: number,
  imageHeight: number,
  areaWidth: number,
  areaHeight: number,
  fill: boolean,
): { width: number; height: number } {
  if (fill) return { width: areaWidth, height: areaHeight };
  const fit = Math.min(areaWidth / imageWidth, areaHeight / imageHeight);
  const scale = fit >= 1 ? Math.floor(fit) : fit;
  let width = Math.min(areaWidth, imageWidth * scale);
  let height = Math.min(areaHeight, imageHeight * scale);
  if (height < areaHeight && imageHeight > 1) height = Math.min(areaHeight, height * MAX_CELL_ASPECT);
  if (width < areaWidth && imageWidth > 1) width = Math.min(areaWidth, width * MAX_CELL_ASPECT);
  if (height < 24) height = Math.min(areaHeight, 24);
  if (width < 24) width = Math.min(areaWidth, 24);
  return { width, height };
}
