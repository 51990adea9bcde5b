/**
 * tsm.toOnnx proved against TenniS itself: each model of ../shared/fixtures/tennis/outputs is converted, run with
 * onnxruntime-web on the stored inputs, and compared with the outputs TenniS's C++ runtime gave
 * (max |diff| <= 1e-4 + 1e-3 * max |reference| per output). The exported weights, read back with onnx-proto,
 * equal the module's <const> values byte for byte. Skips without ../shared.
 */
import { describe, expect, it } from "vitest";
import onnxProto from "onnx-proto";
import { readFileSync } from "node:fs";
import * as npy from "../../bindings/formats/npy.js";
import * as tsm from "../../bindings/formats/tsm.js";
import { fixturePath, haveFixtures, readFixture } from "../helpers/fixtures.js";
import { ort, runOnnx } from "../helpers/ort.js";

const { onnx } = onnxProto;

interface Manifest {
  model: string;
  inputs: { name: string; dtype: string; shape: number[]; file: string }[];
  outputs: { name: string; dtype: string; shape: number[]; file: string }[];
}

const MODELS: { dir: string; file?: string; options?: tsm.ToOnnxOptions }[] = [
  { dir: "small_cnn" },
  { dir: "cpp_built" },
  { dir: "darknet_tiny_yolo" },
  { dir: "seetaface6_face_landmarker_pts5" },
  { dir: "seetaface6_face_landmarker_pts5", file: "seetaface6_face_landmarker_pts5.csta" },
  { dir: "seetaface6_mask_detector" },
  { dir: "seetaface6_quality_lbn", options: { inputs: { _origin_data: { dtype: "uint8", shape: [1, 227, 227, 3] } } } },
];

function npyTensor(path: string): { data: Float32Array | Uint8Array; shape: number[]; dtype: string } {
  const t = npy.tensors(npy.read(new Uint8Array(readFileSync(path))))[0]!;
  return { data: t.data as Float32Array | Uint8Array, shape: t.shape, dtype: t.dtype };
}

/** Whether node `target` is needed for `from` (TenniS computes only what the outputs need). */
function reaches(g: tsm.TsmGraph, from: number, target: number): boolean {
  const seen = new Set<number>();
  const stack = [from];
  while (stack.length > 0) {
    const i = stack.pop()!;
    if (i === target) return true;
    if (seen.has(i)) continue;
    seen.add(i);
    for (const input of g.nodes[i]!.inputs) stack.push(input.index);
  }
  return false;
}

/** The measured max |diff| per model output, printed once at the end for the report. */
const measured: string[] = [];

