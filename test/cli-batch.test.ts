/**
 * `convert --out-dir DIR --to safetensors|npy FILE… [-j N]`: every output equals what the single-file `convert FILE
 * OUT` writes (fixtures and examples, with and without --dtype float32), on worker threads (the built CLI,
 * dist/cli.js) and in the main thread (-j 1, in process); a file that fails is reported with its name and counted,
 * exit 1, the others written; outputs are checked before anything is written (existing without --force, an
 * input, two inputs onto one output: exit 2); no temporary file is left behind.
 */
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, extname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readAny } from "../bindings/any.js";
import { cli } from "./helpers/cli.js";
import { exampleFiles } from "../bindings/examples.js";
import { fixturePath, haveFixtures, listFixtures } from "./helpers/fixtures.js";
import * as spraak from "../bindings/formats/spraak.js";
import { randomValues } from "./helpers/spraak-builders.js";

const root = resolve(import.meta.dirname, "..");
const CLI = join(root, "dist/cli.js");
const dir = mkdtempSync(join(tmpdir(), "tensorfile-batch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function built(...argv: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...argv], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// inputs with distinct base names (demo.b2l and demo.trk would both become demo.safetensors): examples, plus
// fixtures of every format; x.ext is copied as <prefix>_x_ext.ext
const inputs = join(dir, "inputs");
mkdirSync(inputs);
const unique = (prefix: string, name: string) => `${prefix}_${name.replace(/\./g, "_")}${extname(name)}`;
for (const e of exampleFiles()) writeFileSync(join(inputs, unique("example", e.name)), e.bytes);
// generated one-tensor SPRAAK tracks of several types: a fresh clone without ../shared still has more inputs than
// one worker's batch of 8 (so that 2 threads run)
for (const [i, type] of (["F32", "F64", "I16", "I32", "U8", "I8", "U16", "U32", "F32", "F64"] as const).entries()) {
  const track = spraak.matrix(randomValues(type, 6 * 5, 100 + i), {
    cols: 5,
    type,
    format: i % 2 ? "BIN10" : "BIN01",
    data: "TRACK",
  });
  writeFileSync(join(inputs, unique("generated", `track${i}_${type}.trk`)), spraak.write(track));
}
if (haveFixtures()) {
  for (const folder of ["bw2l", "tennis", "primitiv", "spraak", "april"]) {
    for (const f of listFixtures(folder).filter((f) => !/\.(json|md|txt)$/.test(f)))
      copyFileSync(fixturePath(folder, f), join(inputs, unique(folder, f)));
  }
}
const files = readdirSync(inputs)
  .sort()
  .map((f) => join(inputs, f));
const convertible = (to: "safetensors" | "npy") =>
  files.filter((p) => {
    try {
      const n = readAny(readFileSync(p)).tensors().length;
      return to === "safetensors" ? n > 0 : n === 1;
    } catch {
      return false;
    }
  });
const outputName = (input: string, ext: string) => `${basename(input, extname(input))}${ext}`;

describe.skipIf(!existsSync(CLI))("convert --out-dir", () => {
  for (const to of ["safetensors", "npy"] as const) {
    for (const dtype of [[], ["--dtype", "float32"]]) {
      it(`--to ${to} ${dtype.join(" ")}: outputs equal single-file converts, on 2 worker threads and in the main thread`, async () => {
        const ok = convertible(to);
        expect(ok.length).toBeGreaterThan(3);
        const threads = join(dir, `threads-${to}-${dtype.length}`);
        const r = built("convert", "--out-dir", threads, "--to", to, "-j", "2", ...dtype, ...ok);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toMatch(new RegExp(`converted ${ok.length} of ${ok.length} files into .* 2 threads`));
        const main = join(dir, `main-${to}-${dtype.length}`);
        const m = await cli("convert", "--out-dir", main, "--to", to, "-j", "1", ...dtype, ...ok);
        expect(m.code, m.stderr).toBe(0);
        for (const input of ok) {
          const single = join(dir, `single-${Math.random().toString(36).slice(2)}.${to}`);
          const s = await cli("convert", input, single, ...dtype);
          expect(s.code, s.stderr).toBe(0);
          const want = readFileSync(single);
          expect(readFileSync(join(threads, outputName(input, `.${to}`))).equals(want), `${input} (threads)`).toBe(
            true,
          );
          expect(readFileSync(join(main, outputName(input, `.${to}`))).equals(want), `${input} (main thread)`).toBe(
            true,
          );
        }
        expect(readdirSync(threads).filter((f) => f.startsWith("."))).toEqual([]); // no temporary files left
      });
    }
  }

  it("a file that fails is reported and counted, exit 1, the others are written", () => {
    const bad = join(dir, "broken.trk");
    writeFileSync(bad, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]));
    const truncated = join(dir, "cut.b2l");
    const good = convertible("safetensors");
    writeFileSync(truncated, readFileSync(good.find((p) => p.endsWith(".b2l"))!).subarray(0, 100));
    const out = join(dir, "with-failures");
    for (const jobs of ["1", "2"]) {
      const r = built(
        "convert",
        "--out-dir",
        out,
        "--to",
        "safetensors",
        "-j",
        jobs,
        "--force",
        bad,
        ...good,
        truncated,
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`tensorfile: ${bad}: `);
      expect(r.stderr).toContain(`tensorfile: ${truncated}: `);
      expect(r.stderr).toMatch(new RegExp(`converted ${good.length} of ${good.length + 2} files .*; 2 failed`));
      for (const input of good) expect(existsSync(join(out, outputName(input, ".safetensors"))), input).toBe(true);
      expect(existsSync(join(out, "broken.safetensors"))).toBe(false);
      expect(readdirSync(out).filter((f) => f.startsWith("."))).toEqual([]);
    }
  });

  it("checks every output first: existing ones need --force, inputs are never overwritten, clashes are refused (exit 2)", async () => {
    const ok = convertible("npy").slice(0, 3);
    const out = join(dir, "checked");
    expect((await cli("convert", "--out-dir", out, "--to", "npy", "-j", "1", ...ok)).code).toBe(0);
    const again = await cli("convert", "--out-dir", out, "--to", "npy", "-j", "1", ...ok);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/3 outputs refused[\s\S]*exists \(use --force/);
    expect((await cli("convert", "--out-dir", out, "--to", "npy", "-j", "1", "--force", ...ok)).code).toBe(0);
    // an input that is one of the outputs
    const npyInput = join(out, outputName(ok[0]!, ".npy"));
    const into = await cli(
      "convert",
      "--out-dir",
      out,
      "--to",
      "npy",
      "--force",
      ok[0]!,
      npyInput.replace(/\.npy$/, ".trk"),
    );
    expect(into.code).toBe(2);
    // two inputs with one base name
    const twin = join(dir, "twin");
    mkdirSync(twin, { recursive: true });
    copyFileSync(ok[0]!, join(twin, basename(ok[0]!)));
    const clash = await cli(
      "convert",
      "--out-dir",
      join(dir, "clash"),
      "--to",
      "npy",
      ok[0]!,
      join(twin, basename(ok[0]!)),
    );
    expect(clash.code).toBe(2);
    expect(clash.stderr).toMatch(/would both be written to/);
    expect(existsSync(join(dir, "clash"))).toBe(false);
  });

  it("usage errors: --to, -j, stdin, and options that do not go together", async () => {
    const [one] = convertible("npy");
    expect((await cli("convert", "--out-dir", dir, one!)).stderr).toMatch(/needs --to safetensors or --to npy/);
    expect((await cli("convert", "--out-dir", dir, "--to", "json", one!)).code).toBe(2);
    expect((await cli("convert", "--out-dir", dir, "--to", "npy", "-j", "0", one!)).stderr).toMatch(
      /-j takes a number/,
    );
    expect((await cli("convert", "--out-dir", dir, "--to", "npy", "-")).code).toBe(2);
    expect((await cli("convert", "--out-dir", dir, "--to", "npy", "--tensor", "x", one!)).code).toBe(2);
    expect((await cli("convert", one!, join(dir, "x.npy"), "-j", "2")).stderr).toMatch(/-j goes with --out-dir/);
    expect((await cli("convert", "--out-dir", dir, "--to", "npy")).code).toBe(2);
    expect((await cli("convert", "--help")).stdout).toContain("--out-dir DIR --to safetensors|npy");
  });
});
