/**
 * `tensorfile convert IN OUT --quantize fp16|bf16|i8` for ONNX, .april and TenniS inputs: what is written loads in
 * onnxruntime-web and is close to the original, the report (text and --json), --check and its refusal, and the
 * usage errors. In-process (runCli).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compareOutput, loadOrt } from "../bindings/cli/quantize.js";
import { npyHeader } from "../bindings/export/npy.js";
import * as april from "../bindings/formats/april.js";
import * as onnx from "../bindings/formats/onnx.js";
import { cli } from "./helpers/cli.js";
import { fixturePath, haveFixtures } from "./helpers/fixtures.js";
import { VAD_MODELS } from "./helpers/onnx-models.js";
import { ort, runOnnx } from "./helpers/ort.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-quantize-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** ids (int64) -> Cast(to=FLOAT) -> Mul(w) -> Add(x) -> y, at `opset`. */
function castModel(opset = 17): Uint8Array {
  return onnx.write(
    onnx.create({
      opsetImports: [{ version: opset }],
      graph: {
        name: "cast",
        nodes: [
          { name: "cast", opType: "Cast", inputs: ["ids"], outputs: ["f"], attributes: { to: 1 } },
          { name: "mul", opType: "Mul", inputs: ["f", "w"], outputs: ["m"] },
          { name: "add", opType: "Add", inputs: ["m", "x"], outputs: ["y"] },
        ],
        initializers: [
          { name: "w", dtype: "float32", dims: [32], data: Float32Array.from({ length: 32 }, (_, i) => (i - 16) / 8) },
        ],
        inputs: [
          { name: "ids", dtype: "int64", shape: [32] },
          { name: "x", dtype: "float32", shape: ["n"] },
        ],
        outputs: [{ name: "y", dtype: "float32", shape: [32] }],
      },
    }),
  );
}

