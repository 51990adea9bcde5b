/**
 * The graph view over the format-neutral GraphModel (model/graph.ts; TenniS / SeetaFace6 through graph-tsm.ts,
 * ONNX and april's three networks through graph-onnx.ts; a TenniS module also gets "Export ONNX": tsm.onnxSupport
 * on the module read whole, then tsm.toOnnx through the page's download, or the blocking ops and nodes).
 * Weights are rows inside their consumer's box. Laid out in the layout worker (dagre for small graphs, our
 * layered layout for big ones), drawn on a canvas (only what is on screen), opening on the TOP of the graph at
 * zoom 1 (12 px labels), not a fit of the whole. A minimap moves around; wheel / pinch / +/− zoom smoothly about
 * the pointer, drag pans. Search (Ctrl/⌘-F: node name, op type, weight name) centres and highlights hits. A click
 * shows the node's attributes, inputs, consumers and weights (each one click from its tensor view). Export as
 * SVG and PNG. A picker chooses among several graphs of a file; subgraphs open from the side panel.
 */
import { april, type onnx, tsm } from "../../../bindings/index.js";
import { BOX, type GraphDocument, type GraphModel, type GraphNode, type Positioned, headerText, nodeAt, searchGraph, weightText } from "../model/graph.js";
import { aprilGraphDocument, onnxGraphDocument } from "../model/graph-onnx.js";
import { tsmGraphDocument } from "../model/graph-tsm.js";
import { formatBytes } from "../model/format.js";
import { layoutInput } from "../model/layout.js";
import { CancelledError } from "../model/tensor-data.js";
import type { InspectorContext } from "./context.js";
import { clear, download, h, inTextField, prepareCanvas, themeColour } from "./dom.js";

/** The graphs of the opened file, or undefined when its format has none. */
export function graphDocumentOf(context: InspectorContext): GraphDocument | undefined {
  const file = context.current;
  if (!file) return undefined;
  if (file.lazy.format === "tsm") return tsmGraphDocument(tsm.graph(file.lazy.file as Parameters<typeof tsm.graph>[0]));
  if (file.lazy.format === "onnx") return onnxGraphDocument(file.lazy.file as onnx.OnnxModel);
  if (file.lazy.format === "april") return aprilGraphDocument(file.lazy.file as april.AprilFile, april.NETWORK_NAMES);
  return undefined;
}

/** Formats whose files have a graph view: TenniS / SeetaFace6, ONNX, april (its three networks). */
export function hasGraph(format: string | undefined): boolean {
  return format === "tsm" || format === "onnx" || format === "april";
}

/** What "Export ONNX" can do for the opened TenniS module. */
type OnnxExportState =
  | { state: "checking" }
  | { state: "convertible"; module: tsm.TsmFile }
  | { state: "blocked"; text: string }
  | { state: "failed"; text: string };

/** Above this size the module is read whole (for the ONNX check) only when the button is pressed. */
const ONNX_CHECK_MAX_BYTES = 256 * 1024 * 1024;

const MIN_SCALE = 0.01;
const MAX_SCALE = 4;

/** Header colours by op family, as Netron does (layer, activation, normalisation, pooling, shape, data). */
function opColour(node: GraphNode): string {
  if (node.kind === "input") return "#2e8b57";
  if (node.kind === "output") return "#c0392b";
  if (node.kind === "const") return "#7f8c8d";
  const op = node.op.toLowerCase();
  if (/conv|inner_prod|gemm|matmul|dense|linear|lstm|gru|rnn/.test(op)) return "#3467a8";
  if (/relu|sigmoid|tanh|softmax|prelu|elu|gelu|swish|silu|clip|limit/.test(op)) return "#8b2f2f";
  if (/norm|batch|scale|bias|dropout/.test(op)) return "#3c6e47";
  if (/pool|resize|sample|upsample/.test(op)) return "#2f6e6e";
  if (/concat|reshape|flatten|transpose|pack|split|slice|gather|copy|shape|crop|pad|squeeze/.test(op)) return "#6b5a3a";
  return "#4b5563";
}

interface Frame {
  model: GraphModel;
  title: string;
}

export class GraphView {
  private document: GraphDocument | undefined;
  /** The graph shown and the subgraphs opened above it (a breadcrumb). */
  private stack: Frame[] = [];
  private layout: Positioned | undefined;
  private layoutMs = 0;
  private error: string | undefined;
  private selected: number | undefined;
  private hits: number[] = [];
  private hitIndex = -1;
  private view = { x: 0, y: 0, scale: 1 };
  private canvas: HTMLCanvasElement | undefined;
  private minimap: HTMLCanvasElement | undefined;
  private minimapImage: HTMLCanvasElement | undefined;
  private side: HTMLElement | undefined;
  private legend: HTMLElement | undefined;
  private searchInput: HTMLInputElement | undefined;
  private searchCount: HTMLElement | undefined;
  private picker: HTMLSelectElement | undefined;
  private crumbs: HTMLElement | undefined;
  private generation = 0;
  private drawPending = false;
  /** tsm files: whether the module converts to ONNX (undefined: not checked yet). */
  private onnxExport: OnnxExportState | { state: "unchecked" } | undefined;
  private onnxButton: HTMLButtonElement | undefined;
  private onnxNote: HTMLElement | undefined;
  private colours: Record<string, string> = {};

