/**
 * The graph view over the format-neutral GraphModel (model/graph.ts; TenniS / SeetaFace6 through graph-tsm.ts,
 * ONNX and april's three networks through graph-onnx.ts; a TenniS module also gets "Export ONNX",
 * graph/onnx-export.ts). Weights are rows inside their consumer's box. Laid out in the layout worker (dagre for
 * small graphs, our layered layout for big ones), drawn on a canvas (only what is on screen, graph/paint.ts),
 * opening on the TOP of the graph at zoom 1 (12 px labels), not a fit of the whole (graph/camera.ts). A minimap
 * moves around (graph/minimap.ts); wheel / pinch / +/− zoom smoothly about the pointer, drag pans
 * (graph/pointer.ts). Search (Ctrl/⌘-F: node name, op type, weight name) centres and highlights hits. A click
 * shows the node's attributes, inputs, consumers and weights (graph/side-panel.ts), each one click from its
 * tensor view. Export as SVG and PNG. A picker chooses among several graphs of a file; subgraphs open from the
 * side panel, or "Expand" draws them in place inside their node's box (model/graph-expand.ts: the view draws the
 * flattened graph; the URL keeps the expanded keys).
 */
import {
  BOX,
  type GraphDocument,
  type GraphModel,
  type GraphNode,
  type Positioned,
  graphTensors,
  nodeAt,
  nodeCountText,
  searchGraph,
} from "../model/graph.js";
import { type ExpandedGraph, applyContainerSizes, expandGraph } from "../model/graph-expand.js";
import { layoutInput } from "../model/layout.js";
import { CancelledError } from "../model/tensor-data.js";
import type { InspectorContext } from "./context.js";
import { clear, download, h, inTextField, prepareCanvas, themeColour } from "./dom.js";
import { Camera, type Screen } from "./graph/camera.js";
import { graphDocumentOf, hasGraph, loadGraphConstants } from "./graph/document.js";
import { INFERRED_MARK } from "../model/shape-infer.js";
import { Minimap } from "./graph/minimap.js";
import { OnnxExport } from "./graph/onnx-export.js";
import { COLOUR_NAMES, type Colours, graphSvg, paintGraph, pngParts } from "./graph/paint.js";
import { wirePointer } from "./graph/pointer.js";
import { type PropertiesExtra, renderSidePanel } from "./graph/side-panel.js";

export { graphDocumentOf, hasGraph };

interface Frame {
  model: GraphModel;
  title: string;
  /** How it was reached from the frame below: `<node name>:<subgraph name>` (the URL's `sg=`). */
  step?: string | undefined;
}

/** The frames a link's subgraph path opens from a graph (as far as its steps still match the file). */
export function subgraphFrames(root: GraphModel, steps: readonly string[]): Frame[] {
  const frames: Frame[] = [];
  let model = root;
  for (const step of steps) {
    const colon = step.lastIndexOf(":");
    const nodeName = step.slice(0, colon);
    const subName = step.slice(colon + 1);
    const node = model.nodes.find((n) => n.name === nodeName);
    const sub = node?.subgraphs.find((s) => s.name === subName);
    if (colon < 0 || !node || !sub) break;
    frames.push({ model: sub.graph, title: `${node.name}.${sub.name}`, step });
    model = sub.graph;
  }
  return frames;
}

