/**
 * Canvas 2D drawing of the plots: histogram bars (from model/histogram.ts), heatmaps (pixels from
 * model/heatmap.ts scaled up without smoothing, with axes and a colour bar) and a line plot (a speech frame).
 */
import type { Histogram } from "../compute.js";
import { formatSeconds, formatValue } from "../model/format.js";
import {
  type ColourMapName,
  type Matrix,
  type Orientation,
  colourMap,
  heatmapDrawSize,
  imageSize,
  renderRGBA,
} from "../model/heatmap.js";
import { type CountScale, type HistogramLayout, countTicks, histogramLayout, niceTicks } from "../model/histogram.js";
import { prepareCanvas, themeColour } from "./dom.js";

const FONT = "11px system-ui, sans-serif";

/**
 * Horizontal grid lines at the value ticks, each labelled at its left (`gap` px before the plot), in the theme's
 * grid and secondary text colours (the context keeps that style and right-aligned, middle-baseline text).
 */
export function drawValueGrid(
  context: CanvasRenderingContext2D,
  ticks: readonly number[],
  left: number,
  width: number,
  y: (value: number) => number,
  gap: number,
): void {
  context.strokeStyle = themeColour("--grid");
  context.fillStyle = themeColour("--fg2");
  context.font = FONT;
  context.textAlign = "right";
  context.textBaseline = "middle";
  for (const t of ticks) {
    context.beginPath();
    context.moveTo(left, Math.round(y(t)) + 0.5);
    context.lineTo(left + width, Math.round(y(t)) + 0.5);
    context.stroke();
    context.fillText(formatValue(t), left - gap, y(t));
  }
}

export interface HistogramDrawing {
  layout: HistogramLayout;
  /** Plot area's left edge in CSS pixels (hover x minus this is the layout's x). */
  left: number;
  top: number;
}

export function drawHistogram(
  canvas: HTMLCanvasElement,
  histogram: Histogram,
  scale: CountScale,
  width: number,
  height: number,
  colour?: string,
): HistogramDrawing {
  const context = prepareCanvas(canvas, width, height);
  // a count axis on the left (issue 26): nice whole numbers, or powers of ten on the log scale
  const left = 40;
  const top = 14;
  const bottom = 22;
  const plotWidth = width - left - 8;
  const plotHeight = height - top - bottom;
  const layout = histogramLayout(histogram, plotWidth, plotHeight, scale);
  context.fillStyle = themeColour("--canvas");
  context.fillRect(0, 0, width, height);
  context.strokeStyle = themeColour("--grid");
  context.beginPath();
  context.moveTo(left, top + plotHeight + 0.5);
  context.lineTo(left + layout.axis.x1, top + plotHeight + 0.5);
  context.stroke();
  const colours = {
    bin: colour ?? themeColour("--bar"),
    nan: themeColour("--nan"),
    posInf: themeColour("--inf"),
    negInf: themeColour("--inf"),
  };
  for (const bar of layout.bars) {
    if (bar.count <= 0 && bar.kind === "bin") continue;
    context.fillStyle = colours[bar.kind];
    context.fillRect(left + bar.x, top + bar.y, bar.width, Math.max(bar.count > 0 ? 1 : 0, bar.height));
  }
  context.fillStyle = themeColour("--fg2");
  context.font = FONT;
  context.textBaseline = "top";
  for (const tick of layout.ticks) {
    context.textAlign = tick.x < 20 ? "left" : tick.x > layout.axis.x1 - 20 ? "right" : "center";
    context.fillText(tick.label, left + tick.x, top + plotHeight + 5);
  }
  context.textAlign = "center";
  for (const bar of layout.bars) {
    if (bar.kind !== "bin")
      context.fillText(
        bar.kind === "nan" ? "NaN" : bar.kind === "posInf" ? "+Inf" : "−Inf",
        left + bar.x + bar.width / 2,
        top + plotHeight + 5,
      );
  }
  context.textAlign = "right";
  context.textBaseline = "middle";
  context.strokeStyle = themeColour("--grid");
  const axisTicks = countTicks(layout.maxCount, scale);
  for (const tick of axisTicks) {
    const y = Math.round(top + plotHeight - tick.fraction * plotHeight) + 0.5;
    context.beginPath();
    context.moveTo(left - 4, y);
    context.lineTo(left, y);
    context.stroke();
    context.fillText(tick.label, left - 6, y);
  }
  canvas.dataset.yTicks = axisTicks.map((t) => t.label).join(",");
  context.beginPath();
  context.moveTo(left + 0.5, top);
  context.lineTo(left + 0.5, top + plotHeight);
  context.stroke();
  context.textBaseline = "top";
  context.fillText(`${scale === "log" ? "log " : ""}count · max ${layout.maxCount}`, width - 8, 1);
  return { layout, left, top };
}

