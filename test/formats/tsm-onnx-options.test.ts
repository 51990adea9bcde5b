/**
 * Every model `tensorfile convert MODEL.tsm OUT.onnx [--opset N] [--input NAME=DTYPE[:SHAPE]]` writes loads in
 * onnxruntime-web: for each fixture module (skipped without ../shared) and a few generated ones, every --input
 * dtype with every kind of shape (none, the declared one, unknown dims, named dims, another rank, a conflicting
 * dim; fixed dims only for inputs that declare a shape), and every --opset, either converts to a model ORT accepts or is refused (an UnsupportedError, or the
 * RangeError the CLI reports as a usage error). Plus: a dtype other than the declared one is a Cast in front of
 * the module, as TenniS casts what it is fed to the declared #dtype.
 */
import { describe, expect, it } from "vitest";
import * as tsm from "../../bindings/formats/tsm.js";
import type { TsmNodeInput } from "../../bindings/formats/tsm.js";
import { UnsupportedError } from "../../bindings/bytes/errors.js";
import { parseInputs } from "../../bindings/cli/tsm-onnx.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { ort, runOnnx } from "../helpers/ort.js";

const DTYPES = [
  "float32",
  "float16",
  "float64",
  "int8",
  "uint8",
  "int16",
  "uint16",
  "int32",
  "uint32",
  "int64",
  "uint64",
  "bool",
];
const i32 = (shape: number[], values: number[]) => ({ dtype: "int32" as const, shape, data: new Int32Array(values) });
const f32 = (shape: number[], values: number[]) => ({
  dtype: "float32" as const,
  shape,
  data: Float32Array.from(values),
});
const FLOAT32 = tsm.tsmDTypeCode("float32")!;

/** Generated modules: declared and undeclared inputs into ops with typed weights, softmax, n-ary add, resize. */
function generated(): { name: string; module: tsm.TsmModule }[] {
  const conv: TsmNodeInput[] = [
    { op: "<param>", name: "x", params: { "#shape": i32([4], [1, 1, 4, 4]), "#dtype": i32([], [FLOAT32]) } },
    { op: "<const>", name: "w", value: f32([1, 1, 2, 2], [1, 2, 3, 4]) },
    {
      op: "conv2d",
      name: "c",
      inputs: ["x", "w"],
      params: {
        format: "NCHW",
        padding: i32([4, 2], [0, 0, 0, 0, 1, 0, 0, 1]),
        stride: i32([4], [1, 1, 1, 1]),
        dilation: i32([4], [1, 1, 1, 1]),
      },
    },
    {
      op: "pooling2d",
      name: "p",
      inputs: ["c"],
      params: {
        format: "NCHW",
        type: i32([], [1]),
        padding_type: i32([], [0]),
        padding: i32([4, 2], [0, 0, 0, 0, 1, 1, 1, 1]),
        ksize: i32([4], [1, 1, 3, 3]),
        stride: i32([4], [1, 1, 2, 2]),
      },
    },
    { op: "softmax", name: "y", inputs: ["p"], params: { dim: i32([], [-1]) } },
  ];
  const undeclared: TsmNodeInput[] = [
    { op: "<param>", name: "a" },
    { op: "<param>", name: "b" },
    { op: "<const>", name: "k", value: f32([1], [2]) },
    { op: "add", name: "s", inputs: ["a", "b", "k"] },
    { op: "mul", name: "m", inputs: ["a", "k"] },
    { op: "relu", name: "r", inputs: ["m"] },
    { op: "sigmoid", name: "g", inputs: ["b"] },
  ];
  const resize: TsmNodeInput[] = [
    { op: "<param>", name: "x", params: { "#shape": i32([4], [1, 2, 3, -1]) } },
    { op: "<const>", name: "size", value: i32([4], [-1, -1, 6, 6]) },
    { op: "_resize2d", name: "lin", inputs: ["x", "size"], params: { type: i32([], [0]) } },
    { op: "_resize2d", name: "near", inputs: ["x", "size"], params: { type: i32([], [2]) } },
    { op: "_limit", name: "lim", inputs: ["x"], params: { shape: i32([2], [2, 2]) } },
    { op: "flatten", name: "f", inputs: ["lim"], params: { dim: i32([], [1]) } },
    { op: "softmax", name: "sm", inputs: ["f"], params: { dim: i32([], [1]) } },
  ];
  return [
    {
      name: "generated conv (declared float32 [1,1,4,4])",
      module: tsm.create({ nodes: conv, inputs: ["x"], outputs: ["y"] }),
    },
    {
      name: "generated add/mul (undeclared inputs)",
      module: tsm.create({ nodes: undeclared, inputs: ["a", "b"], outputs: ["s", "r", "g"] }),
    },
    {
      name: "generated resize (declared shape with -1, no dtype)",
      module: tsm.create({ nodes: resize, inputs: ["x"], outputs: ["lin", "near", "sm"] }),
    },
  ];
}

