import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import onnxProto from "onnx-proto";
import fc from "fast-check";
import * as onnx from "../../bindings/formats/onnx.js";
import { detectFormat, readAny, readFromAny } from "../../bindings/any.js";
import { isFormatError } from "../../bindings/bytes/errors.js";
import { fromBytes } from "../../bindings/io/source.js";
import { haveFixtures, listFixtures, readFixture } from "../helpers/fixtures.js";
import { ProtoWriter } from "../../bindings/formats/onnx/proto-writer.js";
import type { NamedTensor } from "../../bindings/tensor.js";
import { type GraphSpec, type TensorSpec, VAD_MODELS, buildModel, le } from "../helpers/onnx-models.js";

const { onnx: proto } = onnxProto;
type ProtoTensor = onnxProto.onnx.ITensorProto;
type ProtoGraph = onnxProto.onnx.IGraphProto;

function same(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.length === b.length &&
    Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length))
  );
}

function bytesOfTensor(t: NamedTensor): Uint8Array {
  const d = t.data as ArrayBufferView;
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

/** An independent listing of the weights with onnx-proto: names, dims, data type and the values as raw_data bytes. */
function oracleWeights(bytes: Uint8Array): { name: string; dims: number[]; dataType: number; data: Uint8Array }[] {
  const model = proto.ModelProto.decode(bytes);
  const out: { name: string; dims: number[]; dataType: number; data: Uint8Array }[] = [];
  const dataOf = (t: ProtoTensor): Uint8Array => {
    if (t.rawData && t.rawData.length > 0) return new Uint8Array(t.rawData);
    if (t.dataType === 1) return le(new Float32Array(t.floatData ?? []));
    if (t.dataType === 11) return le(new Float64Array(t.doubleData ?? []));
    if (t.dataType === 7) return le(BigInt64Array.from((t.int64Data ?? []).map((v) => BigInt(String(v)))));
    if (t.dataType === 6) return le(Int32Array.from(t.int32Data ?? []));
    throw new Error(`oracle: data type ${t.dataType} not handled`);
  };
  const walk = (g: ProtoGraph, prefix: string) => {
    for (const t of g.initializer ?? [])
      out.push({ name: prefix + t.name, dims: (t.dims ?? []).map(Number), dataType: t.dataType ?? 0, data: dataOf(t) });
    (g.node ?? []).forEach((n, i) => {
      const label = n.name ? n.name : `${n.opType}#${i}`;
      if (n.opType === "Constant") {
        const value = (n.attribute ?? []).find((a) => a.name === "value" && a.t);
        if (value?.t)
          out.push({
            name: prefix + n.output![0]!,
            dims: (value.t.dims ?? []).map(Number),
            dataType: value.t.dataType ?? 0,
            data: dataOf(value.t),
          });
      }
      for (const a of n.attribute ?? []) {
        if (a.g) walk(a.g, `${prefix}${label}/${a.name}/`);
        (a.graphs ?? []).forEach((sub, k) => walk(sub, `${prefix}${label}/${a.name}/${k}/`));
      }
    });
  };
  if (model.graph) walk(model.graph, "");
  return out;
}

const DTYPE_OF: Record<number, string> = { 1: "float32", 6: "int32", 7: "int64", 11: "float64" };

describe("onnx: real exporter files (Silero VAD, PyTorch exports with If subgraphs)", () => {
  it.skipIf(VAD_MODELS.length === 0)("every weight equals onnx-proto's decode, and write(read(x)) is x", () => {
    for (const path of VAD_MODELS) {
      const bytes = new Uint8Array(readFileSync(path));
      expect(onnx.detect(bytes.subarray(0, 64))).toBe(true);
      expect(detectFormat(bytes.subarray(0, 64))).toBe("onnx");
      const model = onnx.read(bytes);
      const expected = oracleWeights(bytes);
      const tensors = onnx.tensors(model);
      expect(tensors.map((t) => t.name)).toEqual(expected.map((e) => e.name));
      expect(expected.some((e) => e.name.includes("/"))).toBe(
        path.includes("legacy") ? expected.some((e) => e.name.includes("/")) : true,
      );
      tensors.forEach((t, i) => {
        expect(t.shape).toEqual(expected[i]!.dims);
        expect(t.dtype).toBe(DTYPE_OF[expected[i]!.dataType]);
        expect(same(bytesOfTensor(t), expected[i]!.data)).toBe(true);
      });
      expect(same(onnx.write(model), bytes)).toBe(true);
      expect(onnx.verify(model)).toEqual([]);
    }
  });

  it.skipIf(!haveFixtures())(
    "the april fixtures' hand-encoded networks (onnxruntime-web ran them) equal onnx-proto's decode",
    () => {
      const names = listFixtures("april/onnx", ".onnx");
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) {
        const bytes = readFixture("april", "onnx", name);
        const model = onnx.read(bytes);
        const expected = oracleWeights(bytes);
        const tensors = onnx.tensors(model);
        expect(tensors.map((t) => [t.name, t.shape])).toEqual(expected.map((e) => [e.name, e.dims]));
        tensors.forEach((t, i) => expect(same(bytesOfTensor(t), expected[i]!.data)).toBe(true));
        expect(same(onnx.write(model), bytes)).toBe(true);
      }
    },
  );

  it.skipIf(VAD_MODELS.length === 0)(
    "the graph is there for a graph view: nodes, attributes, inputs/outputs, subgraphs",
    () => {
      const bytes = new Uint8Array(readFileSync(VAD_MODELS.find((p) => p.includes("v5")) ?? VAD_MODELS[0]!));
      const model = onnx.read(bytes);
      const decoded = proto.ModelProto.decode(bytes);
      const graph = model.graph!;
      expect(graph.nodes.map((n) => n.opType)).toEqual((decoded.graph!.node ?? []).map((n) => n.opType));
      expect(graph.inputs.map((v) => v.name)).toEqual((decoded.graph!.input ?? []).map((v) => v.name));
      expect(graph.outputs.map((v) => v.name)).toEqual((decoded.graph!.output ?? []).map((v) => v.name));
      expect(graph.inputs[0]!.type.elemType).toBe(decoded.graph!.input![0]!.type!.tensorType!.elemType);
      const ifNode = graph.nodes.find((n) => n.opType === "If");
      if (ifNode) {
        const names = ifNode.attributes.map((a) => a.name).sort();
        expect(names).toEqual(["else_branch", "then_branch"]);
        expect(ifNode.attributes.every((a) => a.type === "GRAPH" && a.g !== undefined)).toBe(true);
      }
      expect(model.opsetImports.map((o) => o.version)).toEqual(
        (decoded.opsetImport ?? []).map((o) => Number(o.version)),
      );
    },
  );

  it.skipIf(VAD_MODELS.length === 0)("readFrom reads headers only and loadTensor gives the same tensors", async () => {
    for (const path of VAD_MODELS) {
      const bytes = new Uint8Array(readFileSync(path));
      let read = 0;
      const source = fromBytes(bytes);
      const counting = {
        size: bytes.length,
        read: async (o: number, n: number) => {
          read += Math.min(n, bytes.length - o);
          return source.read(o, n);
        },
      };
      const model = await onnx.readFrom(counting);
      expect(read, `${path}: readFrom read only the structure`).toBeLessThan(bytes.length);
      const infos = onnx.tensorInfos(model);
      const eager = onnx.tensors(onnx.read(bytes));
      for (const [i, info] of infos.entries()) {
        const t = await onnx.loadTensor(counting, info);
        expect(t.name).toBe(eager[i]!.name);
        expect(same(bytesOfTensor(t), bytesOfTensor(eager[i]!))).toBe(true);
      }
      const any = await readFromAny(fromBytes(bytes));
      expect(any.format).toBe("onnx");
    }
  });
});

