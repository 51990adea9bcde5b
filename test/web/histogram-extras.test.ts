// Issue 26 additions to the tensor view: quantiles (p1, p50, p99) read from the histogram, to one bin width of
// the exact sorted-order quantile (fast-check against a sort of the same values), and the count axis ticks.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kernels } from "../../bindings/index.js";
import { countTicks, histogramQuantile, scaledHeight } from "../../web/src/model/histogram.js";

/** numpy's default ("linear") quantile of sorted values. */
function exactQuantile(sorted: number[], q: number): number {
  const position = q * (sorted.length - 1);
  const below = Math.floor(position);
  const above = Math.min(sorted.length - 1, below + 1);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

describe("histogramQuantile", () => {
  it("is within one bin width (plus one value gap) of the exact quantile", () => {
    fc.assert(
      fc.property(
        fc.array(fc.float({ min: -1000, max: 1000, noNaN: true, noDefaultInfinity: true }), {
          minLength: 1,
          maxLength: 400,
        }),
        fc.constantFrom(32, 64, 256),
        fc.constantFrom(0.01, 0.5, 0.99),
        (values, bins, q) => {
          const data = Float32Array.from(values);
          const sorted = [...data].sort((a, b) => a - b);
          const lo = sorted[0]!;
          const hi = sorted.at(-1)!;
          const h = kernels.histogram(data, bins, lo, hi);
          const approx = histogramQuantile(h, q);
          const width = (h.hi - h.lo) / bins;
          // with few values the exact (interpolated) quantile can sit between two far-apart values
          const k = Math.floor(q * (sorted.length - 1));
          const gap = sorted[Math.min(sorted.length - 1, k + 1)]! - sorted[Math.max(0, k - 1)]!;
          expect(Math.abs(approx - exactQuantile(sorted, q))).toBeLessThanOrEqual(
            width + gap + 1e-9 * Math.max(1, Math.abs(hi)),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("on 100,001 evenly spread values it is the exact quantile to a bin width", () => {
    const data = Float64Array.from({ length: 100_001 }, (_, i) => i / 100_000);
    const h = kernels.histogram(data, 256, 0, 1);
    for (const q of [0.01, 0.5, 0.99]) expect(Math.abs(histogramQuantile(h, q) - q)).toBeLessThan(1 / 256);
  });

  it("is NaN without finite values, and counts values outside the range at its ends", () => {
    expect(histogramQuantile(kernels.histogram(Float32Array.from([NaN, Infinity]), 8, 0, 1), 0.5)).toBeNaN();
    const h = kernels.histogram(Float32Array.from([-5, -5, -5, 0.5, 9]), 4, 0, 1);
    expect(histogramQuantile(h, 0.01)).toBe(0);
    expect(histogramQuantile(h, 0.99)).toBe(1);
  });
});

describe("countTicks", () => {
  it("linear: nice whole numbers from 0 to at most the max, at their height fraction", () => {
    const ticks = countTicks(1234, "linear");
    expect(ticks[0]).toEqual({ count: 0, fraction: 0, label: "0" });
    expect(ticks.every((t) => Number.isInteger(t.count) && t.count <= 1234)).toBe(true);
    for (const t of ticks) expect(t.fraction).toBeCloseTo(t.count / 1234, 12);
    expect(ticks.length).toBeGreaterThanOrEqual(3);
  });
  it("log: powers of ten, placed like the bars", () => {
    const ticks = countTicks(2_500_000, "log");
    expect(ticks.map((t) => t.count)).toEqual([1, 10, 100, 1000, 10_000, 100_000, 1_000_000]);
    expect(ticks.map((t) => t.label)).toEqual(["1", "10", "100", "1000", "10k", "100k", "1M"]);
    for (const t of ticks) expect(t.fraction).toBe(scaledHeight(t.count, 2_500_000, "log"));
  });
  it("nothing for an empty histogram", () => {
    expect(countTicks(0, "linear")).toEqual([]);
  });
});