function fixtureModules(): { name: string; module: tsm.TsmModule }[] {
  if (!haveFixtures()) return [];
  return listFixtures("tennis")
    .filter((f) => /\.(tsm|csta)$/.test(f))
    .map((f) => ({ name: f, module: tsm.read(readFixture("tennis", f)) }));
}

/** The --input values to try for a module: every dtype with each kind of shape, for all its inputs at once. */
function inputOptions(module: tsm.TsmModule): string[][] {
  const inputs = tsm.graph(module).inputs;
  const shapes = (declared: number[] | undefined): (string | undefined)[] => {
    const rank = declared?.length ?? 4;
    const dims = declared ?? [1, 1, 4, 4];
    // (fixed dims for an input that declares none would be a claim about the module the converter cannot check
    // beyond the constants an op meets directly: only declared inputs get them)
    return [
      undefined,
      declared ? dims.map((d) => (d >= 0 ? String(d) : "?")).join("x") : undefined,
      dims.map(() => "?").join("x"),
      dims.map((_, i) => `d${i}`).join("x"),
      Array<string>(rank + 1)
        .fill("1")
        .join("x"),
      declared
        ? [...dims.slice(0, -1).map((d) => (d >= 0 ? String(d) : "?")), String(Math.max(dims[rank - 1]!, 0) + 3)].join(
            "x",
          )
        : undefined,
    ];
  };
  const options: string[][] = [];
  for (const dtype of DTYPES) {
    for (let kind = 0; kind < 6; kind++) {
      options.push(
        inputs.map((n) => {
          const shape = shapes(n.shape)[kind];
          return `${n.name}=${dtype}${shape ? `:${shape}` : ""}`;
        }),
      );
    }
  }
  return options;
}

async function loads(bytes: Uint8Array): Promise<string | undefined> {
  try {
    const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 4 });
    await session.release();
    return undefined;
  } catch (error) {
    return String((error as Error).message);
  }
}

/** Converts with the CLI's option parsing: undefined when refused (as the CLI refuses), else the model bytes. */
function convert(
  module: tsm.TsmModule,
  opset: number | undefined,
  inputArgs: string[] | undefined,
): Uint8Array | undefined {
  const inputs = parseInputs(inputArgs, (message) => new Error(`usage: ${message}`));
  try {
    return tsm.toOnnx(module, { opset, inputs });
  } catch (error) {
    if (error instanceof UnsupportedError || error instanceof RangeError) return undefined;
    throw error;
  }
}

