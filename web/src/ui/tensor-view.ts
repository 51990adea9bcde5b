/**
 * One tensor: its statistics and histogram (computed in the worker, streamed for big tensors; linear or log
 * counts, NaN/±Inf as separate bars) and its heatmap: a 2-D slice of any N-d tensor (choose the two axes, a
 * slider for every other one), hover read-out, a click shows the exact values around a cell. SPRAAK tracks get
 * the speech mode: time on x from FSHIFT, feature 0 at the bottom, diverging map for signed features,
 * per-feature normalisation and the plot of one frame.
 */
import { capabilitiesOf } from "../../../bindings/formats/registry.js";
import { formatBytes, formatCount, formatPercent, formatValue, shapeText } from "../model/format.js";
import {
  type ColourMapName,
  type Orientation,
  type RangeMode,
  type SliceSpec,
  cellAt,
  clampSlice,
  defaultSlice,
  fullIndex,
  matrixRow,
  regionWindow,
  suggestedMap,
  valueRange,
} from "../model/heatmap.js";
import { barAt, histogramQuantile, niceTicks } from "../model/histogram.js";
import { exportNpy, tensorFileName, withSource } from "../model/export.js";
import { CancelledError, hasStatistics, noStatisticsReason } from "../model/tensor-data.js";
import type { DetailResult, RegionResult, SliceResult } from "../worker/protocol.js";
import type { InspectorContext } from "./context.js";
import { checkbox, clear, download, h, prepareCanvas, select, themeColour } from "./dom.js";
import { LinePlot } from "./line-plot.js";
import type { SliceWindow } from "../worker/protocol.js";
import {
  type HeatmapDrawing,
  type HistogramDrawing,
  drawHeatmap,
  drawHistogram,
  drawLine,
  imagePoint,
  indexTicks,
  timeTick,
} from "./plots.js";

const HISTOGRAM_WIDTH = 410;
const HISTOGRAM_HEIGHT = 190;

export class TensorView {
  private name: string | undefined;
  private detail: DetailResult | undefined;
  private detailError: string | undefined;
  private slice: SliceResult | undefined;
  private sliceError: string | undefined;
  private spec: SliceSpec | undefined;
  private region: RegionResult | undefined;
  private regionCell: { row: number; col: number } | undefined;
  private frame: number | undefined;
  private bins = 64;
  private rangeMode: RangeMode | undefined;
  /** The heatmap's zoom window in slice coordinates (undefined: the whole slice). */
  private zoomWindow: SliceWindow | undefined;
  private zoomQueued = false;
  private histogramDrawing: HistogramDrawing | undefined;
  private heatmapDrawing: HeatmapDrawing | undefined;
  private generation = 0;
  private sliceQueued = false;

  constructor(
    private readonly app: InspectorContext,
    private readonly root: HTMLElement,
  ) {}

  reset(): void {
    this.name = undefined;
    this.detail = undefined;
    this.slice = undefined;
    this.generation++;
    clear(this.root);
  }

  private get info() {
    return this.app.current?.infos.find((i) => i.name === this.name);
  }

  /** 2-D data of a format of speech features (its `speechFrames` capability: SPRAAK): speech mode applies. */
  private get speechCapable(): boolean {
    const format = this.app.current?.lazy.format;
    return (
      format !== undefined && capabilitiesOf(format)?.speechFrames === true && (this.info?.shape.length ?? 0) === 2
    );
  }

  private get orientation(): Orientation {
    return this.speechCapable && this.app.state.speech !== false ? "speech" : "matrix";
  }

  private get frameShift(): number {
    const fshift = Number((this.app.current?.inspected.meta as Record<string, unknown> | undefined)?.fshift);
    return Number.isFinite(fshift) && fshift > 0 ? fshift : 0.01;
  }

