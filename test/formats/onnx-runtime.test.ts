/**
 * onnxruntime-web (WASM, in Node) as the runtime oracle: a patched model still loads, and a change to a weight
 * changes the output the way the arithmetic says (y = x + bias: a bias shifted by d shifts y by d), for raw_data
 * and for typed-field (float_data) weights, in .onnx files and in the networks of an .april built with
 * april.create (which round-trips, and whose networks run).
 */
import { readFileSync } from "node:fs";
import * as ort from "onnxruntime-web";
import { describe, expect, it } from "vitest";
import * as april from "../../bindings/formats/april.js";
import * as onnx from "../../bindings/formats/onnx.js";
import { patch } from "../../bindings/patch.js";
import { VAD_MODELS, addBiasModel, addInt32BiasModel } from "../helpers/onnx-models.js";

ort.env.wasm.numThreads = 1;

async function runAddBias(model: Uint8Array, x: Float32Array): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(model);
  try {
    const result = await session.run({ x: new ort.Tensor("float32", x, [x.length]) });
    return result.y!.data as Float32Array;
  } finally {
    await session.release();
  }
}

const BIAS = Float32Array.of(0.5, -1, 2, 0.25);
const X = Float32Array.of(1, 2, 3, 4);
const D = 0.75;

function changedOffsets(a: Uint8Array, b: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) out.push(i);
  return out;
}

describe("onnxruntime-web as the oracle for patched .onnx models", () => {
  for (const storage of ["raw", "floats"] as const) {
    it(`a bias shifted by d shifts y by d (${storage === "raw" ? "raw_data" : "float_data"})`, async () => {
      const model = addBiasModel(BIAS, storage);
      const before = await runAddBias(model, X);
      expect(Array.from(before)).toEqual(Array.from(X, (x, i) => x + BIAS[i]!));
      const shifted = BIAS.map((b) => b + D);
      const { bytes } = await patch(model, { bias: { name: "bias", dtype: "float32", shape: [4], data: shifted } });
      const after = await runAddBias(bytes, X);
      after.forEach((y, i) => expect(y).toBeCloseTo(before[i]! + D, 6));
      // only the bias's own bytes changed (raw_data, and one packed float_data field: the same layout)
      const info = onnx.tensorInfos(onnx.read(model))[0]!;
      expect(bytes.length).toBe(model.length);
      expect(changedOffsets(model, bytes).length).toBeGreaterThan(0);
      for (const at of changedOffsets(model, bytes)) {
        expect(at).toBeGreaterThanOrEqual(info.byteOffset);
        expect(at).toBeLessThan(info.byteOffset + info.byteLength);
      }
      // the same through replaceTensors + write
      const written = onnx.write(
        onnx.replaceTensors(onnx.read(model), [{ name: "bias", dtype: "float32", shape: [4], data: shifted }]),
      );
      expect(Buffer.from(written).equals(Buffer.from(bytes))).toBe(true);
    });
  }

  it.skipIf(VAD_MODELS.length === 0)(
    "a patched Silero VAD model (weights in If subgraphs) still loads and keeps its inputs and outputs",
    async () => {
      for (const path of VAD_MODELS) {
        const bytes = new Uint8Array(readFileSync(path));
        const model = onnx.read(bytes);
        const tensors = onnx.tensors(model).filter((t) => t.dtype === "float32" && t.name.includes("/"));
        const target = tensors[tensors.length - 1] ?? onnx.tensors(model).find((t) => t.dtype === "float32")!;
        const data = (target.data as Float32Array).map((v) => v * 0.5);
        const { bytes: patched } = await patch(bytes, {
          [target.name]: { name: target.name, dtype: "float32", shape: target.shape, data },
        });
        const original = await ort.InferenceSession.create(bytes);
        const session = await ort.InferenceSession.create(patched);
        expect(session.inputNames).toEqual(original.inputNames);
        expect(session.outputNames).toEqual(original.outputNames);
        await session.release();
        await original.release();
        const back = onnx.tensors(onnx.read(patched)).find((t) => t.name === target.name)!;
        expect(Array.from(back.data as Float32Array)).toEqual(Array.from(data));
      }
    },
  );
});