describe("every model convert writes from a tsm loads in onnxruntime-web, for every --input and --opset", () => {
  const modules = [...generated(), ...fixtureModules()];
  for (const { name, module } of modules) {
    it(`${name}: every --input dtype and shape kind (opset 17), and every --opset`, async () => {
      const failures: string[] = [];
      let converted = 0;
      for (const args of [undefined, ...inputOptions(module)]) {
        const bytes = convert(module, undefined, args);
        if (!bytes) continue;
        converted++;
        const error = await loads(bytes);
        if (error) failures.push(`--input ${args?.join(",")}: ${error.slice(0, 160)}`);
      }
      for (let opset = 13; opset <= 21; opset++) {
        const bytes = convert(module, opset, undefined);
        if (!bytes) continue;
        const error = await loads(bytes);
        if (error) failures.push(`--opset ${opset}: ${error.slice(0, 160)}`);
      }
      expect(failures).toEqual([]);
      // (a module that converts at all converts with its own declarations)
      if (convert(module, undefined, undefined)) expect(converted).toBeGreaterThan(1);
    }, 300_000);
  }
});

describe("--input DTYPE other than the declared #dtype", () => {
  it("the graph input takes that dtype and a Cast feeds the module its declared dtype (as TenniS casts inputs)", async () => {
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "x", params: { "#shape": i32([2], [1, 3]), "#dtype": i32([], [FLOAT32]) } },
        { op: "<const>", name: "b", value: f32([3], [0.5, -2, 3]) },
        { op: "add_bias", name: "y", inputs: ["x", "b"], params: { dim: i32([], [1]) } },
      ],
      inputs: ["x"],
      outputs: ["y"],
    });
    for (const [dtype, data] of [
      ["float16", new Uint16Array([0x3c00, 0x4000, 0xc200])],
      ["int32", new Int32Array([1, 2, -3])],
      ["uint8", new Uint8Array([1, 2, 253])],
    ] as const) {
      const bytes = tsm.toOnnx(module, { inputs: { x: { dtype } } });
      const model = onnx.read(bytes);
      expect(model.graph?.inputs.find((i) => i.name === "x")?.type.elemType).toBe(onnx.ONNX_DTYPES[dtype]);
      const { outputs, messages } = await runOnnx(bytes, { x: new ort.Tensor(dtype, data, [1, 3]) });
      expect(messages).toEqual([]);
      const fed = dtype === "float16" ? [1, 2, -3] : Array.from(data as ArrayLike<number>);
      expect(Array.from(outputs.y!.data as Float32Array)).toEqual(fed.map((v, i) => Math.fround(v + [0.5, -2, 3][i]!)));
    }
  });

  it("a shape the declaration does not allow is refused (a RangeError: the CLI's usage error)", () => {
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "x", params: { "#shape": i32([2], [1, -1]) } },
        { op: "relu", name: "y", inputs: ["x"] },
      ],
      inputs: ["x"],
      outputs: ["y"],
    });
    expect(() => tsm.toOnnx(module, { inputs: { x: { shape: [1, 2, 3] } } })).toThrow(
      /gives "x" the shape \[1, 2, 3\], which the module's declared shape \[1, \?\] does not allow/,
    );
    expect(() => tsm.toOnnx(module, { inputs: { x: { shape: [2, 5] } } })).toThrow(RangeError);
    expect(tsm.toOnnx(module, { inputs: { x: { shape: [1, 7] } } }).length).toBeGreaterThan(0);
    expect(tsm.toOnnx(module, { inputs: { x: { shape: ["n", null] } } }).length).toBeGreaterThan(0);
  });
});

describe("softmax dim as TenniS checks it (base_softmax.cpp: [-rank, rank))", () => {
  const module = (dim: number) =>
    tsm.create({
      nodes: [
        { op: "<param>", name: "x", params: { "#shape": i32([2], [2, 3]) } },
        { op: "softmax", name: "y", inputs: ["x"], params: { dim: i32([], [dim]) } },
      ],
      inputs: ["x"],
      outputs: ["y"],
    });
  it("refuses a dim outside the rank, either sign", () => {
    for (const dim of [2, 3, -3, 1000])
      expect(() => tsm.toOnnx(module(dim)), `dim ${dim}`).toThrow(
        /softmax: y: dim -?\d+ is outside \[-2, 2\) \(TenniS refuses it\)/,
      );
  });
  it("converts a dim inside it, a negative one counting from the end", async () => {
    const x = new ort.Tensor("float32", Float32Array.from([0, 1, 2, 3, 3, 3]), [2, 3]);
    const last = await runOnnx(tsm.toOnnx(module(-1)), { x });
    const one = await runOnnx(tsm.toOnnx(module(1)), { x });
    expect(Array.from(last.outputs.y!.data as Float32Array)).toEqual(Array.from(one.outputs.y!.data as Float32Array));
    const first = await runOnnx(tsm.toOnnx(module(-2)), { x });
    expect((first.outputs.y!.data as Float32Array)[0]).toBeCloseTo(1 / (1 + Math.E ** 3), 6);
  });
});