describe.skipIf(!haveFixtures())("tsm.toOnnx matches TenniS's own outputs (onnxruntime-web)", () => {
  for (const { dir, file, options } of MODELS) {
    it(`${file ?? dir}`, async () => {
      const manifest = JSON.parse(
        readFileSync(fixturePath("tennis", "outputs", dir, "manifest.json"), "utf8"),
      ) as Manifest;
      const module = tsm.read(readFixture("tennis", file ?? manifest.model));
      const bytes = tsm.toOnnx(module, options);
      const feeds: Record<string, ort.Tensor> = {};
      for (const input of manifest.inputs) {
        const t = npyTensor(fixturePath("tennis", "outputs", dir, input.file));
        feeds[input.name] = new ort.Tensor(input.dtype === "uint8" ? "uint8" : "float32", t.data, t.shape);
      }
      const { outputs, messages } = await runOnnx(bytes, feeds);
      expect(messages).toEqual([]);
      for (const out of manifest.outputs) {
        const ref = npyTensor(fixturePath("tennis", "outputs", dir, out.file));
        const got = outputs[out.name];
        expect(got, `output ${out.name}`).toBeDefined();
        expect(Array.from(got!.dims)).toEqual(out.shape);
        const actual = got!.data as Float32Array;
        let maxRef = 0;
        let maxDiff = 0;
        for (let i = 0; i < ref.data.length; i++) {
          maxRef = Math.max(maxRef, Math.abs(ref.data[i]!));
          maxDiff = Math.max(maxDiff, Math.abs(ref.data[i]! - actual[i]!));
        }
        measured.push(
          `${file ?? dir} ${out.name}: max|diff| ${maxDiff.toExponential(2)} (bound ${(1e-4 + 1e-3 * maxRef).toExponential(2)})`,
        );
        expect(maxDiff, `${out.name}: max |diff| ${maxDiff}`).toBeLessThanOrEqual(1e-4 + 1e-3 * maxRef);
      }
      // weights: every initializer that comes from a <const> equals its value byte for byte
      const model = onnx.ModelProto.decode(bytes);
      const g = tsm.graph(module);
      let compared = 0;
      for (const init of model.graph!.initializer!) {
        const node = g.byName.get(init.name!);
        if (!node || node.op !== "<const>") continue;
        const field = node.value![0]!;
        const stored = field.data as ArrayBufferView;
        expect(Array.from(init.dims!.map(Number)), init.name!).toEqual(field.shape);
        expect(
          Buffer.from(init.rawData!).equals(Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength)),
          init.name!,
        ).toBe(true);
        compared++;
      }
      expect(compared).toBeGreaterThan(0);
      // names: graph inputs/outputs as in TenniS (dtype, declared shape); every translated TenniS node is an ONNX node
      const onnxNodes = new Set(model.graph!.node!.map((n) => n.name));
      for (const n of g.nodes) {
        if (n.op === "<param>" || n.op === "<const>" || n.op === "_onnx_pooling2d_padding") continue;
        if (!module.outputs.some((o) => reaches(g, o, n.index))) continue;
        expect(onnxNodes.has(n.name), `ONNX node named ${n.name}`).toBe(true);
      }
      expect(model.graph!.output!.map((o) => o.name)).toEqual(manifest.outputs.map((o) => o.name));
      for (const input of model.graph!.input!) {
        const declared = g.byName.get(input.name!)!;
        const dims = input.type!.tensorType!.shape?.dim?.map((d) => Number(d.dimValue));
        expect(dims, input.name!).toEqual(options?.inputs?.[input.name!]?.shape ?? declared.shape);
      }
    }, 60_000);
  }

  it("tiny_add (TenniS refuses its 3-input add at run time): written as ONNX Sum, a + b + c", async () => {
    const manifest = JSON.parse(
      readFileSync(fixturePath("tennis", "outputs", "tiny_add", "manifest.json"), "utf8"),
    ) as Manifest;
    const module = tsm.read(readFixture("tennis", "tiny_add.tsm"));
    const bytes = tsm.toOnnx(module, { inputs: { a: { shape: [3] }, b: { shape: [3] } } });
    const m = onnx.ModelProto.decode(bytes);
    expect(m.graph!.node!.map((n) => [n.name, n.opType])).toEqual([["d", "Sum"]]);
    const feeds: Record<string, ort.Tensor> = {};
    const values: Record<string, Float32Array> = {};
    for (const input of manifest.inputs) {
      values[input.name] = npyTensor(fixturePath("tennis", "outputs", "tiny_add", input.file)).data as Float32Array;
      feeds[input.name] = new ort.Tensor("float32", values[input.name]!, input.shape);
    }
    const { outputs, messages } = await runOnnx(bytes, feeds);
    expect(messages).toEqual([]);
    const c = tsm.graph(module).byName.get("c")!.value![0]!.data as Float32Array;
    const want = Array.from(c, (v, i) => Math.fround(Math.fround(values.a![i]! + values.b![i]!) + v));
    const got = Array.from(outputs.d!.data as Float32Array);
    got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1e-6));
  });

  it("quality_lbn without options (input declared float32) on the same pixel values gives TenniS's outputs too", async () => {
    const module = tsm.read(readFixture("tennis", "seetaface6_quality_lbn.tsm"));
    const bytes = tsm.toOnnx(module);
    const input = npyTensor(fixturePath("tennis", "outputs", "seetaface6_quality_lbn", "input_0.npy"));
    const { outputs } = await runOnnx(bytes, {
      _origin_data: new ort.Tensor("float32", Float32Array.from(input.data), input.shape),
    });
    for (const [k, name] of ["fc8_light", "fc8_blur", "fc8_noise"].entries()) {
      const ref = npyTensor(fixturePath("tennis", "outputs", "seetaface6_quality_lbn", `output_${k}.npy`));
      expect(Math.abs((outputs[name]!.data as Float32Array)[0]! - ref.data[0]!)).toBeLessThanOrEqual(
        1e-4 + 1e-3 * Math.abs(ref.data[0]!),
      );
    }
    expect(() => tsm.toOnnx(module, { inputs: { origin_data: { dtype: "uint8" } } })).toThrow(
      /not a module input.*"_origin_data"/,
    );
  });

  it("the landmarker converts at opsets 13 and 21 too, with the same outputs", async () => {
    const module = tsm.read(readFixture("tennis", "seetaface6_face_landmarker_pts5.tsm"));
    const input = npyTensor(fixturePath("tennis", "outputs", "seetaface6_face_landmarker_pts5", "input_0.npy"));
    const ref = npyTensor(fixturePath("tennis", "outputs", "seetaface6_face_landmarker_pts5", "output_0.npy"));
    for (const opset of [13, 21]) {
      const bytes = tsm.toOnnx(module, { opset });
      expect(Number(onnx.ModelProto.decode(bytes).opsetImport![0]!.version)).toBe(opset);
      const { outputs, messages } = await runOnnx(bytes, {
        _input: new ort.Tensor("float32", input.data, input.shape),
      });
      expect(messages).toEqual([]);
      const got = outputs["Common/EltwiseOP"]!.data as Float32Array;
      ref.data.forEach((v, i) => expect(Math.abs(v - got[i]!)).toBeLessThanOrEqual(1e-4));
    }
    expect(() => tsm.toOnnx(module, { opset: 12 })).toThrow(RangeError);
  });

  it("prints the measured differences", () => {
    console.log(measured.join("\n"));
  });
});
