/**
 * The CLI on .onnx files: inspect, verify, convert (to .safetensors, and .onnx as a re-encode), extract, stats,
 * diff and patch, with the round-trip law (convert F x.safetensors; patch F x.safetensors OUT: OUT = F) on the
 * real Silero VAD exports and on hand-built models with typed fields in subgraphs (whose lengths patch re-encodes).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import onnxProto from "onnx-proto";
import { afterAll, describe, expect, it } from "vitest";
import { exampleFiles } from "../bindings/examples.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import * as onnx from "../bindings/formats/onnx.js";
import { cli } from "./helpers/cli.js";
import { fixturePath, haveFixtures } from "./helpers/fixtures.js";
import { VAD_MODELS, buildModel, le } from "./helpers/onnx-models.js";

const { onnx: proto } = onnxProto;
const dir = mkdtempSync(join(tmpdir(), "tensorfile-onnx-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const fresh = (name: string) => join(dir, `${counter++}-${name}`);

/** A model with typed-field weights inside an If subgraph, a Constant and a raw_data initializer. */
function typedModel(): Uint8Array {
  return buildModel({
    unknownFields: true,
    graph: {
      nodes: [
        {
          name: "c",
          opType: "Constant",
          inputs: [],
          outputs: ["k"],
          attrs: [{ name: "value", type: 4, t: { name: "", dataType: 7, dims: [2], int64s: [1, -2] } }],
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
                initializers: [
                  { name: "w", dataType: 1, dims: [3], floats: [1, 2, 3] },
                  { name: "i8", dataType: 3, dims: [2], int32s: [-1, 5] },
                ],
              },
            },
            {
              name: "else_branch",
              type: 5,
              g: { initializers: [{ name: "w", dataType: 1, dims: [1], raw: le(Float32Array.of(9)) }] },
            },
          ],
        },
      ],
      initializers: [{ name: "bias", dataType: 1, dims: [4], raw: le(Float32Array.of(0.5, 1, 1.5, 2)) }],
    },
  });
}

function files(): string[] {
  const typed = fresh("typed.onnx");
  writeFileSync(typed, typedModel());
  return [typed, ...VAD_MODELS];
}

describe("tensorfile CLI on .onnx", () => {
  it("inspect, verify, stats, extract", async () => {
    for (const path of files()) {
      const inspect = await cli("inspect", "--json", path);
      expect(inspect.code).toBe(0);
      const json = JSON.parse(inspect.stdout) as { format: string; tensors: { name: string }[] };
      expect(json.format).toBe("onnx");
      expect(json.tensors.map((t) => t.name)).toEqual(
        onnx.tensorInfos(onnx.read(new Uint8Array(readFileSync(path)))).map((i) => i.name),
      );
      expect((await cli("verify", path)).code).toBeLessThanOrEqual(1);
      expect((await cli("stats", path)).code).toBe(0);
      const out = fresh("x");
      const extract = await cli("extract", path, out);
      expect(extract.code).toBe(0);
      expect(existsSync(join(out, "meta.json"))).toBe(true);
    }
    const typed = files()[0]!;
    expect(existsSync(join(dir, "noop"))).toBe(false);
    const out = fresh("typed-x");
    await cli("extract", typed, out);
    expect(existsSync(join(out, "If_0", "then_branch", "w.npy"))).toBe(true);
  });

  it("convert to .safetensors then patch back gives the same bytes; .onnx re-encodes as it is", async () => {
    for (const path of files()) {
      const weights = fresh("w.safetensors");
      expect((await cli("convert", path, weights)).code).toBe(0);
      const out = fresh("out.onnx");
      const patch = await cli("patch", path, weights, out);
      expect(patch.code).toBe(0);
      expect(readFileSync(out).equals(readFileSync(path))).toBe(true);
      const re = fresh("re.onnx");
      expect((await cli("convert", path, re)).code).toBe(0);
      expect(readFileSync(re).equals(readFileSync(path))).toBe(true);
    }
  });

  it("patch puts new values in typed fields inside subgraphs, fixing every enclosing length (onnx-proto decodes it)", async () => {
    const path = files()[0]!;
    const weights = fresh("new.safetensors");
    writeFileSync(
      weights,
      writeSafetensors([
        { name: "If_0/then_branch/w", dtype: "float32", shape: [3], data: Float32Array.of(10, 20, 30.5) },
        { name: "If_0/then_branch/i8", dtype: "int8", shape: [2], data: Int8Array.of(-128, 127) },
        { name: "k", dtype: "int64", shape: [2], data: BigInt64Array.of(-(2n ** 40n), 7n) },
        { name: "bias", dtype: "float32", shape: [4], data: Float32Array.of(4, 3, 2, 1) },
      ]),
    );
    const out = fresh("patched.onnx");
    const result = await cli("patch", path, weights, out);
    expect(result.code).toBe(0);
    const decoded = proto.ModelProto.decode(readFileSync(out));
    const graph = decoded.graph!;
    const then = graph.node![1]!.attribute!.find((a) => a.name === "then_branch")!.g!;
    expect(then.initializer![0]!.floatData).toEqual([10, 20, 30.5]);
    expect(then.initializer![1]!.int32Data).toEqual([-128, 127]);
    expect(graph.node![0]!.attribute![0]!.t!.int64Data!.map(String)).toEqual([String(-(2n ** 40n)), "7"]);
    expect(Array.from(new Float32Array(new Uint8Array(graph.initializer![0]!.rawData!).slice().buffer))).toEqual([
      4, 3, 2, 1,
    ]);
    // the patched model reads back with the new values and the unknown fields still there
    const model = onnx.read(new Uint8Array(readFileSync(out)));
    expect(model.unknownFieldCount).toBe(2);
    const byName = new Map(
      onnx.tensors(model).map((t) => [t.name, Array.from(t.data as ArrayLike<number | bigint>, String)]),
    );
    expect(byName.get("If_0/else_branch/w")).toEqual(["9"]);
  });

  it("diff compares two .onnx files", async () => {
    const path = files()[0]!;
    const other = fresh("other.onnx");
    const model = onnx.read(typedModel());
    writeFileSync(
      other,
      onnx.write(
        onnx.replaceTensors(model, {
          bias: { name: "bias", dtype: "float32", shape: [4], data: Float32Array.of(0.5, 1, 1.5, 2.5) },
        }),
      ),
    );
    const diff = await cli("diff", path, other);
    expect(diff.stdout).toMatch(/bias/);
    expect(diff.stdout).toMatch(/1 different/);
  });
});

