// bytes/names.ts: the one function that makes repeated weight names distinct (ONNX, april, TenniS, primitiv use it),
// and the dictionary helpers for objects keyed by names from files. Then each format that names weights by a
// file-given name: the hostile case W, W, W#2 that gave two "W#2" before.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as april from "../../bindings/formats/april.js";
import * as onnx from "../../bindings/formats/onnx.js";
import * as primitiv from "../../bindings/formats/primitiv.js";
import * as tsm from "../../bindings/formats/tsm.js";
import { dictionary, firstRepeat, ownValue, uniqueNames } from "../../bindings/bytes/names.js";
import { constNode, field, module } from "../helpers/tsm-builders.js";

/** Names built from few letters and "#digits", so that repeats and look-alike suffixes are common. */
const nameLists = fc.array(fc.stringMatching(/^[Wa]{0,2}(#[1-4])?$/), { maxLength: 12 });

describe("uniqueNames", () => {
  it("W, W, W#2 gives W, W#3, W#2 (the generated name skips one already taken)", () => {
    expect(uniqueNames(["W", "W", "W#2"])).toEqual(["W", "W#3", "W#2"]);
    expect(uniqueNames(["W#2", "W", "W", "W"])).toEqual(["W#2", "W", "W#3", "W#4"]);
    expect(uniqueNames(["", ""])).toEqual(["", "#2"]);
  });

  it("property: any list of names gives distinct names, as many, the unrepeated and the first of each kept", () => {
    fc.assert(
      fc.property(nameLists, (names) => {
        const out = uniqueNames(names);
        expect(out).toHaveLength(names.length);
        expect(new Set(out).size).toBe(out.length);
        const counts = new Map<string, number>();
        for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
        names.forEach((n, i) => {
          if (counts.get(n) === 1 || names.indexOf(n) === i) expect(out[i]).toBe(n);
          else expect(out[i]!.startsWith(`${n}#`)).toBe(true);
        });
      }),
    );
  });

  it("property: stable (the same list gives the same names; distinct names come back unchanged)", () => {
    fc.assert(
      fc.property(nameLists, (names) => {
        const out = uniqueNames(names);
        expect(uniqueNames(names.slice())).toEqual(out);
        expect(uniqueNames(out)).toEqual(out);
      }),
    );
  });

  it("a name repeated 20000 times is named in one pass (no quadratic search)", () => {
    const out = uniqueNames(Array.from({ length: 20000 }, () => "w"));
    expect(out[19999]).toBe("w#20000");
  });
});

describe("dictionary and ownValue", () => {
  const HOSTILE = ["__proto__", "constructor", "toString", "hasOwnProperty", "__defineGetter__", "valueOf"];

  it("every hostile name is an ordinary entry: counted, listed, serialized", () => {
    const counts = dictionary<number>();
    for (const name of HOSTILE) counts[name] = (counts[name] ?? 0) + 1;
    expect(Object.keys(counts)).toEqual(HOSTILE);
    expect(JSON.parse(JSON.stringify(counts))).toEqual(Object.fromEntries(HOSTILE.map((n) => [n, 1])));
  });

  it("ownValue finds only own entries of a table", () => {
    const table = { Add: 1 };
    for (const name of HOSTILE) expect(ownValue(table, name)).toBeUndefined();
    expect(ownValue(table, "Add")).toBe(1);
    expect(firstRepeat(["a", "b", "a"])).toBe("a");
    expect(firstRepeat(["a", "b"])).toBeUndefined();
  });
});

function onnxModel(names: string[]): Uint8Array {
  return onnx.write(
    onnx.create({
      graph: {
        name: "g",
        nodes: [],
        inputs: [],
        outputs: [],
        initializers: names.map((name, i) => ({ name, dtype: "float32", dims: [1], data: [i] })),
      },
    }),
  );
}

describe("weight names are distinct in every format that takes them from the file", () => {
  it("onnx: initializers W, W, W#2 are W, W#3, W#2, and patch replaces each by its own name", () => {
    const bytes = onnxModel(["W", "W", "W#2"]);
    const model = onnx.read(bytes);
    expect(onnx.tensorInfos(model).map((i) => i.name)).toEqual(["W", "W#3", "W#2"]);
    expect(onnx.inspect(model).tensors.map((t) => t.name)).toEqual(["W", "W#3", "W#2"]);
    const patched = onnx.read(
      onnx.write(
        onnx.replaceTensors(
          model,
          new Map([["W#3", { name: "W#3", dtype: "float32", shape: [1], data: new Float32Array([7]) }]]),
        ),
      ),
    );
    expect(onnx.tensors(patched).map((t) => [t.name, t.data[0]])).toEqual([
      ["W", 0],
      ["W#3", 7],
      ["W#2", 2],
    ]);
  });

  it("onnx: a subgraph weight whose path equals a top-level name is told apart", () => {
    const inner = {
      name: "body",
      nodes: [],
      inputs: [],
      outputs: [],
      initializers: [{ name: "W", dtype: "float32" as const, dims: [1], data: [5] }],
    };
    const bytes = onnx.write(
      onnx.create({
        graph: {
          name: "g",
          inputs: [],
          outputs: [],
          initializers: [{ name: "If_0/then_branch/W", dtype: "float32", dims: [1], data: [1] }],
          nodes: [
            {
              name: "If_0",
              opType: "If",
              inputs: ["c"],
              outputs: ["y"],
              attributes: {
                then_branch: { type: "graph", value: inner },
                else_branch: { type: "graph", value: inner },
              },
            },
          ],
        },
      }),
    );
    const names = onnx.tensorInfos(onnx.read(bytes)).map((i) => i.name);
    expect(names).toEqual(["If_0/then_branch/W", "If_0/then_branch/W#2", "If_0/else_branch/W"]);
  });

  it("april: each network's repeated names are made distinct under its prefix", () => {
    const network = onnxModel(["W", "W", "W#2"]);
    const file = april.read(
      april.write(
        april.create({ tokens: ["<blk>", "a"], networks: { encoder: network, decoder: network, joiner: network } }),
      ),
    );
    const names = april.tensorInfos(file).map((i) => i.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.slice(0, 3)).toEqual(["encoder/W", "encoder/W#3", "encoder/W#2"]);
  });

  it("tsm: two <const> nodes named W and one named W#2 (or a packed W's W/0) get distinct names, patched apart", () => {
    const f32 = (v: number) => field("float32", [1], new Float32Array([v]));
    const file = tsm.read(
      tsm.write(
        module(
          [
            constNode("W", f32(0)),
            constNode("W", f32(1)),
            constNode("W#2", f32(2)),
            constNode("P", f32(3), f32(4)),
            constNode("P/0", f32(5)),
          ],
          [],
          [4],
        ),
      ),
    );
    const names = tsm.tensorInfos(file).map((i) => i.name);
    expect(names).toEqual(["W", "W#3", "W#2", "P/0", "P/1", "P/0#2"]);
    const patched = tsm.replaceTensors(
      file,
      new Map([["W#3", { name: "W#3", dtype: "float32", shape: [1], data: new Float32Array([9]) }]]),
    );
    expect(tsm.tensors(tsm.read(tsm.write(patched))).map((t) => t.data[0])).toEqual([0, 9, 2, 3, 4, 5]);
  });

  it('primitiv: key paths that join alike ("a.b" and a / b) get distinct names, and verify still says so', () => {
    const p = (v: number) => primitiv.makeParameter(primitiv.makeTensor([1], [v]));
    const file = primitiv.read(
      primitiv.write({
        dataType: "model",
        model: primitiv.makeModel([
          [["a", "b"], p(1)],
          [["a.b"], p(2)],
        ]),
      }),
    );
    const names = primitiv.tensorInfos(file).map((i) => i.name);
    expect(new Set(names).size).toBe(2);
    expect(names).toContain("a.b#2");
    expect(primitiv.verify(file).join("\n")).toMatch(/both named "a\.b"/);
    const before = primitiv.tensors(file);
    const shape = before.find((t) => t.name === "a.b#2")!.shape;
    const patched = primitiv.read(
      primitiv.write(
        primitiv.replaceTensors(
          file,
          new Map([["a.b#2", { name: "a.b#2", dtype: "float32", shape, data: new Float32Array([9]) }]]),
        ),
      ),
    );
    const after = primitiv.tensors(patched);
    expect(after.map((t) => t.name)).toEqual(names);
    expect(after.map((t) => t.data[0])).toEqual(before.map((t) => (t.name === "a.b#2" ? 9 : t.data[0])));
  });
});
