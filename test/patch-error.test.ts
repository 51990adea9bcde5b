// PatchError: every refusal of the weights given to patch is one typed error with the tensor's name and the stored
// and given dtype and shape, still a TypeError (dtype, kind) or a RangeError (names, shapes, sizes) as before; the
// CLI turns a PatchError (and only that) into exit 1 with the message as it was.
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PatchError, isPatchError } from "../bindings/index.js";
import { exampleFiles } from "../bindings/examples.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import { patch } from "../bindings/patch.js";
import type { NamedTensor } from "../bindings/tensor.js";
import { cli } from "./helpers/cli.js";

const tsmBytes = exampleFiles().find((e) => e.format === "tsm")!.bytes;

async function refusal(weights: NamedTensor[]): Promise<unknown> {
  try {
    await patch(tsmBytes, weights);
  } catch (error) {
    return error;
  }
  throw new Error("patch did not refuse");
}

describe("PatchError", () => {
  it("a dtype mismatch: a TypeError and a PatchError naming the tensor, the stored and the given dtype", async () => {
    const error = await refusal([{ name: "weight", dtype: "int32", shape: [4, 3], data: new Int32Array(12) }]);
    expect(error).toBeInstanceOf(PatchError);
    expect(error).toBeInstanceOf(TypeError);
    expect(isPatchError(error)).toBe(true);
    expect(error).toMatchObject({
      name: "PatchError",
      code: "PATCH",
      problem: "dtype",
      tensor: "weight",
      expectedDtype: "float32",
      actualDtype: "int32",
      expectedShape: [4, 3],
      actualShape: [4, 3],
    });
  });

  it("a shape mismatch: a RangeError and a PatchError with both shapes", async () => {
    const error = await refusal([{ name: "weight", dtype: "float32", shape: [3, 4], data: new Float32Array(12) }]);
    expect(error).toBeInstanceOf(PatchError);
    expect(error).toBeInstanceOf(RangeError);
    expect(error).toMatchObject({ problem: "shape", tensor: "weight", expectedShape: [4, 3], actualShape: [3, 4] });
  });

  it("unknown names: every one of them listed", async () => {
    const t = (name: string): NamedTensor => ({ name, dtype: "float32", shape: [4, 3], data: new Float32Array(12) });
    const error = await refusal([t("wieght"), t("other")]);
    expect(error).toBeInstanceOf(RangeError);
    expect(error).toMatchObject({ problem: "unknown-name", tensor: "wieght", names: ["wieght", "other"] });
  });

  it("data of another size than its shape: a conflict, a RangeError", async () => {
    const error = await refusal([{ name: "weight", dtype: "float32", shape: [4, 3], data: new Float32Array(11) }]);
    expect(error).toMatchObject({ problem: "conflict", tensor: "weight" });
    expect(error).toBeInstanceOf(RangeError);
  });

  it("other errors are not PatchErrors (instanceof checks the code, so a copy of another package works too)", () => {
    expect(new TypeError("x")).not.toBeInstanceOf(PatchError);
    expect(isPatchError(new RangeError("x"))).toBe(false);
    expect(isPatchError(null)).toBe(false);
    const foreign = Object.assign(new TypeError("from another copy"), { code: "PATCH", problem: "dtype" });
    expect(foreign).toBeInstanceOf(PatchError);
  });
});

describe("tensorfile patch: a PatchError is exit 1 with its message, nothing written", () => {
  const dir = mkdtempSync(join(tmpdir(), "tensorfile-patch-error-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const model = join(dir, "demo.tsm");
  writeFileSync(model, tsmBytes);

  it("dtype and shape mismatches", async () => {
    const weights = join(dir, "w.safetensors");
    writeFileSync(
      weights,
      writeSafetensors([{ name: "weight", dtype: "int32", shape: [4, 3], data: new Int32Array(12) }]),
    );
    const r = await cli("patch", model, weights, join(dir, "out.tsm"));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'tensorfile: tensor "weight" is stored as float32; a int32 tensor cannot replace it (give float32 (or float16, float32, float64, bfloat16, float8))\n',
    );
    expect(existsSync(join(dir, "out.tsm"))).toBe(false);
    writeFileSync(
      weights,
      writeSafetensors([{ name: "weight", dtype: "float32", shape: [3, 4], data: new Float32Array(12) }]),
    );
    const shape = await cli("patch", model, weights, join(dir, "out.tsm"));
    expect(shape.code).toBe(1);
    expect(shape.stderr).toMatch(
      /^tensorfile: tensor "weight" has shape \[4, 3\] in the file; the replacement has shape \[3, 4\]\n$/,
    );
    expect(shape.stderr).not.toContain("internal error");
  });
});