export interface HeatmapDrawing {
  /** Where the image sits in CSS pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
  imageWidth: number;
  imageHeight: number;
}

export interface AxisTick {
  /** Position in image pixels (0 … image width or height). */
  at: number;
  label: string;
}

export interface HeatmapAxes {
  /** Label of image x / y (e.g. "time (s)", "axis 1"). */
  xLabel: string;
  yLabel: string;
  /** About `count` ticks along image x / y. */
  xTicks: (count: number) => AxisTick[];
  yTicks: (count: number) => AxisTick[];
}

/** Ticks for source indices 0 … size−1 shown `step` per image pixel (a reduced axis), at cell centres. */
export function indexTicks(
  size: number,
  step: number,
  count: number,
  flip = false,
  imageSize = Math.ceil(size / step),
  offset = 0,
): AxisTick[] {
  return niceTicks(offset, Math.max(offset, offset + size - 1), count, true)
    .filter((v) => v <= offset + size - 1 && v >= offset)
    .map((v) => {
      const at = (v - offset + 0.5) / step;
      return { at: flip ? imageSize - at : at, label: String(v) };
    });
}

/** Draws the matrix as a heatmap filling about width × height CSS pixels, with axes and a colour bar. */
export function drawHeatmap(
  canvas: HTMLCanvasElement,
  matrix: Matrix,
  options: {
    map: ColourMapName;
    lo: number;
    hi: number;
    orientation: Orientation;
    fill: boolean;
    dataLo?: number | undefined;
    dataHi?: number | undefined;
  },
  width: number,
  height: number,
  axes: HeatmapAxes,
): HeatmapDrawing {
  const context = prepareCanvas(canvas, width, height);
  context.fillStyle = themeColour("--canvas");
  context.fillRect(0, 0, width, height);
  const margin = { left: 52, right: 74, top: 8, bottom: 34 };
  const areaWidth = width - margin.left - margin.right;
  const areaHeight = height - margin.top - margin.bottom;
  const { width: imageWidth, height: imageHeight, pixels } = renderRGBA(matrix, options);
  const { width: drawWidth, height: drawHeight } = heatmapDrawSize(
    imageWidth,
    imageHeight,
    areaWidth,
    areaHeight,
    options.fill,
  );
  const x = margin.left;
  const y = margin.top;
  const image = document.createElement("canvas");
  image.width = imageWidth;
  image.height = imageHeight;
  image.getContext("2d")!.putImageData(new ImageData(pixels, imageWidth, imageHeight), 0, 0);
  context.imageSmoothingEnabled = false;
  context.drawImage(image, x, y, drawWidth, drawHeight);
  context.strokeStyle = themeColour("--line");
  context.strokeRect(x - 0.5, y - 0.5, drawWidth + 1, drawHeight + 1);

  // axes: ticks at "nice" image coordinates
  context.fillStyle = themeColour("--fg2");
  context.font = FONT;
  context.textAlign = "center";
  context.textBaseline = "top";
  for (const t of axes.xTicks(Math.max(2, Math.floor(drawWidth / 80)))) {
    if (t.at < 0 || t.at > imageWidth) continue;
    const px = x + (t.at / imageWidth) * drawWidth;
    context.fillRect(px, y + drawHeight, 1, 4);
    context.fillText(t.label, px, y + drawHeight + 5);
  }
  context.fillText(axes.xLabel, x + drawWidth / 2, y + drawHeight + 19);
  context.textAlign = "right";
  context.textBaseline = "middle";
  for (const t of axes.yTicks(Math.max(2, Math.floor(drawHeight / 40)))) {
    if (t.at < 0 || t.at > imageHeight) continue;
    const py = y + (t.at / imageHeight) * drawHeight;
    context.fillRect(x - 4, py, 4, 1);
    context.fillText(t.label, x - 6, py);
  }
  context.save();
  context.translate(12, y + drawHeight / 2);
  context.rotate(-Math.PI / 2);
  context.textAlign = "center";
  context.fillText(axes.yLabel, 0, 0);
  context.restore();

  // colour bar; values beyond its range (a percentile range clips outliers) get a triangle cap at that end,
  // labelled with the data's own extreme, so the bar does not hide them
  const barX = x + drawWidth + 14;
  const barHeight = Math.max(40, Math.min(drawHeight, 240));
  const table = colourMap(options.map);
  const above = options.dataHi !== undefined && options.dataHi > options.hi;
  const below = options.dataLo !== undefined && options.dataLo < options.lo;
  const cap = 8;
  const top = y + (above ? cap : 0);
  const inner = barHeight - (above ? cap : 0) - (below ? cap : 0);
  for (let i = 0; i < inner; i++) {
    const k = Math.round((1 - i / Math.max(1, inner - 1)) * 255) * 3;
    context.fillStyle = `rgb(${table[k]},${table[k + 1]},${table[k + 2]})`;
    context.fillRect(barX, top + i, 12, 1);
  }
  const triangle = (tipY: number, baseY: number, k: number) => {
    context.fillStyle = `rgb(${table[k]},${table[k + 1]},${table[k + 2]})`;
    context.beginPath();
    context.moveTo(barX + 6, tipY);
    context.lineTo(barX + 12, baseY);
    context.lineTo(barX, baseY);
    context.closePath();
    context.fill();
  };
  if (above) triangle(y, y + cap, 255 * 3);
  if (below) triangle(y + barHeight, y + barHeight - cap, 0);
  context.fillStyle = themeColour("--fg2");
  context.textAlign = "left";
  context.textBaseline = "top";
  context.fillText(formatValue(options.hi), barX + 15, top);
  context.textBaseline = "bottom";
  context.fillText(formatValue(options.lo), barX + 15, top + inner);
  context.fillStyle = themeColour("--warn");
  if (above) {
    context.textBaseline = "top";
    context.fillText(`▲ ${formatValue(options.dataHi!)}`, barX + 15, top + 14);
  }
  if (below) {
    context.textBaseline = "bottom";
    context.fillText(`▼ ${formatValue(options.dataLo!)}`, barX + 15, top + inner - 14);
  }
  // for scripts and the browser test: how much of its area the image fills, and whether the bar marks outliers
  canvas.dataset.drawWidth = drawWidth.toFixed(0);
  canvas.dataset.drawHeight = drawHeight.toFixed(0);
  canvas.dataset.areaWidth = areaWidth.toFixed(0);
  canvas.dataset.areaHeight = areaHeight.toFixed(0);
  canvas.dataset.clippedHigh = above ? "1" : "0";
  canvas.dataset.clippedLow = below ? "1" : "0";
  return { x, y, width: drawWidth, height: drawHeight, imageWidth, imageHeight };
}

