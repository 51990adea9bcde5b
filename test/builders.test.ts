/**
 * One shape for every builder: what bw2l.create, april.create, tsm.create, primitiv's make* and spraak.matrix
 * return goes to write() as it is and reads back to the same tensors; forms a builder does not take are refused
 * at the builder with a message that says what to pass.
 */
import { describe, expect, it } from "vitest";
import { april, bw2l, primitiv, spraak, tsm } from "../bindings/index.js";

const values = (n: number, scale = 1) => Float32Array.from({ length: n }, (_, i) => (i - n / 2) * scale);

describe("every builder's result is write()-able as it is", () => {
  it("bw2l.create", () => {
    const file = bw2l.create({
      layers: [{ arch: "L 2 3", params: [{ dims: [3, 2, 1, 1], data: values(6) }] }],
      tokens: ["a", "b"],
    });
    const back = bw2l.read(bw2l.write(file));
    expect(bw2l.tensors(back).map((t) => t.name)).toEqual(["layers.0.0"]);
  });
  it("april.create", () => {
    const networks = {
      encoder: new Uint8Array([1, 2]),
      decoder: new Uint8Array([3]),
      joiner: new Uint8Array([4, 5, 6]),
    };
    const back = april.read(april.write(april.create({ networks, tokens: ["<blk>", "a"] })));
    expect(april.blobs(back).map((b) => (b.bytes as Uint8Array).length)).toEqual(expect.arrayContaining([2, 1, 3]));
  });
  it("spraak.matrix", () => {
    const back = spraak.read(spraak.write(spraak.matrix(values(12), { cols: 3 })));
    expect(spraak.tensors(back)[0]!.shape).toEqual([4, 3]);
  });
  it("tsm.create: names or indices for inputs, packed values, strings as char8", () => {
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "x" },
        { op: "<const>", name: "w", value: { dtype: "float32", shape: [2, 2], data: values(4) } },
        {
          op: "<const>",
          name: "pair",
          params: { value: [{ dtype: "int32", shape: [1], data: new Int32Array([7]) }, "text"] },
        },
        {
          op: "inner_prod",
          name: "y",
          inputs: ["x", 1],
          params: { transpose: { dtype: "bool", shape: [], data: new Uint8Array([1]) } },
        },
      ],
      inputs: ["x"],
      outputs: [3],
    });
    const back = tsm.read(tsm.write(module));
    expect(back.nodes[3]!.inputs).toEqual([0, 1]);
    expect(tsm.tensors(back).map((t) => [t.name, t.dtype, t.shape])).toEqual([
      ["w", "float32", [2, 2]],
      ["pair/0", "int32", [1]],
      ["pair/1", "char8", [4]],
    ]);
    expect(Array.from(tsm.tensors(back)[0]!.data as Float32Array)).toEqual(Array.from(values(4)));
    // the same module also goes into a .csta container
    expect(tsm.tensors(tsm.read(tsm.writeCsta(module))).length).toBe(3);
  });
  it("primitiv: makeModel, makeParameter, makeTensor, makeShape and makeOptimizer results", () => {
    const w = primitiv.makeTensor([2, 3], values(6));
    const parameter = primitiv.makeParameter(w, { "Adam.m1": primitiv.makeTensor([2, 3], values(6, 0.5)) });
    const cases: [string, primitiv.PrimitivFileLike, string[]][] = [
      ["model", primitiv.makeModel([[["enc", "w"], parameter]]), ["enc.w", "enc.w/stats/Adam.m1"]],
      ["parameter", parameter, ["value", "stats/Adam.m1"]],
      ["tensor", w, ["tensor"]],
      ["shape", primitiv.makeShape([2, 3]), []],
      ["optimizer", primitiv.makeOptimizer({ "Optimizer.epoch": 3 }, { "Adam.alpha": 0.001 }), []],
    ];
    for (const [dataType, built, names] of cases) {
      const back = primitiv.read(primitiv.write(built));
      expect(back.dataType).toBe(dataType);
      expect(primitiv.tensors(built).map((t) => t.name)).toEqual(names);
      expect(primitiv.tensors(back).map((t) => t.name)).toEqual(names);
      expect(primitiv.inspect(built).meta.dataType).toBe(dataType);
    }
    const tensor = primitiv.tensors(primitiv.read(primitiv.write(w)))[0]!;
    expect(tensor.shape).toEqual([2, 3]);
    expect(Array.from(tensor.data as Float32Array)).toEqual(Array.from(values(6)));
  });
});

