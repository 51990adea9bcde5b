// The 1-D line plot's model: each column's min/max/mean over its finite values equal a brute-force pass; NaN and
// infinities are counted, never averaged; zooming keeps the point under the pointer and stays inside the tensor.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineEnvelope, zoomWindow } from "../../web/src/model/line-plot.js";

describe("lineEnvelope", () => {
  it("equals a brute-force reduction (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constantFrom(NaN, Infinity, -Infinity)), {
          minLength: 1,
          maxLength: 300,
        }),
        fc.nat({ max: 300 }),
        fc.nat({ max: 300 }),
        fc.integer({ min: 1, max: 80 }),
        (values, a, b, columns) => {
          const start = Math.min(a, b);
          const end = Math.max(a, b);
          const env = lineEnvelope(values, start, end, columns);
          const s = Math.min(values.length, start);
          const e = Math.max(s, Math.min(values.length, end));
          expect(env.start).toBe(s);
          expect(env.end).toBe(e);
          expect(env.min.length).toBeLessThanOrEqual(columns);
          for (let c = 0; c < env.min.length; c++) {
            const block = values.slice(s + c * env.step, Math.min(e, s + (c + 1) * env.step));
            const finite = block.filter(Number.isFinite);
            expect(env.nonFinite[c]).toBe(block.length - finite.length);
            if (finite.length === 0) expect(env.min[c]).toBeNaN();
            else {
              expect(env.min[c]).toBe(Math.min(...finite));
              expect(env.max[c]).toBe(Math.max(...finite));
              expect(env.mean[c]).toBeCloseTo(finite.reduce((x, y) => x + y, 0) / finite.length, 6);
            }
          }
          // the columns cover [s, e) exactly
          expect(Math.min(e - s, env.min.length * env.step) === e - s || env.min.length === 0).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("zoomWindow", () => {
  it("keeps the index under the pointer in place and stays in the tensor", () => {
    const w = zoomWindow(0, 1000, 1000, 4, 500);
    expect(w.end - w.start).toBe(250);
    expect(w.start).toBe(375);
    const edge = zoomWindow(0, 1000, 1000, 4, 10);
    expect(edge.start).toBeGreaterThanOrEqual(0);
    const out = zoomWindow(375, 625, 1000, 0.01, 500);
    expect(out).toEqual({ start: 0, end: 1000 });
    expect(zoomWindow(0, 20, 20, 100, 3).end - zoomWindow(0, 20, 20, 100, 3).start).toBe(8);
  });
});