  show(): void {
    const name = this.app.state.tensor;
    const info = this.app.current?.infos.find((i) => i.name === name);
    if (!info) {
      clear(this.root);
      this.root.append(h("p", { class: "muted" }, "Choose a tensor in the table (Enter or double-click)."));
      return;
    }
    if (name !== this.name) {
      this.name = name;
      this.generation++;
      this.detail = undefined;
      this.detailError = undefined;
      this.slice = undefined;
      this.sliceError = undefined;
      this.region = undefined;
      this.regionCell = undefined;
      this.frame = undefined;
      this.rangeMode = undefined;
      this.zoomWindow = undefined;
      const fromState = this.app.state.axes
        ? { rowAxis: this.app.state.axes[0], colAxis: this.app.state.axes[1], fixed: this.app.state.indices ?? [] }
        : defaultSlice(info.shape);
      this.spec = clampSlice(info.shape, fromState);
      this.build();
      if (hasStatistics(info.dtype)) {
        void this.requestDetail();
        void this.requestSlice();
      }
    } else {
      this.build();
    }
  }

  private build(): void {
    const info = this.info!;
    const file = this.app.current!;
    clear(this.root);
    const index = file.infos.indexOf(info);
    const step = (by: number) => {
      const next = file.infos[index + by];
      if (next) this.app.openTensor(next.name);
    };
    const head = h(
      "div",
      { class: "table-tools" },
      h(
        "button",
        { type: "button", onclick: () => this.app.showView("tensors"), title: "Back to the table (Esc)" },
        "← tensors",
      ),
      h("button", { type: "button", disabled: index <= 0, onclick: () => step(-1), title: "Previous tensor" }, "‹"),
      h(
        "button",
        { type: "button", disabled: index >= file.infos.length - 1, onclick: () => step(1), title: "Next tensor" },
        "›",
      ),
      h("h2", { id: "tensor-name", style: "margin:0" }, info.name),
      h("span", { class: "pill" }, info.dtype),
      h("span", { class: "mono" }, shapeText(info.shape)),
      h(
        "span",
        { class: "muted" },
        `${formatCount(info.shape.reduce((a, b) => a * b, 1))} elements · ${formatBytes(info.byteLength)} at offset ${info.byteOffset}${info.layout === "column-major" ? " · stored column-major" : ""}${info.byteOrder === "be" ? " · big-endian" : ""}`,
      ),
      h("span", { class: "spacer" }),
      h("button", { type: "button", id: "export-npy", onclick: () => void this.exportNpy() }, "Download .npy"),
    );
    const left = h("div", { id: "tensor-left" });
    const right = h("div", { id: "tensor-right" });
    this.root.append(head, h("div", { class: "tensor-layout" }, left, right));
    if (!hasStatistics(info.dtype)) {
      left.append(h("p", { class: "muted" }, `${noStatisticsReason(info.dtype)}; it can still be downloaded as .npy.`));
      return;
    }
    this.buildLeft(left);
    this.buildRight(right);
  }

  // ---- statistics and histogram ----

  private async requestDetail(): Promise<void> {
    const generation = this.generation;
    const name = this.name!;
    try {
      const detail = await this.app.task(
        `statistics of ${name}`,
        (task) =>
          this.app.worker.request(
            { kind: "detail", slot: "a", name, bins: this.bins, stats: this.app.rowByName(name)?.stats },
            { onProgress: (d, t) => task.update(d, t) },
          ),
        true,
      );
      if (generation !== this.generation) return;
      this.detail = detail;
      this.app.rememberStats(name, detail.stats);
    } catch (error) {
      if (generation !== this.generation) return;
      this.detailError = error instanceof CancelledError ? "cancelled" : (error as Error).message;
    }
    const left = this.root.querySelector<HTMLElement>("#tensor-left");
    if (left) this.buildLeft(left);
  }

