// The tensor table's model: rows are exactly tensorInfos() of every file; sort, filter and group are
// permutations/subsets with the promised order and totals (properties with fast-check over real rows).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromBytes, readFromAny } from "../../bindings/index.js";
import {
  SORT_KEYS,
  type TensorRow,
  dtypeTotals,
  filterRows,
  layerPrefix,
  moveSelection,
  rowsFromInfos,
  sortRows,
  tableItems,
  totals,
} from "../../web/src/model/table.js";
import { readableFiles } from "./corpus.js";

const files = readableFiles();

async function rowsOf(bytes: Uint8Array): Promise<TensorRow[]> {
  const lazy = await readFromAny(fromBytes(bytes));
  const rows = rowsFromInfos(lazy.tensorInfos());
  // some made-up statistics so the statistic columns sort too
  rows.forEach((r, i) => {
    r.stats =
      i % 3 === 2 || r.elements === 0
        ? undefined
        : {
            count: r.elements,
            min: -i,
            max: i * 2,
            sum: 0,
            sumSquares: 0,
            mean: (i * 7) % 5,
            std: i % 4,
            nan: i % 2,
            posInf: 0,
            negInf: i % 3,
            zeros: i,
            finite: r.elements,
          };
  });
  return rows;
}

describe("tensor table rows", () => {
  for (const { label, bytes } of files) {
    it(`${label}: one row per tensorInfos() entry, in file order`, async () => {
      const lazy = await readFromAny(fromBytes(bytes));
      const infos = lazy.tensorInfos();
      const rows = rowsFromInfos(infos);
      expect(rows.map((r) => [r.name, r.dtype, r.shape, r.bytes])).toEqual(
        infos.map((i) => [i.name, i.dtype, i.shape, i.byteLength]),
      );
      expect(rows.map((r) => r.elements)).toEqual(infos.map((i) => i.shape.reduce((a, b) => a * b, 1)));
      const items = tableItems(rows, { sort: "index", descending: false, filter: "", groupByDtype: false });
      expect(items.map((i) => (i.kind === "row" ? i.row.name : ""))).toEqual(infos.map((i) => i.name));
    });
  }
});

