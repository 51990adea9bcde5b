// tensorfile sample DIR: the demo files and the README's quick-start files from the installed package; and the
// demo .tsm is a module TenniS accepts, so it converts to an ONNX model that runs.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exampleFiles, quickStartFiles } from "../bindings/examples.js";
import { readAny } from "../bindings/any.js";
import { BUILT_CLI, cli } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-sample-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NAMES = [
  "demo.b2l",
  "demo.april",
  "demo.tsm",
  "demo.model",
  "demo.trk",
  "demo.onnx",
  "model.b2l",
  "model.april",
  "edit.py",
];

describe("tensorfile sample DIR", () => {
  it("writes every demo file and the quick-start files, each readable", async () => {
    const out = join(dir, "a", "b");
    const r = await cli("sample", out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`wrote 9 sample files into ${out}: ${NAMES.join(", ")}\n`);
    for (const name of NAMES) expect(existsSync(join(out, name)), name).toBe(true);
    for (const example of exampleFiles())
      expect(Buffer.from(readFileSync(join(out, example.name))).equals(Buffer.from(example.bytes))).toBe(true);
    expect(readAny(readFileSync(join(out, "model.b2l"))).format).toBe("bw2l");
    expect(readAny(readFileSync(join(out, "model.april"))).format).toBe("april");
  });

  it("edit.py is examples/april-edit.py", () => {
    const py = quickStartFiles().find((f) => f.name === "edit.py")!;
    expect(new TextDecoder().decode(py.bytes)).toBe(
      readFileSync(resolve(__dirname, "../examples/april-edit.py"), "utf8"),
    );
  });

  it.skipIf(!existsSync(BUILT_CLI))("model.b2l is what examples/make-model.mjs writes", () => {
    const made = join(dir, "made");
    spawnSync("mkdir", ["-p", made]);
    const r = spawnSync(process.execPath, [resolve(__dirname, "../examples/make-model.mjs"), made], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
    const ours = quickStartFiles().find((f) => f.name === "model.b2l")!.bytes;
    expect(Buffer.from(readFileSync(join(made, "model.b2l"))).equals(Buffer.from(ours))).toBe(true);
  });

  it("refuses to overwrite (exit 2, nothing written) unless --force; --json lists the files", async () => {
    const out = join(dir, "again");
    expect((await cli("sample", out)).code).toBe(0);
    writeFileSync(join(out, "demo.tsm"), "mine");
    const refused = await cli("sample", out);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/already holds demo\.b2l, .*--force/);
    expect(readFileSync(join(out, "demo.tsm"), "utf8")).toBe("mine");
    const forced = await cli("sample", out, "--force", "--json");
    expect(forced.code, forced.stderr).toBe(0);
    const report = JSON.parse(forced.stdout);
    expect(report.dir).toBe(out);
    expect(report.files.map((f: { name: string }) => f.name)).toEqual(NAMES);
    expect(Object.keys(report.files[0])).toEqual(["name", "bytes", "description"]);
    expect(readFileSync(join(out, "demo.tsm"), "utf8")).not.toBe("mine");
  });

  it("usage errors: no DIR, two, or -", async () => {
    for (const args of [[], ["a", "b"], ["-"]]) expect((await cli("sample", ...args)).code).toBe(2);
  });
});

describe("the demo .tsm converts to ONNX", () => {
  it("tensorfile convert demo.tsm demo.onnx succeeds, and the model runs in onnxruntime when installed", async () => {
    const tsm = join(dir, "demo.tsm");
    writeFileSync(tsm, exampleFiles().find((e) => e.format === "tsm")!.bytes);
    const out = join(dir, "demo-from-tsm.onnx");
    const r = await cli("convert", tsm, out);
    expect(r.code, r.stderr).toBe(0);
    expect((await cli("verify", out)).code).toBe(0);
    let ortHelper: typeof import("./helpers/ort.js") | undefined;
    try {
      ortHelper = await import("./helpers/ort.js");
    } catch {
      return; // onnxruntime-web not installed
    }
    const { ort, runOnnx } = ortHelper;
    const input = new ort.Tensor("float32", Float32Array.of(1, 2, 3), [1, 3]);
    const { outputs } = await runOnnx(new Uint8Array(readFileSync(out)), { input });
    const [y] = Object.values(outputs);
    expect(y!.dims).toEqual([1, 4]);
    for (const v of y!.data as Float32Array) expect(v >= 0 && v <= 1, String(v)).toBe(true); // a sigmoid
  });
});