/** Image coordinates (pixels of the unscaled image) under a mouse position, or undefined outside. */
export function imagePoint(
  drawing: HeatmapDrawing,
  offsetX: number,
  offsetY: number,
): { x: number; y: number } | undefined {
  const fx = (offsetX - drawing.x) / drawing.width;
  const fy = (offsetY - drawing.y) / drawing.height;
  if (fx < 0 || fy < 0 || fx >= 1 || fy >= 1) return undefined;
  return { x: fx * drawing.imageWidth, y: fy * drawing.imageHeight };
}

/** A line plot of values over their index (a speech frame's features). */
export function drawLine(
  canvas: HTMLCanvasElement,
  values: ArrayLike<number>,
  width: number,
  height: number,
  title: string,
  xLabel: string,
): void {
  const context = prepareCanvas(canvas, width, height);
  context.fillStyle = themeColour("--canvas");
  context.fillRect(0, 0, width, height);
  const margin = { left: 52, right: 12, top: 18, bottom: 22 };
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v - v !== 0) continue;
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (!(hi >= lo)) {
    lo = 0;
    hi = 1;
  }
  if (hi === lo) {
    lo -= 0.5;
    hi += 0.5;
  }
  const px = (i: number) => margin.left + (values.length > 1 ? (i / (values.length - 1)) * plotWidth : plotWidth / 2);
  const py = (v: number) => margin.top + (1 - (v - lo) / (hi - lo)) * plotHeight;
  drawValueGrid(context, niceTicks(lo, hi, 3), margin.left, plotWidth, py, 4);
  context.textAlign = "center";
  context.textBaseline = "top";
  for (const t of niceTicks(0, Math.max(1, values.length - 1), Math.max(2, Math.floor(plotWidth / 70)), true)) {
    if (t > values.length - 1) continue;
    context.fillText(String(t), px(t), margin.top + plotHeight + 4);
  }
  context.textAlign = "left";
  context.fillText(`${title}  (x: ${xLabel})`, margin.left, 2);
  context.strokeStyle = themeColour("--bar");
  context.lineWidth = 1.5;
  context.beginPath();
  let pen = false;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v - v !== 0) {
      pen = false;
      continue;
    }
    if (pen) context.lineTo(px(i), py(v));
    else context.moveTo(px(i), py(v));
    pen = true;
  }
  context.stroke();
  context.fillStyle = themeColour("--bar");
  if (values.length <= 64) {
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (v - v === 0) context.fillRect(px(i) - 1.5, py(v) - 1.5, 3, 3);
    }
  }
}

/** Time-axis tick text for a speech track: frame × frame shift in seconds. */
export function timeTick(frameShift: number): (frame: number) => string {
  return (frame) => formatSeconds(Number((frame * frameShift).toFixed(6)));
}

export function imageSizeOf(
  matrix: { rows: number; cols: number },
  orientation: Orientation,
): { width: number; height: number } {
  return imageSize(matrix, orientation);
}