  private buildLeft(left: HTMLElement): void {
    clear(left);
    left.append(h("h3", {}, "statistics"));
    const s = this.detail?.stats;
    if (!s) {
      left.append(
        h(
          "p",
          { class: "muted", id: "tensor-stats-pending" },
          this.detailError ? `statistics failed: ${this.detailError}` : "computing…",
        ),
      );
      if (this.detailError === "cancelled")
        left.append(
          h(
            "button",
            {
              type: "button",
              onclick: () => {
                this.detailError = undefined;
                void this.requestDetail();
                this.buildLeft(left);
              },
            },
            "Compute again",
          ),
        );
      return;
    }
    const item = (label: string, key: string, value: number, text: string) => [
      h("dt", {}, label),
      h("dd", { "data-stat": key, "data-value": String(value), title: String(value) }, text),
    ];
    left.append(
      h(
        "dl",
        { class: "stats-grid", id: "tensor-stats" },
        ...item("min", "min", s.min, formatValue(s.min)),
        ...item("max", "max", s.max, formatValue(s.max)),
        ...item("mean", "mean", s.mean, formatValue(s.mean)),
        ...item("std", "std", s.std, formatValue(s.std)),
        ...item("NaN", "nan", s.nan, formatCount(s.nan)),
        ...item("zeros", "zeros", s.zeros, `${formatCount(s.zeros)} (${formatPercent(s.zeros, s.count) || "0%"})`),
        ...item("+Inf", "posInf", s.posInf, formatCount(s.posInf)),
        ...item("−Inf", "negInf", s.negInf, formatCount(s.negInf)),
        ...item("count", "count", s.count, formatCount(s.count)),
        ...item("sum", "sum", s.sum, formatValue(s.sum)),
        ...item(
          "abs-max",
          "absMax",
          Math.max(Math.abs(s.min), Math.abs(s.max)),
          formatValue(Math.max(Math.abs(s.min), Math.abs(s.max))),
        ),
        ...item(
          "sparsity",
          "sparsity",
          s.count > 0 ? s.zeros / s.count : NaN,
          s.count > 0 ? `${((100 * s.zeros) / s.count).toPrecision(3)}%` : "–",
        ),
        ...(["p1", "p50", "p99"] as const).flatMap((label) => {
          const value = histogramQuantile(this.detail!.histogram, Number(label.slice(1)) / 100);
          return item(`${label} ≈`, label, value, formatValue(value));
        }),
      ),
    );
    left.append(
      h(
        "p",
        { class: "muted", style: "margin:2px 0" },
        `quantiles ≈: read from the ${this.detail!.histogram.counts.length}-bin histogram, to ± one bin width (${formatValue((this.detail!.histogram.hi - this.detail!.histogram.lo) / this.detail!.histogram.counts.length)})`,
      ),
    );
    const log = this.app.state.logCounts ?? false;
    const tools = h(
      "div",
      { class: "plot-tools" },
      h("h3", { style: "margin:0" }, "histogram"),
      checkbox(
        " log counts",
        log,
        (on) => {
          this.app.setState({ logCounts: on });
          this.drawHistogramCanvas();
        },
        "histogram-log",
      ),
      h(
        "label",
        {},
        "bins ",
        select(
          [
            ["32", "32"],
            ["64", "64"],
            ["128", "128"],
            ["256", "256"],
          ],
          String(this.bins),
          (v) => {
            this.bins = Number(v);
            this.detail = undefined;
            void this.requestDetail();
          },
          "Histogram bins",
        ),
      ),
    );
    const canvas = h("canvas", { id: "histogram", "aria-label": "Histogram of the values" });
    const readout = h("div", { class: "readout", id: "histogram-readout" }, "\u00a0");
    canvas.addEventListener("mousemove", (event) => {
      const drawing = this.histogramDrawing;
      if (!drawing) return;
      const bar = barAt(drawing.layout, event.offsetX - drawing.left);
      readout.textContent = bar ? bar.label : "\u00a0";
    });
    left.append(tools, canvas, readout);
    const h0 = this.detail!.histogram;
    const outside = h0.below + h0.above;
    if (outside > 0) left.append(h("div", { class: "muted" }, `${formatCount(outside)} values outside the range`));
    this.drawHistogramCanvas();
  }

  private drawHistogramCanvas(): void {
    const canvas = this.root.querySelector<HTMLCanvasElement>("#histogram");
    if (!canvas || !this.detail) return;
    this.histogramDrawing = drawHistogram(
      canvas,
      this.detail.histogram,
      this.app.state.logCounts ? "log" : "linear",
      HISTOGRAM_WIDTH,
      HISTOGRAM_HEIGHT,
    );
  }

  // ---- heatmap ----

  private heatmapBox(): { width: number; height: number } {
    const right = this.root.querySelector<HTMLElement>("#tensor-right");
    const width = Math.max(360, Math.min(1400, (right?.clientWidth || 760) - 4));
    return { width, height: this.orientation === "speech" ? 300 : 380 };
  }