export class GraphView {
  private document: GraphDocument | undefined;
  /** The graph shown and the subgraphs opened above it (a breadcrumb). */
  private stack: Frame[] = [];
  layout: Positioned | undefined;
  private layoutMs = 0;
  private error: string | undefined;
  selected: number | undefined;
  private hits: number[] = [];
  private hitIndex = -1;
  readonly camera = new Camera();
  private canvas: HTMLCanvasElement | undefined;
  private minimap: Minimap | undefined;
  private side: HTMLElement | undefined;
  private legend: HTMLElement | undefined;
  private searchInput: HTMLInputElement | undefined;
  private searchCount: HTMLElement | undefined;
  private picker: HTMLSelectElement | undefined;
  private crumbs: HTMLElement | undefined;
  private generation = 0;
  /** The file whose small constants were asked for (their values are loaded after the graph first shows). */
  private constantsFor: unknown;
  private drawPending = false;
  /** The first view of a new layout, applied at the first draw whose canvas box has a size. */
  private firstView: number | "home" | { expanded: number } | undefined;
  /** Keys of the boxes whose subgraphs are drawn in place (graph-expand.ts; the URL's `x=`). */
  private expanded = new Set<string>();
  /** The shown graph with its expanded subgraphs (what is laid out and drawn). */
  private view: ExpandedGraph | undefined;
  private expandButton: HTMLButtonElement | undefined;
  /** tsm files: "Export ONNX". */
  private onnxExport: OnnxExport | undefined;
  readonly colours: Colours = {};