/** y = x @ w (w: 64x16 float32). */
function matmulModel(): Uint8Array {
  return onnx.write(
    onnx.create({
      graph: {
        name: "mm",
        nodes: [{ opType: "MatMul", inputs: ["x", "w"], outputs: ["y"] }],
        initializers: [
          {
            name: "w",
            dtype: "float32",
            dims: [64, 16],
            data: Float32Array.from({ length: 1024 }, (_, i) => Math.sin(i * 0.37)),
          },
        ],
        inputs: [{ name: "x", dtype: "float32", shape: ["batch", 64] }],
        outputs: [{ name: "y", dtype: "float32", shape: ["batch", 16] }],
      },
    }),
  );
}

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe("convert --quantize (ONNX)", () => {
  it("fp16: writes a model that loads, retargets the Cast, and reports what it did", async () => {
    const input = file("cast.onnx", castModel());
    const output = join(dir, "cast-fp16.onnx");
    const result = await cli("convert", input, output, "--quantize", "fp16");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/fp16: 1 tensors converted; weights 128 B -> 64 B \(0\.50x\)/);
    expect(result.stderr).toMatch(/Cast\(to=FLOAT\) retargeted to FLOAT16: 1/);
    expect(result.stderr).toMatch(/values clamped to ±65504: 0; flushed to zero: 0/);
    const feeds = {
      ids: new ort.Tensor(
        "int64",
        BigInt64Array.from({ length: 32 }, (_, i) => BigInt(i)),
        [32],
      ),
      x: new ort.Tensor("float32", new Float32Array(32).fill(0.5), [32]),
    };
    const run = await runOnnx(new Uint8Array(readFileSync(output)), feeds);
    expect(run.outputs.y!.type).toBe("float32");
  });

  it("--check --json: the report and per-output differences as JSON; --shape gives a symbolic dim", async () => {
    const input = file("mm.onnx", matmulModel());
    const output = join(dir, "mm-i8.onnx");
    const result = await cli("convert", input, output, "--quantize", "i8", "--check", "--shape", "batch=3", "--json");
    expect(result.code, result.stderr).toBe(0);
    const json = JSON.parse(result.stdout) as {
      written: boolean;
      reports: { report: onnx.QuantizeReport }[];
      check: {
        tolerance: number;
        outputs: { output: string; cosine: number; maxAbsDifference: number; passed: boolean }[];
      };
    };
    expect(json.written).toBe(true);
    expect(json.reports[0]!.report.tensorsConverted).toBe(1);
    expect(json.reports[0]!.report.weightBytesAfter).toBe(1024 + 16 * 4);
    expect(json.check.tolerance).toBe(0.01);
    expect(json.check.outputs).toHaveLength(1);
    expect(json.check.outputs[0]!.cosine).toBeGreaterThan(0.999);
    expect(json.check.outputs[0]!.maxAbsDifference).toBeGreaterThan(0); // int8 is not exact: the check measured it
    expect(existsSync(output)).toBe(true);
  });

  it("--check above the tolerance: exit 1 and nothing written", async () => {
    const input = file("mm2.onnx", matmulModel());
    const output = join(dir, "mm2-i8.onnx");
    const result = await cli("convert", input, output, "--quantize", "i8", "--check", "--tolerance", "0");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--check: y differ by more than the tolerance .* nothing written/);
    expect(existsSync(output)).toBe(false);
  });

  it("--check --inputs DIR feeds the given .npy files", async () => {
    const input = file("mm3.onnx", matmulModel());
    const inputs = join(dir, "inputs");
    mkdirSync(inputs, { recursive: true });
    const x = Float32Array.from({ length: 5 * 64 }, (_, i) => Math.cos(i));
    const header = npyHeader("float32", [5, 64]);
    const npyBytes = new Uint8Array(header.length + x.byteLength);
    npyBytes.set(header);
    npyBytes.set(new Uint8Array(x.buffer), header.length);
    writeFileSync(join(inputs, "x.npy"), npyBytes);
    const result = await cli(
      "convert",
      input,
      join(dir, "mm3-fp16.onnx"),
      "--quantize",
      "fp16",
      "--check",
      "--inputs",
      inputs,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /check y: max \|difference\| [\d.e-]+, max relative [\d.e-]+, cosine 1\.0000|check y: .*cosine 0\.9999/,
    );
  });

  it("bf16 below opset 13: exit 1, the message names the opset, nothing written", async () => {
    const input = file("old.onnx", castModel(11));
    const output = join(dir, "old-bf16.onnx");
    const result = await cli("convert", input, output, "--quantize", "bf16");
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/bf16 needs opset 13 or later .*imports opset 11/);
    expect(result.stderr).not.toMatch(/internal error/);
    expect(existsSync(output)).toBe(false);
  });

  it("--keep-io false: the graph's float input becomes float16", async () => {
    const output = join(dir, "cast-io.onnx");
    const result = await cli(
      "convert",
      file("cast2.onnx", castModel()),
      output,
      "--quantize",
      "fp16",
      "--keep-io",
      "false",
    );
    expect(result.code, result.stderr).toBe(0);
    expect(onnx.read(new Uint8Array(readFileSync(output))).graph!.inputs[1]!.type.elemType).toBe(10);
  });

  it("usage errors (exit 2): a bad mode, --keep-io with i8, --tolerance without --check, OUT in another format", async () => {
    const input = file("cast3.onnx", castModel());
    const cases: [string[], RegExp][] = [
      [["--quantize", "int4"], /--quantize takes fp16, bf16 or i8/],
      [["--quantize", "i8", "--keep-io", "false"], /--keep-io goes with --quantize fp16/],
      [["--quantize", "fp16", "--keep-io", "maybe"], /--keep-io takes true or false/],
      [["--quantize", "fp16", "--tolerance", "0.1"], /--tolerance goes with --check/],
      [["--quantize", "fp16", "--check", "--tolerance", "x"], /--tolerance takes a number/],
      [["--check"], /--check goes with --quantize/],
    ];
    for (const [args, message] of cases) {
      const result = await cli("convert", input, join(dir, "never.onnx"), ...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    // an unknown mode is refused before IN is opened: a missing IN is not what the message is about
    for (const missing of [join(dir, "missing.onnx"), join(dir, "missing.b2l")]) {
      const unknownMode = await cli("convert", missing, join(dir, "never.onnx"), "--quantize", "fp17");
      expect(unknownMode.code).toBe(2);
      expect(unknownMode.stderr).toMatch(/--quantize takes fp16, bf16 or i8 .*not "fp17"/);
      expect(unknownMode.stderr).not.toMatch(/missing/);
    }
    const wrongExt = await cli("convert", input, join(dir, "never.april"), "--quantize", "fp16");
    expect(wrongExt.code).toBe(2);
    expect(wrongExt.stderr).toMatch(/OUT must end in \.onnx/);
    expect(existsSync(join(dir, "never.onnx"))).toBe(false);
  });

  it("--check's comparison (the kernels' diffStats): a NaN fails, a zero reference leaves the relative difference finite", () => {
    const t = (values: number[]) => new ort.Tensor("float32", Float32Array.from(values), [values.length]);
    const same = compareOutput("y", t([1, 2, 3]), t([1, 2, 3]), 1e-3);
    expect(same).toMatchObject({ maxAbsDifference: 0, maxRelativeDifference: 0, cosine: 1, passed: true });
    // the finite pairs alone have cosine 1: a NaN where the original has a number must still fail
    const nan = compareOutput("y", t([1, 2, 3, 4]), t([1, 2, 3, Number.NaN]), 1e-3);
    expect(nan.passed).toBe(false);
    expect(nan.maxAbsDifference).toBe(Infinity);
    // NaN opposite NaN is equal
    expect(compareOutput("y", t([1, Number.NaN]), t([1, Number.NaN]), 1e-3).passed).toBe(true);
    // a ReLU output: zeros in the reference, tiny values in the converted one
    const relu = compareOutput("y", t([0, 0, 2]), t([1e-4, 0, 2.002]), 1e-3);
    expect(relu.maxRelativeDifference).toBeCloseTo(1e-3, 6);
    expect(relu.maxAbsDifference).toBeCloseTo(2e-3, 6);
    expect(relu.passed).toBe(true);
    // float16 outputs are widened; a missing or shorter output fails
    expect(compareOutput("y", t([0.5]), new ort.Tensor("float16", Uint16Array.of(0x3800), [1]), 0).passed).toBe(true);
    expect(compareOutput("y", t([1, 2]), t([1]), 1).passed).toBe(false);
    expect(compareOutput("y", t([1, 2]), undefined, 1).passed).toBe(false);
  });

  it("without onnxruntime-web, --check says how to install it", async () => {
    await expect(loadOrt("onnxruntime-web-not-installed")).rejects.toThrow(
      /npm install onnxruntime-web.*optional peer dependency/,
    );
  });
});

