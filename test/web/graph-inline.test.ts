// Small constants drawn with their values in the node boxes (web/src/model/graph-onnx.ts): `B = 16000`,
// `axes = [0]`, `shape = [1, -1, 64]`, floats as their shortest round trip, booleans, int64 in raw_data and in
// typed fields (a model encoded with onnx-proto, an independent encoder), float16 widened; larger weights keep
// `W ⟨32×16×3×3⟩`; external data is never read; a constant that fails to load keeps its shape row.
import onnxProto from "onnx-proto";
import { describe, expect, it } from "vitest";
import { april, formatModule, fromBytes, onnx, readFromAny } from "../../bindings/index.js";
import { type GraphModel, weightText } from "../../web/src/model/graph.js";
import { aprilGraphDocument, loadConstantValues, onnxGraphDocument } from "../../web/src/model/graph-onnx.js";
import type { OpenedFile } from "../../web/src/ui/context.js";
import { loadGraphConstants } from "../../web/src/ui/graph/document.js";
import { decodedConstants } from "../helpers/onnx-constants.js";

/** Every weight row of the graph as drawn, by the op that reads it. */
function rows(graph: GraphModel): string[] {
  return graph.nodes.flatMap((n) => n.weights.map((w) => `${n.op}: ${weightText(w)}`));
}

const int64s = (name: string, values: number[], dims = [values.length]) => ({
  name,
  dtype: "int64" as const,
  dims,
  data: BigInt64Array.from(values.map(BigInt)),
});

function sampleBytes(): Uint8Array {
  return onnx.write(
    onnx.create({
      graph: {
        name: "inline",
        inputs: [
          { name: "x", dtype: "float32", shape: [1, 16, 8, 8] },
          { name: "sr", dtype: "int64", shape: [] },
        ],
        outputs: [{ name: "y", dtype: "float32", shape: [1, 32, 6, 6] }],
        initializers: [
          { name: "conv.weight", dtype: "float32", dims: [32, 16, 3, 3], data: new Float32Array(32 * 16 * 9) },
          int64s("rate", [16000], []),
          int64s("axes", [0]),
          int64s("shape", [1, -1, 64]),
          { name: "tenth", dtype: "float32", dims: [], data: Float32Array.of(0.1) },
          { name: "mask", dtype: "bool", dims: [2], data: Uint8Array.of(1, 0) },
          { name: "grid", dtype: "int32", dims: [2, 2], data: Int32Array.of(1, 2, 3, 4) },
          { name: "nine", dtype: "float32", dims: [9], data: new Float32Array(9) },
          { name: "half", dtype: "float16", dims: [], data: Uint16Array.of(0x3e00) }, // 1.5
        ],
        nodes: [
          { opType: "Conv", inputs: ["x", "conv.weight"], outputs: ["y"] },
          { opType: "Equal", inputs: ["sr", "rate"], outputs: ["is16k"] },
          { opType: "Unsqueeze", inputs: ["sr", "axes"], outputs: ["sr1"] },
          { opType: "Reshape", inputs: ["x", "shape"], outputs: ["r"] },
          { opType: "Add", inputs: ["r", "tenth"], outputs: ["a"] },
          { opType: "Where", inputs: ["mask", "sr1", "sr1"], outputs: ["w"] },
          { opType: "Add", inputs: ["grid", "grid"], outputs: ["g"] },
          { opType: "Mul", inputs: ["a", "nine"], outputs: ["m"] },
          { opType: "Mul", inputs: ["a", "half"], outputs: ["h"] },
          {
            opType: "Constant",
            inputs: [],
            outputs: ["k"],
            attributes: {
              value: { type: "tensor", value: { name: "k", dtype: "float32", dims: [1], data: Float32Array.of(0.5) } },
            },
          },
          { opType: "Sub", inputs: ["a", "k"], outputs: ["s"] },
        ],
      },
    }),
  );
}

