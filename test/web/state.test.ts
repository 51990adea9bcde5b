// The URL-hash state (#url=…&v=…&t=…), the histogram bars and the diff rows.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBytes, readFromAny } from "../../bindings/index.js";
import { exampleFiles } from "../../bindings/examples.js";
import { type TensorStats, diffTensors, histogram, stats } from "../../web/src/compute.js";
import { diffRows, diffVerdict } from "../../web/src/model/diff.js";
import { barAt, histogramLayout, niceTicks, scaledHeight } from "../../web/src/model/histogram.js";
import { type PageState, VIEWS, formatHash, parseHash } from "../../web/src/model/state.js";

describe("hash state", () => {
  it("parse(format(state)) is the state, for any values", () => {
    const text = fc.string({ minLength: 1, maxLength: 20 });
    fc.assert(
      fc.property(
        fc.record({
          url: fc.option(
            fc.oneof(text, fc.constant("/files/0/a b.trk"), fc.constant("https://x.org/m.tsm?x=1&y=2#f")),
            { nil: undefined },
          ),
          view: fc.option(fc.constantFrom(...VIEWS), { nil: undefined }),
          tensor: fc.option(text, { nil: undefined }),
          logCounts: fc.option(fc.boolean(), { nil: undefined }),
          axes: fc.option(fc.tuple(fc.integer({ min: -1, max: 5 }), fc.integer({ min: -1, max: 5 })), {
            nil: undefined,
          }),
          indices: fc.option(fc.array(fc.nat(99), { minLength: 1, maxLength: 4 }), { nil: undefined }),
          speech: fc.option(fc.boolean(), { nil: undefined }),
          filter: fc.option(text, { nil: undefined }),
          compareUrl: fc.option(fc.oneof(text, fc.constant("files/b c.safetensors")), { nil: undefined }),
          graph: fc.option(fc.nat(5), { nil: undefined }),
          node: fc.option(fc.oneof(text, fc.constant("block7/conv_b")), { nil: undefined }),
          subgraph: fc.option(
            fc.array(
              fc.oneof(
                text.filter((t) => t !== ""),
                fc.constant("/model/If_3:then_branch"),
                fc.constant("loop:body"),
              ),
              { minLength: 1, maxLength: 3 },
            ),
            { nil: undefined },
          ),
          colourRange: fc.option(fc.constantFrom("minmax", "percentile", "symmetric"), { nil: undefined }),
        }),
        (state) => {
          const parsed = parseHash(formatHash(state as PageState));
          for (const [key, value] of Object.entries(state))
            expect((parsed as Record<string, unknown>)[key], key).toEqual(value);
        },
      ),
      { seed: 1, numRuns: 300 },
    );
  });

  it("reads the deep link tensorfile view prints, ignores unknown keys and views", () => {
    expect(parseHash("#url=/files/0/sx313.trk")).toMatchObject({ url: "/files/0/sx313.trk" });
    expect(parseHash("#v=bogus&zz=1&t=a%2Fb")).toMatchObject({ view: undefined, tensor: "a/b" });
    expect(formatHash({})).toBe("");
    // issue 26: colour range, graph node and the diff's second file survive a link; a bad colour range is dropped
    expect(parseHash("#url=a.tsm&v=graph&n=conv%2F1&g=1&cr=symmetric&b=files/b.tsm")).toMatchObject({
      node: "conv/1",
      graph: 1,
      colourRange: "symmetric",
      compareUrl: "files/b.tsm",
    });
    expect(parseHash("#cr=rainbow").colourRange).toBeUndefined();
    // issue 36: the open subgraph is in the link, so a node inside it is restored
    expect(parseHash("#v=graph&sg=If_0%3Athen_branch&sg=inner%3Abody&n=then_mul")).toMatchObject({
      subgraph: ["If_0:then_branch", "inner:body"],
      node: "then_mul",
    });
  });
});

describe("histogram bars", () => {
  const h = histogram(new Float64Array([0, 0.1, 0.2, 0.9, 1, 1, 1, NaN, NaN, Infinity]), 4, 0, 1);

  it("one bar per bin plus one per kind of non-finite value present, heights by count", () => {
    const layout = histogramLayout(h, 400, 100, "linear");
    expect(layout.bars.map((b) => b.kind)).toEqual(["bin", "bin", "bin", "bin", "posInf", "nan"]);
    expect(layout.bars.map((b) => b.count)).toEqual([3, 0, 0, 4, 1, 2]);
    expect(layout.maxCount).toBe(4);
    const tallest = layout.bars.reduce((a, b) => (b.height > a.height ? b : a));
    expect(tallest.count).toBe(4);
    expect(tallest.height).toBe(100);
    for (const bar of layout.bars) expect(bar.y + bar.height).toBeCloseTo(100, 9);
    const bins = layout.bars.filter((b) => b.kind === "bin");
    expect(Math.max(...bins.map((b) => b.x + b.width))).toBeLessThanOrEqual(layout.axis.x1);
    expect(barAt(layout, bins[3]!.x + 1)).toBe(bins[3]);
  });

  it("log counts keep single counts visible beside large ones; ticks are round and inside", () => {
    expect(scaledHeight(1, 1e6, "linear")).toBeLessThan(1e-5);
    expect(scaledHeight(1, 1e6, "log")).toBeGreaterThan(0.04);
    expect(scaledHeight(0, 10, "log")).toBe(0);
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(-3.3, 7.1, 4).every((t) => t >= -3.3 && t <= 7.1)).toBe(true);
    expect(niceTicks(0, 23, 10, true).every((t) => Number.isInteger(t))).toBe(true);
  });
});

describe("diff rows", () => {
  it("a file against itself is equal; against a changed copy the changes come first", async () => {
    const example = exampleFiles().find((e) => e.format === "tsm")!;
    const a = await readFromAny(fromBytes(example.bytes));
    const b = await readFromAny(fromBytes(example.bytes));
    const same = await diffTensors(a, b);
    expect(same.equal).toBe(true);
    expect(diffVerdict(same)).toMatch(/^equal/);
    const changed = {
      tensorInfos: () =>
        b
          .tensorInfos()
          .slice(1)
          .map((i) => ({ ...i })),
      loadTensor: async (info: Parameters<typeof b.loadTensor>[0]) => {
        const t = await b.loadTensor(info);
        if (t.dtype === "float16") {
          const data = t.data.slice();
          data[0] = (data[0]! + 1) & 0xffff;
          return { ...t, data };
        }
        return t;
      },
    };
    const result = await diffTensors(a, changed);
    expect(result.equal).toBe(false);
    expect(result.onlyA).toEqual([a.tensorInfos()[0]!.name]);
    const rows = diffRows(result);
    expect(rows[0]!.status).toBe("different");
    expect(rows.at(-1)!.status).toBe("onlyA");
    expect(diffVerdict(result)).toMatch(/1 differ in value.*1 only in A/);
  });
});

describe("stats merge", () => {
  it("merging chunk statistics equals the statistics of the whole", async () => {
    const { mergeStats } = await import("../../web/src/compute.js");
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.double({ noNaN: false }), fc.constant(0)), { maxLength: 60 }),
        fc.nat(60),
        (values, cut) => {
          const data = Float64Array.from(values);
          const at = Math.min(cut, data.length);
          const whole = stats(data);
          const merged: TensorStats = mergeStats(stats(data.subarray(0, at)), stats(data.subarray(at)));
          for (const key of ["count", "finite", "nan", "posInf", "negInf", "zeros", "min", "max"] as const)
            expect(merged[key], key).toEqual(whole[key]);
        },
      ),
      { seed: 2 },
    );
  });
});