  private async requestSlice(): Promise<void> {
    const info = this.info;
    if (!info || !this.spec || this.oneDimensional) return;
    const generation = this.generation;
    const { width, height } = this.heatmapBox();
    const plotWidth = Math.max(16, width - 126);
    const plotHeight = Math.max(16, height - 42);
    const speech = this.orientation === "speech";
    try {
      const slice = await this.app.worker.request({
        kind: "slice",
        slot: "a",
        name: info.name,
        spec: this.spec,
        maxRows: speech ? plotWidth : plotHeight,
        maxCols: speech ? plotHeight : plotWidth,
        normalize: speech && (this.app.state.normalize ?? false),
        window: this.zoomWindow,
      });
      if (generation !== this.generation) return;
      this.slice = slice;
      this.sliceError = undefined;
    } catch (error) {
      if (generation !== this.generation) return;
      this.sliceError = error instanceof CancelledError ? "cancelled" : (error as Error).message;
    }
    this.drawHeatmapCanvas();
  }

  /** Coalesces slider moves: one slice request per frame. */
  private sliceChanged(): void {
    this.app.setState({
      axes: this.spec ? [this.spec.rowAxis, this.spec.colAxis] : undefined,
      indices: this.spec?.fixed,
    });
    this.region = undefined;
    this.regionCell = undefined;
    if (this.sliceQueued) return;
    this.sliceQueued = true;
    requestAnimationFrame(() => {
      this.sliceQueued = false;
      void this.requestSlice();
    });
  }

  /** One axis longer than 1 (a bias, a 1-D feature): a line plot instead of a one-row heatmap. */
  private get oneDimensional(): boolean {
    const info = this.info;
    return info !== undefined && this.orientation !== "speech" && info.shape.filter((d) => d > 1).length === 1;
  }

