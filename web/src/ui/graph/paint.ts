/**
 * Painting a laid-out graph: on a canvas (only the part inside an area, for the screen and for PNG export) and as
 * SVG text (the whole graph, one `<g><title>` per box). Colours come from the page's theme.
 */
import {
  BOX,
  FRAME,
  type GraphModel,
  type GraphNode,
  type Positioned,
  boxRows,
  headerText,
} from "../../model/graph.js";
import { INFERRED_MARK } from "../../model/shape-infer.js";

export type Colours = Record<string, string>;

/** The theme colours the graph uses (CSS custom properties of the page). */
export const COLOUR_NAMES = ["--canvas", "--bg", "--bg2", "--fg", "--fg2", "--accent", "--line", "--warn"] as const;

/** What is highlighted: the selected node (and its neighbours), search hits. */
export interface Highlight {
  selected?: number | undefined;
  hits?: readonly number[] | undefined;
}

/** Header colours by op family, as Netron does (layer, activation, normalisation, pooling, shape, data). */
export function opColour(node: GraphNode): string {
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

type Area = { x: number; y: number; width: number; height: number };

/** The expanded boxes of a layout (graph-expand.ts), outer ones first (an owner's id is below its nested boxes'). */
export function expandedOwners(layout: Positioned): number[] {
  return (layout.containers ?? []).map((c) => c.id).sort((a, b) => a - b);
}

const labelCache = new WeakMap<GraphModel, Map<string, string>>();

/** Edge labels by `from>to` (a layout's edges need not keep the model's order). */
export function edgeLabels(model: GraphModel): Map<string, string> {
  let labels = labelCache.get(model);
  if (!labels) {
    labels = new Map();
    for (const edge of model.edges)
      if (edge.label && !labels.has(`${edge.from}>${edge.to}`)) labels.set(`${edge.from}>${edge.to}`, edge.label);
    labelCache.set(model, labels);
  }
  return labels;
}

/**
 * Paints the part of the graph inside `area` (layout units) at `scale` on a context whose origin is the area's
 * top-left corner; returns how many op boxes and weight rows were drawn with their text.
 */
export function paintGraph(
  context: CanvasRenderingContext2D,
  model: GraphModel,
  layout: Positioned,
  area: Area,
  scale: number,
  colours: Colours,
  highlight: Highlight = {},
): { ops: number; weights: number } {
  const selected = highlight.selected;
  const hitSet = new Set(highlight.hits ?? []);
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
  const showText = BOX.smallFont * scale >= 4;
  let ops = 0;
  let weights = 0;
  const paintBox = (node: GraphNode) => {
    const cx = layout.x[node.id]!;
    const cy = layout.y[node.id]!;
    const x = cx - node.width / 2;
    const y = cy - node.height / 2;
    if (x > x1 || x + node.width < x0 || y > y1 || y + node.height < y0) return;
    const colour = opColour(node);
    const isHit = hitSet.has(node.id);
    const rows = boxRows(node);
    context.fillStyle = colours["--bg2"]!;
    context.beginPath();
    context.roundRect(x, y, node.width, node.height, 4);
    context.fill();
    context.fillStyle = colour;
    context.beginPath();
    context.roundRect(x, y, node.width, BOX.header, rows.length > 0 ? [4, 4, 0, 0] : 4);
    context.fill();
    context.lineWidth = (node.id === selected ? 3 : isHit ? 2.5 : 1) / Math.max(0.5, scale);
    context.strokeStyle =
      node.id === selected
        ? colours["--accent"]!
        : isHit
          ? colours["--warn"]!
          : related.has(node.id)
            ? colours["--fg"]!
            : colours["--line"]!;
    context.beginPath();
    context.roundRect(x, y, node.width, node.height, 4);
    context.stroke();
    if (!showText) return;
    context.textBaseline = "middle";
    context.textAlign = "center";
    context.fillStyle = "#ffffff";
    context.font = `600 ${BOX.font}px system-ui, sans-serif`;
    context.fillText(headerText(node), cx, y + BOX.header / 2, node.width - 8);
    if (node.kind === "op") ops++;
    if (rows.length > 0) {
      context.textAlign = "left";
      context.font = `${BOX.smallFont}px ui-monospace, monospace`;
      rows.forEach((row, k) => {
        // weight rows in the text colour, inline attributes muted
        context.fillStyle = k < node.weights.length ? colours["--fg"]! : colours["--fg2"]!;
        context.fillText(row, x + 8, y + BOX.header + BOX.padding / 2 + k * BOX.row + BOX.row / 2, node.width - 12);
        if (k < node.weights.length) weights++;
      });
    }
  };
  // expanded boxes and their frames first (outer ones before the ones nested in them), under the edges and boxes
  const owners = expandedOwners(layout);
  for (const owner of owners) {
    const node = model.nodes[owner];
    if (node) paintBox(node);
    for (const frame of layout.frames ?? []) {
      if (frame.owner !== owner) continue;
      if (frame.x > x1 || frame.x + frame.width < x0 || frame.y > y1 || frame.y + frame.height < y0) continue;
      context.fillStyle = colours["--canvas"]!;
      context.strokeStyle = colours["--line"]!;
      context.lineWidth = 1 / Math.max(0.5, scale);
      context.setLineDash([4 / Math.max(0.5, scale), 3 / Math.max(0.5, scale)]);
      context.beginPath();
      context.rect(frame.x, frame.y, frame.width, frame.height);
      context.fill();
      context.stroke();
      context.setLineDash([]);
      if (!showText) continue;
      context.fillStyle = colours["--fg2"]!;
      context.font = `${BOX.smallFont}px ui-monospace, monospace`;
      context.textAlign = "left";
      context.textBaseline = "middle";
      context.fillText(frame.title, frame.x + 6, frame.y + FRAME.title / 2, frame.width - 12);
    }
  }
  // edges (those whose bounding box meets the area)
  context.lineWidth = 1 / Math.max(0.5, scale);
  const plain: typeof layout.edges = [];
  const hot: typeof layout.edges = [];
  for (const edge of layout.edges) {
    let minX = Infinity,
      maxX = -Infinity,
      minY = Infinity,
      maxY = -Infinity;
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
    for (const edge of edges)
      edge.points.forEach((p, i) => (i === 0 ? context.moveTo(p.x, p.y) : context.lineTo(p.x, p.y)));
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
  // edge labels: the declared type of the value, beside the edge just below its producer (readable zooms only)
  if (BOX.smallFont * scale >= 8) {
    const labels = edgeLabels(model);
    if (labels.size > 0) {
      context.font = `${BOX.smallFont - 1}px ui-monospace, monospace`;
      context.fillStyle = colours["--fg2"]!;
      context.textAlign = "left";
      context.textBaseline = "top";
      for (const edge of [...plain, ...hot]) {
        const label = labels.get(`${edge.from}>${edge.to}`);
        if (!label) continue;
        const start = edge.points[0]!;
        context.fillText(label, start.x + 4, start.y + 3, 220);
      }
    }
  }
  const ownerSet = new Set(owners);
  for (const node of model.nodes) if (!ownerSet.has(node.id)) paintBox(node);
  context.restore();
  return { ops, weights };
}

/** The whole graph as SVG text (boxes, weight rows, edges), in the given colours; one `<g><title>` per box. */
export function graphSvg(model: GraphModel, layout: Positioned, colours: Colours): string {
  const esc = (text: string) =>
    text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const c = colours;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(layout.width)}" height="${Math.ceil(layout.height)}" viewBox="0 0 ${Math.ceil(layout.width)} ${Math.ceil(layout.height)}" font-family="system-ui, sans-serif">`,
    `<rect width="100%" height="100%" fill="${c["--canvas"]}"/>`,
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="${c["--fg2"]}"/></marker></defs>`,
  ];
  const box = (node: GraphNode) => {
    const x = layout.x[node.id]! - node.width / 2;
    const y = layout.y[node.id]! - node.height / 2;
    parts.push(
      `<g><title>${esc(`${node.op} ${node.name}`)}</title>`,
      `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${node.width}" height="${node.height}" rx="4" fill="${c["--bg2"]}" stroke="${c["--line"]}"/>`,
      `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${node.width}" height="${BOX.header}" rx="4" fill="${opColour(node)}"/>`,
      `<text x="${layout.x[node.id]!.toFixed(1)}" y="${(y + BOX.header / 2 + 4).toFixed(1)}" text-anchor="middle" font-size="${BOX.font}" font-weight="600" fill="#fff">${esc(headerText(node))}</text>`,
    );
    boxRows(node).forEach((row, k) => {
      parts.push(
        `<text x="${(x + 8).toFixed(1)}" y="${(y + BOX.header + BOX.padding / 2 + k * BOX.row + BOX.row / 2 + 4).toFixed(1)}" font-size="${BOX.smallFont}" font-family="ui-monospace, monospace" fill="${k < node.weights.length ? c["--fg"] : c["--fg2"]}">${esc(row)}</text>`,
      );
    });
    parts.push("</g>");
  };
  // expanded boxes, each followed by its branches' frames (a frame is titled by a text, not a <title>: the
  // `<g><title>` elements stay one per box)
  const owners = expandedOwners(layout);
  for (const owner of owners) {
    const node = model.nodes[owner];
    if (node) box(node);
    for (const frame of layout.frames ?? [])
      if (frame.owner === owner)
        parts.push(
          `<g class="frame" data-owner="${esc(node?.name ?? "")}" data-branch="${esc(frame.title)}">`,
          `<rect x="${frame.x.toFixed(1)}" y="${frame.y.toFixed(1)}" width="${frame.width.toFixed(1)}" height="${frame.height.toFixed(1)}" fill="${c["--canvas"]}" stroke="${c["--line"]}" stroke-dasharray="4 3"/>`,
          `<text x="${(frame.x + 6).toFixed(1)}" y="${(frame.y + FRAME.title / 2 + 4).toFixed(1)}" font-size="${BOX.smallFont}" font-family="ui-monospace, monospace" fill="${c["--fg2"]}">${esc(frame.title)}</text>`,
          "</g>",
        );
  }
  parts.push(`<g fill="none" stroke="${c["--fg2"]}" stroke-opacity="0.7">`);
  for (const edge of layout.edges)
    parts.push(
      `<polyline marker-end="url(#arrow)" points="${edge.points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ")}"/>`,
    );
  parts.push("</g>");
  const labels = edgeLabels(model);
  for (const edge of layout.edges) {
    const label = labels.get(`${edge.from}>${edge.to}`);
    // an inferred label (`float32 ⟨1×64⟩*`) says so in its tooltip
    const title = label?.endsWith(INFERRED_MARK) ? "<title>shape inferred by tensorfile</title>" : "";
    if (label)
      parts.push(
        `<text class="edge-label" x="${(edge.points[0]!.x + 4).toFixed(1)}" y="${(edge.points[0]!.y + 12).toFixed(1)}" font-size="${BOX.smallFont - 1}" font-family="ui-monospace, monospace" fill="${c["--fg2"]}">${title}${esc(label)}</text>`,
      );
  }
  const ownerSet = new Set(owners);
  for (const node of model.nodes) if (!ownerSet.has(node.id)) box(node);
  parts.push("</svg>");
  return parts.join("\n");
}

