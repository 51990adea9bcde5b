/**
 * Clear words (issue 23): every message of the CLI is in its own terms — usage errors exit 2 without API advice,
 * file-system errors in words naming OUT or the input (never the hidden temporary, never a raw EISDIR), an empty
 * file said to be empty, first bytes shown whole, option problems without Node's parseArgs text; a patch that
 * replaces nothing fails; stats takes several files.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { exampleFiles } from "../bindings/examples.js";
import { BUILT_CLI, cli } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-words-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const examples = Object.fromEntries(exampleFiles().map((e) => [e.format, e]));
const file = (name: string, bytes: Uint8Array | string) => {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
};
const v2 = file("v2.b2l", examples.bw2l!.bytes);
const trk = file("demo.trk", examples.spraak!.bytes);
const RAW = /internal error|EISDIR|ENOENT:|EACCES:|\.partial|Option '|argument is ambiguous|Did you forget/;

describe("usage errors in CLI terms", () => {
  it("convert v2.b2l q.b2l --quantize i8: exit 2, says to use fp16, no API advice", async () => {
    expect(lib.bw2l.read(examples.bw2l!.bytes).version).toBe(2);
    const r = await cli("convert", v2, join(dir, "q.b2l"), "--quantize", "i8");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--quantize i8 needs a version 1 bw2l input.*use --quantize fp16/);
    expect(r.stderr).not.toMatch(/set version|internal error/);
    expect(existsSync(join(dir, "q.b2l"))).toBe(false);
    // fp16 on the same file works
    expect((await cli("convert", v2, join(dir, "q16.b2l"), "--quantize", "fp16")).code).toBe(0);
  });

  it.each([
    [["diff", v2, v2, "--atol", "-1"], /--atol needs a value, and "-1" after it looks like an option: write --atol=-1/],
    [["inspect", "--json=3", v2], /--json takes no value/],
    [["stats", v2, "--tensor"], /--tensor needs a value/],
    [["convert", "-j"], /--jobs needs a value/],
    [["inspect", "--nope", v2], /inspect does not take --nope/],
  ])("%j: exit 2 in our words", async (args, words) => {
    const r = await cli(...(args as string[]));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(words as RegExp);
    expect(r.stderr).not.toMatch(RAW);
  });
});

describe("file problems in words", () => {
  it("an empty file is said to be empty; first bytes keep their high bit (\\x89PNG)", async () => {
    const empty = await cli("inspect", file("empty.b2l", new Uint8Array(0)));
    expect(empty.code).toBe(1);
    expect(empty.stderr).toMatch(/empty file \(0 bytes/);
    expect(empty.stderr).not.toMatch(/first bytes \[\]/);
    const png = await cli(
      "inspect",
      file("image.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])),
    );
    expect(png.code).toBe(1);
    expect(png.stderr).toMatch(/the first bytes \[89 50 4e 47 0d 0a 1a 0a 00 00 00 0d\]/);
    // the readers' bad-magic messages show it too (a raw U+0089 would vanish on a terminal)
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    expect(() => lib.bw2l.read(bytes)).toThrow('bw2l: bad magic: expected "BW2L", got "\\x89PNG"');
    expect(() => lib.april.read(bytes)).toThrow('got "\\x89PNG\\r\\n\\x1a\\n"');
    expect(() => lib.spraak.read(bytes)).toThrow('got "\\x89PNG\\r"');
  });

  it("a folder as FILE, or as OUT: no raw EISDIR", async () => {
    const folder = join(dir, "a-folder");
    mkdirSync(folder, { recursive: true });
    for (const command of ["inspect", "verify", "stats"]) {
      const r = await cli(command, folder);
      expect(r.code, command).toBe(1);
      expect(r.stderr).toMatch(/a-folder is a folder, not a file/);
      expect(r.stderr).not.toMatch(RAW);
    }
    const out = await cli("convert", v2, folder, "--force");
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/a-folder is a folder: OUT must be a file name/);
    const missing = await cli("inspect", join(dir, "missing.b2l"));
    expect(missing.stderr).toMatch(/cannot open .*missing\.b2l: no such file/);
  });

  it("OUT under a file (not a folder): names OUT's folder, not the temporary", async () => {
    const notFolder = file("plain.txt", "x");
    const r = await cli("convert", v2, join(notFolder, "out.safetensors"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/plain\.txt \(or a folder above it\) is a file, not a folder/);
    expect(r.stderr).not.toMatch(RAW);
  });

  it.skipIf(!existsSync(BUILT_CLI) || process.platform === "win32")(
    "a folder without write permission: the message names OUT and the folder, never the .partial",
    (ctx) => {
      // root ignores permissions: run the CLI as "nobody" then, if nobody can reach the built CLI (a clone inside a
      // private folder, such as mktemp's 0700 ones, cannot be)
      const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
      const reach = spawnSync(
        process.execPath,
        ["-e", "require('fs').accessSync(process.argv[1])", BUILT_CLI],
        asNobody,
      );
      if (reach.status !== 0) ctx.skip(`${BUILT_CLI} is out of reach of the user "nobody" (a private parent folder)`);
      const locked = join(dir, "locked");
      mkdirSync(locked, { recursive: true });
      chmodSync(locked, 0o555);
      chmodSync(dir, 0o755);
      for (const f of [v2]) chmodSync(f, 0o644);
      try {
        const r = spawnSync(process.execPath, [BUILT_CLI, "convert", v2, join(locked, "out.safetensors")], {
          encoding: "utf8",
          ...asNobody,
        });
        if (r.error) throw r.error;
        expect(r.status, r.stderr).toBe(1);
        expect(r.stderr).toMatch(
          new RegExp(
            `cannot write ${join(locked, "out.safetensors")}: permission denied \\(EACCES\\) in the folder ${locked}`,
          ),
        );
        expect(r.stderr).not.toMatch(RAW);
        expect(readdirSync(locked)).toEqual([]);
      } finally {
        chmodSync(locked, 0o755);
      }
    },
  );
});

describe("patch that replaces nothing", () => {
  it("--partial with no name of MODEL: exit 1, a message, OUT not written", async () => {
    const weights = file(
      "unrelated.safetensors",
      lib.writeSafetensors([{ name: "not.in.model", dtype: "float32", shape: [2], data: new Float32Array([1, 2]) }]),
    );
    const out = join(dir, "patched.b2l");
    const r = await cli("patch", v2, weights, out, "--partial");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nothing would be replaced.*not\.in\.model.*OUT not written/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((n) => n.includes(".partial"))).toEqual([]);
  });
});

describe("stats FILE…", () => {
  it("one section per file, a summary, exit 1 when one fails; --json an array with the file names", async () => {
    const bad = file("bad.b2l", examples.bw2l!.bytes.subarray(0, 30));
    const r = await cli("stats", v2, bad, trk);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`file     ${v2}[\\s\\S]*\\n\\nfile     ${trk}`));
    expect(r.stdout).toMatch(/2 of 3 files read, 1 failed/);
    expect(r.stderr).toMatch(/bad\.b2l: /);
    const ok = await cli("stats", v2, trk, "--json");
    expect(ok.code).toBe(0);
    const parsed = JSON.parse(ok.stdout) as { file: string; format: string; tensors: { name: string }[] }[];
    expect(parsed.map((p) => [p.file, p.format])).toEqual([
      [v2, "bw2l"],
      [trk, "spraak"],
    ]);
    // each section equals the single-file command's
    const single = JSON.parse((await cli("stats", trk, "--json")).stdout) as object;
    expect({ ...parsed[1]!, file: undefined }).toEqual({ ...single, file: undefined });
  });
});