  constructor(
    private readonly app: InspectorContext,
    private readonly root: HTMLElement,
  ) {
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

  /** The graph drawn: the open graph or subgraph, with the boxes of its expanded subgraphs. */
  get model(): GraphModel | undefined {
    return this.view?.model ?? this.stack.at(-1)?.model;
  }

  private refreshView(): void {
    const shown = this.stack.at(-1)?.model;
    this.view = shown ? expandGraph(shown, this.expanded) : undefined;
  }

  reset(): void {
    this.document = undefined;
    this.stack = [];
    this.layout = undefined;
    this.error = undefined;
    this.selected = undefined;
    this.hits = [];
    this.hitIndex = -1;
    this.firstView = undefined;
    this.generation++;
    this.onnxExport = undefined;
    this.constantsFor = undefined;
    this.expanded = new Set();
    this.view = undefined;
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
        if (graphs[index])
          this.stack = [
            { model: graphs[index]!, title: graphs[index]!.name },
            ...subgraphFrames(graphs[index]!, this.app.state.subgraph ?? []),
          ];
        this.expanded = new Set(this.app.state.expand ?? []);
        this.refreshView();
      } catch (error) {
        this.error = (error as Error).message;
      }
    }
    if (!this.canvas) this.build();
    if (this.document && this.constantsFor !== file) {
      this.constantsFor = file;
      void this.showConstants(file);
    }
    this.onnxExport?.start();
    if (this.model && !this.layout && !this.model.error) void this.requestLayout();
    this.requestDraw();
  }

  /**
   * Redraws the graph with its small constants' values (`B = 16000`) and the shapes they settle, once they are
   * loaded; the graph shown meanwhile has the same boxes (ids, subgraphs), so the selection and open subgraphs stay.
   */
  private async showConstants(file: NonNullable<InspectorContext["current"]>): Promise<void> {
    let values;
    try {
      values = await loadGraphConstants(file);
    } catch {
      return; // the graph keeps its `B ⟨⟩` rows
    }
    if (values.size === 0 || this.app.current !== file || this.constantsFor !== file || !this.document) return;
    const document = graphDocumentOf(this.app, values);
    const index = this.document.graphs.indexOf(this.stack[0]?.model as GraphModel);
    const root = document?.graphs[index];
    if (!document || !root) return;
    this.document = document;
    this.stack = [
      { model: root, title: root.name },
      ...subgraphFrames(
        root,
        this.stack.slice(1).map((f) => f.step ?? ""),
      ),
    ];
    this.refreshView(); // the expanded subgraphs stay expanded
    this.generation++;
    this.layout = undefined;
    this.minimap?.invalidate();
    this.drawSide();
    if (!this.model?.error) void this.requestLayout();
    this.requestDraw();
  }

  private readColours(): void {
    for (const name of COLOUR_NAMES) this.colours[name] = themeColour(name);
  }

  private build(): void {
    clear(this.root);
    this.canvas = h("canvas", { id: "graph", tabindex: 0, "aria-label": "Graph of the module" });
    const minimapCanvas = h("canvas", {
      id: "graph-minimap",
      class: "graph-minimap",
      "aria-label": "Overview of the graph: click or drag to move",
    });
    this.minimap = new Minimap(minimapCanvas, this);
    this.side = h("div", { class: "graph-side", id: "graph-side" });
    this.legend = h(
      "div",
      { class: "graph-legend", id: "graph-legend" },
      this.model ? `${this.model.nodes.length} nodes · laying out…` : "",
    );
    this.searchInput = h("input", {
      id: "graph-search",
      type: "search",
      placeholder: "Find node, op, weight (Ctrl+F)",
      "aria-label": "Find a node by name, op type or weight name",
      spellcheck: "false",
    });
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
    this.picker = h(
      "select",
      { id: "graph-picker", "aria-label": "Graph of the file" },
      ...graphs.map((g, i) => h("option", { value: String(i) }, g.error ? `${g.name} (not readable)` : g.name)),
    );
    this.picker.hidden = graphs.length < 2;
    this.picker.value = String(Math.max(0, graphs.indexOf(this.stack[0]?.model as GraphModel)));
    this.picker.addEventListener("change", () => this.openGraph(Number(this.picker!.value)));
    this.crumbs = h("span", { class: "graph-crumbs", id: "graph-crumbs" });
    const tools = h(
      "div",
      { class: "graph-tools" },
      this.picker,
      this.crumbs,
      h(
        "span",
        { class: "graph-find" },
        this.searchInput,
        h(
          "button",
          {
            type: "button",
            title: "Previous hit (Shift+Enter)",
            "aria-label": "Previous hit",
            onclick: () => this.nextHit(-1),
          },
          "↑",
        ),
        h(
          "button",
          { type: "button", title: "Next hit (Enter)", "aria-label": "Next hit", onclick: () => this.nextHit(1) },
          "↓",
        ),
        this.searchCount,
      ),
      h("span", { class: "spacer" }),
      // an icon (a phone's toolbar has no room for a word), named "Properties" for screen readers and tests
      h(
        "button",
        {
          type: "button",
          id: "graph-properties-button",
          "aria-label": "Properties",
          title: "Properties: the model's inputs, outputs, opset, producer, metadata and parameter count",
          onclick: () => this.showProperties(),
        },
        "ⓘ",
      ),
      h(
        "button",
        { type: "button", title: "Zoom out (−)", "aria-label": "Zoom out", onclick: () => this.zoomAnimated(1 / 1.5) },
        "−",
      ),
      h(
        "button",
        { type: "button", title: "Zoom in (+)", "aria-label": "Zoom in", onclick: () => this.zoomAnimated(1.5) },
        "+",
      ),
      h(
        "button",
        { type: "button", title: "Back to the top at a readable size (Home)", onclick: () => this.home() },
        "top",
      ),
      h("button", { type: "button", title: "Fit the whole graph (0)", onclick: () => this.fit() }, "fit"),
      h(
        "button",
        { type: "button", id: "graph-export-svg", title: "Save the graph as SVG", onclick: () => this.exportSvg() },
        "SVG",
      ),
      h(
        "button",
        {
          type: "button",
          id: "graph-export-png",
          title: "Save the graph as PNG",
          onclick: () => void this.exportPng(),
        },
        "PNG",
      ),
    );
    if (OnnxExport.offeredFor(this.app.current?.lazy.format)) {
      this.onnxExport = new OnnxExport(this.app, () => this.requestDraw());
      tools.append(this.onnxExport.button);
    }
    const box = h("div", { class: "graph-canvas-box" }, this.canvas, minimapCanvas);
    this.root.append(
      h(
        "div",
        { class: "graph-layout" },
        h("div", { class: "graph-main" }, tools, this.onnxExport?.note ?? null, this.legend, box),
        this.side,
      ),
    );
    this.root.classList.add("graph-root");
    wirePointer(this.canvas, {
      camera: this.camera,
      requestDraw: () => this.requestDraw(),
      click: (x, y) => {
        if (!this.layout || !this.model) return;
        this.select(this.nodeAtScreen(x, y)?.id);
      },
      doubleClick: (x, y) => {
        const node = this.nodeAtScreen(x, y);
        const weight = node ? this.weightAtScreen(node, y) : undefined;
        if (weight) this.app.openTensor(weight);
      },
      zoomAnimated: (factor) => this.zoomAnimated(factor),
      fit: () => this.fit(),
      home: () => this.home(),
    });
    this.drawCrumbs();
    this.drawSide();
  }

  // ---- graphs and subgraphs ----

  private openGraph(index: number): void {
    const graph = this.document?.graphs[index];
    if (!graph) return;
    this.stack = [{ model: graph, title: graph.name }];
    this.app.setState({ graph: index === 0 ? undefined : index, subgraph: undefined, node: undefined });
    this.switched();
  }

  private openSubgraph(model: GraphModel, title: string, step: string): void {
    // a box drawn inside an expanded box: its own graph's frames first
    const path = this.selected !== undefined ? this.view?.steps[this.selected] : undefined;
    const shown = this.stack.at(-1)?.model;
    if (path && path.length > 0 && shown) this.stack.push(...subgraphFrames(shown, path));
    this.stack.push({ model, title, step });
    this.switched();
  }

  /** Writes the open subgraph's path to the URL (a link reopens it, and a node inside it). */
  private writePath(): void {
    const steps = this.stack.slice(1).map((frame) => frame.step ?? "");
    this.app.setState({ subgraph: steps.length > 0 ? steps : undefined, node: undefined, expand: undefined });
  }

  private switched(): void {
    this.expanded = new Set();
    this.refreshView();
    this.writePath();
    this.firstView = undefined;
    this.generation++;
    this.layout = undefined;
    this.selected = undefined;
    this.hits = [];
    this.hitIndex = -1;
    if (this.searchInput) this.searchInput.value = "";
    this.showSearchCount(""); // no stale "1 of 1" from the graph left behind
    this.minimap?.invalidate();
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
      else
        crumbs.append(
          h(
            "button",
            {
              class: "linkish",
              type: "button",
              onclick: () => {
                this.stack = this.stack.slice(0, k + 1);
                this.switched();
              },
            },
            frame.title,
          ),
        );
    });
  }

  // ---- subgraphs drawn in place ----

  /** Expands a node's subgraphs in place (or collapses them, and those expanded inside them), then lays out again. */
  private toggleExpand(id: number): void {
    const key = this.view?.keys[id];
    if (key === undefined) return;
    if (this.expanded.has(key)) {
      for (const other of [...this.expanded])
        if (other === key || other.startsWith(`${key}:`)) this.expanded.delete(other);
    } else this.expanded.add(key);
    this.app.setState({ expand: this.expanded.size > 0 ? [...this.expanded] : undefined });
    this.refreshView();
    const owner = this.view?.keys.indexOf(key) ?? -1;
    this.generation++;
    this.layout = undefined;
    this.hits = [];
    this.hitIndex = -1;
    this.showSearchCount("");
    if (this.searchInput) this.searchInput.value = "";
    this.minimap?.invalidate();
    this.firstView = owner >= 0 ? { expanded: owner } : undefined;
    this.select(owner >= 0 ? owner : undefined);
    void this.requestLayout();
  }

  /** After an expand or collapse: the node selected, its top near the top of the screen, readable. */
  private showExpanded(id: number): void {
    const node = this.model?.nodes[id];
    if (!this.layout || !node) return;
    this.select(id);
    const screen = this.screen();
    this.camera.centre(this.layout.x[id]!, this.layout.y[id]!, screen, true);
    this.camera.y = 24 - (this.layout.y[id]! - node.height / 2) * this.camera.scale;
    this.requestDraw();
  }

  // ---- layout and camera ----

  private async requestLayout(): Promise<void> {
    const model = this.model;
    if (!model) return;
    const generation = this.generation;
    const started = performance.now();
    try {
      const layout = await this.app.task("graph layout", () =>
        this.app.layoutWorker.request({ kind: "layout", input: this.view?.layout ?? layoutInput(model) }),
      );
      if (generation !== this.generation) return;
      if (this.view) applyContainerSizes(this.view, layout);
      this.layout = layout;
      this.layoutMs = performance.now() - started;
      this.minimap?.invalidate();
      const wanted = this.app.state.node;
      const target = wanted !== undefined ? model.nodes.find((n) => n.name === wanted) : undefined;
      // the first view needs the canvas box's real size: a file that opens straight on its graph gets its layout
      // while the view may not be laid out yet, so the first view waits for a draw with a sized box
      if (this.firstView === undefined || typeof this.firstView !== "object")
        this.firstView = target ? target.id : "home";
    } catch (error) {
      if (generation !== this.generation) return;
      this.error = error instanceof CancelledError ? "layout cancelled" : (error as Error).message;
    }
    this.requestDraw();
  }

  screen(): Screen {
    const box = this.canvas?.parentElement;
    return { width: Math.max(120, box?.clientWidth ?? 800), height: Math.max(160, box?.clientHeight ?? 560) };
  }

  private home(): void {
    if (!this.layout || !this.model) return;
    this.camera.home(this.model, this.layout, this.screen());
    this.requestDraw();
  }

  private fit(): void {
    if (!this.layout) return;
    this.camera.fit(this.layout, this.screen());
    this.requestDraw();
  }

  /** A zoom step eased over a few frames about the centre. */
  private zoomAnimated(factor: number): void {
    const { width, height } = this.screen();
    const steps = 6;
    const each = Math.pow(factor, 1 / steps);
    let done = 0;
    const step = () => {
      this.camera.zoomAt(each, width / 2, height / 2);
      this.requestDraw();
      if (++done < steps) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }

  private nodeAtScreen(sx: number, sy: number): GraphNode | undefined {
    if (!this.layout || !this.model) return undefined;
    const p = this.camera.toLayout(sx, sy);
    return nodeAt(this.model, this.layout, p.x, p.y);
  }

  /** The tensor of the weight row under screen y in a node's box. */
  private weightAtScreen(node: GraphNode, sy: number): string | undefined {
    if (!this.layout) return undefined;
    const y = this.camera.toLayout(0, sy).y - (this.layout.y[node.id]! - node.height / 2) - BOX.header;
    const row = Math.floor(y / BOX.row);
    return row >= 0 ? node.weights[row]?.tensors[0] : undefined;
  }

  // ---- selection and search ----

  private select(id: number | undefined): void {
    this.selected = id;
    const node = id !== undefined ? this.model?.nodes[id] : undefined;
    this.app.setState({ node: node?.name });
    this.drawSide();
    this.requestDraw();
  }

  /**
   * Typing shows the first hit (selected and centred) and says how many there are ("12 matches"); the first Enter
   * (or ↓) then counts that first hit ("1 of 12"), the next one moves on: Enter never skips the first hit.
   */
  private search(query: string): void {
    const model = this.model;
    this.hits = model ? searchGraph(model, query).map((hit) => hit.node) : [];
    this.hitIndex = -1;
    this.showSearchCount(query);
    if (this.hits.length > 0) this.focusNode(this.hits[0]!, true);
    else this.requestDraw();
  }

  private showSearchCount(query: string): void {
    if (!this.searchCount) return;
    this.searchCount.textContent =
      query.trim() === ""
        ? ""
        : this.hits.length === 0
          ? "no match"
          : `${this.hits.length} match${this.hits.length === 1 ? "" : "es"}`;
  }

  private nextHit(direction: 1 | -1): void {
    if (this.hits.length === 0) return;
    // the first step from a fresh search lands on the hit shown while typing (forward) or the last one (back)
    this.hitIndex =
      this.hitIndex < 0
        ? direction === 1
          ? 0
          : this.hits.length - 1
        : (this.hitIndex + direction + this.hits.length) % this.hits.length;
    if (this.searchCount) this.searchCount.textContent = `${this.hitIndex + 1} of ${this.hits.length}`;
    this.focusNode(this.hits[this.hitIndex]!, true);
  }

  /** Selects a node and centres it, at a readable zoom. */
  private focusNode(id: number, readable = true): void {
    this.select(id);
    if (this.layout) this.camera.centre(this.layout.x[id]!, this.layout.y[id]!, this.screen(), readable);
    this.requestDraw();
  }

  // ---- drawing ----

  requestDraw(): void {
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
    if (this.firstView !== undefined && this.layout && (canvas.parentElement?.clientWidth ?? 0) > 0) {
      const first = this.firstView;
      this.firstView = undefined;
      if (first === "home") this.home();
      else if (typeof first === "object") this.showExpanded(first.expanded);
      else this.focusNode(first, false);
    }
    const screen = this.screen();
    const { width, height } = screen;
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
        ? `${model.nodes.length} boxes (${legendNodes(model)}, weights inside their consumer) · ${model.edges.length} edges${inferredLegend(model)} · ${layout ? `layout: ${layout.engine}, ${(this.layoutMs / 1000).toFixed(2)} s` : (this.error ?? "laying out…")}`
        : this.error
          ? `no graph: ${this.error}`
          : "";
    }
    if (!model || !layout) {
      delete canvas.dataset.engine;
      return;
    }
    const visible = paintGraph(
      context,
      model,
      layout,
      this.camera.visibleArea(screen),
      this.camera.scale,
      this.colours,
      { selected: this.selected, hits: this.hits },
    );
    canvas.dataset.nodes = String(model.nodes.length);
    canvas.dataset.sourceNodes = String(model.sourceNodes);
    canvas.dataset.edges = String(model.edges.length);
    canvas.dataset.engine = layout.engine;
    canvas.dataset.layoutWidth = String(Math.ceil(layout.width));
    canvas.dataset.layoutHeight = String(Math.ceil(layout.height));
    canvas.dataset.layoutMs = String(Math.round(this.layoutMs));
    canvas.dataset.scale = this.camera.scale.toFixed(4);
    canvas.dataset.labelPx = (BOX.font * this.camera.scale).toFixed(2);
    canvas.dataset.weightLabelPx = (BOX.smallFont * this.camera.scale).toFixed(2);
    canvas.dataset.visibleOps = String(visible.ops);
    canvas.dataset.visibleWeights = String(visible.weights);
    canvas.dataset.selected = this.selected !== undefined ? (model.nodes[this.selected]?.name ?? "") : "";
    // boxes drawn inside expanded boxes, and the frames holding them (tests count them against the branches)
    canvas.dataset.nestedBoxes = String(model.nodes.length - (this.stack.at(-1)?.model.nodes.length ?? 0));
    canvas.dataset.frames = String(layout.frames?.length ?? 0);
    canvas.dataset.expanded = [...this.expanded].join("\n");
    this.minimap?.draw();
  }

  // ---- side panel ----

  private drawSide(): void {
    if (!this.side) return;
    const model = this.model;
    const node = this.selected !== undefined ? model?.nodes[this.selected] : undefined;
    // the model's properties belong to the file's graph, not to a subgraph opened from it
    const root = this.stack[0]?.model;
    const properties =
      root && this.stack.at(-1)?.model === root
        ? { own: root.properties, extra: this.parameterCount(root) }
        : undefined;
    renderSidePanel(
      this.side,
      model,
      node,
      this.error,
      {
        focusNode: (id) => this.focusNode(id),
        openTensor: (name) => this.app.openTensor(name),
        openSubgraph: (sub, title, step) => this.openSubgraph(sub, title, step),
        select: (id) => this.select(id),
        isExpanded: (id) => (this.view ? this.expanded.has(this.view.keys[id] ?? "") : undefined),
        toggleExpand: (id) => this.toggleExpand(id),
      },
      properties && !properties.own
        ? {
            ...properties,
            own: {
              format: this.app.current?.lazy.format ?? "",
              fields: [],
              metadata: [],
              inputs: model!.inputs.map((id) => ({ name: model!.nodes[id]?.name ?? String(id) })),
              outputs: model!.outputs.map((id) => ({ name: model!.nodes[id]?.name ?? String(id) })),
            },
          }
        : properties,
    );
    const edit = model && !model.error ? this.app.editButton() : undefined;
    if (edit) this.side.querySelector(".graph-panel-actions")?.append(edit);
  }

  /** Elements of the graph's weight tensors (each counted once), from the file's tensor table. */
  private parameterCount(model: GraphModel): PropertiesExtra {
    const names = new Set(graphTensors(model));
    let parameters = 0;
    let weights = 0;
    for (const name of names) {
      const row = this.app.rowByName(name);
      if (!row) continue;
      parameters += row.elements;
      weights++;
    }
    return { parameters, weights };
  }

  /** "Properties": back to the file's graph overview, its Properties section in view and focused. */
  private showProperties(): void {
    if (this.stack.length > 1) {
      this.stack = this.stack.slice(0, 1);
      this.switched();
    }
    if (this.selected !== undefined) this.select(undefined);
    const section = this.side?.querySelector<HTMLElement>("#graph-properties");
    section?.scrollIntoView({ block: "nearest" });
    section?.focus();
  }

  // ---- export ----

  private fileStem(): string {
    return (
      (this.app.current?.name ?? "graph").replace(/\.[^.]+$/, "") +
      (this.stack.length > 1 || (this.document?.graphs.length ?? 0) > 1
        ? `-${this.stack.at(-1)!.title.replace(/[^\w.-]+/g, "_")}`
        : "")
    );
  }

  /** The whole graph as SVG text (boxes, weight rows, edges), in the current theme's colours. */
  svgText(): string {
    return this.model && this.layout ? graphSvg(this.model, this.layout, this.colours) : "";
  }

  private exportSvg(): void {
    const text = this.svgText();
    if (!text) return;
    download([text], `${this.fileStem()}.svg`, "image/svg+xml");
    this.app.setStatus(`saved ${this.fileStem()}.svg`);
  }

  /**
   * The whole graph as PNG at zoom 1, without the selection or search highlights (the file shows the graph, not
   * this session's state); a graph too big for one browser canvas is saved in parts (`-part2of3.png`), cut in
   * bands from the top (pngParts), never scaled down.
   */
  private async exportPng(): Promise<void> {
    const layout = this.layout;
    const model = this.model;
    if (!layout || !model) return;
    const parts = pngParts(layout.width, layout.height);
    const stem = this.fileStem();
    const saved: string[] = [];
    for (const [k, area] of parts.entries()) {
      const canvas = document.createElement("canvas");
      canvas.width = area.width;
      canvas.height = area.height;
      const context = canvas.getContext("2d")!;
      context.fillStyle = this.colours["--canvas"]!;
      context.fillRect(0, 0, canvas.width, canvas.height);
      paintGraph(context, model, layout, area, 1, this.colours);
      const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, "image/png"));
      if (!blob) {
        this.app.setStatus(
          `PNG export failed (a ${canvas.width}×${canvas.height} canvas was too big for this browser)`,
          true,
        );
        return;
      }
      const name = parts.length === 1 ? `${stem}.png` : `${stem}-part${k + 1}of${parts.length}.png`;
      download(blob, name, "image/png");
      saved.push(`${name} (${canvas.width}×${canvas.height} px)`);
    }
    this.app.setStatus(`saved ${saved.join(", ")} at 1×`);
  }
}

/** "765 nodes (812 with 25 subgraphs)": the panel's count in words. */
const inferredLegends = new WeakMap<GraphModel, string>();

/** ` (n shapes inferred by tensorfile, marked *)` when some edge labels are inferred, not declared. */
function inferredLegend(model: GraphModel): string {
  let text = inferredLegends.get(model);
  if (text === undefined) {
    const n = model.edges.filter((e) => e.label?.endsWith(INFERRED_MARK)).length;
    text = n > 0 ? ` (${n} shape${n === 1 ? "" : "s"} inferred by tensorfile, marked ${INFERRED_MARK})` : "";
    inferredLegends.set(model, text);
  }
  return text;
}

function legendNodes(model: GraphModel): string {
  const { nodes, withSubgraphs } = nodeCountText(model);
  return withSubgraphs ? `${nodes}; ${withSubgraphs}` : nodes;
}
