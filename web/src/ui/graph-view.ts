/**
 * The graph of a TenniS module or SeetaFace6 .csta: laid out by dagre in a worker (the fallback layout above
 * ~1,500 nodes), drawn on a canvas with pan (drag), zoom (wheel, +/−) and fit; click a node for its op,
 * attributes, inputs and consumers; a `<const>` node links to its tensor's statistics and heatmap.
 */
import { tsm } from "../../../bindings/index.js";
import { type GraphModel, type GraphNode, type Positioned, graphModel, nodeAt } from "../model/graph.js";
import { layoutInput } from "../model/layout.js";
import { CancelledError } from "../model/tensor-data.js";
import type { InspectorContext } from "./context.js";
import { clear, h, prepareCanvas, themeColour } from "./dom.js";

export class GraphView {
  private model: GraphModel | undefined;
  private layout: Positioned | undefined;
  private error: string | undefined;
  private selected: number | undefined;
  private view = { x: 0, y: 0, scale: 1 };
  private canvas: HTMLCanvasElement | undefined;
  private side: HTMLElement | undefined;
  private requested = false;
  private generation = 0;

  constructor(private readonly app: InspectorContext, private readonly root: HTMLElement) {}

  reset(): void {
    this.model = undefined;
    this.layout = undefined;
    this.error = undefined;
    this.selected = undefined;
    this.requested = false;
    this.generation++;
    clear(this.root);
    this.canvas = undefined;
  }

  show(): void {
    const file = this.app.current;
    if (!file || file.lazy.format !== "tsm") return;
    if (!this.model) {
      try {
        this.model = graphModel(tsm.graph(file.lazy.file as Parameters<typeof tsm.graph>[0]));
      } catch (error) {
        this.error = (error as Error).message;
      }
    }
    if (!this.canvas) this.build();
    if (this.model && !this.layout && !this.requested) void this.requestLayout();
    this.draw();
  }

  private build(): void {
    clear(this.root);
    this.canvas = h("canvas", { id: "graph", tabindex: 0, "aria-label": "Graph of the module" });
    this.side = h("div", { class: "graph-side", id: "graph-side" });
    const legend = h("div", { class: "graph-legend", id: "graph-legend" }, this.model ? `${this.model.nodes.length} nodes · laying out…` : "");
    const tools = h("div", { class: "table-tools", style: "position:absolute;right:8px;top:4px" },
      h("button", { type: "button", title: "Zoom in (+)", onclick: () => this.zoom(1.25) }, "+"),
      h("button", { type: "button", title: "Zoom out (−)", onclick: () => this.zoom(0.8) }, "−"),
      h("button", { type: "button", title: "Fit the graph (0)", onclick: () => this.fit() }, "fit"));
    const box = h("div", { class: "graph-canvas-box" }, this.canvas, legend, tools);
    this.root.append(h("div", { class: "graph-layout" }, box, this.side));
    this.root.style.overflow = "hidden";
    this.wirePointer(this.canvas);
    this.drawSide();
  }

  private async requestLayout(): Promise<void> {
    const model = this.model!;
    this.requested = true;
    const generation = this.generation;
    try {
      const layout = await this.app.task("graph layout", () => this.app.layoutWorker.request({ kind: "layout", input: layoutInput(model) }));
      if (generation !== this.generation) return;
      this.layout = layout;
      this.fit();
    } catch (error) {
      if (generation !== this.generation) return;
      this.error = error instanceof CancelledError ? "layout cancelled" : (error as Error).message;
      this.requested = false;
    }
    this.draw();
  }

  private size(): { width: number; height: number } {
    const box = this.canvas?.parentElement;
    return { width: Math.max(200, box?.clientWidth ?? 800), height: Math.max(200, box?.clientHeight ?? 560) };
  }

  private fit(): void {
    if (!this.layout) return;
    const { width, height } = this.size();
    const scale = Math.min(1.5, (width - 20) / Math.max(1, this.layout.width), (height - 20) / Math.max(1, this.layout.height));
    // very tall graphs: start readable at the top rather than as a thin line
    const readable = Math.max(scale, Math.min(1, (width - 20) / Math.max(1, this.layout.width)) * 0.999, 0.35);
    this.view.scale = this.layout.height * scale < height * 0.5 ? scale : Math.min(readable, 1);
    this.view.x = (width - this.layout.width * this.view.scale) / 2;
    this.view.y = 10;
    this.draw();
  }