describe("tensorfile CLI on .april weights", () => {
  const fixtures = ["tiny_en-us.april", "tiny_pl.april"]
    .map((n) => fixturePath("april", n))
    .filter((p) => haveFixtures() && existsSync(p));

  it.skipIf(fixtures.length === 0)(
    "convert to .safetensors, patch back: the same bytes; extract writes each weight beside the .onnx blobs",
    async () => {
      for (const path of fixtures) {
        const weights = fresh("april.safetensors");
        expect((await cli("convert", path, weights)).code).toBe(0);
        const names = Object.keys(
          JSON.parse(
            readFileSync(weights)
              .subarray(8, 8 + readFileSync(weights).readUInt32LE(0))
              .toString(),
          ) as Record<string, unknown>,
        ).filter((k) => k !== "__metadata__");
        expect(names.sort()).toEqual(["decoder/dec_w", "encoder/enc_bias", "joiner/joiner_w"].sort());
        const out = fresh("out.april");
        expect((await cli("patch", path, weights, out)).code).toBe(0);
        expect(readFileSync(out).equals(readFileSync(path))).toBe(true);
        const x = fresh("april-x");
        expect((await cli("extract", path, x)).code).toBe(0);
        for (const f of ["encoder.onnx", "decoder.onnx", "joiner.onnx", "encoder/enc_bias.npy", "joiner/joiner_w.npy"])
          expect(existsSync(join(x, f)), f).toBe(true);
        expect((await cli("stats", path)).stdout).toMatch(/encoder\/enc_bias/);
      }
    },
  );

  it.skipIf(fixtures.length < 2)("diff of two .april files compares their weights", async () => {
    const diff = await cli("diff", fixtures[0]!, fixtures[1]!);
    expect(diff.stdout).toMatch(/3 tensors in both/);
  });
});

describe("tensorfile CLI on broken .onnx files", () => {
  it("truncated and corrupted models: exit 1 with the FormatError, never an internal error", async () => {
    const good = typedModel();
    const cases: [string, Uint8Array][] = [
      ["truncated", good.subarray(0, good.length - 5)],
      [
        "bad-length",
        (() => {
          const b = good.slice();
          b[b.indexOf(0x3a) + 1] = 0x7f;
          return b;
        })(),
      ],
      ["long-varint", Uint8Array.of(0x08, ...new Array(12).fill(0xff), 0x01, 0x12, 0x01, 0x61)],
    ];
    for (const [name, bytes] of cases) {
      const path = fresh(`${name}.onnx`);
      writeFileSync(path, bytes);
      for (const argv of [
        ["inspect", path],
        ["verify", path],
        ["convert", path, fresh("x.safetensors")],
        ["stats", path],
        ["patch", path, path, fresh("p.onnx")],
      ]) {
        const r = await cli(...argv);
        expect(r.stderr, `${argv[0]} ${name}`).not.toMatch(/internal error/);
        expect(r.code, `${argv[0]} ${name}: ${r.stderr}`).toBeGreaterThanOrEqual(1);
      }
    }
  });
});

describe("options that would do nothing on an ONNX re-encode are refused", () => {
  it("--opset and --input on an .onnx input to .onnx are usage errors, and nothing is written", async () => {
    const model = fresh("noop.onnx");
    writeFileSync(model, exampleFiles().find((e) => e.format === "onnx")!.bytes);
    for (const option of [
      ["--opset", "13"],
      ["--input", "x=float16"],
    ]) {
      const out = fresh("noop-out.onnx");
      const r = await cli("convert", model, out, ...option);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`${option[0]} goes with a TenniS module`));
      expect(existsSync(out)).toBe(false);
    }
    expect((await cli("convert", model, fresh("plain.onnx"))).code).toBe(0);
  });
});
