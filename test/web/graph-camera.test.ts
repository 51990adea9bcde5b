// The graph view's camera (web/src/ui/graph/camera.ts) and minimap geometry (web/src/ui/graph/minimap.ts), split
// out of graph-view.ts: zoom about a point keeps that point still, fit centres the whole layout, home opens at
// zoom 1 on the topmost box, centring zooms to a readable size; the minimap keeps a graph's aspect in its bounds.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildGraph, type NodeSpec, type Positioned } from "../../web/src/model/graph.js";
import { Camera, MAX_SCALE, MIN_SCALE } from "../../web/src/ui/graph/camera.js";
import { minimapSize, minimapTransform } from "../../web/src/ui/graph/minimap.js";

const screen = { width: 1000, height: 600 };

describe("graph camera", () => {
  it("zooms about a point: the layout point under the pointer stays under it", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.05, max: 3, noNaN: true }),
        fc.double({ min: 0.2, max: 5, noNaN: true }),
        fc.integer({ min: 0, max: 1000 }),
        fc.integer({ min: 0, max: 600 }),
        (start, factor, px, py) => {
          const camera = new Camera();
          camera.scale = start;
          camera.x = 37;
          camera.y = -12;
          const before = camera.toLayout(px, py);
          camera.zoomAt(factor, px, py);
          const after = camera.toLayout(px, py);
          expect(after.x).toBeCloseTo(before.x, 6);
          expect(after.y).toBeCloseTo(before.y, 6);
          expect(camera.scale).toBeGreaterThanOrEqual(MIN_SCALE);
          expect(camera.scale).toBeLessThanOrEqual(MAX_SCALE);
        },
      ),
    );
  });

  it("fits a big layout inside the screen, centred", () => {
    const camera = new Camera();
    camera.fit({ width: 5000, height: 20_000 }, screen);
    expect(camera.scale).toBeCloseTo((600 - 20) / 20_000, 8);
    const area = camera.visibleArea(screen);
    expect(area.x + area.width / 2).toBeCloseTo(2500, 6);
    expect(area.y + area.height / 2).toBeCloseTo(10_000, 6);
  });

  it("opens at zoom 1 on the topmost box, and centring zooms a tiny view to a readable one", () => {
    const specs: NodeSpec[] = [0, 1].map((id) => ({
      id,
      name: `n${id}`,
      op: "Relu",
      kind: "op",
      inputs: id ? [0] : [],
      outputs: [],
      attrs: [],
      weights: [],
      tensors: [],
      subgraphs: [],
    }));
    const model = buildGraph("g", specs, [0], [1]);
    const layout: Positioned = { x: [3000, 100], y: [20, 200], width: 4000, height: 400, edges: [], engine: "layered" };
    const camera = new Camera();
    camera.scale = 0.1;
    camera.home(model, layout, screen);
    expect(camera.scale).toBe(1);
    expect(camera.toLayout(screen.width / 2, 0).x).toBe(3000);
    camera.scale = 0.1;
    camera.centre(100, 200, screen, true);
    expect(camera.scale).toBe(1);
    expect(camera.toLayout(500, 300)).toEqual({ x: 100, y: 200 });
  });
});

describe("graph minimap geometry", () => {
  it("stays within a quarter of the width and 40% of the height, and maps the layout inside itself", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000 }), (w, h) => {
        const size = minimapSize(screen, { width: w, height: h });
        expect(size.width).toBeLessThanOrEqual(160);
        expect(size.height).toBeLessThanOrEqual(240);
        const t = minimapTransform(screen, { width: w, height: h });
        expect(t.offsetX + w * t.scaleX).toBeLessThanOrEqual(size.width);
        expect(t.offsetY + h * t.scaleY).toBeLessThanOrEqual(size.height);
      }),
    );
  });
});
