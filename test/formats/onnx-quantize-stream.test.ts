/**
 * onnx.quantizeTo / april.quantizeTo (the streamed conversion the CLI uses): byte for byte what
 * write(quantize(read(bytes))) gives, on real models and on generated ones (weights of every storage, large and
 * small, in initializers and Constants, tensors it leaves alone), over a local file, bytes in memory and an
 * asynchronous source; refusals and malformed models reject before the sink gets a byte.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { isFormatError } from "../../bindings/bytes/errors.js";
import * as april from "../../bindings/formats/april.js";
import * as onnx from "../../bindings/formats/onnx.js";
import type { QuantizeMode } from "../../bindings/formats/onnx.js";
import { quantizeSparse, readSparse } from "../../bindings/formats/onnx/quantize-stream.js";
import { writePiecesTo } from "../../bindings/export/stream.js";
import { openFileAccess } from "../../bindings/io/file-access.js";
import { concatBytes } from "../../bindings/bytes/input.js";
import { type ByteSource, fromBytes } from "../../bindings/io/source.js";
import { fixturePath, haveFixtures } from "../helpers/fixtures.js";
import { type NodeSpec, type TensorSpec, VAD_MODELS, buildModel, le } from "../helpers/onnx-models.js";
import { countingSource } from "../helpers/sources.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-quantize-to-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MODES: QuantizeMode[] = ["fp16", "bf16", "i8"];

/** The bytes a streamed conversion writes, or the error's code / class. */
async function streamed(run: (sink: (chunk: Uint8Array) => void) => Promise<unknown>): Promise<string> {
  const chunks: Uint8Array[] = [];
  try {
    await run((chunk) => void chunks.push(chunk.slice()));
  } catch (error) {
    expect(chunks, "nothing is written before a refusal").toHaveLength(0);
    return describeError(error);
  }
  return Buffer.from(concatBytes(chunks)).toString("hex");
}

function describeError(error: unknown): string {
  if (isFormatError(error)) return `error ${error.code}`;
  if (error instanceof TypeError) return "TypeError";
  throw error;
}

function inMemory(make: () => Uint8Array): string {
  try {
    return Buffer.from(make()).toString("hex");
  } catch (error) {
    return describeError(error);
  }
}

/** The in-memory conversion, then the streamed one over a local file, bytes in memory and an asynchronous source. */
async function outcomes(bytes: Uint8Array, mode: QuantizeMode, format: "onnx" | "april" = "onnx"): Promise<string[]> {
  const want = inMemory(() =>
    format === "onnx"
      ? onnx.write(onnx.quantize(onnx.read(bytes), { mode }))
      : april.write(april.quantize(april.read(bytes), { mode })),
  );
  const path = join(dir, `model.${format}`);
  writeFileSync(path, bytes);
  const access = await openFileAccess(path);
  const sources: ByteSource[] = [access.source(), fromBytes(bytes), countingSource(bytes)];
  const results = [want];
  try {
    for (const source of sources) {
      results.push(
        await streamed((sink) =>
          format === "onnx" ? onnx.quantizeTo(source, sink, { mode }) : april.quantizeTo(source, sink, { mode }),
        ),
      );
    }
  } finally {
    access.close();
  }
  return results;
}

describe.skipIf(VAD_MODELS.length === 0)(
  "real models: the streamed conversion writes the in-memory conversion's bytes",
  () => {
    it("Silero VAD legacy, v5, v6 in fp16, bf16, i8", async () => {
      for (const path of VAD_MODELS) {
        const bytes = new Uint8Array(readFileSync(path));
        for (const mode of MODES) {
          const [want, ...got] = await outcomes(bytes, mode);
          expect(want!.startsWith("error"), `${path} ${mode}`).toBe(false);
          for (const g of got) expect(g === want, `${path} ${mode}`).toBe(true);
        }
      }
    });
  },
);