// ------------------------------------------------------------------------------------- hand-built models

describe("onnx: a lazy open reads headers only", () => {
  it("40 weights of 256 KiB: under 64 KiB plus a few KiB per weight are read, and each loads alone", async () => {
    const initializers: TensorSpec[] = [];
    for (let i = 0; i < 40; i++)
      initializers.push({
        name: `layer${i}.weight`,
        dataType: 1,
        dims: [256, 256],
        raw: le(new Float32Array(65536).fill(i)),
      });
    initializers.push({ name: "typed", dataType: 1, dims: [3], floats: [1, 2, 3] });
    const bytes = buildModel({ graph: { initializers } });
    let read = 0;
    const inner = fromBytes(bytes);
    const counting = {
      size: bytes.length,
      read: async (o: number, n: number) => {
        read += Math.min(n, bytes.length - o);
        return inner.read(o, n);
      },
      readSync: (o: number, n: number) => {
        read += Math.min(n, bytes.length - o);
        return bytes.subarray(o, o + n);
      },
    };
    const model = await onnx.readFrom(counting);
    expect(read).toBeLessThan(64 * 1024 + 40 * 8192);
    const infos = onnx.tensorInfos(model);
    read = 0;
    const t = await onnx.loadTensor(counting, infos[17]!);
    expect(read).toBe(256 * 1024);
    expect((t.data as Float32Array)[1000]).toBe(17);
    expect(Array.from((await onnx.loadTensor(counting, infos[40]!)).data as Float32Array)).toEqual([1, 2, 3]);
    expect(() => onnx.tensors(model)).toThrow(/loadTensor/);
  });
});