describe("onnxruntime-web as the oracle for .april networks", () => {
  it("an .april made with april.create from real networks round-trips, its networks run, and a patched bias shifts the output", async () => {
    const encoder = addBiasModel(BIAS, "raw");
    const decoder = addBiasModel(BIAS, "floats");
    const joiner = addInt32BiasModel(Int32Array.of(1, 2, 3, 4));
    const file = april.create({ networks: { encoder, decoder, joiner }, tokens: ["<blk>", "a", "b"] });
    const bytes = april.write(file);
    const read = april.read(bytes);
    expect(Buffer.from(april.write(read)).equals(Buffer.from(bytes))).toBe(true);
    expect(
      april
        .tensorInfos(read)
        .map((i) => i.name)
        .slice(0, 2),
    ).toEqual(["encoder/bias", "decoder/bias"]);
    expect(april.tensors(read).map((t) => t.name)).toEqual(april.tensors(file).map((t) => t.name));
    for (const name of ["encoder", "decoder"] as const) {
      const y = await runAddBias(new Uint8Array(read.networks[name] as Uint8Array), X);
      expect(Array.from(y)).toEqual(Array.from(X, (x, i) => x + BIAS[i]!));
    }

    const shifted = BIAS.map((b) => b + D);
    // raw_data weight: in place, the file keeps its size and layout
    const raw = await patch(bytes, {
      "encoder/bias": { name: "encoder/bias", dtype: "float32", shape: [4], data: shifted },
    });
    expect(raw.bytes.length).toBe(bytes.length);
    const info = april.tensorInfos(read).find((i) => i.name === "encoder/bias")!;
    for (const at of changedOffsets(bytes, raw.bytes))
      expect(at >= info.byteOffset && at < info.byteOffset + info.byteLength).toBe(true);
    // typed weight: the decoder network is re-encoded and grows or shrinks; offsets and sizes are fixed
    const big = Float32Array.of(1e-8, 3.3e7, -0.1, 12345.678);
    const typed = await patch(raw.bytes, {
      "decoder/bias": { name: "decoder/bias", dtype: "float32", shape: [4], data: big },
    });
    const after = april.read(typed.bytes);
    expect(april.verify(after)).toEqual([]);
    const y1 = await runAddBias(new Uint8Array(after.networks.encoder as Uint8Array), X);
    y1.forEach((y, i) => expect(y).toBeCloseTo(X[i]! + BIAS[i]! + D, 5));
    const y2 = await runAddBias(new Uint8Array(after.networks.decoder as Uint8Array), X);
    y2.forEach((y, i) => expect(y).toBe(Math.fround(X[i]! + big[i]!)));
    // int32_data varints grow: the joiner network changes size, the params move, april's table is fixed
    const wide = Int32Array.of(2 ** 30, -5, 7, -(2 ** 31));
    const grown = await patch(typed.bytes, {
      "joiner/bias": { name: "joiner/bias", dtype: "int32", shape: [4], data: wide },
    });
    const last = april.read(grown.bytes);
    expect(last.layout.networks[2].size).toBeGreaterThan(after.layout.networks[2].size);
    expect(last.layout.params.offset).toBe(last.layout.networks[2].offset + last.layout.networks[2].size);
    expect(april.verify(last)).toEqual([]);
    const session = await ort.InferenceSession.create(new Uint8Array(last.networks.joiner as Uint8Array));
    const y3 = (await session.run({ x: new ort.Tensor("int32", Int32Array.of(1, 1, 1, 1), [4]) })).y!
      .data as Int32Array;
    await session.release();
    expect(Array.from(y3)).toEqual(Array.from(wide, (b) => (b + 1) | 0));
    expect(last.tokens).toEqual(read.tokens);
    // the same in memory
    let edited = april.replaceTensors(read, {
      "encoder/bias": { name: "encoder/bias", dtype: "float32", shape: [4], data: shifted },
    });
    edited = april.replaceTensors(edited, {
      "decoder/bias": { name: "decoder/bias", dtype: "float32", shape: [4], data: big },
    });
    edited = april.replaceTensors(edited, {
      "joiner/bias": { name: "joiner/bias", dtype: "int32", shape: [4], data: wide },
    });
    expect(Buffer.from(april.write(edited)).equals(Buffer.from(grown.bytes))).toBe(true);
    expect(april.tensors(edited).find((t) => t.name === "joiner/bias")!.data).toEqual(wide);
  });
});