  private zoom(factor: number, cx?: number, cy?: number): void {
    const { width, height } = this.size();
    const px = cx ?? width / 2;
    const py = cy ?? height / 2;
    const scale = Math.max(0.02, Math.min(4, this.view.scale * factor));
    this.view.x = px - ((px - this.view.x) * scale) / this.view.scale;
    this.view.y = py - ((py - this.view.y) * scale) / this.view.scale;
    this.view.scale = scale;
    this.draw();
  }

  private wirePointer(canvas: HTMLCanvasElement): void {
    let drag: { x: number; y: number; vx: number; vy: number; moved: boolean } | undefined;
    canvas.addEventListener("pointerdown", (event) => {
      drag = { x: event.clientX, y: event.clientY, vx: this.view.x, vy: this.view.y, moved: false };
      canvas.setPointerCapture(event.pointerId);
    });
    canvas.addEventListener("pointermove", (event) => {
      if (!drag) return;
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      this.view.x = drag.vx + dx;
      this.view.y = drag.vy + dy;
      this.draw();
    });
    canvas.addEventListener("pointerup", (event) => {
      const wasDrag = drag?.moved;
      drag = undefined;
      if (wasDrag || !this.layout || !this.model) return;
      const x = (event.offsetX - this.view.x) / this.view.scale;
      const y = (event.offsetY - this.view.y) / this.view.scale;
      const node = nodeAt(this.model, this.layout, x, y);
      this.selected = node?.id;
      this.drawSide();
      this.draw();
    });
    canvas.addEventListener("wheel", (event) => {
      event.preventDefault();
      if (event.ctrlKey || !event.shiftKey) this.zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15, event.offsetX, event.offsetY);
    }, { passive: false });
    canvas.addEventListener("keydown", (event) => {
      if (event.key === "+" || event.key === "=") this.zoom(1.25);
      else if (event.key === "-") this.zoom(0.8);
      else if (event.key === "0") this.fit();
      else if (event.key.startsWith("Arrow")) {
        const step = 60;
        if (event.key === "ArrowLeft") this.view.x += step;
        if (event.key === "ArrowRight") this.view.x -= step;
        if (event.key === "ArrowUp") this.view.y += step;
        if (event.key === "ArrowDown") this.view.y -= step;
        this.draw();
      } else return;
      event.preventDefault();
    });
  }

  private draw(): void {
    const canvas = this.canvas;
    if (!canvas) return;
    const { width, height } = this.size();
    const context = prepareCanvas(canvas, width, height);
    context.fillStyle = themeColour("--canvas");
    context.fillRect(0, 0, width, height);
    const legend = this.root.querySelector<HTMLElement>("#graph-legend");
    const model = this.model;
    const layout = this.layout;
    if (legend && model) {
      canvas.dataset.nodes = String(model.nodes.length);
      canvas.dataset.edges = String(model.edges.length);
      legend.textContent = `${model.nodes.length} nodes · ${model.edges.length} edges · ${layout ? `layout: ${layout.engine}` : this.error ?? "laying out…"} · drag to pan, wheel to zoom`;
    }
    if (!model || !layout) return;
    context.save();
    context.translate(this.view.x, this.view.y);
    context.scale(this.view.scale, this.view.scale);
    const selected = this.selected;
    const related = new Set<number>();
    if (selected !== undefined) {
      const node = model.nodes.find((n) => n.id === selected);
      for (const id of [...(node?.inputs ?? []), ...(node?.consumers ?? [])]) related.add(id);
    }
    context.lineWidth = 1 / Math.max(0.5, this.view.scale);
    for (const edge of layout.edges) {
      const hot = selected !== undefined && (edge.from === selected || edge.to === selected);
      context.strokeStyle = hot ? themeColour("--accent") : themeColour("--fg2");
      context.globalAlpha = hot ? 1 : 0.55;
      context.beginPath();
      edge.points.forEach((p, i) => (i === 0 ? context.moveTo(p.x, p.y) : context.lineTo(p.x, p.y)));
      context.stroke();
      const last = edge.points.at(-1)!;
      const before = edge.points.at(-2) ?? edge.points[0]!;
      const angle = Math.atan2(last.y - before.y, last.x - before.x);
      context.fillStyle = context.strokeStyle;
      context.beginPath();
      context.moveTo(last.x, last.y);
      context.lineTo(last.x - 7 * Math.cos(angle - 0.4), last.y - 7 * Math.sin(angle - 0.4));
      context.lineTo(last.x - 7 * Math.cos(angle + 0.4), last.y - 7 * Math.sin(angle + 0.4));
      context.fill();
    }
    context.globalAlpha = 1;
    const colours: Record<GraphNode["kind"], string> = { input: "#2e8b57", output: "#c0392b", const: "#7f8c8d", op: themeColour("--accent") };
    const showText = this.view.scale > 0.3;
    for (const node of model.nodes) {
      const x = layout.x[node.id]! - node.width / 2;
      const y = layout.y[node.id]! - node.height / 2;
      context.fillStyle = themeColour("--bg2");
      context.strokeStyle = node.id === selected ? themeColour("--accent") : related.has(node.id) ? themeColour("--fg") : colours[node.kind];
      context.lineWidth = (node.id === selected ? 3 : 1.5) / Math.max(0.5, this.view.scale);
      context.beginPath();
      context.roundRect(x, y, node.width, node.height, 5);
      context.fill();
      context.stroke();
      context.fillStyle = colours[node.kind];
      context.fillRect(x, y, 4, node.height);
      if (showText) {
        context.fillStyle = themeColour("--fg");
        context.font = "600 11px system-ui, sans-serif";
        context.textAlign = "center";
        context.textBaseline = "middle";
        context.fillText(node.op, x + node.width / 2, y + 12, node.width - 10);
        context.fillStyle = themeColour("--fg2");
        context.font = "10px system-ui, sans-serif";
        context.fillText(node.name.length > 30 ? `…${node.name.slice(-29)}` : node.name, x + node.width / 2, y + 26, node.width - 10);
      }
    }
    context.restore();
  }

  private drawSide(): void {
    const side = this.side;
    const model = this.model;
    if (!side) return;
    clear(side);
    if (!model) {
      side.append(h("p", { class: "muted" }, this.error ? `no graph: ${this.error}` : ""));
      return;
    }
    const node = model.nodes.find((n) => n.id === this.selected);
    if (!node) {
      const name = (id: number) => model.nodes.find((n) => n.id === id)?.name ?? String(id);
      side.append(
        h("h3", {}, "module"),
        h("dl", { class: "kv" },
          h("dt", {}, "nodes"), h("dd", { id: "graph-node-count" }, model.nodes.length),
          h("dt", {}, "edges"), h("dd", {}, model.edges.length),
          h("dt", {}, "inputs"), h("dd", {}, model.inputs.map(name).join(", ")),
          h("dt", {}, "outputs"), h("dd", {}, model.outputs.map(name).join(", "))),
        h("h3", {}, "ops"),
        h("dl", { class: "kv" }, ...model.ops.flatMap(([op, count]) => [h("dt", {}, op), h("dd", {}, count)])),
        h("p", { class: "muted" }, "Click a node for its attributes."),
      );
      return;
    }
    const link = (id: number) => {
      const other = model.nodes.find((n) => n.id === id);
      return h("li", {}, h("button", { class: "linkish", type: "button", onclick: () => this.focusNode(id) }, other ? `${other.op} ${other.name}` : String(id)));
    };
    const parts: (Node | null)[] = [
      h("h3", {}, node.op),
      h("div", { class: "mono", style: "word-break:break-all", id: "graph-node-name" }, node.name),
      ...node.tensors.map((t) => h("p", {}, h("button", { type: "button", class: "primary", onclick: () => this.app.openTensor(t) }, `statistics & heatmap: ${t}`))),
      node.attrs.length > 0 ? h("h3", {}, "attributes") : null,
      node.attrs.length > 0 ? h("dl", { class: "kv" }, ...node.attrs.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])) : null,
      node.inputs.length > 0 ? h("h3", {}, "inputs") : null,
      node.inputs.length > 0 ? h("ul", {}, ...node.inputs.map(link)) : null,
      node.consumers.length > 0 ? h("h3", {}, "used by") : null,
      node.consumers.length > 0 ? h("ul", {}, ...node.consumers.map(link)) : null,
      h("p", {}, h("button", { class: "linkish", type: "button", onclick: () => { this.selected = undefined; this.drawSide(); this.draw(); } }, "module overview")),
    ];
    for (const part of parts) if (part) side.append(part);
  }

  /** Selects a node and scrolls it into the middle. */
  private focusNode(id: number): void {
    this.selected = id;
    if (this.layout) {
      const { width, height } = this.size();
      this.view.x = width / 2 - this.layout.x[id]! * this.view.scale;
      this.view.y = height / 2 - this.layout.y[id]! * this.view.scale;
    }
    this.drawSide();
    this.draw();
  }
}
