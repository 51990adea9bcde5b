/**
 * The 1-D tensor view's model: values [start, end) reduced to at most `columns` columns, each with the min, max
 * and mean of its finite values (NaN when it has none) and its count of NaN / ±Inf, so a line plot of millions of
 * values draws one envelope per pixel column and never hides a spike or a NaN. Plus the zoom arithmetic.
 */

export interface LineEnvelope {
  start: number;
  end: number;
  /** Values per column (the last column may hold fewer). */
  step: number;
  min: Float64Array;
  max: Float64Array;
  mean: Float64Array;
  nonFinite: Uint32Array;
}

export function lineEnvelope(values: ArrayLike<number>, start: number, end: number, columns: number): LineEnvelope {
  const s = Math.max(0, Math.min(values.length, Math.floor(start)));
  const e = Math.max(s, Math.min(values.length, Math.ceil(end)));
  const step = Math.max(1, Math.ceil((e - s) / Math.max(1, Math.floor(columns))));
  const count = Math.ceil((e - s) / step);
  const min = new Float64Array(count).fill(NaN);
  const max = new Float64Array(count).fill(NaN);
  const mean = new Float64Array(count).fill(NaN);
  const nonFinite = new Uint32Array(count);
  for (let c = 0; c < count; c++) {
    let lo = Infinity;
    let hi = -Infinity;
    let sum = 0;
    let finite = 0;
    const to = Math.min(e, s + (c + 1) * step);
    for (let i = s + c * step; i < to; i++) {
      const v = values[i]!;
      if (!Number.isFinite(v)) {
        nonFinite[c]!++;
        continue;
      }
      if (v < lo) lo = v;
      if (v > hi) hi = v;
      sum += v;
      finite++;
    }
    if (finite > 0) {
      min[c] = lo;
      max[c] = hi;
      mean[c] = sum / finite;
    }
  }
  return { start: s, end: e, step, min, max, mean, nonFinite };
}

/** The window [start, end) zoomed by `factor` (> 1 zooms in) about `at` (an index inside it), kept in [0, total). */
export function zoomWindow(
  start: number,
  end: number,
  total: number,
  factor: number,
  at: number,
): { start: number; end: number } {
  const span = Math.min(total, Math.max(Math.min(8, total), (end - start) / factor));
  const ratio = end > start ? (at - start) / (end - start) : 0.5;
  let s = at - ratio * span;
  s = Math.max(0, Math.min(total - span, s));
  return { start: s, end: s + span };
}
