// Issue 36's small fixes in pure code: the PNG export's parts (1× always, each part within a browser canvas),
// diff names cut in the middle (their tails tell tensors apart), the table's selection dropped when a filter
// hides it (Enter then opens a visible row, not the hidden one).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { middleCut } from "../../web/src/model/format.js";
import { heatmapDrawSize, MAX_CELL_ASPECT } from "../../web/src/model/heatmap.js";
import { type TableItem, tableItems, visibleSelection } from "../../web/src/model/table.js";
import { PNG_MAX_PIXELS, PNG_MAX_SIDE, pngParts } from "../../web/src/ui/graph/paint.js";

describe("PNG export parts", () => {
  it("a graph that fits is one part at 1×", () => {
    expect(pngParts(1200, 9000)).toEqual([{ x: 0, y: 0, width: 1200, height: 9000 }]);
  });

  it("a tall 765-node-like graph (2,400 × 52,000) is cut in bands at 1×, not scaled to 0.3", () => {
    const parts = pngParts(2400, 52_000);
    expect(parts.length).toBe(4);
    expect(parts.every((p) => p.width === 2400 && p.height <= PNG_MAX_SIDE)).toBe(true);
    expect(parts.reduce((a, p) => a + p.height, 0)).toBe(52_000);
  });

  it("covers the layout exactly, every part within the canvas limits", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60_000 }), fc.integer({ min: 1, max: 120_000 }), (w, h) => {
        const parts = pngParts(w, h);
        let area = 0;
        for (const p of parts) {
          expect(p.width).toBeLessThanOrEqual(PNG_MAX_SIDE);
          expect(p.height).toBeLessThanOrEqual(PNG_MAX_SIDE);
          expect(p.width * p.height).toBeLessThanOrEqual(PNG_MAX_PIXELS);
          expect(p.x + p.width).toBeLessThanOrEqual(w);
          expect(p.y + p.height).toBeLessThanOrEqual(h);
          area += p.width * p.height;
        }
        expect(area).toBe(w * h);
      }),
      { numRuns: 100 },
    );
  });
});

describe("diff names cut in the middle", () => {
  it("keeps the tail that tells a model's tensors apart", () => {
    const names = [
      "encoder.layers.11.self_attn.k_proj.weight",
      "encoder.layers.11.self_attn.q_proj.weight",
      "encoder.layers.11.self_attn.v_proj.bias",
    ];
    const cut = names.map((n) => middleCut(n, 32));
    expect(new Set(cut).size).toBe(3);
    expect(cut[0]).toMatch(/…/);
    expect(cut[0]!.endsWith("k_proj.weight")).toBe(true);
    expect(middleCut("short", 32)).toBe("short");
  });

  it("is at most `max` characters, and the head and tail come from the name", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), fc.integer({ min: 3, max: 60 }), (text, max) => {
        const cut = middleCut(text, max);
        expect([...cut].length).toBeLessThanOrEqual(Math.max(max, [...text].length <= max ? [...text].length : 0));
        if (cut !== text) {
          const [head, tail] = cut.split("…");
          expect(text.startsWith(head!)).toBe(true);
          expect(text.endsWith(tail!)).toBe(true);
        }
      }),
    );
  });
});

describe("table selection under a filter", () => {
  const rows = ["a.weight", "b.bias", "c.weight"].map((name, index) => ({
    index,
    name,
    dtype: "float32",
    shape: [2],
    elements: 2,
    bytes: 8,
  }));
  it("drops the selection a filter hides, keeps one it shows", () => {
    const items: TableItem[] = tableItems(
      rows as never,
      { sort: "index", descending: false, filter: "weight", groupByDtype: false } as never,
    );
    expect(visibleSelection(items, 1)).toBeUndefined();
    expect(visibleSelection(items, 2)).toBe(2);
    expect(visibleSelection(items, undefined)).toBeUndefined();
  });
});

describe("heatmap size in its panel", () => {
  it("a wide matrix (80 × 1,074 cells in a 1,074 × 338 area) fills most of the panel, not a quarter of it", () => {
    const size = heatmapDrawSize(1074, 80, 1074, 338, false);
    expect(size.width).toBe(1074);
    expect(size.height).toBeGreaterThan(338 * 0.9);
  });

  it("stays inside the area, and cells are never stretched more than MAX_CELL_ASPECT from square", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 30, max: 1400 }),
        fc.integer({ min: 30, max: 400 }),
        (iw, ih, aw, ah) => {
          const { width, height } = heatmapDrawSize(iw, ih, aw, ah, false);
          expect(width).toBeLessThanOrEqual(aw);
          expect(height).toBeLessThanOrEqual(ah);
          if (iw > 1 && ih > 1 && width > 24 && height > 24) {
            const aspect = width / iw / (height / ih);
            expect(aspect).toBeLessThanOrEqual(MAX_CELL_ASPECT + 1e-9);
            expect(1 / aspect).toBeLessThanOrEqual(MAX_CELL_ASPECT + 1e-9);
          }
        },
      ),
    );
  });
});