  private buildRight(right: HTMLElement): void {
    clear(right);
    const info = this.info!;
    const spec = this.spec!;
    const n = info.shape.length;
    if (this.oneDimensional) {
      const total = info.shape.reduce((a, b) => a * b, 1);
      const plot = new LinePlot(this.app, info.name, total, () => this.heatmapBox().width);
      right.append(h("h3", {}, "line plot"), plot.element);
      return;
    }
    right.append(
      h("h3", {}, this.orientation === "speech" ? "features over time" : n <= 2 ? "heatmap" : "heatmap of a 2-D slice"),
    );
    const axes = h("div", { class: "axis-controls", id: "axis-controls" });
    if (n >= 2) {
      const axisOptions = info.shape.map((d, k): [string, string] => [String(k), `axis ${k} (${d})`]);
      axes.append(
        h(
          "label",
          {},
          "rows ",
          select(
            axisOptions,
            String(spec.rowAxis),
            (v) => {
              const rowAxis = Number(v);
              this.spec = clampSlice(info.shape, {
                ...spec,
                rowAxis,
                colAxis: rowAxis === spec.colAxis ? spec.rowAxis : spec.colAxis,
              });
              this.buildRight(right);
              this.sliceChanged();
            },
            "Axis down the rows",
          ),
        ),
        h(
          "label",
          {},
          "columns ",
          select(
            axisOptions,
            String(spec.colAxis),
            (v) => {
              const colAxis = Number(v);
              this.spec = clampSlice(info.shape, {
                ...spec,
                colAxis,
                rowAxis: colAxis === spec.rowAxis ? spec.colAxis : spec.rowAxis,
              });
              this.buildRight(right);
              this.sliceChanged();
            },
            "Axis across the columns",
          ),
        ),
      );
    }
    info.shape.forEach((d, k) => {
      if (k === spec.rowAxis || k === spec.colAxis || d <= 1) return;
      const value = h("span", { class: "mono" }, `${spec.fixed[k]} / ${d - 1}`);
      const slider = h("input", {
        type: "range",
        min: 0,
        max: d - 1,
        value: spec.fixed[k] ?? 0,
        "aria-label": `Index along axis ${k}`,
        "data-axis": k,
      });
      slider.addEventListener("input", () => {
        this.spec!.fixed[k] = Number(slider.value);
        value.textContent = `${slider.value} / ${d - 1}`;
        this.sliceChanged();
      });
      axes.append(h("label", {}, `axis ${k} `, slider, value));
    });
    const speechCapable = this.speechCapable;
    const map = this.app.state.colourMap ?? "auto";
    const tools = h(
      "div",
      { class: "plot-tools" },
      h(
        "label",
        {},
        "colours ",
        select(
          [
            ["auto", "auto"],
            ["viridis", "viridis"],
            ["grey", "grey"],
            ["diverging", "diverging (0 centred)"],
          ],
          map,
          (v) => {
            this.app.setState({ colourMap: v === "auto" ? undefined : v });
            this.drawHeatmapCanvas();
          },
          "Colour map",
        ),
      ),
      h(
        "label",
        {},
        "range ",
        select(
          [
            ["minmax", "min – max"],
            ["percentile", "1st – 99th percentile"],
            ["symmetric", "± max |v|"],
          ],
          this.currentRangeMode(),
          (v) => {
            this.rangeMode = v as RangeMode;
            this.app.setState({ colourRange: this.rangeMode });
            this.drawHeatmapCanvas();
          },
          "Colour range",
        ),
      ),
      h(
        "button",
        {
          type: "button",
          id: "heatmap-unzoom",
          title: "Show the whole slice (the wheel zooms about the pointer; Shift+wheel moves)",
          onclick: () => this.setZoom(undefined),
        },
        "whole",
      ),
      h(
        "button",
        {
          type: "button",
          id: "heatmap-png",
          title: "Save the heatmap as PNG (as drawn, with its axes)",
          onclick: () => this.exportHeatmapPng(),
        },
        "PNG",
      ),
      speechCapable
        ? checkbox(
            " speech mode",
            this.orientation === "speech",
            (on) => {
              this.app.setState({ speech: on });
              this.buildRight(right);
              void this.requestSlice();
            },
            "speech-mode",
          )
        : null,
      speechCapable && this.orientation === "speech"
        ? checkbox(
            " normalise each feature",
            this.app.state.normalize ?? false,
            (on) => {
              this.app.setState({ normalize: on });
              void this.requestSlice();
            },
            "normalise",
          )
        : null,
    );
    const canvas = h("canvas", { id: "heatmap", "aria-label": "Heatmap of the values" });
    const readout = h("div", { class: "readout", id: "heatmap-readout" }, "\u00a0");
    canvas.addEventListener("mousemove", (event) => this.hover(event.offsetX, event.offsetY, readout));
    canvas.addEventListener("click", (event) => void this.clickCell(event.offsetX, event.offsetY));
    canvas.addEventListener("wheel", (event) => this.wheelZoom(event), { passive: false });
    right.append(axes, tools, h("div", { class: "heatmap-box" }, canvas), readout);
    if (this.orientation === "speech" && this.app.segments)
      right.append(
        h("canvas", { id: "segments", "aria-label": `Segments from the .seg file (${this.app.segments.file})` }),
      );
    if (this.orientation === "speech")
      right.append(h("canvas", { id: "frame-plot", "aria-label": "One frame's features" }));
    right.append(h("div", { id: "region" }));
    this.drawHeatmapCanvas();
  }

  private currentRangeMode(): RangeMode {
    return this.rangeMode ?? this.app.state.colourRange ?? (this.orientation === "speech" ? "percentile" : "minmax");
  }

  private setZoom(window: SliceWindow | undefined): void {
    this.zoomWindow = window;
    this.region = undefined;
    this.regionCell = undefined;
    if (this.zoomQueued) return;
    this.zoomQueued = true;
    requestAnimationFrame(() => {
      this.zoomQueued = false;
      void this.requestSlice();
    });
  }

