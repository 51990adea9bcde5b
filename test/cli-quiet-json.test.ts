// --quiet on every command (only errors printed, the exit status as without it), --json on every command that
// reports (one JSON document on standard output with the keys docs/cli.md lists), patch's counts of what changed,
// and options that would do nothing refused (exit 2).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readAny } from "../bindings/any.js";
import { exampleFiles } from "../bindings/examples.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import type { NamedTensor } from "../bindings/tensor.js";
import { cli } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-quiet-json-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let serial = 0;
const fresh = (name: string) => join(dir, `${serial++}-${name}`);
const tsm = join(dir, "demo.tsm");
writeFileSync(tsm, exampleFiles().find((e) => e.format === "tsm")!.bytes);
const b2l = join(dir, "demo.b2l");
writeFileSync(b2l, exampleFiles().find((e) => e.format === "bw2l")!.bytes);
const tensors = readAny(readFileSync(tsm)).tensors();
const broken = join(dir, "broken.tsm");
writeFileSync(broken, readFileSync(tsm).subarray(0, 40));

describe("--quiet", () => {
  const runs: [string, () => string[]][] = [
    ["inspect", () => ["inspect", tsm]],
    ["verify", () => ["verify", tsm]],
    ["convert", () => ["convert", tsm, fresh("w.safetensors")]],
    ["extract", () => ["extract", tsm, fresh("dir")]],
    ["stats", () => ["stats", tsm]],
    ["patch", () => ["patch", tsm, tsm, fresh("out.tsm")]],
    ["edit", () => ["edit", exampleOnnx(), fresh("out.onnx"), "--set-meta", "a=b"]],
    ["show", () => ["show", tsm, "weight"]],
  ];
  for (const [name, args] of runs) {
    it(`${name} --quiet prints nothing on success, exit 0 (without it, it prints)`, async () => {
      const loud = await cli(...args());
      expect(loud.code, loud.stderr).toBe(0);
      expect(loud.stdout + loud.stderr).not.toBe("");
      const quiet = await cli(...args(), "--quiet");
      expect(quiet).toEqual({ code: 0, stdout: "", stderr: "" });
    });
  }

  it("an error still prints, with the exit status it has without --quiet", async () => {
    for (const args of [
      ["inspect", broken],
      ["verify", broken],
      ["convert", broken, fresh("x.safetensors")],
      ["stats", broken],
      ["patch", broken, tsm, fresh("x.tsm")],
      ["extract", broken, fresh("x")],
    ]) {
      const loud = await cli(...args);
      const quiet = await cli(...args, "--quiet");
      expect(quiet.code, args.join(" ")).toBe(loud.code);
      expect(quiet.code).toBe(1);
      expect(quiet.stdout).toBe("");
      expect(quiet.stderr).toMatch(/^tensorfile: /);
      expect(
        quiet.stderr
          .trim()
          .split("\n")
          .every((l) => l.startsWith("tensorfile: ")),
      ).toBe(true);
    }
    // several files: the failing one's error, not the summary line
    const many = await cli("inspect", tsm, broken, "--quiet");
    expect(many.code).toBe(1);
    expect(many.stdout).toBe("");
    expect(many.stderr).toMatch(/^tensorfile: .*broken\.tsm: /);
    expect(many.stderr).not.toMatch(/of 2 files/);
  });

  it("a usage error still prints (exit 2); --quiet with --json is one", async () => {
    const bad = await cli("convert", tsm, "--quiet");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^tensorfile: convert takes IN and OUT/);
    const both = await cli("inspect", tsm, "--quiet", "--json");
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--quiet prints nothing and --json prints a report/);
  });

  it("data written to standard output (convert OUT -) still goes out", async () => {
    const r = await cli("convert", tsm, "-", "--to", "json", "--quiet");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).format).toBe("tsm");
  });
});