interface DTypeCase {
  dataType: number;
  dtype: string;
  spec: Omit<TensorSpec, "name" | "dataType" | "dims">;
  /** The expected tensor data. */
  expected: ArrayBufferView;
  dims: number[];
}

const DTYPE_CASES: DTypeCase[] = [
  {
    dataType: 1,
    dtype: "float32",
    spec: { floats: [1.5, -2, 3.25, Number.POSITIVE_INFINITY] },
    expected: Float32Array.of(1.5, -2, 3.25, Infinity),
    dims: [2, 2],
  },
  { dataType: 2, dtype: "uint8", spec: { int32s: [0, 255, 7] }, expected: Uint8Array.of(0, 255, 7), dims: [3] },
  { dataType: 3, dtype: "int8", spec: { int32s: [-128, 127, -1] }, expected: Int8Array.of(-128, 127, -1), dims: [3] },
  { dataType: 4, dtype: "uint16", spec: { int32s: [65535, 1] }, expected: Uint16Array.of(65535, 1), dims: [2] },
  { dataType: 5, dtype: "int16", spec: { int32s: [-32768, 32767] }, expected: Int16Array.of(-32768, 32767), dims: [2] },
  {
    dataType: 6,
    dtype: "int32",
    spec: { int32s: [-(2 ** 31), 2 ** 31 - 1, 0] },
    expected: Int32Array.of(-(2 ** 31), 2 ** 31 - 1, 0),
    dims: [3],
  },
  {
    dataType: 7,
    dtype: "int64",
    spec: { int64s: [-(2n ** 63n), 2n ** 63n - 1n, -5n] },
    expected: BigInt64Array.of(-(2n ** 63n), 2n ** 63n - 1n, -5n),
    dims: [3],
  },
  { dataType: 9, dtype: "bool", spec: { int32s: [1, 0, 1] }, expected: Uint8Array.of(1, 0, 1), dims: [3] },
  {
    dataType: 10,
    dtype: "float16",
    spec: { int32s: [0x3c00, 0xc000] },
    expected: Uint16Array.of(0x3c00, 0xc000),
    dims: [2],
  },
  {
    dataType: 11,
    dtype: "float64",
    spec: { doubles: [Math.PI, -0] },
    expected: Float64Array.of(Math.PI, -0),
    dims: [2],
  },
  {
    dataType: 12,
    dtype: "uint32",
    spec: { uint64s: [2 ** 32 - 1, 3] },
    expected: Uint32Array.of(2 ** 32 - 1, 3),
    dims: [2],
  },
  {
    dataType: 13,
    dtype: "uint64",
    spec: { uint64s: [2n ** 64n - 1n, 0n] },
    expected: BigUint64Array.of(2n ** 64n - 1n, 0n),
    dims: [2],
  },
  {
    dataType: 14,
    dtype: "complex64",
    spec: { floats: [1, 2, 3, 4] },
    expected: Float32Array.of(1, 2, 3, 4),
    dims: [2],
  },
  { dataType: 15, dtype: "complex128", spec: { doubles: [1, -1] }, expected: Float64Array.of(1, -1), dims: [1] },
  {
    dataType: 16,
    dtype: "bfloat16",
    spec: { int32s: [0x3f80, 0xbf80] },
    expected: Uint16Array.of(0x3f80, 0xbf80),
    dims: [2],
  },
  {
    dataType: 17,
    dtype: "float8_e4m3",
    spec: { int32s: [0x38, 0xb8] },
    expected: Uint8Array.of(0x38, 0xb8),
    dims: [2],
  },
  {
    dataType: 19,
    dtype: "float8_e5m2",
    spec: { int32s: [0x3c, 0x7b] },
    expected: Uint8Array.of(0x3c, 0x7b),
    dims: [2],
  },
  { dataType: 18, dtype: "uint8", spec: { int32s: [0x40, 0x80] }, expected: Uint8Array.of(0x40, 0x80), dims: [2] },
  { dataType: 22, dtype: "uint8", spec: { int32s: [0x21, 0x0f] }, expected: Uint8Array.of(0x21, 0x0f), dims: [3] },
];

