import { describe, expect, it } from "vitest";
import onnxProto from "onnx-proto";
import { create } from "../../bindings/formats/onnx/builder.js";
import { ort, runOnnx } from "../helpers/ort.js";

const { onnx } = onnxProto;

describe("onnx builder (checked by onnx-proto's decoder and onnxruntime-web)", () => {
  it("writes every attribute type, initializers as little-endian raw_data, symbolic dims and metadata", () => {
    const sub = {
      name: "then",
      nodes: [{ opType: "Identity", inputs: ["k"], outputs: ["ko"] }],
      inputs: [],
      outputs: [{ name: "ko", dtype: "float32" as const, shape: [2] }],
    };
    const bytes = create({
      irVersion: 8,
      opsetImports: [{ version: 17 }, { domain: "com.example", version: 1 }],
      producerName: "tf-test",
      producerVersion: "9.9",
      docString: "doc",
      metadata: { source: "x.tsm" },
      graph: {
        name: "main",
        nodes: [
          {
            name: "n0",
            opType: "Custom",
            domain: "com.example",
            inputs: ["x", ""],
            outputs: ["y"],
            attributes: {
              f: { type: "float", value: 0.25 },
              i: -7,
              big: { type: "int", value: -(2n ** 40n) },
              s: "héllo",
              t: { type: "tensor", value: { dtype: "int64", dims: [2], data: [3n, -4n] } },
              g: { type: "graph", value: sub },
              fs: [0.5, 1.5],
              is: [1, -2, 300],
              ss: { type: "strings", value: ["a", "bc"] },
              ts: { type: "tensors", value: [{ dtype: "uint8", dims: [1], data: [9] }] },
              gs: { type: "graphs", value: [sub, sub] },
            },
          },
        ],
        initializers: [
          { name: "w", dtype: "float32", dims: [2, 2], data: new Float32Array([1, -2, 3.5, 1e-8]) },
          { name: "h", dtype: "float16", dims: [1], data: new Uint16Array([0x3c00]) },
          { name: "s", dtype: "int32", dims: [], data: [-5] },
        ],
        inputs: [{ name: "x", dtype: "float32", shape: ["batch", 3, null] }],
        outputs: [{ name: "y", dtype: "int64" }],
        valueInfo: [{ name: "v", dtype: "bool", shape: [] }],
      },
    });
    const m = onnx.ModelProto.decode(bytes);
    expect(Number(m.irVersion)).toBe(8);
    expect(m.producerName).toBe("tf-test");
    expect(m.producerVersion).toBe("9.9");
    expect(m.docString).toBe("doc");
    expect(m.metadataProps?.map((p) => [p.key, p.value])).toEqual([["source", "x.tsm"]]);
    expect(m.opsetImport?.map((o) => [o.domain, Number(o.version)])).toEqual([
      ["", 17],
      ["com.example", 1],
    ]);
    const g = m.graph!;
    expect(g.name).toBe("main");
    const node = g.node![0]!;
    expect([node.name, node.opType, node.domain, node.input, node.output]).toEqual([
      "n0",
      "Custom",
      "com.example",
      ["x", ""],
      ["y"],
    ]);
    const attr = Object.fromEntries(node.attribute!.map((a) => [a.name, a]));
    const A = onnx.AttributeProto.AttributeType;
    expect([attr.f!.type, attr.f!.f]).toEqual([A.FLOAT, 0.25]);
    expect([attr.i!.type, Number(attr.i!.i)]).toEqual([A.INT, -7]);
    expect(String(attr.big!.i)).toBe(String(-(2n ** 40n)));
    expect([attr.s!.type, new TextDecoder().decode(attr.s!.s!)]).toEqual([A.STRING, "héllo"]);
    expect(attr.t!.type).toBe(A.TENSOR);
    const tv = new DataView(attr.t!.t!.rawData!.buffer, attr.t!.t!.rawData!.byteOffset, 16);
    expect([tv.getBigInt64(0, true), tv.getBigInt64(8, true)]).toEqual([3n, -4n]);
    expect([attr.g!.type, attr.g!.g!.name, attr.g!.g!.node![0]!.opType]).toEqual([A.GRAPH, "then", "Identity"]);
    expect([attr.fs!.type, attr.fs!.floats]).toEqual([A.FLOATS, [0.5, 1.5]]);
    expect([attr.is!.type, attr.is!.ints!.map(Number)]).toEqual([A.INTS, [1, -2, 300]]);
    expect([attr.ss!.type, attr.ss!.strings!.map((s: Uint8Array) => new TextDecoder().decode(s))]).toEqual([
      A.STRINGS,
      ["a", "bc"],
    ]);
    expect([attr.ts!.type, Array.from(attr.ts!.tensors![0]!.rawData!)]).toEqual([A.TENSORS, [9]]);
    expect([attr.gs!.type, attr.gs!.graphs!.length]).toEqual([A.GRAPHS, 2]);
    const w = g.initializer![0]!;
    expect([w.name, w.dataType, w.dims!.map(Number)]).toEqual(["w", onnx.TensorProto.DataType.FLOAT, [2, 2]]);
    const raw = w.rawData!;
    expect(Array.from(new Float32Array(raw.slice().buffer))).toEqual(Array.from(new Float32Array([1, -2, 3.5, 1e-8])));
    expect(g.initializer![1]!.dataType).toBe(onnx.TensorProto.DataType.FLOAT16);
    expect(Array.from(g.initializer![1]!.rawData!)).toEqual([0x00, 0x3c]);
    expect([g.initializer![2]!.dims ?? [], Array.from(g.initializer![2]!.rawData!)]).toEqual([
      [],
      [0xfb, 0xff, 0xff, 0xff],
    ]);
    const dims = g.input![0]!.type!.tensorType!.shape!.dim!;
    expect(
      dims.map((d) =>
        d.dimParam ? d.dimParam : d.dimValue === undefined || d.dimValue === null ? null : Number(d.dimValue),
      ),
    ).toEqual(["batch", 3, null]);
    expect(dims[2]!.dimValue ?? null).toBeNull();
    expect(g.output![0]!.type!.tensorType!.shape).toBeFalsy();
    expect(g.valueInfo![0]!.type!.tensorType!.elemType).toBe(onnx.TensorProto.DataType.BOOL);
  });

  it("refuses a tensor whose bytes do not fit its dims", () => {
    expect(() =>
      create({
        graph: {
          name: "g",
          nodes: [],
          inputs: [],
          outputs: [],
          initializers: [{ name: "w", dtype: "float32", dims: [3], data: new Float32Array(2) }],
        },
      }),
    ).toThrow(/need 12/);
    expect(() =>
      create({
        graph: {
          name: "g",
          nodes: [],
          inputs: [],
          outputs: [],
          initializers: [{ name: "w", dtype: "float32", dims: [-1], data: [] }],
        },
      }),
    ).toThrow(RangeError);
  });

  it("builds a model onnxruntime-web loads without warnings and runs (Gemm + Relu + Where over an If-free graph)", async () => {
    const bytes = create({
      graph: {
        name: "g",
        nodes: [
          {
            name: "mm",
            opType: "Gemm",
            inputs: ["x", "w", "b"],
            outputs: ["y0"],
            attributes: { transB: 1, alpha: { type: "float", value: 2 } },
          },
          { name: "act", opType: "Relu", inputs: ["y0"], outputs: ["y"] },
        ],
        initializers: [
          { name: "w", dtype: "float32", dims: [2, 3], data: new Float32Array([1, 0, -1, 0.5, 0.5, 0.5]) },
          { name: "b", dtype: "float32", dims: [2], data: [10, -1] },
        ],
        inputs: [{ name: "x", dtype: "float32", shape: ["n", 3] }],
        outputs: [{ name: "y", dtype: "float32", shape: ["n", 2] }],
      },
    });
    const { outputs, messages } = await runOnnx(bytes, {
      x: new ort.Tensor("float32", new Float32Array([1, 2, 3, -1, 0, 4]), [2, 3]),
    });
    expect(messages).toEqual([]);
    // y = relu(2 * x @ w^T + b): row 0: 2*(1-3)+10 = 6, 2*3-1 = 5; row 1: 2*(-1-4)+10 = 0, 2*1.5-1 = 2
    expect(Array.from(outputs.y!.data as Float32Array)).toEqual([6, 5, 0, 2]);
  });

  it("the warning catcher used by the ONNX tests does see ORT warnings (an unused initializer)", async () => {
    const bytes = create({
      graph: {
        name: "g",
        nodes: [{ opType: "Relu", inputs: ["x"], outputs: ["y"] }],
        initializers: [{ name: "unused", dtype: "float32", dims: [1], data: [1] }],
        inputs: [{ name: "x", dtype: "float32", shape: [1] }],
        outputs: [{ name: "y", dtype: "float32", shape: [1] }],
      },
    });
    const { messages } = await runOnnx(bytes, { x: new ort.Tensor("float32", new Float32Array([-1]), [1]) });
    expect(messages.join("\n")).toMatch(/unused/);
  });
});