describe.skipIf(!haveFixtures())(".april: each network streamed", () => {
  it("tiny_en-us.april in fp16, bf16, i8 (the same bytes, or the same refusal)", async () => {
    const bytes = new Uint8Array(readFileSync(fixturePath("april", "tiny_en-us.april")));
    for (const mode of MODES) {
      const [want, ...got] = await outcomes(bytes, mode, "april");
      for (const g of got) expect(g === want, `${mode}: ${g.slice(0, 40)} vs ${want!.slice(0, 40)}`).toBe(true);
    }
  });
});

describe("generated models: the same bytes or the same error as in memory", () => {
  const values = (n: number, seed: number) =>
    Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.7 + seed) * (1 + seed));
  const weightArb = fc.record({
    storage: fc.constantFrom("raw", "floats", "unpacked"),
    rows: fc.constantFrom(4, 32, 64),
    cols: fc.constantFrom(1, 8, 40),
    constant: fc.boolean(),
    seed: fc.integer({ min: 0, max: 9 }),
  });
  /** x[1, rows] @ w[rows, cols] per weight, each from an initializer or a Constant; an int64 shape kept as it is. */
  function chain(
    weights: { storage: string; rows: number; cols: number; constant: boolean; seed: number }[],
    opset: number,
    bigShape: boolean,
  ): Uint8Array {
    const nodes: NodeSpec[] = [];
    const initializers: TensorSpec[] = [];
    weights.forEach((w, i) => {
      const data = values(w.rows * w.cols, w.seed);
      const spec: TensorSpec = {
        name: `w${i}`,
        dataType: 1,
        dims: [w.rows, w.cols],
        ...(w.storage === "raw" ? { raw: le(data) } : { floats: Array.from(data), unpacked: w.storage === "unpacked" }),
      };
      if (w.constant)
        nodes.push({
          name: `c${i}`,
          opType: "Constant",
          inputs: [],
          outputs: [`w${i}`],
          attrs: [{ name: "value", type: 4, t: spec }],
        });
      else initializers.push(spec);
      nodes.push({ name: `mm${i}`, opType: "MatMul", inputs: [`x${i}`, `w${i}`], outputs: [`y${i}`] });
    });
    // an int64 tensor no mode touches, large enough to be copied by reference (or not)
    const shapeLength = bigShape ? 1000 : 2;
    initializers.push({
      name: "shape",
      dataType: 7,
      dims: [shapeLength],
      raw: le(BigInt64Array.from({ length: shapeLength }, (_, i) => BigInt(i - 1))),
    });
    return buildModel({
      opset,
      graph: {
        nodes,
        initializers,
        inputs: weights.map((w, i) => ({ name: `x${i}`, elemType: 1, shape: [1, w.rows] })),
        outputs: weights.map((w, i) => ({ name: `y${i}`, elemType: 1, shape: [1, w.cols] })),
      },
    });
  }

  it("onnx: weights of every storage and size, at opsets 9, 11 and 17", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(weightArb, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(9, 11, 17),
        fc.boolean(),
        fc.constantFrom(...MODES),
        async (weights, opset, bigShape, mode) => {
          const [want, ...got] = await outcomes(chain(weights, opset, bigShape), mode);
          for (const g of got) expect(g === want, `${g.slice(0, 60)} vs ${want!.slice(0, 60)}`).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("weights read in pieces that cut channels anywhere give the same bytes (per-channel int8 included)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(weightArb, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...MODES),
        fc.integer({ min: 1, max: 700 }),
        async (weights, mode, quarter) => {
          const bytes = chain(
            weights.map((w) => ({ ...w, storage: "raw" })),
            17,
            false,
          );
          const want = Buffer.from(onnx.write(onnx.quantize(onnx.read(bytes), { mode }))).toString("hex");
          const { pieces } = quantizeSparse(await readSparse(fromBytes(bytes)), { mode }, quarter * 4);
          const chunks: Uint8Array[] = [];
          await writePiecesTo((c) => void chunks.push(c.slice()), pieces, { caller: "test" });
          expect(Buffer.from(concatBytes(chunks)).toString("hex") === want).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("malformed models: read()'s error, before the sink gets a byte", async () => {
    const good = chain([{ storage: "raw", rows: 64, cols: 40, constant: false, seed: 1 }], 17, true);
    for (const bytes of [good.subarray(0, good.length - 3000), good.subarray(0, 7), Uint8Array.of(0x08, 0xff)]) {
      const [want, ...got] = await outcomes(bytes, "fp16");
      expect(want).toMatch(/^error/);
      for (const g of got) expect(g).toBe(want);
    }
  });

  it("onnx.quantize of a lazily opened model says to use quantizeTo, which converts it", async () => {
    const bytes = chain([{ storage: "raw", rows: 64, cols: 40, constant: false, seed: 2 }], 17, false);
    const lazy = await onnx.readFrom(fromBytes(bytes));
    expect(() => onnx.quantize(lazy, { mode: "i8" })).toThrow(/onnx\.quantizeTo\(source, sink, options\)/);
    const got = await streamed((sink) => onnx.quantizeTo(fromBytes(bytes), sink, { mode: "i8" }));
    expect(got).toBe(Buffer.from(onnx.write(onnx.quantize(onnx.read(bytes), { mode: "i8" }))).toString("hex"));
  });

  it("weights in external data are left as they are, with a note saying the output still reads their file", async () => {
    const bytes = buildModel({
      graph: {
        nodes: [
          { name: "mm", opType: "MatMul", inputs: ["x", "w"], outputs: ["y"] },
          { name: "mm2", opType: "MatMul", inputs: ["y", "v"], outputs: ["z"] },
        ],
        initializers: [
          {
            name: "w",
            dataType: 1,
            dims: [64, 40],
            external: { location: "weights.bin", offset: 0, length: 64 * 40 * 4 },
          },
          { name: "v", dataType: 1, dims: [40, 8], raw: le(values(40 * 8, 1)) },
        ],
        inputs: [{ name: "x", elemType: 1, shape: [1, 64] }],
        outputs: [{ name: "z", elemType: 1, shape: [1, 8] }],
      },
    });
    for (const mode of MODES) {
      const report = await onnx.quantizeTo(fromBytes(bytes), () => {}, { mode });
      expect(report.tensorsConverted, mode).toBe(1);
      expect(report.tensorsKept).toContainEqual({ name: "w", reason: "stored in an external file" });
      expect(report.notes.join("\n")).toMatch(
        /1 float32 weight is stored in external data \(weights\.bin\) .*keep it next to it/,
      );
      const [want, ...got] = await outcomes(bytes, mode);
      for (const g of got) expect(g === want).toBe(true);
    }
  });

  it("bf16 below opset 13 is refused (UNSUPPORTED) before anything is written", async () => {
    const bytes = chain([{ storage: "raw", rows: 64, cols: 40, constant: false, seed: 1 }], 11, false);
    const chunks: Uint8Array[] = [];
    await expect(onnx.quantizeTo(fromBytes(bytes), (c) => void chunks.push(c), { mode: "bf16" })).rejects.toThrow(
      /bf16 needs opset 13 or later .*opset 11/,
    );
    expect(chunks).toHaveLength(0);
  });

  it("the report counts of the streamed conversion are the in-memory ones", async () => {
    const data = values(64 * 40, 3);
    data[5] = 1e6; // clamped by fp16
    data[6] = 1e-9; // flushed
    const bytes = buildModel({
      graph: {
        nodes: [{ name: "mm", opType: "MatMul", inputs: ["x", "w"], outputs: ["y"] }],
        initializers: [{ name: "w", dataType: 1, dims: [64, 40], raw: le(data) }],
        inputs: [{ name: "x", elemType: 1, shape: [1, 64] }],
        outputs: [{ name: "y", elemType: 1, shape: [1, 40] }],
      },
    });
    for (const mode of MODES) {
      const want = onnx.quantizeWithReport(onnx.read(bytes), { mode }).report;
      const got = await onnx.quantizeTo(fromBytes(bytes), () => {}, { mode });
      expect(got).toEqual(want);
      if (mode === "fp16") expect([got.clamped, got.flushed]).toEqual([1, 1]);
    }
  });
});
