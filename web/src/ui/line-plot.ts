/**
 * A 1-D tensor (or a tensor with one axis longer than 1) as a line plot: one min–max band and mean line per
 * pixel column, from the worker (model/line-plot.ts), so spikes survive any zoom; NaN / ±Inf columns marked
 * under the axis. Wheel or +/− zoom about the pointer, drag pans, double-click or "whole" resets; hover reads
 * out index and value; PNG export.
 */
import { formatValue } from "../model/format.js";
import { niceTicks } from "../model/histogram.js";
import { type LineEnvelope, zoomWindow } from "../model/line-plot.js";
import type { InspectorContext } from "./context.js";
import { download, h, prepareCanvas, themeColour } from "./dom.js";
import { drawValueGrid } from "./plots.js";

const MARGIN = { left: 64, right: 12, top: 10, bottom: 30 };

export class LinePlot {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly readout: HTMLElement;
  private window: { start: number; end: number };
  private envelope: LineEnvelope | undefined;
  private error: string | undefined;
  private pending = false;
  private token = 0;

  constructor(
    private readonly app: InspectorContext,
    private readonly name: string,
    private readonly total: number,
    private readonly width: () => number,
  ) {
    this.window = { start: 0, end: total };
    this.canvas = h("canvas", { id: "line-plot", "aria-label": "Line plot of the values", tabindex: 0 });
    this.readout = h("div", { class: "readout", id: "line-readout" }, "\u00a0");
    const tools = h(
      "div",
      { class: "plot-tools" },
      h("button", { type: "button", title: "Zoom in (+)", onclick: () => this.zoom(2) }, "+"),
      h("button", { type: "button", title: "Zoom out (−)", onclick: () => this.zoom(0.5) }, "−"),
      h(
        "button",
        {
          type: "button",
          id: "line-whole",
          title: "Show every value (double-click)",
          onclick: () => this.setWindow(0, total),
        },
        "whole",
      ),
      h(
        "button",
        { type: "button", id: "line-png", title: "Save the plot as PNG", onclick: () => this.exportPng() },
        "PNG",
      ),
      h("span", { class: "muted", id: "line-window" }),
    );
    this.element = h("div", { id: "line-box" }, tools, this.canvas, this.readout);
    this.wire();
    void this.request();
  }

  private plotWidth(): number {
    return Math.max(40, this.width() - MARGIN.left - MARGIN.right);
  }

  private setWindow(start: number, end: number): void {
    this.window = { start: Math.max(0, start), end: Math.min(this.total, end) };
    void this.request();
  }

  private zoom(factor: number, at?: number): void {
    const { start, end } = this.window;
    const w = zoomWindow(start, end, this.total, factor, at ?? (start + end) / 2);
    this.setWindow(w.start, w.end);
  }

  private indexAt(x: number): number {
    const { start, end } = this.window;
    return start + ((x - MARGIN.left) / this.plotWidth()) * (end - start);
  }

  private wire(): void {
    const canvas = this.canvas;
    canvas.addEventListener(
      "wheel",
      (event) => {
        event.preventDefault();
        this.zoom(Math.exp(-event.deltaY * 0.002), this.indexAt(event.offsetX));
      },
      { passive: false },
    );
    let drag: { x: number; start: number; end: number } | undefined;
    canvas.addEventListener("pointerdown", (event) => {
      drag = { x: event.offsetX, ...this.window };
      canvas.setPointerCapture(event.pointerId);
    });
    canvas.addEventListener("pointermove", (event) => {
      if (drag) {
        const perPixel = (drag.end - drag.start) / this.plotWidth();
        const shift = Math.max(-drag.start, Math.min(this.total - drag.end, -(event.offsetX - drag.x) * perPixel));
        if (Math.abs(event.offsetX - drag.x) > 2) this.setWindow(drag.start + shift, drag.end + shift);
        return;
      }
      this.hover(event.offsetX);
    });
    canvas.addEventListener("pointerup", () => (drag = undefined));
    canvas.addEventListener("dblclick", () => this.setWindow(0, this.total));
    canvas.addEventListener("keydown", (event) => {
      if (event.key === "+" || event.key === "=") this.zoom(2);
      else if (event.key === "-") this.zoom(0.5);
      else return;
      event.preventDefault();
    });
  }

  private async request(): Promise<void> {
    if (this.pending) return;
    this.pending = true;
    await new Promise((done) => requestAnimationFrame(done));
    this.pending = false;
    const token = ++this.token;
    const { start, end } = this.window;
    try {
      const envelope = await this.app.worker.request({
        kind: "line",
        slot: "a",
        name: this.name,
        start: Math.floor(start),
        end: Math.ceil(end),
        columns: this.plotWidth(),
      });
      if (token !== this.token) return;
      this.envelope = envelope;
      this.error = undefined;
    } catch (error) {
      if (token !== this.token) return;
      this.error = (error as Error).message;
    }
    this.draw();
  }

