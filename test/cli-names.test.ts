// Hostile tensor names through the command line: extract then patch from the unchanged folder gives the model
// back byte for byte (every tensor found under its own name: each holds a distinct value), convert to
// .safetensors keeps every name or refuses plainly, and a folder with two files for one name is refused.
// Models are ONNX (names are free UTF-8 there); patch writes them back with onnx.replaceTensors.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { writeNpy } from "../bindings/export/npy.js";
import * as onnx from "../bindings/formats/onnx.js";
import * as safetensors from "../bindings/formats/safetensors.js";
import { cli } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let serial = 0;

/** An ONNX model whose initializers have these names, the k-th holding the float32 value k. */
function modelFile(names: readonly string[]): { path: string; bytes: Uint8Array; names: string[] } {
  const bytes = onnx.write(
    onnx.create({
      graph: {
        name: "g",
        nodes: [],
        inputs: [],
        outputs: [],
        initializers: names.map((name, i) => ({ name, dtype: "float32", dims: [1], data: [i] })),
      },
    }),
  );
  const path = join(dir, `model-${serial++}.onnx`);
  writeFileSync(path, bytes);
  return { path, bytes, names: onnx.tensorInfos(onnx.read(bytes)).map((i) => i.name) };
}

/** Every file under `folder`, "/"-separated. */
function listing(folder: string): string[] {
  return (readdirSync(folder, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((e) => e.isFile())
    .map((e) =>
      join(e.parentPath, e.name)
        .slice(folder.length + 1)
        .split("\\")
        .join("/"),
    );
}

/** extract, then patch from the unchanged folder: the patched model is the model. */
async function expectExtractPatchIdentity(names: readonly string[]): Promise<string> {
  const model = modelFile(names);
  const folder = join(dir, `x-${serial++}`);
  const extracted = await cli("extract", model.path, folder);
  expect(extracted.stderr).not.toMatch(/internal error/);
  expect(extracted.code, extracted.stderr).toBe(0);
  const out = join(dir, `patched-${serial++}.onnx`);
  const patched = await cli("patch", model.path, folder, out);
  expect(patched.stderr).not.toMatch(/internal error/);
  expect(patched.code, patched.stderr).toBe(0);
  expect(patched.stderr).toContain(`0 tensors changed, ${model.names.length} given back unchanged\n`);
  expect(Buffer.compare(readFileSync(out), Buffer.from(model.bytes))).toBe(0);
  return folder;
}

describe("extract then patch is the identity for every name", () => {
  it("names whose files used to be one: .. / _dotdot, a/b / a\\b", async () => {
    await expectExtractPatchIdentity(["../x", "_dotdot/x", "..", "_dotdot", "a/b", "a\\b", "./y", "_dot/y"]);
  });

  it("an empty name, empty parts, NUL, a newline (listed quoted by patch)", async () => {
    const names = ["", "/abs", "a//b", "a/", "x\u0000y", "line\nbreak", "a, b"];
    const folder = await expectExtractPatchIdentity(names);
    const model = modelFile(names);
    const r = await cli("patch", model.path, folder, join(dir, `listed-${serial++}.onnx`));
    expect(r.stderr).toContain('unchanged: "", /abs, a//b, a/, "x\\u0000y", "line\\nbreak", "a, b"\n');
  });

  it("a part over 255 bytes, and a path longer than PATH_MAX (4096 bytes)", async () => {
    await expectExtractPatchIdentity(["é".repeat(200), `${"é".repeat(200)}2`, `${"abc/".repeat(1100)}w`]);
  });

  it("repeated names (W, W, W#2) and names of Object.prototype and of the manifest", async () => {
    await expectExtractPatchIdentity([
      "W",
      "W",
      "W#2",
      "__proto__",
      "constructor",
      "toString",
      "meta.json",
      "meta",
      "%2E%2E",
      "CON",
      "日本語/重み",
    ]);
  });

  it("names alike but for case or Unicode normalization get files that differ on any file system", async () => {
    const folder = await expectExtractPatchIdentity(["W", "w", "Layer/W", "layer/w", "\u00e9", "e\u0301"]);
    const files = listing(folder).map((f) => f.normalize("NFD").toLowerCase());
    expect(new Set(files).size).toBe(files.length);
  });
});

describe("folders patch reads", () => {
  it("a folder as an earlier extract wrote it (meta.json names the _dotdot files) still patches", async () => {
    const model = modelFile(["../x", "a/b"]);
    const folder = join(dir, `old-${serial++}`);
    mkdirSync(join(folder, "_dotdot"), { recursive: true });
    mkdirSync(join(folder, "a"));
    writeFileSync(
      join(folder, "_dotdot", "x.npy"),
      writeNpy({ name: "x", dtype: "float32", shape: [1], data: new Float32Array([5]) }),
    );
    writeFileSync(
      join(folder, "a", "b.npy"),
      writeNpy({ name: "b", dtype: "float32", shape: [1], data: new Float32Array([6]) }),
    );
    writeFileSync(
      join(folder, "meta.json"),
      JSON.stringify({ format: "onnx", files: { "../x": "_dotdot/x.npy", "a/b": "a/b.npy" } }),
    );
    const out = join(dir, `old-${serial++}.onnx`);
    const r = await cli("patch", model.path, folder, out);
    expect(r.code, r.stderr).toBe(0);
    expect(onnx.tensors(onnx.read(new Uint8Array(readFileSync(out)))).map((t) => [t.name, t.data[0]])).toEqual([
      ["../x", 5],
      ["a/b", 6],
    ]);
  });

  it('a file meta.json does not list is named by decoding its path (%2E%2E.npy is "..", %.npy is "")', async () => {
    const model = modelFile(["..", ""]);
    const folder = join(dir, `bare-${serial++}`);
    mkdirSync(folder);
    writeFileSync(
      join(folder, "%2E%2E.npy"),
      writeNpy({ name: "x", dtype: "float32", shape: [1], data: new Float32Array([7]) }),
    );
    writeFileSync(
      join(folder, "%.npy"),
      writeNpy({ name: "x", dtype: "float32", shape: [1], data: new Float32Array([8]) }),
    );
    const out = join(dir, `bare-${serial++}.onnx`);
    const r = await cli("patch", model.path, folder, out);
    expect(r.code, r.stderr).toBe(0);
    expect(onnx.tensors(onnx.read(new Uint8Array(readFileSync(out)))).map((t) => [t.name, t.data[0]])).toEqual([
      ["..", 7],
      ["", 8],
    ]);
  });

  it("a file whose name the file system stored decomposed (as HFS+ does) is still the one meta.json lists", async () => {
    const composed = "caf\u00e9";
    const model = modelFile([composed]);
    const folder = join(dir, `nfd-${serial++}`);
    mkdirSync(folder);
    writeFileSync(
      join(folder, `${composed.normalize("NFD")}.npy`),
      writeNpy({ name: "x", dtype: "float32", shape: [1], data: new Float32Array([4]) }),
    );
    writeFileSync(join(folder, "meta.json"), JSON.stringify({ files: { [composed]: `${composed}.npy` } }));
    const out = join(dir, `nfd-${serial++}.onnx`);
    const r = await cli("patch", model.path, folder, out);
    expect(r.code, r.stderr).toBe(0);
    expect(onnx.tensors(onnx.read(new Uint8Array(readFileSync(out)))).map((t) => [t.name, t.data[0]])).toEqual([
      [composed, 4],
    ]);
  });

  it("two files for one name are refused, naming both", async () => {
    const model = modelFile(["a"]);
    const folder = join(dir, `two-${serial++}`);
    mkdirSync(folder);
    const npy = writeNpy({ name: "a", dtype: "float32", shape: [1], data: new Float32Array([1]) });
    writeFileSync(join(folder, "a.npy"), npy);
    writeFileSync(join(folder, "copy.npy"), npy);
    writeFileSync(join(folder, "meta.json"), JSON.stringify({ files: { a: "copy.npy" } }));
    const r = await cli("patch", model.path, folder, join(dir, `two-${serial++}.onnx`));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/both copy\.npy and a\.npy hold the tensor "a"/);
  });
});

describe("names safetensors cannot hold", () => {
  it("convert refuses an empty name and __metadata__ plainly (exit 1); .npy and extract take them", async () => {
    for (const bad of ["", "__metadata__"]) {
      const model = modelFile(["ok", bad]);
      const r = await cli("convert", model.path, join(dir, `bad-${serial++}.safetensors`));
      expect(r.code).toBe(1);
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.stderr).toMatch(
        bad === "" ? /tensor 1 of .* has an empty name/ : /tensor 1 of .* is named "__metadata__"/,
      );
      const npy = join(dir, `one-${serial++}.npy`);
      const one = await cli("convert", model.path, npy, "--tensor", bad);
      expect(one.code, one.stderr).toBe(0);
      const batch = await cli(
        "convert",
        "--out-dir",
        join(dir, `batch-${serial++}`),
        "--to",
        "safetensors",
        model.path,
        "-j",
        "1",
      );
      expect(batch.code).toBe(1);
      expect(batch.stderr).not.toMatch(/internal error/);
      expect(batch.stderr).toMatch(bad === "" ? /has an empty name/ : /is named "__metadata__"/);
    }
  });
});