function oneWeight(t: TensorSpec, unknownFields = false): Uint8Array {
  return buildModel({
    graph: { initializers: [t], outputs: [{ name: t.name, elemType: t.dataType, shape: t.dims }] },
    unknownFields,
  });
}

describe("onnx: typed fields of every data type, packed and not, and raw_data", () => {
  for (const c of DTYPE_CASES) {
    for (const unpacked of [false, true]) {
      it(`${c.dtype} (data type ${c.dataType}) in its typed field${unpacked ? ", one tag per element" : ""}`, async () => {
        const bytes = oneWeight({ name: "w", dataType: c.dataType, dims: c.dims, ...c.spec, unpacked });
        const model = onnx.read(bytes);
        const [t] = onnx.tensors(model);
        expect(t!.dtype).toBe(c.dtype);
        expect(same(bytesOfTensor(t!), le(c.expected))).toBe(true);
        expect(t!.shape).toEqual(c.dataType === 22 ? [2] : c.dims);
        // the lazy path decodes the same
        const lazyModel = await onnx.readFrom(fromBytes(bytes));
        const loaded = await onnx.loadTensor(fromBytes(bytes), onnx.tensorInfos(lazyModel)[0]!);
        expect(same(bytesOfTensor(loaded), le(c.expected))).toBe(true);
        // the same values stored as raw_data read the same
        const raw = onnx.tensors(
          onnx.read(oneWeight({ name: "w", dataType: c.dataType, dims: c.dims, raw: le(c.expected) })),
        )[0]!;
        expect(same(bytesOfTensor(raw), le(c.expected))).toBe(true);
        expect(same(onnx.write(model), bytes)).toBe(true);
      });
    }
  }

  it("0-d scalars and empty tensors", () => {
    const bytes = buildModel({
      graph: {
        initializers: [
          { name: "scalar", dataType: 1, dims: [], floats: [7] },
          { name: "scalar_raw", dataType: 7, dims: [], raw: le(BigInt64Array.of(-3n)) },
          { name: "empty", dataType: 1, dims: [0, 4] },
          { name: "empty_raw", dataType: 1, dims: [3, 0], raw: new Uint8Array(0) },
        ],
      },
    });
    const ts = onnx.tensors(onnx.read(bytes));
    expect(ts.map((t) => [t.name, t.shape, Array.from(t.data as Float32Array, Number)])).toEqual([
      ["scalar", [], [7]],
      ["scalar_raw", [], [-3]],
      ["empty", [0, 4], []],
      ["empty_raw", [3, 0], []],
    ]);
  });

  it("strings are shown by inspect, not as tensors", () => {
    const bytes = buildModel({
      graph: {
        initializers: [
          { name: "labels", dataType: 8, dims: [2], strings: ["yes", "no"] },
          { name: "w", dataType: 1, dims: [1], floats: [1] },
        ],
      },
    });
    const model = onnx.read(bytes);
    expect(onnx.tensors(model).map((t) => t.name)).toEqual(["w"]);
    expect(onnx.inspect(model).strings).toEqual([{ name: "labels", dims: [2], count: 2 }]);
  });
});