  /**
   * The wheel zooms the heatmap about the pointer: time only in speech mode, both axes otherwise; Shift+wheel
   * moves along time (or the columns). Tensors too big to hold in the worker are sliced from the file and not zoomed.
   */
  private wheelZoom(event: WheelEvent): void {
    const slice = this.slice;
    if (!slice || slice.sliceRows === undefined || slice.sliceCols === undefined) return;
    event.preventDefault();
    const rows = slice.sliceRows;
    const cols = slice.sliceCols;
    const current = this.zoomWindow ?? { row0: 0, row1: rows, col0: 0, col1: cols };
    const cell = this.cellUnder(event.offsetX, event.offsetY);
    const speech = this.orientation === "speech";
    if (event.shiftKey) {
      const along = speech ? "row" : "col";
      const span = along === "row" ? current.row1 - current.row0 : current.col1 - current.col0;
      const total = along === "row" ? rows : cols;
      const move = Math.sign(event.deltaY || event.deltaX) * Math.max(1, Math.round(span / 8));
      const start = Math.max(0, Math.min(total - span, (along === "row" ? current.row0 : current.col0) + move));
      this.setZoom(
        along === "row"
          ? { ...current, row0: start, row1: start + span }
          : { ...current, col0: start, col1: start + span },
      );
      return;
    }
    const factor = Math.exp(-event.deltaY * 0.002);
    const zoomAxis = (a0: number, a1: number, total: number, at: number) => {
      const span = Math.min(total, Math.max(Math.min(4, total), (a1 - a0) / factor));
      const ratio = a1 > a0 ? (at - a0) / (a1 - a0) : 0.5;
      const start = Math.max(0, Math.min(total - span, at - ratio * span));
      return [Math.round(start), Math.round(start + span)] as const;
    };
    const [row0, row1] = zoomAxis(current.row0, current.row1, rows, cell?.row ?? (current.row0 + current.row1) / 2);
    const [col0, col1] = speech
      ? [current.col0, current.col1]
      : zoomAxis(current.col0, current.col1, cols, cell?.col ?? (current.col0 + current.col1) / 2);
    const whole = row0 === 0 && row1 === rows && col0 === 0 && col1 === cols;
    this.setZoom(whole ? undefined : { row0, row1, col0, col1 });
  }

  private exportHeatmapPng(): void {
    const canvas = this.root.querySelector<HTMLCanvasElement>("#heatmap");
    const name = this.name;
    if (!canvas || !name) return;
    canvas.toBlob((blob) => {
      if (!blob) return;
      const file = `${name.replace(/[^\w.-]+/g, "_")}-heatmap.png`;
      download(blob, file, "image/png");
      this.app.setStatus(`saved ${file} (${canvas.width}×${canvas.height} px)`);
    }, "image/png");
  }

  private drawHeatmapCanvas(): void {
    const canvas = this.root.querySelector<HTMLCanvasElement>("#heatmap");
    if (!canvas) return;
    const readout = this.root.querySelector<HTMLElement>("#heatmap-readout");
    if (!this.slice) {
      if (readout) readout.textContent = this.sliceError ? `no heatmap: ${this.sliceError}` : "reading…";
      return;
    }
    const slice = this.slice;
    const speech = this.orientation === "speech";
    const { lo, hi } = valueRange(slice.data, this.currentRangeMode());
    const chosen = this.app.state.colourMap as ColourMapName | undefined;
    const map: ColourMapName = chosen ?? suggestedMap(lo, hi);
    const { width, height } = this.heatmapBox();
    const info = this.info!;
    const spec = this.spec!;
    const shift = this.frameShift;
    const time = timeTick(shift);
    // a diverging map is centred on 0
    const extent = Math.max(Math.abs(lo), Math.abs(hi));
    const [from, to] = map === "diverging" ? [-extent, extent] : [lo, hi];
    const ro = slice.rowOffset ?? 0;
    const co = slice.colOffset ?? 0;
    const data = valueRange(slice.data, "minmax");
    this.heatmapDrawing = drawHeatmap(
      canvas,
      slice,
      { map, lo: from, hi: to, orientation: this.orientation, fill: speech, dataLo: data.lo, dataHi: data.hi },
      width,
      height,
      speech
        ? {
            xLabel: "time (s)",
            yLabel: "feature",
            xTicks: (count) =>
              niceTicks(ro * shift, (ro + slice.fullRows) * shift, count)
                .filter((t) => t / shift >= ro - 1e-9)
                .map((t) => ({ at: (t / shift - ro) / slice.rowStep, label: time(t / shift) })),
            yTicks: (count) => indexTicks(slice.fullCols, slice.colStep, count, true, slice.cols, co),
          }
        : {
            xLabel: spec.colAxis >= 0 ? `axis ${spec.colAxis}` : "",
            yLabel: spec.rowAxis >= 0 ? `axis ${spec.rowAxis}` : "",
            xTicks: (count) => indexTicks(slice.fullCols, slice.colStep, count, false, undefined, co),
            yTicks: (count) => indexTicks(slice.fullRows, slice.rowStep, count, false, undefined, ro),
          },
    );
    canvas.dataset.rows = String(slice.sliceRows ?? slice.fullRows);
    canvas.dataset.cols = String(slice.sliceCols ?? slice.fullCols);
    canvas.dataset.window = `${ro},${ro + slice.fullRows},${co},${co + slice.fullCols}`;
    if (readout) {
      const reduced =
        slice.rowStep > 1 || slice.colStep > 1
          ? ` · shown as ${slice.rows} × ${slice.cols} cells (means of ${slice.rowStep} × ${slice.colStep})`
          : "";
      readout.textContent = `${info.shape.length <= 1 ? "" : `slice ${slice.fullRows} × ${slice.fullCols}`}${reduced} · colours ${formatValue(from)} … ${formatValue(to)}; hover for values, click for the exact values around a cell`;
    }
    if (speech) this.drawFrame(this.frame ?? 0);
    if (speech) this.drawSegments();
    this.drawRegion();
  }

