/**
 * The graph view's camera: a screen point is `layout × scale + (x, y)`. Pure arithmetic (no DOM), so zoom about
 * a point, fit, home and centring are unit-tested (test/web/graph-camera.test.ts).
 */
import type { GraphModel, Positioned } from "../../model/graph.js";

export const MIN_SCALE = 0.01;
export const MAX_SCALE = 4;

export interface Screen {
  width: number;
  height: number;
}

export class Camera {
  x = 0;
  y = 0;
  scale = 1;

  /** Screen → layout coordinates. */
  toLayout(sx: number, sy: number): { x: number; y: number } {
    return { x: (sx - this.x) / this.scale, y: (sy - this.y) / this.scale };
  }

  /** Zooms by `factor` keeping the layout point under screen (px, py) where it is. */
  zoomAt(factor: number, px: number, py: number): void {
    const scale = Math.max(MIN_SCALE, Math.min(MAX_SCALE, this.scale * factor));
    this.x = px - ((px - this.x) * scale) / this.scale;
    this.y = py - ((py - this.y) * scale) / this.scale;
    this.scale = scale;
  }

  /** The whole graph on screen, centred, at most 1.5×. */
  fit(layout: Pick<Positioned, "width" | "height">, screen: Screen): void {
    this.scale = Math.max(
      MIN_SCALE,
      Math.min(1.5, (screen.width - 20) / Math.max(1, layout.width), (screen.height - 20) / Math.max(1, layout.height)),
    );
    this.x = (screen.width - layout.width * this.scale) / 2;
    this.y = (screen.height - layout.height * this.scale) / 2;
  }

  /** The first view: zoom 1 (labels at 12 px), the top rank at the top, the topmost node centred if the graph is wider than the screen. */
  home(model: GraphModel, layout: Positioned, screen: Screen): void {
    this.scale = 1;
    let top = model.nodes[0];
    for (const node of model.nodes) if (top === undefined || layout.y[node.id]! < layout.y[top.id]!) top = node;
    if (layout.width <= screen.width) this.x = (screen.width - layout.width) / 2;
    else this.x = screen.width / 2 - (top ? layout.x[top.id]! : layout.width / 2);
    this.y = 8;
  }

  /** Centres a layout point, first zooming to 1 when `readable` and the view is smaller than 0.9. */
  centre(x: number, y: number, screen: Screen, readable: boolean): void {
    if (readable && this.scale < 0.9) this.scale = 1;
    this.x = screen.width / 2 - x * this.scale;
    this.y = screen.height / 2 - y * this.scale;
  }

  /** The part of the layout on screen. */
  visibleArea(screen: Screen): { x: number; y: number; width: number; height: number } {
    return {
      x: -this.x / this.scale,
      y: -this.y / this.scale,
      width: screen.width / this.scale,
      height: screen.height / this.scale,
    };
  }
}
