// Names from files used as object keys: every place that keyed a plain object by a tensor name, op type or input
// name, fed the names Object.prototype already has. Before, a weight "__proto__" vanished from a safetensors
// export, op types "constructor"/"toString" garbled inspect's op counts, a TenniS op "constructor" was "translated"
// by calling Object, an input "__proto__" given to --input was dropped, and `tensorfile toString` crashed.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../bindings/cli/run.js";
import { parseInputs } from "../bindings/cli/tsm-onnx.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import * as onnx from "../bindings/formats/onnx.js";
import * as safetensors from "../bindings/formats/safetensors.js";
import * as tsm from "../bindings/formats/tsm.js";
import { metadataDifferences } from "../web/src/model/diff.js";
import { cli } from "./helpers/cli.js";

const HOSTILE = ["__proto__", "constructor", "toString", "hasOwnProperty", "__defineGetter__", "valueOf"];

describe("object keys from files", () => {
  it("safetensors export: a tensor named after an Object.prototype key is written and read back", () => {
    const tensors = HOSTILE.map((name, i) => ({
      name,
      dtype: "float32" as const,
      shape: [1],
      data: new Float32Array([i]),
    }));
    const file = safetensors.read(writeSafetensors(tensors));
    expect(safetensors.tensors(file).map((t) => [t.name, t.data[0]])).toEqual(HOSTILE.map((n, i) => [n, i]));
  });

  it("onnx inspect: op types named after Object.prototype keys are counted like any other", async () => {
    const nodes = [...HOSTILE, "toString", "Add"].map((opType, i) => ({ opType, inputs: [], outputs: [`o${i}`] }));
    const model = onnx.read(onnx.write(onnx.create({ graph: { name: "g", nodes, inputs: [], outputs: [] } })));
    const graph = onnx.inspect(model).graph as { ops: Record<string, number> };
    expect(JSON.parse(JSON.stringify(graph.ops))).toEqual({
      ...Object.fromEntries(HOSTILE.map((op) => [op, op === "toString" ? 2 : 1])),
      Add: 1,
    });
    expect(Object.keys(graph.ops)).toEqual([...HOSTILE, "Add"]);
    // and as the command line prints it
    const path = join(mkdtempSync(join(tmpdir(), "tensorfile-keys-")), "ops.onnx");
    writeFileSync(path, onnx.write(onnx.create({ graph: { name: "g", nodes, inputs: [], outputs: [] } })));
    const printed = JSON.parse((await cli("inspect", path, "--json")).stdout) as {
      graph: { ops: Record<string, number> };
    };
    expect(printed.graph.ops).toEqual(JSON.parse(JSON.stringify(graph.ops)));
    rmSync(dirname(path), { recursive: true });
  });

  it("tsm.toOnnx: an op named after an Object.prototype key is an unsupported op, not a translation", () => {
    for (const op of HOSTILE) {
      const module = tsm.create({
        nodes: [
          { op: "<param>", name: "x" },
          { op, name: "y", inputs: ["x"] },
        ],
        inputs: ["x"],
        outputs: ["y"],
      });
      expect(tsm.onnxSupport(module).blockers.map((b) => b.op)).toEqual([op]);
      expect(() => tsm.toOnnx(module)).toThrow(tsm.TsmOnnxUnsupportedError);
    }
  });

  it("convert --input: an input named __proto__ (or constructor) is an entry, and reaches the ONNX input", () => {
    const usage = (m: string) => new Error(m);
    const inputs = parseInputs(["__proto__=uint8:1x3", "constructor=int32:2"], usage)!;
    expect(Object.keys(inputs)).toEqual(["__proto__", "constructor"]);
    const module = tsm.create({
      nodes: [
        { op: "<param>", name: "__proto__" },
        { op: "<param>", name: "constructor" },
        { op: "_copy", name: "y", inputs: ["__proto__"] },
        { op: "_copy", name: "z", inputs: ["constructor"] },
      ],
      inputs: ["__proto__", "constructor"],
      outputs: ["y", "z"],
    });
    const graph = onnx.read(tsm.toOnnx(module, { inputs })).graph!;
    expect(graph.inputs.map((i) => [i.name, i.type.elemType, i.type.shape])).toEqual([
      ["__proto__", 2, [1, 3]],
      ["constructor", 6, [2]],
    ]);
  });

  it("the inspector's metadata differences: a key only in A is undefined in B, whatever its name", () => {
    const a = { format: "safetensors", version: null, meta: Object.fromEntries(HOSTILE.map((k) => [k, "x"])) };
    const b = { format: "safetensors", version: null, meta: {} };
    const { differences } = metadataDifferences(a, b);
    expect(differences).toEqual(HOSTILE.map((k) => ({ key: `meta.${k}`, a: "x", b: undefined })));
  });

  it("the command line: a command named after an Object.prototype key is an unknown command (exit 2)", async () => {
    for (const command of HOSTILE) {
      let stderr = "";
      const code = await runCli([command], {
        stdout: { isTTY: false, write: () => true },
        stderr: { isTTY: false, write: (t: string) => (stderr += t) },
      });
      expect(code).toBe(2);
      expect(stderr).toMatch(/unknown command/);
    }
  });
});
