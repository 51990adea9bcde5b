/**
 * `tensorfile patch` and `tensorfile diff`: the fine-tune round trip on every example and on reference
 * fixtures (convert to .safetensors / extract to a folder / one .npy / an .npz, patch back: the same bytes), a
 * one-value edit found again by diff, april networks from .onnx files, .csta <-> .tsm, and the refusals (exit 1 or 2,
 * nothing written). One run of the built bin (dist/cli.js) checks the exit codes of a real process.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipSync } from "fflate";
import { afterAll, describe, expect, it } from "vitest";
import { readAny } from "../bindings/any.js";
import { BUILT_CLI, cli } from "./helpers/cli.js";
import { exampleFiles } from "../bindings/examples.js";
import { writeNpy } from "../bindings/export/npy.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import * as tsm from "../bindings/formats/tsm.js";
import type { NamedTensor } from "../bindings/tensor.js";
import { fixturePath, haveFixtures } from "./helpers/fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-patch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let counter = 0;
const fresh = (name: string) => join(dir, `${counter++}-${name}`);

function sameFile(a: string, b: string): boolean {
  return readFileSync(a).equals(readFileSync(b));
}

const EXAMPLES = exampleFiles().map((e) => {
  const path = join(dir, e.name);
  writeFileSync(path, e.bytes);
  return { ...e, path };
});

const FIXTURES = [
  ["bw2l", "tiny_ctc_v2.b2l"],
  ["bw2l", "dtypes_v1.b2l"],
  ["tennis", "dtypes.tsm"],
  ["tennis", "seetaface6_face_landmarker_pts5.csta"],
  ["primitiv", "model_xor_adam.model"],
  ["primitiv", "tensor_2x2_b3.tensor"],
  ["spraak", "si1027.trk"],
];

function models(): [string, string][] {
  const out: [string, string][] = EXAMPLES.filter((e) => e.format !== "april").map((e) => [e.name, e.path]);
  if (haveFixtures())
    for (const [folder, name] of FIXTURES) out.push([`${folder}/${name}`, fixturePath(folder!, name!)]);
  return out;
}

describe("tensorfile patch: the round trip gives the same bytes", () => {
  it.each(models())("%s via .safetensors", async (_label, model) => {
    const weights = fresh("w.safetensors");
    expect((await cli("convert", model, weights)).code).toBe(0);
    const out = fresh(`out${model.slice(model.lastIndexOf("."))}`);
    const r = await cli("patch", model, weights, out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^0 tensors changed, \d+ given back unchanged\nunchanged: /);
    expect(r.stderr).not.toContain("kept");
    expect(r.stderr).toMatch(/\nwrote .* \(.*\)\n$/);
    expect(sameFile(out, model)).toBe(true);
    const d = await cli("diff", model, out);
    expect(d.code, d.stdout).toBe(0);
  });

  it.each(models())("%s via an extract folder", async (_label, model) => {
    const folder = fresh("extracted");
    expect((await cli("extract", model, folder)).code).toBe(0);
    const out = fresh(`out${model.slice(model.lastIndexOf("."))}`);
    const r = await cli("patch", model, folder, out);
    expect(r.code, r.stderr).toBe(0);
    expect(sameFile(out, model)).toBe(true);
  });

  it("one tensor from a .npy (named with --tensor) and several from an .npz", async () => {
    const model = EXAMPLES.find((e) => e.format === "tsm")!.path;
    const npy = fresh("bias.npy");
    expect((await cli("convert", model, npy, "--tensor", "bias")).code).toBe(0);
    const out = fresh("out.tsm");
    const r = await cli("patch", model, npy, out, "--tensor", "bias");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("0 tensors changed, 1 given back unchanged, 1 not in WEIGHTS kept as it was\n");
    expect(r.stderr).toContain("unchanged: bias\n");
    expect(r.stderr).toContain("kept:      weight\n");
    expect(sameFile(out, model)).toBe(true);
    const missingName = await cli("patch", model, npy, fresh("x.tsm"));
    expect(missingName.code).toBe(2);
    expect(missingName.stderr).toMatch(/--tensor NAME/);

    const tensors = readAny(readFileSync(model)).tensors();
    const npz = fresh("w.npz");
    writeFileSync(npz, zipSync(Object.fromEntries(tensors.map((t) => [`${t.name}.npy`, writeNpy(t)])), { level: 6 }));
    const out2 = fresh("out2.tsm");
    expect((await cli("patch", model, npz, out2)).code).toBe(0);
    expect(sameFile(out2, model)).toBe(true);
  });

  it("april: networks from an extract folder, and a new encoder.onnx", async () => {
    const model = EXAMPLES.find((e) => e.format === "april")!.path;
    const folder = fresh("april-dir");
    expect((await cli("extract", model, folder)).code).toBe(0);
    const out = fresh("out.april");
    const r = await cli("patch", model, folder, out);
    expect(r.code, r.stderr).toBe(0);
    // the folder holds each weight as .npy beside the unchanged .onnx networks: the weights are put back
    expect(r.stderr).toContain("0 tensors changed, 12 given back unchanged\nunchanged: encoder/weight, encoder/bias");
    expect(sameFile(out, model)).toBe(true);
    // a changed network beside its own .npy weights is refused
    writeFileSync(join(folder, "decoder.onnx"), "a changed decoder");
    const refused = await cli("patch", model, folder, fresh("refused.april"));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/changed decoder network and its weight "decoder\/weight"/);
    const onnx = fresh("onnx");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(onnx);
    writeFileSync(join(onnx, "encoder.onnx"), "a new encoder");
    const out2 = fresh("out2.april");
    const r2 = await cli("patch", model, onnx, out2);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stderr).toContain(
      "1 network changed, 0 given back unchanged, 2 not in WEIGHTS kept as they were\nchanged:   encoder\nkept:      decoder, joiner\n",
    );
    const extracted = fresh("again");
    expect((await cli("extract", out2, extracted)).code).toBe(0);
    expect(readFileSync(join(extracted, "encoder.onnx"), "utf8")).toBe("a new encoder");
    expect(readFileSync(join(extracted, "joiner.onnx")).equals(readFileSync(join(folder, "joiner.onnx")))).toBe(true);
  });

  it(".csta patched as .csta, or unwrapped into a .tsm", async () => {
    if (!haveFixtures()) return;
    const model = fixturePath("tennis", "seetaface6_face_landmarker_pts5.csta");
    const weights = fresh("w.safetensors");
    expect((await cli("convert", model, weights)).code).toBe(0);
    const asTsm = fresh("out.tsm");
    expect((await cli("patch", model, weights, asTsm)).code).toBe(0);
    const module = tsm.write({ ...tsm.read(readFileSync(model)), container: undefined });
    expect(readFileSync(asTsm).equals(Buffer.from(module))).toBe(true);
  });
});

describe("a fine-tune: one value edited, patched, found by diff", () => {
  it.each(EXAMPLES.filter((e) => e.format !== "april").map((e) => [e.name, e] as const))(
    "%s",
    async (_label, example) => {
      const tensors = readAny(example.bytes).tensors();
      const target = tensors.find((t) => t.dtype === "float32")!;
      const data = (target.data as Float32Array).slice();
      data[1] = data[1]! + 0.25;
      const edited: NamedTensor[] = tensors.map((t) => (t === target ? { ...t, dtype: "float32", data } : t));
      const weights = fresh("edited.safetensors");
      writeFileSync(weights, writeSafetensors(edited));
      const out = fresh(`out${example.path.slice(example.path.lastIndexOf("."))}`);
      expect((await cli("patch", example.path, weights, out)).code).toBe(0);
      const d = await cli("diff", example.path, out);
      expect(d.code).toBe(1);
      const elements = target.shape.reduce((a, b) => a * b, 1);
      expect(d.stdout).toMatch(
        new RegExp(
          `${target.name.replace(/\./g, "\\.")}\\s+different\\s+float32\\s+\\[[^\\]]*\\]\\s+1/${elements}\\s+0\\.25`,
        ),
      );
      expect(d.stdout).toMatch(/: different$/m);
      const json = await cli("diff", example.path, out, "--json");
      expect(json.code).toBe(1);
      const parsed = JSON.parse(json.stdout);
      expect(parsed).toMatchObject({ equal: false, onlyA: [], onlyB: [], atol: 0, rtol: 0 });
      const row = parsed.tensors.find((t: { name: string }) => t.name === target.name);
      expect(row).toMatchObject({ status: "different", differing: 1, elements });
      expect(row.maxAbs).toBe(Math.abs(Math.fround(data[1]!) - (target.data as Float32Array)[1]!)); // float32 rounding of +0.25
      expect((await cli("diff", example.path, out, "--atol", "0.3")).code).toBe(0);
      // the edited safetensors against the patched model: equal (the values went in as given)
      expect((await cli("diff", weights, out)).code).toBe(0);
    },
  );
});

describe("refusals: nothing is written", () => {
  const model = EXAMPLES.find((e) => e.format === "bw2l")!.path;
  const tensors = readAny(readFileSync(model)).tensors();

  it("an unknown name: exit 1 (or skipped and listed with --partial)", async () => {
    const weights = fresh("extra.safetensors");
    writeFileSync(
      weights,
      writeSafetensors([...tensors, { name: "layers.9.0", dtype: "float32", shape: [1], data: new Float32Array(1) }]),
    );
    const out = fresh("out.b2l");
    const r = await cli("patch", model, weights, out);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^tensorfile: MODEL .*demo\.b2l \(bw2l\) has no tensor named "layers\.9\.0".*; --partial skips the names MODEL does not hold\n$/,
    );
    expect(existsSync(out)).toBe(false);
    const partial = await cli("patch", model, weights, out, "--partial");
    expect(partial.code, partial.stderr).toBe(0);
    expect(partial.stderr).toContain("skipped   1 name the bw2l MODEL does not hold (--partial): layers.9.0");
    expect(sameFile(out, model)).toBe(true);
  });

  it("another shape or a dtype the model cannot store: exit 1", async () => {
    const first = tensors[0]!;
    const wrongShape = fresh("shape.safetensors");
    writeFileSync(
      wrongShape,
      writeSafetensors([
        { name: first.name, dtype: "float32", shape: [first.data.length], data: first.data as Float32Array },
      ]),
    );
    const out = fresh("out.b2l");
    const r = await cli("patch", model, wrongShape, out);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/has shape \[3, 1, 40, 16\] in the file; the replacement has shape \[1920\]/);
    expect(existsSync(out)).toBe(false);
    const wrongType = fresh("type.safetensors");
    writeFileSync(
      wrongType,
      writeSafetensors([
        { name: first.name, dtype: "int32", shape: first.shape, data: new Int32Array(first.data.length) },
      ]),
    );
    const t = await cli("patch", model, wrongType, out);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/stored as float32; a int32 tensor cannot replace it/);
    expect(existsSync(out)).toBe(false);
  });

  it("usage: OUT's extension, an existing OUT, OUT = MODEL, arguments: exit 2", async () => {
    const weights = fresh("w.safetensors");
    writeFileSync(weights, writeSafetensors(tensors));
    expect((await cli("patch", model, weights, fresh("out.tsm"))).code).toBe(2);
    const existing = fresh("exists.b2l");
    writeFileSync(existing, "x");
    const e = await cli("patch", model, weights, existing);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/--force/);
    expect(readFileSync(existing, "utf8")).toBe("x");
    expect((await cli("patch", model, weights, existing, "--force")).code).toBe(0);
    expect((await cli("patch", model, weights, model, "--force")).code).toBe(2);
    expect((await cli("patch", model, weights)).code).toBe(2);
    expect((await cli("patch", model, weights, fresh("o.b2l"), "--bogus")).code).toBe(2);
    expect((await cli("diff", model)).code).toBe(2);
    expect((await cli("diff", model, model, "--atol", "-1")).code).toBe(2);
    expect((await cli("diff", model, model, "--rtol", "abc")).code).toBe(2);
    expect((await cli("diff", model, fresh("missing.b2l"))).code).toBe(1);
    expect((await cli("patch", "--help")).stdout).toMatch(/^tensorfile patch MODEL WEIGHTS OUT/);
    expect((await cli("diff", "--help")).stdout).toMatch(/^tensorfile diff A B/);
  });

  it("diff between unrelated files lists the names only on each side", async () => {
    const other = EXAMPLES.find((e) => e.format === "tsm")!.path;
    const r = await cli("diff", model, other);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("only in A (4): layers.0.0, layers.0.1, layers.2.0, layers.2.1");
    expect(r.stdout).toContain("only in B (2): weight, bias");
  });
});

describe("the built bin", () => {
  const CLI = BUILT_CLI;
  it("exit codes of a real process (needs npm run build)", () => {
    if (!existsSync(CLI)) return;
    const model = EXAMPLES.find((e) => e.format === "primitiv")!.path;
    const weights = fresh("w.safetensors");
    expect(spawnSync(process.execPath, [CLI, "convert", model, weights]).status).toBe(0);
    const out = fresh("out.model");
    const patched = spawnSync(process.execPath, [CLI, "patch", model, weights, out], { encoding: "utf8" });
    expect(patched.status, patched.stderr).toBe(0);
    expect(spawnSync(process.execPath, [CLI, "diff", model, out]).status).toBe(0);
    expect(spawnSync(process.execPath, [CLI, "diff", model, EXAMPLES[0]!.path]).status).toBe(1);
    expect(spawnSync(process.execPath, [CLI, "diff", model]).status).toBe(2);
  });
});
