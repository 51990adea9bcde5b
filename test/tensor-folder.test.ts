// openTensorFolder (tensorfile/node): an extract folder as lazy tensors for patch from code, as `tensorfile patch
// MODEL DIR OUT` reads it; and patchFrom's `opened` option, with which a model opened once is not parsed again.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readAny, readFromAny } from "../bindings/any.js";
import { exampleFiles } from "../bindings/examples.js";
import { writeNpy } from "../bindings/export/npy.js";
import { fromBytes, SourceError } from "../bindings/io/source.js";
import { openTensorFolder } from "../bindings/node.js";
import { patch, patchFrom } from "../bindings/patch.js";
import { cli } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-folder-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("openTensorFolder", () => {
  for (const example of exampleFiles()) {
    it(`${example.format}: extract then patch(model, await openTensorFolder(dir)) gives the model back byte for byte`, async () => {
      const model = join(dir, example.name);
      writeFileSync(model, example.bytes);
      const out = join(dir, `${example.format}-extracted`);
      expect((await cli("extract", model, out)).code).toBe(0);
      const folder = await openTensorFolder(out);
      expect(folder.tensorInfos().length).toBeGreaterThan(0);
      const patched = await patch(example.bytes, folder);
      expect(Buffer.from(patched.bytes).equals(Buffer.from(example.bytes))).toBe(true);
    });
  }

  it("an edited .npy comes back in the model; the others are as they were", async () => {
    const example = exampleFiles().find((e) => e.format === "tsm")!;
    const model = join(dir, "edit.tsm");
    writeFileSync(model, example.bytes);
    const out = join(dir, "edit-extracted");
    expect((await cli("extract", model, out)).code).toBe(0);
    const folder0 = await openTensorFolder(out);
    const info = folder0.tensorInfos().find((i) => i.name === "weight")!;
    const weight = await folder0.loadTensor(info);
    const data = Float32Array.from(weight.data as Float32Array, (x, i) => (i === 0 ? x + 1 : x));
    writeFileSync(
      join(out, folder0.files.get("weight")!),
      writeNpy({ name: weight.name, dtype: "float32", shape: weight.shape, data }),
    );
    const patched = await patch(example.bytes, await openTensorFolder(out));
    expect(patched.replaced).toContain("weight");
    const back = readAny(patched.bytes)
      .tensors()
      .find((t) => t.name === "weight")!;
    expect(Array.from(back.data as Float32Array)).toEqual(Array.from(data));
  });

  it("refuses, with a SourceError: no folder, a file, an empty folder, a bad meta.json, two files for one name", async () => {
    await expect(openTensorFolder(join(dir, "missing"))).rejects.toThrow(SourceError);
    await expect(openTensorFolder(join(dir, "missing"))).rejects.toThrow(/no such folder/);
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    await expect(openTensorFolder(file)).rejects.toThrow(/not a folder/);
    const empty = join(dir, "empty");
    mkdirSync(empty);
    await expect(openTensorFolder(empty)).rejects.toThrow(/holds no \.npy or \.onnx files/);
    const bad = join(dir, "bad-meta");
    mkdirSync(bad);
    writeFileSync(join(bad, "meta.json"), "{ not json");
    writeFileSync(join(bad, "a.npy"), writeNpy({ name: "a", dtype: "float32", shape: [1], data: new Float32Array(1) }));
    await expect(openTensorFolder(bad)).rejects.toThrow(SourceError);
    const twice = join(dir, "twice");
    mkdirSync(twice);
    writeFileSync(join(twice, "meta.json"), JSON.stringify({ files: { a: "copy.npy" } }));
    writeFileSync(
      join(twice, "a.npy"),
      writeNpy({ name: "a", dtype: "float32", shape: [1], data: new Float32Array(1) }),
    );
    writeFileSync(join(twice, "copy.npy"), readFileSync(join(twice, "a.npy")));
    await expect(openTensorFolder(twice)).rejects.toThrow(/both .* hold the tensor "a"/);
    await expect(openTensorFolder("" as string)).rejects.toThrow(TypeError);
  });
});

describe("patchFrom { opened }", () => {
  it("a model opened once is not parsed again (fewer reads), and the result is the same", async () => {
    const example = exampleFiles().find((e) => e.format === "onnx")!;
    let reads = 0;
    const base = fromBytes(example.bytes);
    const source = { ...base, read: (offset: number, length: number) => (reads++, base.read(offset, length)) };
    const weights = readAny(example.bytes).tensors();
    const opened = await readFromAny(source);
    reads = 0;
    const once = await patchFrom(source, weights, { opened });
    const readsOnce = reads;
    reads = 0;
    const twice = await patchFrom(source, weights);
    expect(readsOnce).toBeLessThan(reads);
    expect(Buffer.from(once.bytes).equals(Buffer.from(twice.bytes))).toBe(true);
  });
});