  draw(): void {
    const width = this.width();
    const height = 300;
    const context = prepareCanvas(this.canvas, width, height);
    context.fillStyle = themeColour("--canvas");
    context.fillRect(0, 0, width, height);
    const env = this.envelope;
    const label = this.element.querySelector<HTMLElement>("#line-window");
    if (!env) {
      context.fillStyle = themeColour("--fg2");
      context.fillText(this.error ?? "reading…", MARGIN.left, 20);
      return;
    }
    if (label)
      label.textContent = `values ${env.start.toLocaleString("en-US")} – ${(env.end - 1).toLocaleString("en-US")} of ${this.total.toLocaleString("en-US")}${env.step > 1 ? ` · ${env.step} per column (min–max band, mean line)` : ""}`;
    let lo = Infinity;
    let hi = -Infinity;
    for (let c = 0; c < env.min.length; c++) {
      if (env.min[c]! < lo) lo = env.min[c]!;
      if (env.max[c]! > hi) hi = env.max[c]!;
    }
    if (!(hi >= lo)) {
      lo = 0;
      hi = 1;
    } else if (hi === lo) {
      lo -= 0.5;
      hi += 0.5;
    }
    const plotWidth = this.plotWidth();
    const plotHeight = height - MARGIN.top - MARGIN.bottom;
    const x = (index: number) => MARGIN.left + ((index - env.start) / Math.max(1, env.end - env.start)) * plotWidth;
    const y = (value: number) => MARGIN.top + (1 - (value - lo) / (hi - lo)) * plotHeight;
    // axes and ticks
    const yTicks = niceTicks(lo, hi, 5);
    drawValueGrid(context, yTicks, MARGIN.left, plotWidth, y, 6);
    context.textAlign = "center";
    context.textBaseline = "top";
    const xTicks = niceTicks(env.start, env.end - 1, Math.max(2, Math.floor(plotWidth / 90)), true);
    for (const t of xTicks) context.fillText(t.toLocaleString("en-US"), x(t + 0.5), MARGIN.top + plotHeight + 6);
    this.canvas.dataset.yTicks = yTicks.map(String).join(",");
    this.canvas.dataset.window = `${env.start},${env.end}`;
    this.canvas.dataset.step = String(env.step);
    // band, line, non-finite marks
    const accent = themeColour("--bar");
    const columnWidth = plotWidth / env.min.length;
    context.fillStyle = accent;
    context.globalAlpha = 0.35;
    for (let c = 0; c < env.min.length; c++) {
      if (Number.isNaN(env.min[c]!)) continue;
      const top = y(env.max[c]!);
      context.fillRect(MARGIN.left + c * columnWidth, top, Math.max(1, columnWidth), Math.max(1, y(env.min[c]!) - top));
    }
    context.globalAlpha = 1;
    context.strokeStyle = accent;
    context.lineWidth = 1.5;
    context.beginPath();
    let open = false;
    for (let c = 0; c < env.mean.length; c++) {
      const value = env.mean[c]!;
      if (Number.isNaN(value)) {
        open = false;
        continue;
      }
      const px = MARGIN.left + (c + 0.5) * columnWidth;
      if (open) context.lineTo(px, y(value));
      else context.moveTo(px, y(value));
      open = true;
    }
    context.stroke();
    context.fillStyle = themeColour("--nan");
    let marks = 0;
    for (let c = 0; c < env.nonFinite.length; c++) {
      if (env.nonFinite[c]! === 0) continue;
      context.fillRect(MARGIN.left + c * columnWidth, MARGIN.top + plotHeight - 4, Math.max(2, columnWidth), 4);
      marks++;
    }
    this.canvas.dataset.nonFiniteColumns = String(marks);
  }

  private hover(offsetX: number): void {
    const env = this.envelope;
    if (!env || offsetX < MARGIN.left) return;
    const c = Math.floor(((offsetX - MARGIN.left) / this.plotWidth()) * env.min.length);
    if (c < 0 || c >= env.min.length) return;
    const first = env.start + c * env.step;
    const last = Math.min(env.end, first + env.step) - 1;
    const where = first === last ? `[${first}]` : `[${first} … ${last}]`;
    const value =
      env.step === 1
        ? formatValue(env.mean[c]!)
        : `min ${formatValue(env.min[c]!)} · mean ${formatValue(env.mean[c]!)} · max ${formatValue(env.max[c]!)}`;
    this.readout.textContent = `${where} ${Number.isNaN(env.mean[c]!) && env.nonFinite[c]! > 0 ? "NaN/Inf" : value}${env.nonFinite[c]! > 0 ? ` · ${env.nonFinite[c]} NaN/Inf` : ""}`;
  }

  private exportPng(): void {
    this.canvas.toBlob((blob) => {
      if (!blob) return;
      const file = `${this.name.replace(/[^\w.-]+/g, "_")}-plot.png`;
      download(blob, file, "image/png");
      this.app.setStatus(`saved ${file}`);
    }, "image/png");
  }
}