describe("--json", () => {
  it("convert: { input, output, format, bytes }", async () => {
    for (const out of [fresh("w.safetensors"), fresh("w.npy"), fresh("x.tsm"), fresh("x.csta"), fresh("x.json")]) {
      const args = ["convert", tsm, out, ...(out.endsWith(".npy") ? ["--tensor", "weight"] : []), "--json"];
      const r = await cli(...args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
      const report = JSON.parse(r.stdout);
      expect(Object.keys(report)).toEqual(["input", "output", "format", "bytes"]);
      expect(report).toMatchObject({ input: tsm, output: out, bytes: readFileSync(out).length });
    }
    expect(JSON.parse((await cli("convert", tsm, fresh("b.csta"), "--json")).stdout).format).toBe("tsm");
    expect(JSON.parse((await cli("convert", tsm, fresh("b.safetensors"), "--json")).stdout).format).toBe("safetensors");
  });

  it("convert --out-dir: { outDir, to, converted, failed, bytes, files }", async () => {
    const out = fresh("batch");
    const r = await cli("convert", "--out-dir", out, "--to", "safetensors", "-j", "1", tsm, broken, "--json");
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report)).toEqual(["outDir", "to", "converted", "failed", "bytes", "files"]);
    expect(report).toMatchObject({ outDir: out, to: "safetensors", converted: 1, failed: 1 });
    expect(report.files[0]).toEqual({ input: tsm, output: join(out, "demo.safetensors"), ok: true });
    expect(report.files[1]).toMatchObject({ input: broken, ok: false, error: expect.any(String) });
  });

  it("convert --json with OUT - is a usage error", async () => {
    const r = await cli("convert", tsm, "-", "--to", "npy", "--json");
    expect(r.code).toBe(2);
  });

  it("extract: { input, dir, files }", async () => {
    const out = fresh("extracted");
    const r = await cli("extract", tsm, out, "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report)).toEqual(["input", "dir", "files"]);
    expect(report.files).toEqual(JSON.parse(readFileSync(join(out, "meta.json"), "utf8")).files);
  });

  it("patch: the documented keys, and nothing on standard error", async () => {
    const out = fresh("out.tsm");
    const r = await cli("patch", tsm, tsm, out, "--json");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report)).toEqual([
      "model",
      "weights",
      "output",
      "format",
      "bytes",
      "unit",
      "changed",
      "unchanged",
      "kept",
      "skipped",
      "requantized",
      "external",
      "inlined",
    ]);
    expect(report).toMatchObject({
      model: tsm,
      weights: tsm,
      output: out,
      format: "tsm",
      bytes: readFileSync(out).length,
      unit: "tensor",
      changed: [],
    });
  });
});

describe("patch: what changed", () => {
  const weights = (change: (t: NamedTensor) => boolean) => {
    const path = fresh("w.safetensors");
    writeFileSync(
      path,
      writeSafetensors(
        tensors.map((t) => (change(t) ? { ...t, data: (t.data as Float32Array).map((x) => x + 1) } : t) as NamedTensor),
      ),
    );
    return path;
  };
  const report = async (w: string) => {
    const r = await cli("patch", tsm, w, fresh("out.tsm"), "--json");
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { changed: string[]; unchanged: string[] };
  };

  it("none, some, all changed", async () => {
    const names = tensors.map((t) => t.name);
    const floats = tensors.filter((t) => t.dtype === "float32").map((t) => t.name);
    expect(floats.length).toBeGreaterThan(0);
    expect(await report(weights(() => false))).toMatchObject({ changed: [], unchanged: names });
    const some = await report(weights((t) => t.name === floats[0]));
    expect(some.changed).toEqual([floats[0]]);
    expect(some.unchanged).toEqual(names.filter((n) => n !== floats[0]));
    const all = tensors.every((t) => t.dtype === "float32") ? await report(weights(() => true)) : undefined;
    if (all) expect(all).toMatchObject({ changed: names, unchanged: [] });
  });

  it("the text report: 'N changed, M given back unchanged'", async () => {
    const name = tensors.find((t) => t.dtype === "float32")!.name;
    const r = await cli(
      "patch",
      tsm,
      weights((t) => t.name === name),
      fresh("out.tsm"),
    );
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(
      new RegExp(`^1 tensor changed, ${tensors.length - 1} given back unchanged\\nchanged:   ${name}\\n`),
    );
  });

  it("messages say MODEL or WEIGHTS", async () => {
    const m = await cli("patch", broken, tsm, fresh("x.tsm"));
    expect(m.code).toBe(1);
    expect(m.stderr).toMatch(/^tensorfile: MODEL .*broken\.tsm: /);
    const w = await cli("patch", tsm, broken, fresh("x.tsm"));
    expect(w.code).toBe(1);
    expect(w.stderr).toMatch(/^tensorfile: WEIGHTS .*broken\.tsm: /);
  });
});

describe("options that would do nothing are usage errors (exit 2)", () => {
  it("inspect --json --full; convert OUT - --force", async () => {
    const full = await cli("inspect", tsm, "--json", "--full");
    expect(full.code).toBe(2);
    expect(full.stderr).toMatch(/--json never shortens them/);
    const force = await cli("convert", tsm, "-", "--to", "json", "--force");
    expect(force.code).toBe(2);
    expect(force.stderr).toMatch(/--force overwrites an existing OUT file/);
  });
});

function exampleOnnx(): string {
  const path = join(dir, "demo.onnx");
  writeFileSync(path, exampleFiles().find((e) => e.format === "onnx")!.bytes);
  return path;
}