describe("onnx: Constants and subgraphs at every depth", () => {
  const constant = (output: string, t: TensorSpec) => ({
    name: `c_${output}`,
    opType: "Constant",
    inputs: [],
    outputs: [output],
    attrs: [{ name: "value", type: 4, t }],
  });
  const nested = buildModel({
    graph: {
      nodes: [
        constant("k", { name: "", dataType: 1, dims: [2], floats: [1, 2] }),
        {
          name: "fill",
          opType: "ConstantOfShape",
          inputs: ["k"],
          outputs: ["z"],
          attrs: [{ name: "value", type: 4, t: { name: "", dataType: 1, dims: [1], floats: [0] } }],
        },
        {
          name: "If_0",
          opType: "If",
          inputs: ["cond"],
          outputs: ["y"],
          attrs: [
            {
              name: "then_branch",
              type: 5,
              g: {
                nodes: [constant("t1", { name: "x", dataType: 7, dims: [1], int64s: [5] })],
                initializers: [{ name: "lstm.weight", dataType: 1, dims: [2], raw: le(Float32Array.of(3, 4)) }],
              },
            },
            {
              name: "else_branch",
              type: 5,
              g: {
                nodes: [
                  {
                    opType: "Loop",
                    inputs: [],
                    outputs: ["o"],
                    attrs: [
                      {
                        name: "body",
                        type: 5,
                        g: { initializers: [{ name: "deep", dataType: 6, dims: [2], int32s: [-1, 9] }] },
                      },
                    ],
                  },
                ],
              },
            },
          ],
        },
        {
          name: "Scan_0",
          opType: "Scan",
          inputs: [],
          outputs: ["s"],
          attrs: [
            {
              name: "bodies",
              type: 10,
              graphs: [{ initializers: [{ name: "a", dataType: 1, dims: [1], floats: [8] }] }],
            },
          ],
        },
      ],
    },
  });

  it("names weights by path, skips other tensor attributes, and counts them all", () => {
    const model = onnx.read(nested);
    const ts = onnx.tensors(model);
    expect(ts.map((t) => t.name)).toEqual([
      "k",
      "If_0/then_branch/lstm.weight",
      "If_0/then_branch/t1",
      "If_0/else_branch/Loop#0/body/deep",
      "Scan_0/bodies/0/a",
    ]);
    expect(ts.map((t) => Array.from(t.data as ArrayLike<number | bigint>, Number))).toEqual([
      [1, 2],
      [3, 4],
      [5],
      [-1, 9],
      [8],
    ]);
    expect(onnx.write(model)).toEqual(nested);
  });

  it("a Constant-only graph has its Constants as weights", () => {
    const bytes = buildModel({
      graph: {
        nodes: [constant("only", { name: "v", dataType: 1, dims: [3], raw: le(Float32Array.of(1, 2, 3)) })],
        outputs: [{ name: "only", elemType: 1, shape: [3] }],
      },
    });
    expect(onnx.tensors(onnx.read(bytes)).map((t) => [t.name, Array.from(t.data as Float32Array)])).toEqual([
      ["only", [1, 2, 3]],
    ]);
  });

  it("refuses subgraphs nested past the limit, with the offset and field", () => {
    let g: GraphSpec = { initializers: [{ name: "w", dataType: 1, dims: [1], floats: [1] }] };
    for (let i = 0; i < 5; i++)
      g = {
        nodes: [{ name: `n${i}`, opType: "If", inputs: [], outputs: [], attrs: [{ name: "then_branch", type: 5, g }] }],
      };
    const bytes = buildModel({ graph: g });
    expect(onnx.tensors(onnx.read(bytes))[0]!.name).toBe(
      "n4/then_branch/n3/then_branch/n2/then_branch/n1/then_branch/n0/then_branch/w",
    );
    try {
      onnx.read(bytes, { maxGraphDepth: 3 });
      expect.unreachable();
    } catch (error) {
      expect(isFormatError(error) && error.code).toBe("LIMIT");
      expect((error as { offset?: number }).offset).toBeGreaterThan(0);
      expect((error as { field?: string }).field).toMatch(/graph\.node\[0\]\.attribute\[0\]\.g/);
    }
  });
});