  /** The slice cell (full-resolution row and column) under a mouse position. */
  private cellUnder(
    offsetX: number,
    offsetY: number,
  ): { row: number; col: number; reducedRow: number; reducedCol: number } | undefined {
    const drawing = this.heatmapDrawing;
    const slice = this.slice;
    if (!drawing || !slice) return undefined;
    const point = imagePoint(drawing, offsetX, offsetY);
    if (!point) return undefined;
    const cell = cellAt(slice, this.orientation, point.x, point.y);
    if (!cell) return undefined;
    return {
      row: (slice.rowOffset ?? 0) + cell.row * slice.rowStep,
      col: (slice.colOffset ?? 0) + cell.col * slice.colStep,
      reducedRow: cell.row,
      reducedCol: cell.col,
    };
  }

  private hover(offsetX: number, offsetY: number, readout: HTMLElement): void {
    const cell = this.cellUnder(offsetX, offsetY);
    const slice = this.slice;
    if (!cell || !slice) return;
    const info = this.info!;
    const value = slice.data[cell.reducedRow * slice.cols + cell.reducedCol]!;
    const index = fullIndex(info.shape, this.spec!, cell.row, cell.col);
    const reduced = slice.rowStep > 1 || slice.colStep > 1;
    const where =
      info.shape.length === 0
        ? "value"
        : `[${index.join(", ")}]${reduced ? ` (+${slice.rowStep}×${slice.colStep} block, mean)` : ""}`;
    if (this.orientation === "speech") {
      const seconds = (cell.row * this.frameShift).toFixed(3);
      readout.textContent = `t = ${seconds} s · frame ${cell.row} · feature ${cell.col} · ${formatValue(value)}${reduced ? " (block mean)" : ""}`;
      this.drawFrame(cell.reducedRow);
    } else {
      readout.textContent = `${where} = ${formatValue(value)}`;
    }
  }