describe("primitiv.makeModel takes the forms the README shows and refuses the rest", () => {
  const p = (v: number) => primitiv.makeParameter(primitiv.makeTensor([1], [v]));
  const names = (model: primitiv.PrimitivModel) =>
    primitiv.tensors(model).map((t) => [t.name, (t.data as Float32Array)[0]]);
  it("pairs with array paths, dotted string paths, a Map and a record give the same model", () => {
    const want = [
      ["a.b", 1],
      ["c", 2],
    ];
    expect(
      names(
        primitiv.makeModel([
          [["c"], p(2)],
          [["a", "b"], p(1)],
        ]),
      ),
    ).toEqual(want);
    expect(
      names(
        primitiv.makeModel([
          ["c", p(2)],
          ["a.b", p(1)],
        ]),
      ),
    ).toEqual(want);
    expect(
      names(
        primitiv.makeModel(
          new Map([
            ["a.b", p(1)],
            ["c", p(2)],
          ]),
        ),
      ),
    ).toEqual(want);
    expect(names(primitiv.makeModel({ c: p(2), "a.b": p(1) }))).toEqual(want);
    expect(primitiv.write(primitiv.makeModel({ c: p(2), "a.b": p(1) }))).toEqual(
      primitiv.write(
        primitiv.makeModel([
          [["a", "b"], p(1)],
          [["c"], p(2)],
        ]),
      ),
    );
  });
  it("refuses a tensor where a parameter belongs, non-pairs, bad paths and non-objects", () => {
    const tensor = primitiv.makeTensor([1], [1]);
    expect(() => primitiv.makeModel({ w: tensor as unknown as primitiv.PrimitivParameter })).toThrow(
      /entry 0 \(w\) is not a parameter \(a tensor: wrap it with makeParameter/,
    );
    expect(() => primitiv.makeModel([["w"]] as unknown as [string, primitiv.PrimitivParameter][])).toThrow(
      /entry 0 is not a \[path, parameter\] pair/,
    );
    expect(() => primitiv.makeModel([[[1, 2], p(1)]] as unknown as [string, primitiv.PrimitivParameter][])).toThrow(
      /key path is a string/,
    );
    expect(() => primitiv.makeModel(undefined as unknown as [])).toThrow(TypeError);
    expect(() => primitiv.makeModel([[[], p(1)]])).toThrow(/empty key path/);
  });
  it("write() of something that is no primitiv object says what to pass", () => {
    expect(() => primitiv.write({} as unknown as primitiv.PrimitivFile)).toThrow(
      /takes a primitiv file .* or a builder's result/,
    );
    expect(() => primitiv.write({ parametres: [] } as unknown as primitiv.PrimitivFile)).toThrow(/keys parametres/);
  });
});

describe("tsm.create refuses what TenniS cannot hold", () => {
  const f32 = { dtype: "float32" as const, shape: [2], data: values(2) };
  it.each([
    [
      "a duplicate name",
      {
        nodes: [
          { op: "<param>", name: "x" },
          { op: "<param>", name: "x" },
        ],
        inputs: [],
        outputs: [],
      },
      /two nodes are named "x"/,
    ],
    [
      "an unknown input name",
      { nodes: [{ op: "relu", name: "y", inputs: ["nope"] }], inputs: [], outputs: [] },
      /refers to "nope"/,
    ],
    [
      "an index out of range",
      { nodes: [{ op: "<param>", name: "x" }], inputs: [3], outputs: [] },
      /refers to node 3; there are 1/,
    ],
    [
      "a const without a value",
      { nodes: [{ op: "<const>", name: "c" }], inputs: [], outputs: [] },
      /<const> without a value/,
    ],
    [
      "a value on a non-const",
      { nodes: [{ op: "relu", name: "r", value: f32 }], inputs: [], outputs: [] },
      /not <const>/,
    ],
    [
      "data of the wrong length",
      { nodes: [{ op: "<const>", name: "c", value: { ...f32, shape: [3] } }], inputs: [], outputs: [] },
      /needs 12 bytes; its data has 8/,
    ],
    [
      "a dtype TenniS lacks",
      {
        nodes: [{ op: "<const>", name: "c", value: { dtype: "sink8q9", shape: [1], data: new Uint8Array(1) } }],
        inputs: [],
        outputs: [],
      },
      /cannot store/,
    ],
  ])("%s", (_label, input, message) => {
    expect(() => tsm.create(input as unknown as tsm.TsmCreateInput)).toThrow(message);
  });
});
