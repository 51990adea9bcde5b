// The diff view's metadata differences (issue 26): format, version and every header key, read with each format's
// inspect(); here two safetensors files written with different __metadata__, and a file against its converted copy.
import { describe, expect, it } from "vitest";
import { formatModule, fromBytes, readFromAny, writeSafetensors } from "../../bindings/index.js";
import { differenceMatrix, metadataDifferences } from "../../web/src/model/diff.js";

async function inspected(bytes: Uint8Array) {
  const lazy = await readFromAny(fromBytes(bytes));
  return formatModule(lazy.format).inspect(lazy.file as never);
}

const tensor = { name: "w", dtype: "float32" as const, shape: [2], data: Float32Array.from([1, 2]) };

describe("metadataDifferences", () => {
  it("lists keys that differ or exist on one side only, nothing else", async () => {
    const a = await inspected(writeSafetensors([tensor], { producer: "trainer 1", epoch: "3" }));
    const b = await inspected(writeSafetensors([tensor], { producer: "trainer 2", lr: "0.1" }));
    const { differences, compared } = metadataDifferences(a, b);
    expect(differences).toEqual([
      { key: "meta.producer", a: "trainer 1", b: "trainer 2" },
      { key: "meta.epoch", a: "3", b: undefined },
      { key: "meta.lr", a: undefined, b: "0.1" },
    ]);
    expect(compared).toBe(2 + new Set([...Object.keys(a.meta), ...Object.keys(b.meta)]).size);
  });

  it("the same file against itself: no difference", async () => {
    const bytes = writeSafetensors([tensor], { producer: "x" });
    expect(metadataDifferences(await inspected(bytes), await inspected(bytes)).differences).toEqual([]);
  });

  it("different formats say so, and long or nested values stay one line", () => {
    const long = "x".repeat(500);
    const { differences } = metadataDifferences(
      { format: "tsm", version: 1, meta: { nested: { k: [1, 2n] }, long } },
      { format: "safetensors", version: null, meta: {} },
    );
    expect(differences.map((d) => d.key)).toEqual(["format", "version", "meta.nested", "meta.long"]);
    expect(differences[2]!.a).toBe('{"k":[1,"2"]}');
    expect(differences[3]!.a!.length).toBe(200);
  });
});

describe("differenceMatrix", () => {
  it("a − b per element when nothing is reduced; NaN opposite a number is NaN, NaN opposite NaN is 0", () => {
    const m = differenceMatrix([1, 2, NaN, NaN, 5, Infinity], [1, 3, NaN, 4, 2, Infinity], [2, 3], 10, 10);
    expect([m.rows, m.cols, m.rowStep, m.colStep]).toEqual([2, 3, 1, 1]);
    expect([...m.data]).toEqual([0, -1, 0, NaN, 3, 0]);
    expect(m.maxAbs).toBe(3);
  });
  it("a reduced block keeps its largest difference, with its sign (one changed element is not averaged away)", () => {
    const a = new Float64Array(1000 * 1000);
    const b = new Float64Array(1000 * 1000);
    b[123 * 1000 + 456] = 0.5; // a − b = −0.5 at one element
    const m = differenceMatrix(a, b, [1000, 1000], 100, 100);
    expect([m.rows, m.cols]).toEqual([100, 100]);
    expect(m.data[12 * 100 + 45]).toBe(-0.5);
    expect([...m.data].filter((v) => v !== 0)).toEqual([-0.5]);
  });
  it("1-D tensors are one row; element counts must agree", () => {
    expect(differenceMatrix([1, 2, 3], [0, 0, 0], [3], 10, 10).rows).toBe(1);
    expect(() => differenceMatrix([1], [1, 2], [1], 1, 1)).toThrow(RangeError);
  });
});