  /** The .seg tier under the speech heatmap: each segment a span over its frames, labelled when there is room. */
  private drawSegments(): void {
    const canvas = this.root.querySelector<HTMLCanvasElement>("#segments");
    const drawing = this.heatmapDrawing;
    const slice = this.slice;
    const segmentation = this.app.segments;
    if (!canvas || !drawing || !slice || !segmentation) return;
    const { width } = this.heatmapBox();
    const height = 26;
    const context = prepareCanvas(canvas, width, height);
    context.fillStyle = themeColour("--canvas");
    context.fillRect(0, 0, width, height);
    const x = (frame: number) =>
      drawing.x +
      Math.max(0, Math.min(1, (frame - (slice.rowOffset ?? 0)) / slice.rowStep / drawing.imageWidth)) * drawing.width;
    context.font = "11px system-ui, sans-serif";
    context.textBaseline = "middle";
    context.textAlign = "center";
    let drawn = 0;
    segmentation.segments.forEach((segment, k) => {
      const x0 = x(segment.start);
      const x1 = x(Math.min(slice.fullRows, segment.start + segment.frames));
      if (x1 <= x0) return;
      context.fillStyle = k % 2 === 0 ? themeColour("--bg3") : themeColour("--bg2");
      context.fillRect(x0, 2, Math.max(1, x1 - x0), height - 4);
      context.fillStyle = themeColour("--fg2");
      context.fillRect(x0, 0, 1, height);
      if (x1 - x0 > context.measureText(segment.label).width + 4) {
        context.fillStyle = themeColour("--fg");
        context.fillText(segment.label, (x0 + x1) / 2, height / 2, x1 - x0 - 2);
      }
      drawn++;
    });
    canvas.dataset.count = String(drawn);
    canvas.dataset.labels = segmentation.segments.map((s) => s.label).join(" ");
    canvas.dataset.spans = segmentation.segments
      .map((s) => `${Math.round(x(s.start))}-${Math.round(x(s.start + s.frames))}`)
      .join(" ");
  }

  private drawFrame(reducedRow: number): void {
    const canvas = this.root.querySelector<HTMLCanvasElement>("#frame-plot");
    const slice = this.slice;
    if (!canvas || !slice) return;
    this.frame = reducedRow;
    const { width } = this.heatmapBox();
    const frame = reducedRow * slice.rowStep;
    drawLine(
      canvas,
      matrixRow(slice, reducedRow),
      width,
      150,
      `frame ${frame} (t = ${(frame * this.frameShift).toFixed(3)} s)${slice.rowStep > 1 ? ` – mean of ${slice.rowStep} frames` : ""}`,
      "feature",
    );
  }

  private async clickCell(offsetX: number, offsetY: number): Promise<void> {
    const cell = this.cellUnder(offsetX, offsetY);
    const slice = this.slice;
    if (!cell || !slice) return;
    if (this.orientation === "speech") this.drawFrame(cell.reducedRow);
    const window = regionWindow(slice.fullRows, slice.fullCols, cell.row, cell.col, 8);
    const generation = this.generation;
    try {
      const region = await this.app.worker.request({
        kind: "region",
        slot: "a",
        name: this.name!,
        spec: this.spec!,
        ...window,
      });
      if (generation !== this.generation) return;
      this.region = region;
      this.regionCell = { row: cell.row, col: cell.col };
      this.drawRegion();
    } catch (error) {
      if (!(error instanceof CancelledError)) this.app.setStatus(`values: ${(error as Error).message}`, true);
    }
  }

  /** The region value grid: exact values around the clicked cell, that cell outlined. */
  private drawRegion(): void {
    const box = this.root.querySelector<HTMLElement>("#region");
    if (!box) return;
    const region = this.region;
    if (!region) {
      box.replaceChildren();
      return;
    }
    const speech = this.orientation === "speech";
    const table = h("table", { class: "values", id: "region-values" });
    const head = h("tr", {}, h("th", {}, speech ? "frame \\ feature" : "row \\ col"));
    for (let c = 0; c < region.cols; c++) head.append(h("th", {}, region.col0 + c));
    table.append(head);
    for (let r = 0; r < region.rows; r++) {
      const tr = h("tr", {}, h("th", {}, region.row0 + r));
      for (let c = 0; c < region.cols; c++) {
        const v = region.data[r * region.cols + c]!;
        const hot =
          this.regionCell && this.regionCell.row === region.row0 + r && this.regionCell.col === region.col0 + c;
        tr.append(h("td", { class: hot ? "hot" : "", title: String(v) }, formatValue(v)));
      }
      table.append(tr);
    }
    box.replaceChildren(h("h3", {}, "values around the clicked cell"), table);
  }

  private async exportNpy(): Promise<void> {
    const info = this.info;
    const file = this.app.current;
    if (!info || !file) return;
    await this.app.saveStreamed(
      `writing ${tensorFileName(info.name)}`,
      tensorFileName(info.name),
      info.byteLength,
      (sink) => exportNpy(withSource(file.lazy, file.source), info, sink),
    );
  }
}