  constructor(private readonly app: InspectorContext, private readonly root: HTMLElement) {
    document.addEventListener("keydown", (event) => {
      if (this.app.view !== "graph" || !this.searchInput) return;
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "f") {
        event.preventDefault();
        this.searchInput.focus();
        this.searchInput.select();
      } else if (event.key === "Escape" && this.selected !== undefined && !inTextField(event)) {
        this.select(undefined);
      }
    });
    window.addEventListener("resize", () => {
      if (this.app.view === "graph") this.requestDraw();
    });
  }

  private get model(): GraphModel | undefined {
    return this.stack.at(-1)?.model;
  }

  reset(): void {
    this.document = undefined;
    this.stack = [];
    this.layout = undefined;
    this.error = undefined;
    this.selected = undefined;
    this.hits = [];
    this.hitIndex = -1;
    this.generation++;
    this.onnxExport = undefined;
    this.onnxButton = undefined;
    this.onnxNote = undefined;
    clear(this.root);
    this.canvas = undefined;
  }

  show(): void {
    const file = this.app.current;
    if (!file || !hasGraph(file.lazy.format)) return;
    this.readColours();
    if (!this.document && !this.error) {
      try {
        this.document = graphDocumentOf(this.app);
        const graphs = this.document?.graphs ?? [];
        const index = Math.min(Math.max(0, this.app.state.graph ?? 0), Math.max(0, graphs.length - 1));
        if (graphs[index]) this.stack = [{ model: graphs[index]!, title: graphs[index]!.name }];
      } catch (error) {
        this.error = (error as Error).message;
      }
    }
    if (!this.canvas) this.build();
    if (file.lazy.format === "tsm" && this.onnxExport === undefined) {
      if (file.size <= ONNX_CHECK_MAX_BYTES) void this.checkOnnx();
      else this.onnxExport = { state: "unchecked" };
      this.drawOnnxButton();
    }
    if (this.model && !this.layout && !this.model.error) void this.requestLayout();
    this.requestDraw();
  }

  private readColours(): void {
    for (const name of ["--canvas", "--bg", "--bg2", "--fg", "--fg2", "--accent", "--line", "--warn"]) this.colours[name] = themeColour(name);
  }

  private build(): void {
    clear(this.root);
    this.canvas = h("canvas", { id: "graph", tabindex: 0, "aria-label": "Graph of the module" });
    this.minimap = h("canvas", { id: "graph-minimap", class: "graph-minimap", "aria-label": "Overview of the graph: click or drag to move" });
    this.side = h("div", { class: "graph-side", id: "graph-side" });
    this.legend = h("div", { class: "graph-legend", id: "graph-legend" }, this.model ? `${this.model.nodes.length} nodes · laying out…` : "");
    this.searchInput = h("input", { id: "graph-search", type: "search", placeholder: "Find node, op, weight (Ctrl+F)", "aria-label": "Find a node by name, op type or weight name", spellcheck: "false" });
    this.searchCount = h("span", { class: "muted", id: "graph-search-count" });
    this.searchInput.addEventListener("input", () => this.search(this.searchInput!.value));
    this.searchInput.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        this.nextHit(event.shiftKey ? -1 : 1);
      } else if (event.key === "Escape") {
        this.searchInput!.value = "";
        this.search("");
        this.canvas?.focus();
      }
    });
    const graphs = this.document?.graphs ?? [];
    this.picker = h("select", { id: "graph-picker", "aria-label": "Graph of the file" }, ...graphs.map((g, i) => h("option", { value: String(i) }, g.error ? `${g.name} (not readable)` : g.name)));
    this.picker.hidden = graphs.length < 2;
    this.picker.value = String(Math.max(0, graphs.indexOf(this.stack[0]?.model as GraphModel)));
    this.picker.addEventListener("change", () => this.openGraph(Number(this.picker!.value)));
    this.crumbs = h("span", { class: "graph-crumbs", id: "graph-crumbs" });
    const tools = h("div", { class: "graph-tools" },
      this.picker, this.crumbs,
      h("span", { class: "graph-find" }, this.searchInput,
        h("button", { type: "button", title: "Previous hit (Shift+Enter)", "aria-label": "Previous hit", onclick: () => this.nextHit(-1) }, "↑"),
        h("button", { type: "button", title: "Next hit (Enter)", "aria-label": "Next hit", onclick: () => this.nextHit(1) }, "↓"),
        this.searchCount),
      h("span", { class: "spacer" }),
      h("button", { type: "button", title: "Zoom out (−)", "aria-label": "Zoom out", onclick: () => this.zoomAnimated(1 / 1.5) }, "−"),
      h("button", { type: "button", title: "Zoom in (+)", "aria-label": "Zoom in", onclick: () => this.zoomAnimated(1.5) }, "+"),
      h("button", { type: "button", title: "Back to the top at a readable size (Home)", onclick: () => this.home() }, "top"),
      h("button", { type: "button", title: "Fit the whole graph (0)", onclick: () => this.fit() }, "fit"),
      h("button", { type: "button", id: "graph-export-svg", title: "Save the graph as SVG", onclick: () => this.exportSvg() }, "SVG"),
      h("button", { type: "button", id: "graph-export-png", title: "Save the graph as PNG", onclick: () => void this.exportPng() }, "PNG"));
    if (this.app.current?.lazy.format === "tsm") {
      this.onnxButton = h("button", { type: "button", id: "graph-export-onnx", disabled: true, title: "Convert the TenniS module to ONNX (tsm.toOnnx) and save it", onclick: () => void this.exportOnnx() }, "Export ONNX");
      this.onnxNote = h("div", { class: "graph-onnx-note muted", id: "graph-onnx-note", role: "status" });
      tools.append(this.onnxButton);
    }
    const box = h("div", { class: "graph-canvas-box" }, this.canvas, this.minimap);
    this.root.append(h("div", { class: "graph-layout" }, h("div", { class: "graph-main" }, tools, this.onnxNote ?? null, this.legend, box), this.side));
    this.root.classList.add("graph-root");
    this.wirePointer(this.canvas);
    this.wireMinimap(this.minimap);
    this.drawCrumbs();
    this.drawSide();
  }

  // ---- TenniS → ONNX ----

  /** The opened module read whole (toOnnx needs the weights' values, which a lazy open does not hold). */
  private async eagerModule(): Promise<tsm.TsmFile> {
    const file = this.app.current!;
    const bytes = await file.source.read(0, file.size);
    if (bytes.length !== file.size) throw new Error(`read ${bytes.length} of ${file.size} bytes`);
    return tsm.read(bytes);
  }

  /** tsm.onnxSupport on the eagerly read module: enables the button, or disables it with the blocking ops. */
  private async checkOnnx(): Promise<OnnxExportState> {
    const file = this.app.current;
    this.onnxExport = { state: "checking" };
    this.drawOnnxButton();
    let result: OnnxExportState;
    try {
      const module = await this.eagerModule();
      const support = tsm.onnxSupport(module);
      result = support.convertible ? { state: "convertible", module } : { state: "blocked", text: tsm.describeBlockers(support.blockers) };
    } catch (error) {
      result = { state: "failed", text: (error as Error).message };
    }
    if (file !== this.app.current) return result;
    this.onnxExport = result;
    this.drawOnnxButton();
    return result;
  }

  private drawOnnxButton(): void {
    const button = this.onnxButton;
    const note = this.onnxNote;
    const state = this.onnxExport;
    if (!button || !note || !state) return;
    button.dataset.state = state.state;
    button.disabled = state.state !== "convertible" && state.state !== "unchecked";
    // the note shows only when there is something to say (no line that comes and goes while checking)
    const hidden = state.state !== "blocked" && state.state !== "failed";
    const resized = note.hidden !== hidden;
    note.hidden = hidden;
    if (state.state === "blocked") note.textContent = `Export ONNX is not possible: ${state.text}`;
    else if (state.state === "failed") note.textContent = `Export ONNX: the module could not be read (${state.text})`;
    else note.textContent = "";
    button.title = state.state === "blocked" ? `Cannot convert to ONNX: ${state.text}`
      : state.state === "checking" ? "Checking whether the module converts to ONNX…"
      : state.state === "unchecked" ? `Convert to ONNX (reads the whole ${formatBytes(this.app.current?.size ?? 0)} file first)`
      : "Convert the TenniS module to ONNX (tsm.toOnnx) and save it";
    if (resized) this.requestDraw();
  }

  private async exportOnnx(): Promise<void> {
    let state = this.onnxExport;
    if (!state || state.state === "unchecked") state = await this.checkOnnx();
    if (state.state !== "convertible") return;
    const module = state.module;
    const name = (this.app.current?.name ?? "module").replace(/\.[^.]+$/, "") + ".onnx";
    let bytes: Uint8Array;
    try {
      bytes = tsm.toOnnx(module);
    } catch (error) {
      this.app.setStatus(`Export ONNX failed: ${(error as Error).message}`, true);
      return;
    }
    await this.app.saveStreamed("writing .onnx", name, bytes.length, async (sink) => sink(bytes));
  }

  // ---- graphs and subgraphs ----

  private openGraph(index: number): void {
    const graph = this.document?.graphs[index];
    if (!graph) return;
    this.stack = [{ model: graph, title: graph.name }];
    this.app.setState({ graph: index === 0 ? undefined : index, node: undefined });
    this.switched();
  }

  private openSubgraph(model: GraphModel, title: string): void {
    this.stack.push({ model, title });
    this.switched();
  }

  private switched(): void {
    this.generation++;
    this.layout = undefined;
    this.selected = undefined;
    this.hits = [];
    this.hitIndex = -1;
    if (this.searchInput) this.searchInput.value = "";
    this.minimapImage = undefined;
    this.drawCrumbs();
    this.drawSide();
    if (!this.model?.error) void this.requestLayout();
    this.requestDraw();
  }

  private drawCrumbs(): void {
    const crumbs = this.crumbs;
    if (!crumbs) return;
    clear(crumbs);
    if (this.stack.length < 2) return;
    this.stack.forEach((frame, k) => {
      if (k > 0) crumbs.append(" › ");
      if (k === this.stack.length - 1) crumbs.append(h("b", {}, frame.title));
      else crumbs.append(h("button", { class: "linkish", type: "button", onclick: () => { this.stack = this.stack.slice(0, k + 1); this.switched(); } }, frame.title));
    });
  }

  // ---- layout ----

  private async requestLayout(): Promise<void> {
    const model = this.model;
    if (!model) return;
    const generation = this.generation;
    const started = performance.now();
    try {
      const layout = await this.app.task("graph layout", () => this.app.layoutWorker.request({ kind: "layout", input: layoutInput(model) }));
      if (generation !== this.generation) return;
      this.layout = layout;
      this.layoutMs = performance.now() - started;
      this.minimapImage = undefined;
      const wanted = this.app.state.node;
      const target = wanted !== undefined ? model.nodes.find((n) => n.name === wanted) : undefined;
      if (target) this.focusNode(target.id, false);
      else this.home();
    } catch (error) {
      if (generation !== this.generation) return;
      this.error = error instanceof CancelledError ? "layout cancelled" : (error as Error).message;
    }
    this.requestDraw();
  }

  private size(): { width: number; height: number } {
    const box = this.canvas?.parentElement;
    return { width: Math.max(120, box?.clientWidth ?? 800), height: Math.max(160, box?.clientHeight ?? 560) };
  }

  /** The first view: zoom 1 (labels at 12 px), the top rank at the top, the topmost node centred if the graph is wider than the screen. */
  private home(): void {
    const layout = this.layout;
    const model = this.model;
    if (!layout || !model) return;
    const { width } = this.size();
    this.view.scale = 1;
    let top = model.nodes[0];
    for (const node of model.nodes) if (top === undefined || layout.y[node.id]! < layout.y[top.id]!) top = node;
    if (layout.width <= width) this.view.x = (width - layout.width) / 2;
    else this.view.x = width / 2 - (top ? layout.x[top.id]! : layout.width / 2);
    this.view.y = 8;
    this.requestDraw();
  }

  private fit(): void {
    if (!this.layout) return;
    const { width, height } = this.size();
    const scale = Math.max(MIN_SCALE, Math.min(1.5, (width - 20) / Math.max(1, this.layout.width), (height - 20) / Math.max(1, this.layout.height)));
    this.view.scale = scale;
    this.view.x = (width - this.layout.width * scale) / 2;
    this.view.y = (height - this.layout.height * scale) / 2;
    this.requestDraw();
  }

  private zoomAt(factor: number, px: number, py: number): void {
    const scale = Math.max(MIN_SCALE, Math.min(MAX_SCALE, this.view.scale * factor));
    this.view.x = px - ((px - this.view.x) * scale) / this.view.scale;
    this.view.y = py - ((py - this.view.y) * scale) / this.view.scale;
    this.view.scale = scale;
    this.requestDraw();
  }

  /** A zoom step eased over a few frames about the centre. */
  private zoomAnimated(factor: number): void {
    const { width, height } = this.size();
    const steps = 6;
    const each = Math.pow(factor, 1 / steps);
    let done = 0;
    const step = () => {
      this.zoomAt(each, width / 2, height / 2);
      if (++done < steps) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  private wirePointer(canvas: HTMLCanvasElement): void {
    const pointers = new Map<number, { x: number; y: number }>();
    let drag: { x: number; y: number; vx: number; vy: number; moved: boolean } | undefined;
    let pinch: { distance: number; scale: number } | undefined;
    canvas.addEventListener("pointerdown", (event) => {
      pointers.set(event.pointerId, { x: event.offsetX, y: event.offsetY });
      canvas.setPointerCapture(event.pointerId);
      if (pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        pinch = { distance: Math.hypot(a!.x - b!.x, a!.y - b!.y) || 1, scale: this.view.scale };
        drag = undefined;
      } else {
        drag = { x: event.clientX, y: event.clientY, vx: this.view.x, vy: this.view.y, moved: false };
      }
    });
    canvas.addEventListener("pointermove", (event) => {
      if (pointers.has(event.pointerId)) pointers.set(event.pointerId, { x: event.offsetX, y: event.offsetY });
      if (pinch && pointers.size === 2) {
        const [a, b] = [...pointers.values()];
        const distance = Math.hypot(a!.x - b!.x, a!.y - b!.y) || 1;
        this.zoomAt((pinch.scale * distance) / pinch.distance / this.view.scale, (a!.x + b!.x) / 2, (a!.y + b!.y) / 2);
        return;
      }
      if (!drag) return;
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      this.view.x = drag.vx + dx;
      this.view.y = drag.vy + dy;
      this.requestDraw();
    });
    const release = (event: PointerEvent) => {
      pointers.delete(event.pointerId);
      if (pointers.size < 2) pinch = undefined;
    };
    canvas.addEventListener("pointercancel", (event) => {
      release(event);
      drag = undefined;
    });
    canvas.addEventListener("pointerup", (event) => {
      const wasDrag = drag?.moved || pinch !== undefined;
      release(event);
      const hadDrag = drag !== undefined;
      drag = undefined;
      if (wasDrag || !hadDrag || !this.layout || !this.model) return;
      const node = this.nodeAtScreen(event.offsetX, event.offsetY);
      this.select(node?.id);
    });
    canvas.addEventListener("dblclick", (event) => {
      const node = this.nodeAtScreen(event.offsetX, event.offsetY);
      const weight = node ? this.weightAtScreen(node, event.offsetY) : undefined;
      if (weight) this.app.openTensor(weight);
    });
    canvas.addEventListener("wheel", (event) => {
      event.preventDefault();
      if (event.ctrlKey || event.metaKey || !event.shiftKey) {
        // smooth: proportional to the wheel distance (trackpads send many small deltas, mice a few large ones)
        const delta = event.deltaMode === 1 ? event.deltaY * 16 : event.deltaY;
        this.zoomAt(Math.exp(-delta * (event.ctrlKey ? 0.01 : 0.0015)), event.offsetX, event.offsetY);
      } else {
        this.view.x -= event.deltaY;
        this.requestDraw();
      }
    }, { passive: false });
    canvas.addEventListener("keydown", (event) => {
      if (event.key === "+" || event.key === "=") this.zoomAnimated(1.5);
      else if (event.key === "-") this.zoomAnimated(1 / 1.5);
      else if (event.key === "0") this.fit();
      else if (event.key === "Home") this.home();
      else if (event.key.startsWith("Arrow")) {
        const step = 60;
        if (event.key === "ArrowLeft") this.view.x += step;
        if (event.key === "ArrowRight") this.view.x -= step;
        if (event.key === "ArrowUp") this.view.y += step;
        if (event.key === "ArrowDown") this.view.y -= step;
        this.requestDraw();
      } else return;
      event.preventDefault();
    });
  }

  private nodeAtScreen(sx: number, sy: number): GraphNode | undefined {
    if (!this.layout || !this.model) return undefined;
    return nodeAt(this.model, this.layout, (sx - this.view.x) / this.view.scale, (sy - this.view.y) / this.view.scale);
  }

  /** The tensor of the weight row under screen y in a node's box. */
  private weightAtScreen(node: GraphNode, sy: number): string | undefined {
    if (!this.layout) return undefined;
    const y = (sy - this.view.y) / this.view.scale - (this.layout.y[node.id]! - node.height / 2) - BOX.header;
    const row = Math.floor(y / BOX.row);
    return row >= 0 ? node.weights[row]?.tensors[0] : undefined;
  }

  private wireMinimap(minimap: HTMLCanvasElement): void {
    let dragging = false;
    const move = (event: PointerEvent) => {
      const layout = this.layout;
      if (!layout) return;
      const { scaleX, scaleY, offsetX, offsetY } = this.minimapTransform();
      let gx = (event.offsetX - offsetX) / scaleX;
      let gy = (event.offsetY - offsetY) / scaleY;
      // snap to the nearest box within 12 minimap pixels, so a click lands on the graph, not beside it (one
      // minimap pixel can be thousands of layout pixels on a tall graph)
      let best = 144;
      let snapped: GraphNode | undefined;
      for (const node of this.model?.nodes ?? []) {
        const dx = (layout.x[node.id]! - gx) * scaleX;
        const dy = (layout.y[node.id]! - gy) * scaleY;
        if (dx * dx + dy * dy < best) {
          best = dx * dx + dy * dy;
          snapped = node;
        }
      }
      if (snapped) {
        gx = layout.x[snapped.id]!;
        gy = layout.y[snapped.id]!;
      }
      const { width, height } = this.size();
      this.view.x = width / 2 - gx * this.view.scale;
      this.view.y = height / 2 - gy * this.view.scale;
      this.requestDraw();
    };
    minimap.addEventListener("pointerdown", (event) => {
      dragging = true;
      minimap.setPointerCapture(event.pointerId);
      move(event);
    });
    minimap.addEventListener("pointermove", (event) => {
      if (dragging) move(event);
    });
    minimap.addEventListener("pointerup", () => (dragging = false));
    minimap.addEventListener("wheel", (event) => {
      event.preventDefault();
      const { width, height } = this.size();
      this.zoomAt(Math.exp(-event.deltaY * 0.0015), width / 2, height / 2);
    }, { passive: false });
  }

  private minimapSize(): { width: number; height: number } {
    const { width, height } = this.size();
    const layout = this.layout;
    const maxW = Math.round(Math.max(60, Math.min(160, width * 0.25)));
    const maxH = Math.round(Math.max(80, Math.min(220, height * 0.4)));
    if (!layout) return { width: maxW, height: maxH };
    const ratio = layout.width / Math.max(1, layout.height);
    if (ratio >= maxW / maxH) return { width: maxW, height: Math.max(40, Math.round(maxW / ratio)) };
    // tall graphs: a strip at least 60 px wide (then stretched across, so a click is precise in x too)
    return { width: Math.max(60, Math.round(maxH * ratio)), height: maxH };
  }

  /** Layout units → minimap pixels (x and y scales differ for very tall or wide graphs). */
  private minimapTransform(): { scaleX: number; scaleY: number; offsetX: number; offsetY: number } {
    const layout = this.layout!;
    const { width, height } = this.minimapSize();
    return { scaleX: (width - 4) / Math.max(1, layout.width), scaleY: (height - 4) / Math.max(1, layout.height), offsetX: 2, offsetY: 2 };
  }

  // ---- selection and search ----

  private select(id: number | undefined): void {
    this.selected = id;
    const node = id !== undefined ? this.model?.nodes[id] : undefined;
    this.app.setState({ node: node?.name });
    this.drawSide();
    this.requestDraw();
  }

  private search(query: string): void {
    const model = this.model;
    this.hits = model ? searchGraph(model, query).map((hit) => hit.node) : [];
    this.hitIndex = -1;
    if (this.searchCount) this.searchCount.textContent = query.trim() === "" ? "" : this.hits.length === 0 ? "no match" : `${this.hits.length} match${this.hits.length === 1 ? "" : "es"}`;
    if (this.hits.length > 0) this.nextHit(1);
    else this.requestDraw();
  }

  private nextHit(direction: 1 | -1): void {
    if (this.hits.length === 0) return;
    this.hitIndex = (this.hitIndex + direction + this.hits.length) % this.hits.length;
    if (this.searchCount) this.searchCount.textContent = `${this.hitIndex + 1} of ${this.hits.length}`;
    this.focusNode(this.hits[this.hitIndex]!, true);
  }

  /** Selects a node and centres it, at a readable zoom. */
  private focusNode(id: number, readable = true): void {
    this.select(id);
    if (this.layout) {
      if (readable && this.view.scale < 0.9) this.view.scale = 1;
      const { width, height } = this.size();
      this.view.x = width / 2 - this.layout.x[id]! * this.view.scale;
      this.view.y = height / 2 - this.layout.y[id]! * this.view.scale;
    }
    this.requestDraw();
  }

  // ---- drawing ----

  private requestDraw(): void {
    if (this.drawPending) return;
    this.drawPending = true;
    requestAnimationFrame(() => {
      this.drawPending = false;
      this.draw();
    });
  }

  private draw(): void {
    const canvas = this.canvas;
    if (!canvas || this.root.hidden) return;
    const { width, height } = this.size();
    const context = prepareCanvas(canvas, width, height);
    context.fillStyle = this.colours["--canvas"]!;
    context.fillRect(0, 0, width, height);
    const model = this.model;
    const layout = this.layout;
    canvas.dataset.graph = model?.name ?? "";
    canvas.dataset.depth = String(this.stack.length);
    canvas.dataset.error = model?.error ?? "";
    if (model?.error) {
      delete canvas.dataset.engine;
      if (this.legend) this.legend.textContent = `no graph for ${model.name}: ${model.error}`;
      context.fillStyle = this.colours["--fg2"]!;
      context.font = "13px system-ui, sans-serif";
      context.textBaseline = "top";
      context.fillText(`${model.name} is not a readable ONNX network:`, 12, 12, width - 24);
      context.fillText(model.error, 12, 32, width - 24);
      return;
    }
    if (this.legend) {
      this.legend.textContent = model
        ? `${model.nodes.length} boxes (${model.sourceNodes} nodes, weights inside their consumer) · ${model.edges.length} edges · ${layout ? `layout: ${layout.engine}, ${(this.layoutMs / 1000).toFixed(2)} s` : this.error ?? "laying out…"}`
        : this.error ? `no graph: ${this.error}` : "";
    }
    if (!model || !layout) {
      delete canvas.dataset.engine;
      return;
    }
    const visible = this.paint(context, { x: -this.view.x / this.view.scale, y: -this.view.y / this.view.scale, width: width / this.view.scale, height: height / this.view.scale }, this.view.scale);
    canvas.dataset.nodes = String(model.nodes.length);
    canvas.dataset.sourceNodes = String(model.sourceNodes);
    canvas.dataset.edges = String(model.edges.length);
    canvas.dataset.engine = layout.engine;
    canvas.dataset.layoutMs = String(Math.round(this.layoutMs));
    canvas.dataset.scale = this.view.scale.toFixed(4);
    canvas.dataset.labelPx = (BOX.font * this.view.scale).toFixed(2);
    canvas.dataset.weightLabelPx = (BOX.smallFont * this.view.scale).toFixed(2);
    canvas.dataset.visibleOps = String(visible.ops);
    canvas.dataset.visibleWeights = String(visible.weights);
    canvas.dataset.selected = this.selected !== undefined ? model.nodes[this.selected]?.name ?? "" : "";
    this.drawMinimap();
  }

  /**
   * Paints the part of the graph inside `area` (layout units) at `scale` on a context whose origin is the
   * area's top-left corner; returns how many op boxes and weight rows were drawn with their text.
   */
  private paint(context: CanvasRenderingContext2D, area: { x: number; y: number; width: number; height: number }, scale: number): { ops: number; weights: number } {
    const model = this.model!;
    const layout = this.layout!;
    const colours = this.colours;
    const selected = this.selected;
    const hitSet = new Set(this.hits);
    const related = new Set<number>();
    if (selected !== undefined) {
      const node = model.nodes[selected];
      for (const id of [...(node?.inputs ?? []), ...(node?.consumers ?? [])]) related.add(id);
    }
    const x0 = area.x;
    const y0 = area.y;
    const x1 = area.x + area.width;
    const y1 = area.y + area.height;
    context.save();
    context.scale(scale, scale);
    context.translate(-x0, -y0);
    // edges (those whose bounding box meets the area)
    context.lineWidth = 1 / Math.max(0.5, scale);
    const plain: typeof layout.edges = [];
    const hot: typeof layout.edges = [];
    for (const edge of layout.edges) {
      let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
      for (const p of edge.points) {
        if (p.x < minX) minX = p.x;
        if (p.x > maxX) maxX = p.x;
        if (p.y < minY) minY = p.y;
        if (p.y > maxY) maxY = p.y;
      }
      if (maxX < x0 || minX > x1 || maxY < y0 || minY > y1) continue;
      (selected !== undefined && (edge.from === selected || edge.to === selected) ? hot : plain).push(edge);
    }
    const stroke = (edges: typeof layout.edges, colour: string, alpha: number) => {
      context.strokeStyle = colour;
      context.fillStyle = colour;
      context.globalAlpha = alpha;
      context.beginPath();
      for (const edge of edges) edge.points.forEach((p, i) => (i === 0 ? context.moveTo(p.x, p.y) : context.lineTo(p.x, p.y)));
      context.stroke();
      if (scale < 0.2) return;
      context.beginPath();
      for (const edge of edges) {
        const last = edge.points.at(-1)!;
        const before = edge.points.at(-2) ?? edge.points[0]!;
        const angle = Math.atan2(last.y - before.y, last.x - before.x);
        context.moveTo(last.x, last.y);
        context.lineTo(last.x - 7 * Math.cos(angle - 0.4), last.y - 7 * Math.sin(angle - 0.4));
        context.lineTo(last.x - 7 * Math.cos(angle + 0.4), last.y - 7 * Math.sin(angle + 0.4));
        context.closePath();
      }
      context.fill();
    };
    stroke(plain, colours["--fg2"]!, 0.6);
    stroke(hot, colours["--accent"]!, 1);
    context.globalAlpha = 1;
    const showText = BOX.smallFont * scale >= 4;
    let ops = 0;
    let weights = 0;
    for (const node of model.nodes) {
      const cx = layout.x[node.id]!;
      const cy = layout.y[node.id]!;
      const x = cx - node.width / 2;
      const y = cy - node.height / 2;
      if (x > x1 || x + node.width < x0 || y > y1 || y + node.height < y0) continue;
      const colour = opColour(node);
      const isHit = hitSet.has(node.id);
      context.fillStyle = colours["--bg2"]!;
      context.beginPath();
      context.roundRect(x, y, node.width, node.height, 4);
      context.fill();
      context.fillStyle = colour;
      context.beginPath();
      context.roundRect(x, y, node.width, BOX.header, node.weights.length > 0 ? [4, 4, 0, 0] : 4);
      context.fill();
      context.lineWidth = (node.id === selected ? 3 : isHit ? 2.5 : 1) / Math.max(0.5, scale);
      context.strokeStyle = node.id === selected ? colours["--accent"]! : isHit ? colours["--warn"]! : related.has(node.id) ? colours["--fg"]! : colours["--line"]!;
      context.beginPath();
      context.roundRect(x, y, node.width, node.height, 4);
      context.stroke();
      if (!showText) continue;
      context.textBaseline = "middle";
      context.textAlign = "center";
      context.fillStyle = "#ffffff";
      context.font = `600 ${BOX.font}px system-ui, sans-serif`;
      context.fillText(headerText(node), cx, y + BOX.header / 2, node.width - 8);
      if (node.kind === "op") ops++;
      if (node.weights.length > 0) {
        context.textAlign = "left";
        context.font = `${BOX.smallFont}px ui-monospace, monospace`;
        context.fillStyle = colours["--fg"]!;
        node.weights.forEach((weight, k) => {
          context.fillText(weightText(weight), x + 8, y + BOX.header + BOX.padding / 2 + k * BOX.row + BOX.row / 2, node.width - 12);
          weights++;
        });
      }
    }
    context.restore();
    return { ops, weights };
  }

  private drawMinimap(): void {
    const minimap = this.minimap;
    const layout = this.layout;
    const model = this.model;
    if (!minimap || !layout || !model) return;
    const { width, height } = this.minimapSize();
    const { scaleX, scaleY, offsetX, offsetY } = this.minimapTransform();
    if (!this.minimapImage || this.minimapImage.width !== width || this.minimapImage.height !== height) {
      const image = document.createElement("canvas");
      image.width = width;
      image.height = height;
      const c = image.getContext("2d")!;
      c.fillStyle = this.colours["--bg"]!;
      c.fillRect(0, 0, width, height);
      for (const node of model.nodes) {
        c.fillStyle = opColour(node);
        c.fillRect(offsetX + (layout.x[node.id]! - node.width / 2) * scaleX, offsetY + (layout.y[node.id]! - node.height / 2) * scaleY, Math.max(1, node.width * scaleX), Math.max(1, node.height * scaleY));
      }
      this.minimapImage = image;
    }
    const context = prepareCanvas(minimap, width, height);
    context.drawImage(this.minimapImage, 0, 0, width, height);
    const size = this.size();
    const vx = offsetX + (-this.view.x / this.view.scale) * scaleX;
    const vy = offsetY + (-this.view.y / this.view.scale) * scaleY;
    const vw = (size.width / this.view.scale) * scaleX;
    const vh = (size.height / this.view.scale) * scaleY;
    context.strokeStyle = this.colours["--accent"]!;
    context.lineWidth = 1.5;
    context.fillStyle = "rgba(91, 141, 239, 0.15)";
    context.fillRect(vx, vy, Math.max(3, vw), Math.max(3, vh));
    context.strokeRect(vx, vy, Math.max(3, vw), Math.max(3, vh));
    if (this.selected !== undefined) {
      context.fillStyle = this.colours["--warn"]!;
      context.fillRect(offsetX + layout.x[this.selected]! * scaleX - 2, offsetY + layout.y[this.selected]! * scaleY - 2, 4, 4);
    }
  }

  // ---- side panel ----

  private drawSide(): void {
    const side = this.side;
    const model = this.model;
    if (!side) return;
    clear(side);
    if (!model) {
      side.append(h("p", { class: "muted" }, this.error ? `no graph: ${this.error}` : ""));
      return;
    }
    if (model.error) {
      side.append(h("h3", {}, model.name), h("p", { id: "graph-error" }, `not a readable ONNX network: ${model.error}`));
      return;
    }
    const node = this.selected !== undefined ? model.nodes[this.selected] : undefined;
    if (!node) {
      const name = (id: number) => model.nodes[id]?.name ?? String(id);
      const weightCount = model.nodes.reduce((a, n) => a + n.weights.length, 0);
      side.append(
        h("h3", {}, model.name),
        h("dl", { class: "kv" },
          h("dt", {}, "nodes"), h("dd", { id: "graph-node-count" }, model.sourceNodes),
          h("dt", {}, "boxes"), h("dd", {}, model.nodes.length),
          h("dt", {}, "weights"), h("dd", {}, weightCount),
          h("dt", {}, "edges"), h("dd", {}, model.edges.length),
          h("dt", {}, "inputs"), h("dd", {}, model.inputs.map(name).join(", ")),
          h("dt", {}, "outputs"), h("dd", {}, model.outputs.map(name).join(", "))),
        h("h3", {}, "ops"),
        h("dl", { class: "kv" }, ...model.ops.flatMap(([op, count]) => [h("dt", {}, op), h("dd", {}, count)])),
        h("p", { class: "muted" }, "Click a node for its attributes and weights; double-click a weight row for its tensor."),
      );
      return;
    }
    const link = (id: number) => {
      const other = model.nodes[id];
      return h("li", {}, h("button", { class: "linkish", type: "button", onclick: () => this.focusNode(id) }, other ? `${other.op} ${other.name}` : String(id)));
    };
    const tensorButton = (label: string, tensor: string) => h("button", { type: "button", class: "linkish", "data-tensor": tensor, title: `statistics, histogram and heatmap of ${tensor}`, onclick: () => this.app.openTensor(tensor) }, label);
    const parts: (Node | null)[] = [
      h("h3", {}, node.op),
      h("div", { class: "mono", style: "word-break:break-all", id: "graph-node-name" }, node.name),
      ...node.tensors.map((t) => h("p", {}, h("button", { type: "button", class: "primary", "data-tensor": t, onclick: () => this.app.openTensor(t) }, `statistics & heatmap: ${t}`))),
      node.weights.length > 0 ? h("h3", {}, "weights") : null,
      node.weights.length > 0
        ? h("ul", { class: "graph-weights", id: "graph-weights" }, ...node.weights.map((w) => h("li", {},
          w.tensors[0] ? tensorButton(weightText(w), w.tensors[0]) : h("span", {}, weightText(w)),
          h("span", { class: "muted" }, ` ${w.dtype} · ${w.name}`))))
        : null,
      node.attrs.length > 0 ? h("h3", {}, "attributes") : null,
      node.attrs.length > 0 ? h("dl", { class: "kv", id: "graph-attributes" }, ...node.attrs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", { class: "mono", style: "word-break:break-all" }, v)])) : null,
      node.inputs.length > 0 ? h("h3", {}, "inputs") : null,
      node.inputs.length > 0 ? h("ul", { id: "graph-inputs" }, ...node.inputs.map(link)) : null,
      node.consumers.length > 0 ? h("h3", {}, "used by") : null,
      node.consumers.length > 0 ? h("ul", { id: "graph-consumers" }, ...node.consumers.map(link)) : null,
      node.subgraphs.length > 0 ? h("h3", {}, "subgraphs") : null,
      node.subgraphs.length > 0 ? h("ul", {}, ...node.subgraphs.map((s) => h("li", {}, h("button", { type: "button", class: "linkish", onclick: () => this.openSubgraph(s.graph, `${node.name}.${s.name}`) }, `open ${s.name} (${s.graph.nodes.length} nodes)`)))) : null,
      h("p", {}, h("button", { class: "linkish", type: "button", onclick: () => this.select(undefined) }, "graph overview")),
    ];
    for (const part of parts) if (part) side.append(part);
  }

  // ---- export ----

  private fileStem(): string {
    return (this.app.current?.name ?? "graph").replace(/\.[^.]+$/, "") + (this.stack.length > 1 || (this.document?.graphs.length ?? 0) > 1 ? `-${this.stack.at(-1)!.title.replace(/[^\w.-]+/g, "_")}` : "");
  }

  /** The whole graph as SVG text (boxes, weight rows, edges), in the current theme's colours. */
  svgText(): string {
    const model = this.model;
    const layout = this.layout;
    if (!model || !layout) return "";
    const esc = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
    const c = this.colours;
    const parts: string[] = [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(layout.width)}" height="${Math.ceil(layout.height)}" viewBox="0 0 ${Math.ceil(layout.width)} ${Math.ceil(layout.height)}" font-family="system-ui, sans-serif">`,
      `<rect width="100%" height="100%" fill="${c["--canvas"]}"/>`,
      `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="${c["--fg2"]}"/></marker></defs>`,
      `<g fill="none" stroke="${c["--fg2"]}" stroke-opacity="0.7">`,
    ];
    for (const edge of layout.edges) parts.push(`<polyline marker-end="url(#arrow)" points="${edge.points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ")}"/>`);
    parts.push("</g>");
    for (const node of model.nodes) {
      const x = layout.x[node.id]! - node.width / 2;
      const y = layout.y[node.id]! - node.height / 2;
      parts.push(`<g><title>${esc(`${node.op} ${node.name}`)}</title>`,
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${node.width}" height="${node.height}" rx="4" fill="${c["--bg2"]}" stroke="${c["--line"]}"/>`,
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${node.width}" height="${BOX.header}" rx="4" fill="${opColour(node)}"/>`,
        `<text x="${layout.x[node.id]!.toFixed(1)}" y="${(y + BOX.header / 2 + 4).toFixed(1)}" text-anchor="middle" font-size="${BOX.font}" font-weight="600" fill="#fff">${esc(headerText(node))}</text>`);
      node.weights.forEach((weight, k) => {
        parts.push(`<text x="${(x + 8).toFixed(1)}" y="${(y + BOX.header + BOX.padding / 2 + k * BOX.row + BOX.row / 2 + 4).toFixed(1)}" font-size="${BOX.smallFont}" font-family="ui-monospace, monospace" fill="${c["--fg"]}">${esc(weightText(weight))}</text>`);
      });
      parts.push("</g>");
    }
    parts.push("</svg>");
    return parts.join("\n");
  }

  private exportSvg(): void {
    const text = this.svgText();
    if (!text) return;
    download([text], `${this.fileStem()}.svg`, "image/svg+xml");
    this.app.setStatus(`saved ${this.fileStem()}.svg`);
  }

  /** The whole graph as PNG, at zoom 1 when it fits in 16,384 px and 120 M pixels, smaller otherwise. */
  private async exportPng(): Promise<void> {
    const layout = this.layout;
    if (!layout || !this.model) return;
    const scale = Math.min(1, 16384 / layout.width, 16384 / layout.height, Math.sqrt(120e6 / Math.max(1, layout.width * layout.height)));
    const canvas = document.createElement("canvas");
    canvas.width = Math.max(1, Math.ceil(layout.width * scale));
    canvas.height = Math.max(1, Math.ceil(layout.height * scale));
    const context = canvas.getContext("2d")!;
    context.fillStyle = this.colours["--canvas"]!;
    context.fillRect(0, 0, canvas.width, canvas.height);
    this.paint(context, { x: 0, y: 0, width: layout.width, height: layout.height }, scale);
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/png"));
    if (!blob) {
      this.app.setStatus("PNG export failed (the canvas was too big for this browser)", true);
      return;
    }
    download(blob, `${this.fileStem()}.png`, "image/png");
    this.app.setStatus(`saved ${this.fileStem()}.png (${canvas.width}×${canvas.height} px${scale < 1 ? `, scaled ${scale.toFixed(3)}` : ""})`);
  }
}
