/**
 * The graph's minimap: the whole layout in a corner (boxes in their op colours, cached as an image), the visible
 * area as a rectangle; a click or drag moves the view there (snapping to the nearest box), the wheel zooms.
 */
import type { GraphModel, GraphNode, Positioned } from "../../model/graph.js";
import { prepareCanvas } from "../dom.js";
import type { Camera, Screen } from "./camera.js";
import { type Colours, opColour } from "./paint.js";

/** The minimap's size for a screen and layout: at most a quarter of the width and 40% of the height. */
export function minimapSize(
  screen: Screen,
  layout: Pick<Positioned, "width" | "height"> | undefined,
): { width: number; height: number } {
  const maxW = Math.round(Math.max(60, Math.min(160, screen.width * 0.25)));
  const maxH = Math.round(Math.max(80, Math.min(220, screen.height * 0.4)));
  if (!layout) return { width: maxW, height: maxH };
  const ratio = layout.width / Math.max(1, layout.height);
  if (ratio >= maxW / maxH) return { width: maxW, height: Math.max(40, Math.round(maxW / ratio)) };
  // tall graphs: a strip at least 60 px wide (then stretched across, so a click is precise in x too)
  return { width: Math.max(60, Math.round(maxH * ratio)), height: maxH };
}

/** Layout units → minimap pixels (x and y scales differ for very tall or wide graphs). */
export function minimapTransform(
  screen: Screen,
  layout: Pick<Positioned, "width" | "height">,
): { scaleX: number; scaleY: number; offsetX: number; offsetY: number } {
  const { width, height } = minimapSize(screen, layout);
  return {
    scaleX: (width - 4) / Math.max(1, layout.width),
    scaleY: (height - 4) / Math.max(1, layout.height),
    offsetX: 2,
    offsetY: 2,
  };
}

/** What the minimap reads from the graph view. */
export interface MinimapHost {
  readonly model: GraphModel | undefined;
  readonly layout: Positioned | undefined;
  readonly camera: Camera;
  readonly selected: number | undefined;
  readonly colours: Colours;
  screen(): Screen;
  requestDraw(): void;
}

export class Minimap {
  private image: HTMLCanvasElement | undefined;

  constructor(
    readonly canvas: HTMLCanvasElement,
    private readonly host: MinimapHost,
  ) {
    this.wire();
  }

  /** Forget the cached image (a new layout or graph). */
  invalidate(): void {
    this.image = undefined;
  }

  draw(): void {
    const { model, layout, camera, colours } = this.host;
    if (!layout || !model) return;
    const screen = this.host.screen();
    const { width, height } = minimapSize(screen, layout);
    const { scaleX, scaleY, offsetX, offsetY } = minimapTransform(screen, layout);
    if (!this.image || this.image.width !== width || this.image.height !== height) {
      const image = document.createElement("canvas");
      image.width = width;
      image.height = height;
      const c = image.getContext("2d")!;
      c.fillStyle = colours["--bg"]!;
      c.fillRect(0, 0, width, height);
      for (const node of model.nodes) {
        c.fillStyle = opColour(node);
        c.fillRect(
          offsetX + (layout.x[node.id]! - node.width / 2) * scaleX,
          offsetY + (layout.y[node.id]! - node.height / 2) * scaleY,
          Math.max(1, node.width * scaleX),
          Math.max(1, node.height * scaleY),
        );
      }
      this.image = image;
    }
    const context = prepareCanvas(this.canvas, width, height);
    context.drawImage(this.image, 0, 0, width, height);
    const vx = offsetX + (-camera.x / camera.scale) * scaleX;
    const vy = offsetY + (-camera.y / camera.scale) * scaleY;
    const vw = (screen.width / camera.scale) * scaleX;
    const vh = (screen.height / camera.scale) * scaleY;
    context.strokeStyle = colours["--accent"]!;
    context.lineWidth = 1.5;
    context.fillStyle = "rgba(91, 141, 239, 0.15)";
    context.fillRect(vx, vy, Math.max(3, vw), Math.max(3, vh));
    context.strokeRect(vx, vy, Math.max(3, vw), Math.max(3, vh));
    const selected = this.host.selected;
    if (selected !== undefined) {
      context.fillStyle = colours["--warn"]!;
      context.fillRect(offsetX + layout.x[selected]! * scaleX - 2, offsetY + layout.y[selected]! * scaleY - 2, 4, 4);
    }
  }

  private wire(): void {
    const minimap = this.canvas;
    let dragging = false;
    const move = (event: PointerEvent) => {
      const { layout, camera } = this.host;
      if (!layout) return;
      const screen = this.host.screen();
      const { scaleX, scaleY, offsetX, offsetY } = minimapTransform(screen, layout);
      let gx = (event.offsetX - offsetX) / scaleX;
      let gy = (event.offsetY - offsetY) / scaleY;
      // snap to the nearest box within 12 minimap pixels, so a click lands on the graph, not beside it (one
      // minimap pixel can be thousands of layout pixels on a tall graph)
      let best = 144;
      let snapped: GraphNode | undefined;
      for (const node of this.host.model?.nodes ?? []) {
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
      camera.centre(gx, gy, screen, false);
      this.host.requestDraw();
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
    minimap.addEventListener(
      "wheel",
      (event) => {
        event.preventDefault();
        const { width, height } = this.host.screen();
        this.host.camera.zoomAt(Math.exp(-event.deltaY * 0.0015), width / 2, height / 2);
        this.host.requestDraw();
      },
      { passive: false },
    );
  }
}