describe("small constants inline", () => {
  it("shows scalars and small constants with their values, big weights with their shape", async () => {
    const { model, values } = await decodedConstants(sampleBytes());
    expect(rows(onnxGraphDocument(model, values).graphs[0]!)).toEqual([
      "Conv: W ⟨32×16×3×3⟩",
      "Equal: B = 16000",
      "Unsqueeze: axes = [0]",
      "Reshape: shape = [1, -1, 64]",
      "Add: B = 0.1",
      "Where: condition = [true, false]",
      "Add: A = [[1, 2], [3, 4]]",
      "Add: B = [[1, 2], [3, 4]]",
      "Mul: B ⟨9⟩",
      "Mul: B = 1.5",
      "Sub: B = [0.5]",
    ]);
  });

  it("without decoded values, keeps the shape rows (the graph shown while they load)", () => {
    const model = onnx.read(sampleBytes());
    expect(rows(onnxGraphDocument(model).graphs[0]!)).toContain("Equal: B ⟨⟩");
  });

  it("decodes typed fields (int64_data, float_data, int32_data) as raw_data", async () => {
    const P = onnxProto.onnx;
    const tensor = (name: string, dataType: number, dims: number[], fields: Record<string, unknown>) =>
      P.TensorProto.create({ name, dataType, dims, ...fields });
    const bytes = P.ModelProto.encode(
      P.ModelProto.create({
        irVersion: 8,
        opsetImport: [{ domain: "", version: 17 }],
        graph: {
          name: "typed",
          input: [{ name: "x", type: { tensorType: { elemType: 1, shape: { dim: [{ dimValue: 2 }] } } } }],
          output: [{ name: "o", type: { tensorType: { elemType: 1 } } }],
          initializer: [
            tensor("shape", 7, [3], { int64Data: [1, -1, 64] }),
            tensor("big", 7, [], { int64Data: ["9007199254740993"] }),
            tensor("scale", 1, [], { floatData: [0.25] }),
            tensor("steps", 6, [2], { int32Data: [-2, 3] }),
          ],
          node: [
            { opType: "Reshape", input: ["x", "shape"], output: ["r"] },
            { opType: "Add", input: ["x", "big"], output: ["b"] },
            { opType: "Mul", input: ["x", "scale"], output: ["m"] },
            { opType: "Tile", input: ["x", "steps"], output: ["o"] },
          ],
        },
      }),
    ).finish();
    const { model, values } = await decodedConstants(bytes);
    expect(rows(onnxGraphDocument(model, values).graphs[0]!)).toEqual([
      "Reshape: shape = [1, -1, 64]",
      "Add: B = 9007199254740993",
      "Mul: B = 0.25",
      "Tile: repeats = [-2, 3]",
    ]);
  });

  it("never reads external data, and a constant that fails to load keeps its shape row", async () => {
    const P = onnxProto.onnx;
    const bytes = P.ModelProto.encode(
      P.ModelProto.create({
        irVersion: 8,
        opsetImport: [{ domain: "", version: 17 }],
        graph: {
          name: "external",
          input: [{ name: "x", type: { tensorType: { elemType: 1, shape: { dim: [{ dimValue: 4 }] } } } }],
          output: [{ name: "b", type: { tensorType: { elemType: 1 } } }],
          initializer: [
            P.TensorProto.create({
              name: "far",
              dataType: 1,
              dims: [4],
              dataLocation: 1,
              externalData: [{ key: "location", value: "weights.bin" }],
            }),
            P.TensorProto.create({ name: "near", dataType: 1, dims: [], rawData: new Uint8Array(4) }),
          ],
          node: [
            { opType: "Add", input: ["x", "far"], output: ["a"] },
            { opType: "Mul", input: ["a", "near"], output: ["b"] },
          ],
        },
      }),
    ).finish();
    const model = onnx.read(bytes);
    const asked: string[] = [];
    const values = await loadConstantValues(model, (t) => {
      asked.push(t.name);
      return Promise.reject(new Error("damaged"));
    });
    expect(asked).toEqual(["near"]);
    expect(values.size).toBe(0);
    expect(rows(onnxGraphDocument(model, values).graphs[0]!)).toEqual(["Add: B ⟨4⟩", "Mul: B ⟨⟩"]);
    // and with the library's loader the near one reads 0
    const infos = onnx.tensorInfos(model);
    const near = onnx.weights(model).findIndex((w) => w.tensor.name === "near");
    const loaded = await loadConstantValues(model, (t, options) =>
      t.name === "near" ? onnx.loadTensor(fromBytes(bytes), infos[near]!, options) : Promise.resolve(undefined),
    );
    expect(rows(onnxGraphDocument(model, loaded).graphs[0]!)).toEqual(["Add: B ⟨4⟩", "Mul: B = 0"]);
  });
});

describe("small constants of an opened file (the page's loader)", () => {
  const net = (tag: string, rate: number) =>
    onnx.write(
      onnx.create({
        graph: {
          name: `${tag}-graph`,
          inputs: [{ name: "sr", dtype: "int64", shape: [] }],
          outputs: [{ name: "out", dtype: "bool", shape: [] }],
          initializers: [{ name: `${tag}.rate`, dtype: "int64", dims: [], data: BigInt64Array.of(BigInt(rate)) }],
          nodes: [{ opType: "Equal", inputs: ["sr", `${tag}.rate`], outputs: ["out"] }],
        },
      }),
    );

  it("reads each april network's constants by its table name (encoder/…, decoder/…)", async () => {
    const bytes = april.write(
      april.create({
        networks: { encoder: net("enc", 8000), decoder: net("dec", 16000), joiner: net("join", 44100) },
        tokens: ["<blk>", "a"],
      }),
    );
    const source = fromBytes(bytes);
    const lazy = await readFromAny(source);
    const file = {
      lazy,
      source,
      infos: lazy.tensorInfos(),
      module: formatModule(lazy.format),
    } as unknown as OpenedFile;
    const values = await loadGraphConstants(file);
    const document = aprilGraphDocument(lazy.file as april.AprilFile, april.NETWORK_NAMES, values);
    expect(document.graphs.map((g) => rows(g))).toEqual([
      ["Equal: B = 8000"],
      ["Equal: B = 16000"],
      ["Equal: B = 44100"],
    ]);
  });
});