describe("onnx: unknown fields are kept", () => {
  it("write(read(x)) is x, and a replaced weight keeps the unknown fields around it", () => {
    const bytes = oneWeight({ name: "w", dataType: 1, dims: [2], floats: [1, 2], unknownField: true }, true);
    const model = onnx.read(bytes);
    expect(model.unknownFieldCount).toBe(3);
    expect(same(onnx.write(model), bytes)).toBe(true);
    const patched = onnx.write(
      onnx.replaceTensors(model, { w: { name: "w", dtype: "float32", shape: [2], data: Float32Array.of(5, 6) } }),
    );
    const decoded = proto.ModelProto.decode(patched);
    expect(decoded.graph!.initializer![0]!.floatData).toEqual([5, 6]);
    expect(onnx.read(patched).unknownFieldCount).toBe(3);
  });
});

// ------------------------------------------------------------------------------------------- invalid

function formatErrorOf(fn: () => unknown): { code: string; offset: number | undefined; field: string | undefined } {
  try {
    fn();
  } catch (error) {
    if (!isFormatError(error)) throw error;
    return { code: error.code, offset: error.offset, field: error.field };
  }
  throw new Error("no error");
}

describe("onnx: every protobuf rule is a FormatError with offset and field", () => {
  const base = oneWeight({ name: "w", dataType: 1, dims: [2], raw: le(Float32Array.of(1, 2)) });

  it("a varint over 10 bytes", () => {
    const bytes = Uint8Array.of(0x08, ...new Array(11).fill(0x80), 0x01);
    expect(formatErrorOf(() => onnx.read(bytes))).toMatchObject({ code: "CORRUPT", offset: 1 });
  });

  it("a length past the enclosing message", () => {
    // a graph of 4 bytes holding a name whose length says 10
    const w = new ProtoWriter().uintField(1, 8);
    w.tag(7, 2).varint(4).tag(2, 2).varint(10).raw(Uint8Array.of(0x61, 0x62));
    w.stringField(2, "after the graph, long enough");
    expect(formatErrorOf(() => onnx.read(w.finish()))).toMatchObject({
      code: "CORRUPT",
      offset: 5,
      field: "model.graph.name",
    });
  });

  it("a truncated file", () => {
    expect(formatErrorOf(() => onnx.read(base.subarray(0, base.length - 3)))).toMatchObject({ code: "TRUNCATED" });
  });

  it("a known field with the wrong wire type", () => {
    const w = new ProtoWriter().tag(1, 2).varint(1).raw(Uint8Array.of(8));
    expect(formatErrorOf(() => onnx.read(w.finish()))).toMatchObject({
      code: "CORRUPT",
      offset: 0,
      field: "model.ir_version",
    });
  });

  it("dims × dtype size ≠ stored bytes (raw_data and typed)", () => {
    const raw = oneWeight({ name: "w", dataType: 1, dims: [3], raw: le(Float32Array.of(1, 2)) });
    expect(formatErrorOf(() => onnx.read(raw))).toMatchObject({
      code: "CORRUPT",
      field: "model.graph.initializer[0].raw_data",
    });
    const typed = oneWeight({ name: "w", dataType: 6, dims: [3], int32s: [1, 2] });
    expect(formatErrorOf(() => onnx.read(typed))).toMatchObject({
      code: "CORRUPT",
      field: "model.graph.initializer[0].int32_data",
    });
    const wrongField = oneWeight({ name: "w", dataType: 6, dims: [2], floats: [1, 2] });
    expect(formatErrorOf(() => onnx.read(wrongField))).toMatchObject({
      code: "CORRUPT",
      field: "model.graph.initializer[0].float_data",
    });
  });

  it("negative dims", () => {
    const bytes = oneWeight({ name: "w", dataType: 1, dims: [-2], raw: new Uint8Array(0) });
    expect(formatErrorOf(() => onnx.read(bytes))).toMatchObject({
      code: "CORRUPT",
      field: "model.graph.initializer[0].dims",
    });
  });

  it("unknown data types carrying data (and allowed without data)", () => {
    expect(
      formatErrorOf(() => onnx.read(oneWeight({ name: "w", dataType: 99, dims: [1], raw: Uint8Array.of(1) }))),
    ).toMatchObject({ code: "UNSUPPORTED", field: "model.graph.initializer[0].data_type" });
    expect(onnx.tensors(onnx.read(oneWeight({ name: "w", dataType: 99, dims: [0] })))).toEqual([]);
  });

  it("external locations that leave the folder", () => {
    for (const location of ["../secret.bin", "/etc/passwd", "a/../../b", "C:\\x"]) {
      const bytes = oneWeight({ name: "w", dataType: 1, dims: [1], external: { location } });
      expect(formatErrorOf(() => onnx.read(bytes))).toMatchObject({
        code: "CORRUPT",
        field: "model.graph.initializer[0].external_data.location",
      });
    }
  });

  it("nesting past the graph limit and past the message limit", () => {
    let g: GraphSpec = { initializers: [{ name: "w", dataType: 1, dims: [1], floats: [1] }] };
    for (let i = 0; i < 40; i++)
      g = {
        nodes: [{ name: `n${i}`, opType: "If", inputs: [], outputs: [], attrs: [{ name: "then_branch", type: 5, g }] }],
      };
    const bytes = buildModel({ graph: g });
    const graphLimit = formatErrorOf(() => onnx.read(bytes));
    expect(graphLimit.code).toBe("LIMIT");
    expect(graphLimit.offset).toBeGreaterThan(0);
    // with the graph limit raised, the message nesting limit (100) still holds
    const messageLimit = formatErrorOf(() => onnx.read(bytes, { maxGraphDepth: 1000 }));
    expect(messageLimit.code).toBe("LIMIT");
    expect(messageLimit.field).toMatch(/^model\.graph\.node\[0\]/);
  });

  it("random bytes and other protobuf are not ONNX; mutations of a real model throw only FormatErrors", () => {
    // a detected head holds an ir_version (tag 0x08; fields may come in any order), whatever its length
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 64 }), (head) => {
        expect(!onnx.detect(head) || head.includes(0x08)).toBe(true);
      }),
      { numRuns: 2000, seed: 2424 },
    );
    let detected = 0;
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 64 }), (head) => {
        if (onnx.detect(head)) detected++;
      }),
      { numRuns: 5000, seed: 2425 },
    );
    // heads that start with ir_version: the check must still look at what follows
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 32 }), fc.uint8Array({ minLength: 62, maxLength: 62 }), (ir, rest) => {
        if (onnx.detect(Uint8Array.of(0x08, ir, ...rest))) detected++;
      }),
      { numRuns: 5000, seed: 2426 },
    );
    expect(detected).toBe(0);
    // a TensorProto and a GraphProto on their own are protobuf, not a model
    const tensor = new ProtoWriter();
    tensor.uintField(1, 2).uintField(2, 1).stringField(8, "w").bytesField(9, new Uint8Array(8));
    expect(onnx.detect(tensor.finish())).toBe(false);
    const graph = new ProtoWriter()
      .messageField(1, (n) => n.stringField(1, "x").stringField(4, "Relu"))
      .stringField(2, "g");
    expect(onnx.detect(graph.finish())).toBe(false);
    expect(onnx.detect(base)).toBe(true);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: base.length - 1 }), fc.integer({ min: 0, max: 255 }), (at, value) => {
        const copy = base.slice();
        copy[at] = value;
        try {
          onnx.tensors(onnx.read(copy));
        } catch (error) {
          expect(isFormatError(error)).toBe(true);
        }
      }),
      { numRuns: 3000, seed: 2427 },
    );
  });

  it("readAny reads .onnx bytes", () => {
    const any = readAny(base);
    expect(any.format).toBe("onnx");
    expect(any.tensors().map((t) => t.name)).toEqual(["w"]);
  });
});
