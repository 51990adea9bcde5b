/**
 * The histogram's model: bar heights on a linear or log count scale for the value bins, plus separate bars for
 * what the bins do not hold (NaN, −Inf, +Inf), so non-finite values never distort or break the plot (the
 * TensorBoard and W&B failure). Pure; the canvas code draws the rectangles it returns.
 */
import type { Histogram } from "../compute.js";
import { formatCount, formatValue } from "./format.js";

export type CountScale = "linear" | "log";

export interface Bar {
  x: number;
  y: number;
  width: number;
  height: number;
  count: number;
  /** "bin" for value bins, else which non-finite kind. */
  kind: "bin" | "nan" | "posInf" | "negInf";
  label: string;
}

export interface HistogramLayout {
  bars: Bar[];
  /** x of the value axis ends (for tick labels). */
  axis: { x0: number; x1: number; lo: number; hi: number };
  maxCount: number;
  ticks: { x: number; label: string }[];
}

/** Bar height for a count, as a fraction of the tallest: log scale shows single counts beside millions. */
export function scaledHeight(count: number, maxCount: number, scale: CountScale): number {
  if (count <= 0 || maxCount <= 0) return 0;
  if (scale === "linear") return count / maxCount;
  return Math.log10(1 + count) / Math.log10(1 + maxCount);
}

/** Evenly spaced "nice" tick values covering [lo, hi] (about `count` of them); whole numbers only with `integer`. */
export function niceTicks(lo: number, hi: number, count = 5, integer = false): number[] {
  if (!(hi > lo) || !Number.isFinite(lo) || !Number.isFinite(hi)) return [lo];
  const raw = (hi - lo) / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  if (integer) step = step < 1 ? 1 : step === 2.5 ? 2 : Math.round(step);
  const ticks: number[] = [];
  const first = Math.ceil(lo / step - 1e-9);
  const last = Math.floor(hi / step + 1e-9);
  // k * step, rounded to what the step shows (0.6, not 0.6000000000000001)
  for (let k = first; k <= last && ticks.length < 1000; k++)
    ticks.push(k === 0 ? 0 : Number((k * step).toPrecision(12)));
  return ticks;
}

/** Bars for a histogram in a width × height box (non-finite bars to the right, only when there are any). */
export function histogramLayout(h: Histogram, width: number, height: number, scale: CountScale): HistogramLayout {
  const special: { kind: Bar["kind"]; count: number; label: string }[] = [];
  if (h.negInf > 0) special.push({ kind: "negInf", count: h.negInf, label: "−Inf" });
  if (h.posInf > 0) special.push({ kind: "posInf", count: h.posInf, label: "+Inf" });
  if (h.nan > 0) special.push({ kind: "nan", count: h.nan, label: "NaN" });
  const specialWidth = special.length > 0 ? Math.min(width * 0.25, special.length * 34 + 10) : 0;
  const plotWidth = width - specialWidth;
  const bins = h.counts.length;
  let maxCount = 0;
  for (const c of h.counts) if (c > maxCount) maxCount = c;
  for (const s of special) if (s.count > maxCount) maxCount = s.count;
  const bars: Bar[] = [];
  const binWidth = bins > 0 ? plotWidth / bins : 0;
  const binSize = bins > 0 ? (h.hi - h.lo) / bins : 0;
  for (let i = 0; i < bins; i++) {
    const count = h.counts[i]!;
    const barHeight = scaledHeight(count, maxCount, scale) * height;
    const from = h.lo + i * binSize;
    bars.push({
      x: i * binWidth,
      y: height - barHeight,
      width: Math.max(1, binWidth - (binWidth > 3 ? 1 : 0)),
      height: barHeight,
      count,
      kind: "bin",
      label: `[${formatValue(from)}, ${formatValue(from + binSize)}${i === bins - 1 ? "]" : ")"}: ${formatCount(count)}`,
    });
  }
  special.forEach((s, k) => {
    const barHeight = scaledHeight(s.count, maxCount, scale) * height;
    bars.push({
      x: plotWidth + 10 + k * 34,
      y: height - barHeight,
      width: 28,
      height: barHeight,
      count: s.count,
      kind: s.kind,
      label: `${s.label}: ${formatCount(s.count)}`,
    });
  });
  const ticks = niceTicks(h.lo, h.hi, Math.max(2, Math.floor(plotWidth / 90))).map((v) => ({
    x: h.hi > h.lo ? ((v - h.lo) / (h.hi - h.lo)) * plotWidth : 0,
    label: formatValue(v),
  }));
  return { bars, axis: { x0: 0, x1: plotWidth, lo: h.lo, hi: h.hi }, maxCount, ticks };
}

/** The bar under x (for hover read-outs). */
export function barAt(layout: HistogramLayout, x: number): Bar | undefined {
  return layout.bars.find((b) => x >= b.x && x < b.x + Math.max(b.width, 1) + (b.kind === "bin" ? 1 : 0));
}

/** Ticks of the count axis: nice whole numbers (linear) or 1, 10, 100… (log), with their height fractions. */
export function countTicks(
  maxCount: number,
  scale: CountScale,
  count = 4,
): { count: number; fraction: number; label: string }[] {
  if (!(maxCount > 0)) return [];
  const values =
    scale === "linear"
      ? niceTicks(0, maxCount, count, true)
      : Array.from({ length: Math.floor(Math.log10(maxCount)) + 1 }, (_, k) => 10 ** k);
  const short = (n: number) =>
    n >= 1e9 ? `${n / 1e9}G` : n >= 1e6 ? `${n / 1e6}M` : n >= 1e4 ? `${n / 1e3}k` : String(n);
  return values
    .filter((v) => v <= maxCount)
    .map((v) => ({ count: v, fraction: v === 0 ? 0 : scaledHeight(v, maxCount, scale), label: short(v) }));
}

/**
 * The q-quantile (0 ≤ q ≤ 1) of a histogram's finite values, interpolated linearly inside the bin that holds it
 * (values below / above the range count as lo / hi): exact to one bin width, (hi − lo) / bins. NaN when the
 * histogram holds no finite value.
 */
export function histogramQuantile(h: Histogram, q: number): number {
  let total = h.below + h.above;
  for (const c of h.counts) total += c;
  if (!(total > 0)) return NaN;
  const target = Math.min(Math.max(q, 0), 1) * total;
  let cumulative = h.below;
  if (target <= cumulative && h.below > 0) return h.lo;
  const width = (h.hi - h.lo) / h.counts.length;
  for (let k = 0; k < h.counts.length; k++) {
    const c = h.counts[k]!;
    if (c > 0 && cumulative + c >= target) return h.lo + width * (k + (target - cumulative) / c);
    cumulative += c;
  }
  return h.hi;
}