describe("element-wise ops whose static shapes ONNX would refuse", () => {
  it("add/sub/mul of a declared input and a constant that do not broadcast is refused; ones that do convert", () => {
    const module = (declared: number[]) =>
      tsm.create({
        nodes: [
          { op: "<param>", name: "x", params: { "#shape": i32([declared.length], declared) } },
          { op: "<const>", name: "c", value: f32([3], [1, 2, 3]) },
          { op: "add", name: "y", inputs: ["x", "c"] },
        ],
        inputs: ["x"],
        outputs: ["y"],
      });
    expect(() => tsm.toOnnx(module([2, 4]))).toThrow(/add: y: add: shapes \[2, 4\], \[3\] do not broadcast/);
    expect(tsm.toOnnx(module([2, 3])).length).toBeGreaterThan(0);
    expect(tsm.toOnnx(module([2, 1])).length).toBeGreaterThan(0);
    expect(tsm.toOnnx(module([2, -1])).length).toBeGreaterThan(0);
  });

  it("add/sub/mul of two dtypes compute in the dtype TenniS's upcast table gives (Casts in front), in onnxruntime-web", async () => {
    const module = (dtype: string, op: string) =>
      tsm.create({
        nodes: [
          {
            op: "<param>",
            name: "x",
            params: { "#shape": i32([1], [3]), "#dtype": i32([], [tsm.tsmDTypeCode(dtype as "int8")!]) },
          },
          { op: "<const>", name: "c", value: f32([3], [0.5, 0.5, -2]) },
          { op, name: "y", inputs: ["x", "c"] },
        ],
        inputs: ["x"],
        outputs: ["y"],
      });
    // int8 + float32 -> float32; float64 * float32 -> float64 (element_wise_reduce.cpp upcast_dtype)
    const sum = await runOnnx(tsm.toOnnx(module("int8", "add")), {
      x: new ort.Tensor("int8", Int8Array.from([1, 2, -3]), [3]),
    });
    expect(sum.messages).toEqual([]);
    expect([sum.outputs.y!.type, Array.from(sum.outputs.y!.data as Float32Array)]).toEqual(["float32", [1.5, 2.5, -5]]);
    const product = await runOnnx(tsm.toOnnx(module("float64", "mul")), {
      x: new ort.Tensor("float64", Float64Array.from([0.1, 2, 3]), [3]),
    });
    expect(product.messages).toEqual([]);
    expect([product.outputs.y!.type, Array.from(product.outputs.y!.data as Float64Array)]).toEqual([
      "float64",
      [0.05, 1, -6],
    ]);
  });

  it("ops whose inputs TenniS requires to agree (add_bias, conv2d, concat…) are refused when they do not", () => {
    const module = tsm.create({
      nodes: [
        {
          op: "<param>",
          name: "x",
          params: { "#shape": i32([2], [1, 3]), "#dtype": i32([], [tsm.tsmDTypeCode("float64")!]) },
        },
        { op: "<const>", name: "b", value: f32([3], [1, 2, 3]) },
        { op: "add_bias", name: "y", inputs: ["x", "b"], params: { dim: i32([], [1]) } },
      ],
      inputs: ["x"],
      outputs: ["y"],
    });
    expect(() => tsm.toOnnx(module)).toThrow(
      /add_bias of float64 "x" and float32 "b" \(they must agree, in TenniS as in ONNX\)/,
    );
  });
});