describe("fuzz: random names from a hostile alphabet", () => {
  const alphabet = [
    "/",
    "\\",
    ".",
    "..",
    "%",
    "%2F",
    "\u0000",
    ":",
    "*",
    " ",
    "#2",
    "W",
    "w",
    "é",
    "e\u0301",
    "_dotdot",
    "__proto__",
    "meta.json",
    "x".repeat(130),
  ];
  const names = fc.array(
    fc.array(fc.constantFrom(...alphabet), { maxLength: 4 }).map((parts) => parts.join("")),
    { minLength: 1, maxLength: 6 },
  );

  it("convert → .safetensors → read keeps every name (or refuses plainly); extract → patch is the identity", async () => {
    await fc.assert(
      fc.asyncProperty(names, async (given) => {
        const model = modelFile(given);
        const out = join(dir, `fuzz-${serial++}.safetensors`);
        const converted = await cli("convert", model.path, out);
        expect(converted.stderr).not.toMatch(/internal error/);
        if (model.names.some((n) => n === "" || n === "__metadata__")) expect(converted.code).toBe(1);
        else {
          expect(converted.code, converted.stderr).toBe(0);
          const read = safetensors.tensors(safetensors.read(new Uint8Array(readFileSync(out))));
          expect(read.map((t) => [t.name, t.data[0]])).toEqual(model.names.map((n, i) => [n, i]));
        }
        await expectExtractPatchIdentity(given);
      }),
      { numRuns: 30 },
    );
  }, 120_000);
});

describe("blobs", () => {
  it("bw2l data sections whose file names clean alike (a/b, a_b) are two blobs and two files", async () => {
    const { bw2l } = await import("../bindings/index.js");
    const { rawFile } = await import("./helpers/bw2l-builders.js");
    const bytes = rawFile(2, "m", [
      { name: "a/b", type: "data", data: new Uint8Array([1]) },
      { name: "a_b", type: "data", data: new Uint8Array([2]) },
    ]);
    expect(bw2l.blobs(bw2l.read(bytes)).map((b) => b.name)).toEqual(["a_b.bin", "a_b.bin#2"]);
    const path = join(dir, `blobs-${serial++}.b2l`);
    writeFileSync(path, bytes);
    const folder = join(dir, `blobs-${serial++}`);
    const r = await cli("extract", path, folder);
    expect(r.code, r.stderr).toBe(0);
    const files = (JSON.parse(readFileSync(join(folder, "meta.json"), "utf8")) as { files: Record<string, string> })
      .files;
    expect([
      ...readFileSync(join(folder, files["a_b.bin"]!)),
      ...readFileSync(join(folder, files["a_b.bin#2"]!)),
    ]).toEqual([1, 2]);
  });
});