describe("sort, filter, group", () => {
  const withRows = files.filter(
    (f) => f.label.includes("seetaface6_quality") || f.label.includes("dtypes") || f.label.includes("example"),
  );

  it("sorting by any column is a permutation, ordered, rows without statistics last", async () => {
    for (const { bytes } of withRows) {
      const rows = await rowsOf(bytes);
      for (const key of SORT_KEYS) {
        for (const descending of [false, true]) {
          const sorted = sortRows(rows, key, descending);
          expect(sorted.map((r) => r.index).sort((a, b) => a - b)).toEqual(rows.map((r) => r.index));
          if (["min", "max", "mean", "std", "nan", "inf", "zeros"].includes(key)) {
            const firstMissing = sorted.findIndex((r) => !r.stats);
            if (firstMissing >= 0) expect(sorted.slice(firstMissing).every((r) => !r.stats)).toBe(true);
          }
          if (key === "bytes" || key === "elements") {
            const values = sorted.map((r) => r[key]);
            for (let i = 1; i < values.length; i++)
              expect(descending ? values[i]! <= values[i - 1]! : values[i]! >= values[i - 1]!).toBe(true);
          }
          if (key === "name") {
            const names = sorted.map((r) => r.name);
            const again = names.slice().sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
            expect(names).toEqual(descending ? again.reverse() : again);
          }
        }
      }
    }
  });

  it("a filter keeps exactly the rows that contain every term (name, dtype or shape)", async () => {
    const rows = (await Promise.all(withRows.map((f) => rowsOf(f.bytes)))).flat();
    const words = [
      ...new Set(rows.flatMap((r) => r.name.toLowerCase().split(/[^a-z0-9]+/)).filter((w) => w.length > 0)),
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...words, "float32", "float16", "zzz"), { maxLength: 3 }), (terms) => {
        const kept = filterRows(rows, terms.join(" "));
        const matches = (r: TensorRow, t: string) =>
          r.name.toLowerCase().includes(t) || r.dtype === t || `[${r.shape.join(",")}]`.includes(t);
        expect(kept).toEqual(rows.filter((r) => terms.every((t) => matches(r, t))));
      }),
      { seed: 17, numRuns: 200 },
    );
    expect(filterRows(rows, "dtype:float16").every((r) => r.dtype === "float16")).toBe(true);
    const one = rows.find((r) => r.shape.length === 2)!;
    expect(filterRows(rows, `shape:${one.shape.join(",")}`).every((r) => r.shape.join() === one.shape.join())).toBe(
      true,
    );
  });

  it("groups by dtype hold every shown row once, under totals that add up", async () => {
    for (const { bytes } of withRows) {
      const rows = await rowsOf(bytes);
      const items = tableItems(rows, { sort: "bytes", descending: true, filter: "", groupByDtype: true });
      const groups = items.filter((i) => i.kind === "group");
      expect(groups.map((g) => g.kind === "group" && g.dtype).sort()).toEqual(
        [...new Set(rows.map((r) => r.dtype))].sort(),
      );
      let current = "";
      const seen: number[] = [];
      for (const item of items) {
        if (item.kind === "group") current = item.dtype;
        else {
          expect(item.row.dtype).toBe(current);
          seen.push(item.row.index);
        }
      }
      expect(seen.sort((a, b) => a - b)).toEqual(rows.map((r) => r.index));
      const all = totals(rows);
      const byDtype = dtypeTotals(rows);
      expect(byDtype.reduce((a, g) => a + g.bytes, 0)).toBe(all.bytes);
      expect(byDtype.reduce((a, g) => a + g.count, 0)).toBe(all.count);
    }
  });

  it("keyboard moves stay on shown rows and stop at the ends", async () => {
    const rows = await rowsOf(files.find((f) => f.label.includes("seetaface6_quality"))?.bytes ?? files[0]!.bytes);
    const items = tableItems(rows, { sort: "name", descending: false, filter: "", groupByDtype: true });
    const order = items.filter((i) => i.kind === "row").map((i) => (i.kind === "row" ? i.row.index : -1));
    expect(moveSelection(items, undefined, "ArrowDown")).toBe(order[0]);
    expect(moveSelection(items, order[0], "ArrowUp")).toBe(order[0]);
    expect(moveSelection(items, order[0], "ArrowDown")).toBe(order[1]);
    expect(moveSelection(items, order[0], "End")).toBe(order.at(-1));
    expect(moveSelection(items, order.at(-1), "ArrowDown")).toBe(order.at(-1));
    expect(moveSelection(items, order[0], "PageDown", 5)).toBe(order[Math.min(5, order.length - 1)]);
    expect(moveSelection(items, order[0], "x")).toBeUndefined();
  });
});

describe("group by layer (issue 26)", () => {
  const names = [
    "encoder.layers.0.weight",
    "encoder.layers.0.bias",
    "encoder.layers.1.weight",
    "head/W",
    "head/b",
    "scale",
  ];
  const rows = rowsFromInfos(
    names.map((name, i) => ({
      name,
      dtype: i === 5 ? "float16" : "float32",
      shape: [i + 1, 10],
      byteOffset: 0,
      byteLength: (i + 1) * 10 * (i === 5 ? 2 : 4),
    })) as never,
  );

  it("layerPrefix drops the last part after . / or :", () => {
    expect(names.map(layerPrefix)).toEqual([
      "encoder.layers.0",
      "encoder.layers.0",
      "encoder.layers.1",
      "head",
      "head",
      "",
    ]);
  });

  it("heads each layer with its tensor count and parameter count, rows under their layer, first-seen order", () => {
    const items = tableItems(rows, {
      sort: "index",
      descending: false,
      filter: "",
      groupByDtype: false,
      groupByLayer: true,
    });
    const groups = items.filter((i) => i.kind === "group");
    expect(groups.map((g) => g.kind === "group" && [g.layer, g.count, g.elements])).toEqual([
      ["encoder.layers.0", 2, 10 + 20],
      ["encoder.layers.1", 1, 30],
      ["head", 2, 40 + 50],
      ["", 1, 60],
    ]);
    // every row right after its group header, all rows once
    let current: string | undefined;
    const seen: string[] = [];
    for (const item of items) {
      if (item.kind === "group") current = item.layer;
      else {
        expect(layerPrefix(item.row.name)).toBe(current);
        seen.push(item.row.name);
      }
    }
    expect(seen.sort()).toEqual([...names].sort());
    expect(groups.reduce((a, g) => a + (g.kind === "group" ? g.elements : 0), 0)).toBe(totals(rows).elements);
  });
});