describe.skipIf(VAD_MODELS.length === 0)("convert --quantize streams from IN (no --check)", () => {
  it("writes the bytes of onnx.write(onnx.quantize(...)) for a real model, in fp16, bf16 and i8", async () => {
    for (const path of VAD_MODELS) {
      const bytes = new Uint8Array(readFileSync(path));
      for (const mode of ["fp16", "bf16", "i8"] as const) {
        const output = join(dir, `vad-${mode}.onnx`);
        const result = await cli("convert", path, output, "--quantize", mode, "--force");
        expect(result.code, result.stderr).toBe(0);
        const want = onnx.write(onnx.quantize(onnx.read(bytes), { mode }));
        expect(Buffer.compare(readFileSync(output), Buffer.from(want)), `${path} ${mode}`).toBe(0);
        // the report printed after the streamed write is the in-memory one
        const report = onnx.quantizeWithReport(onnx.read(bytes), { mode }).report;
        expect(result.stderr).toContain(`${mode}: ${report.tensorsConverted} tensors converted`);
        if (mode !== "fp16") expect(result.stderr).toContain(`values flushed to zero: ${report.flushed}`);
        else
          expect(result.stderr).toContain(
            `values clamped to ±65504: ${report.clamped}; flushed to zero: ${report.flushed}`,
          );
      }
    }
  });
});

describe.skipIf(!haveFixtures())("convert --quantize (.april, TenniS)", () => {
  it(".april streamed: the bytes of april.write(april.quantize(...))", async () => {
    const input = fixturePath("april", "tiny_en-us.april");
    for (const mode of ["fp16", "i8"] as const) {
      const output = join(dir, `tiny-streamed-${mode}.april`);
      const result = await cli("convert", input, output, "--quantize", mode);
      expect(result.code, result.stderr).toBe(0);
      const want = april.write(april.quantize(april.read(new Uint8Array(readFileSync(input))), { mode }));
      expect(Buffer.compare(readFileSync(output), Buffer.from(want))).toBe(0);
    }
  });

  it(".april i8 and fp16: every network converted and checked", async () => {
    for (const mode of ["fp16", "i8"]) {
      const output = join(dir, `tiny-${mode}.april`);
      const result = await cli(
        "convert",
        fixturePath("april", "tiny_en-us.april"),
        output,
        "--quantize",
        mode,
        "--check",
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/^encoder: /m);
      expect(result.stderr).toMatch(/check joiner\/logits: /);
      expect(april.read(new Uint8Array(readFileSync(output))).onnx?.decoder).toBeDefined();
    }
  });

  it("a TenniS module to ONNX in float16 (the translation composed with fp16)", async () => {
    const output = join(dir, "small_cnn-fp16.onnx");
    const result = await cli(
      "convert",
      fixturePath("tennis", "small_cnn.tsm"),
      output,
      "--quantize",
      "fp16",
      "--check",
    );
    expect(result.code, result.stderr).toBe(0);
    const model = onnx.read(new Uint8Array(readFileSync(output)));
    expect(model.graph!.initializers.some((t) => t.dataType === 10)).toBe(true);
  });
});