/** Browsers' canvas limits the PNG export stays under: a side, and pixels per canvas. */
export const PNG_MAX_SIDE = 16_384;
export const PNG_MAX_PIXELS = 120e6;

/**
 * The areas (layout units = pixels at zoom 1) a PNG export of a `width` × `height` layout is cut into so that each
 * part fits a browser canvas at 1× (no scaling down: the labels stay readable): bands from the top, and columns
 * when the graph is wider than a canvas may be. One part when it all fits.
 */
export function pngParts(
  width: number,
  height: number,
  maxSide = PNG_MAX_SIDE,
  maxPixels = PNG_MAX_PIXELS,
): { x: number; y: number; width: number; height: number }[] {
  const w = Math.max(1, Math.ceil(width));
  const h = Math.max(1, Math.ceil(height));
  const columns = Math.ceil(w / maxSide);
  const partWidth = Math.ceil(w / columns);
  const bandHeight = Math.max(1, Math.min(maxSide, Math.floor(maxPixels / partWidth)));
  const rows = Math.ceil(h / bandHeight);
  const partHeight = Math.ceil(h / rows);
  const parts: { x: number; y: number; width: number; height: number }[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      const x = c * partWidth;
      const y = r * partHeight;
      parts.push({ x, y, width: Math.min(partWidth, w - x), height: Math.min(partHeight, h - y) });
    }
  }
  return parts;
}
