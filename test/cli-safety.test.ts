/**
 * Nothing lost (issue 23): extract never replaces a folder that holds its input (any spelling of DIR) nor the
 * current folder; signals at any moment of convert/extract/patch leave no hidden temporary; without --force an OUT
 * that appears while writing is never replaced (two concurrent converts to one OUT: exactly one wins); a closed
 * stdout does not hide a failure's exit status. Child processes run the built CLI (dist/cli.js).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import * as lib from "../bindings/index.js";
import { OutputError, writeAtomically } from "../bindings/cli/output.js";
import { exampleFiles } from "../bindings/examples.js";
import { BUILT_CLI, cli } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-safety-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const HAVE_CLI = existsSync(BUILT_CLI);
const b2l = exampleFiles().find((e) => e.format === "bw2l")!;

let serial = 0;
function fresh(name: string): string {
  const path = join(dir, `${name}-${serial++}`);
  mkdirSync(path, { recursive: true });
  return path;
}

/** Hidden temporaries (files or folders) anywhere under `folder`. */
function leftovers(folder: string): string[] {
  return readdirSync(folder, { recursive: true })
    .map(String)
    .filter((n) => /\.tensorfile-.*\.partial/.test(n));
}

function run(args: string[], options: { cwd?: string } = {}) {
  const r = spawnSync(process.execPath, [BUILT_CLI, ...args], { cwd: options.cwd, encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("extract --force never replaces a folder that holds the input", () => {
  function setup() {
    const d = fresh("holder");
    mkdirSync(join(d, "sub"));
    writeFileSync(join(d, "sub", "model.b2l"), b2l.bytes);
    writeFileSync(join(d, "notes.txt"), "keep me");
    return d;
  }
  const intact = (d: string) => {
    expect(readFileSync(join(d, "sub", "model.b2l")).equals(Buffer.from(b2l.bytes))).toBe(true);
    expect(readFileSync(join(d, "notes.txt"), "utf8")).toBe("keep me");
    expect(leftovers(join(d, ".."))).toEqual([]);
  };

  it.each(["plain", "d/../d", "trailing slash", "symlink", "the input's own folder"])(
    "DIR spelled %s: usage error, exit 2, nothing touched",
    async (spelling) => {
      const d = setup();
      const input = join(d, "sub", "model.b2l");
      let out = d;
      if (spelling === "d/../d") out = join(d, "..", relative(join(d, ".."), d), "sub", "..");
      if (spelling === "trailing slash") out = `${d}/`;
      if (spelling === "symlink") {
        out = join(dir, `link-${serial++}`);
        symlinkSync(d, out);
      }
      if (spelling === "the input's own folder") out = join(d, "sub");
      const r = await cli("extract", input, out, "--force");
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/holds the input .*refusing to replace/);
      expect(r.stderr).not.toMatch(/internal error|EBUSY|ENOENT/);
      intact(d);
      // the input reached through a symlink to its folder is still recognized
      const viaLink = join(dir, `inlink-${serial++}`);
      symlinkSync(join(d, "sub"), viaLink);
      expect((await cli("extract", join(viaLink, "model.b2l"), d, "--force")).code).toBe(2);
      intact(d);
    },
  );

  it.skipIf(!HAVE_CLI)('"." as DIR: the input inside it is refused; the current folder is never replaced', () => {
    const d = setup();
    const inside = run(["extract", "sub/model.b2l", ".", "--force"], { cwd: d });
    expect(inside.code, inside.stderr).toBe(2);
    expect(inside.stderr).toMatch(/holds the input/);
    intact(d);
    // input elsewhere: "." is still the folder the user stands in (was a raw EBUSY)
    const standing = fresh("standing");
    writeFileSync(join(standing, "mine.txt"), "mine");
    const elsewhere = run(["extract", join(d, "sub", "model.b2l"), ".", "--force"], { cwd: standing });
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
    expect(elsewhere.stderr).toMatch(/current folder/);
    expect(elsewhere.stderr).not.toMatch(/EBUSY|internal error/);
    intact(d);
    expect(readdirSync(standing)).toEqual(["mine.txt"]);
  });

  it("a folder that does not hold the input is still replaced with --force, and nothing is left beside it", async () => {
    const d = setup();
    const out = fresh("out");
    writeFileSync(join(out, "old.txt"), "old");
    const r = await cli("extract", join(d, "sub", "model.b2l"), out, "--force");
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(out, "old.txt"))).toBe(false);
    expect(existsSync(join(out, "meta.json"))).toBe(true);
    expect(leftovers(dir)).toEqual([]);
  });
});

describe("without --force, an OUT that appears while writing is never replaced", () => {
  it("a file: OutputError naming OUT, its contents kept, the temporary removed; with force it is replaced", async () => {
    const folder = fresh("appear");
    const out = join(folder, "out.npy");
    const attempt = writeAtomically(
      out,
      async (temp) => {
        writeFileSync(temp, "ours");
        writeFileSync(out, "theirs"); // someone else's file appears meanwhile
      },
      { force: false },
    );
    await expect(attempt).rejects.toThrow(OutputError);
    await expect(attempt).rejects.toThrow(/out\.npy appeared while it was being written/);
    expect(readFileSync(out, "utf8")).toBe("theirs");
    expect(leftovers(folder)).toEqual([]);
    await writeAtomically(out, async (temp) => writeFileSync(temp, "forced"), { force: true });
    expect(readFileSync(out, "utf8")).toBe("forced");
    expect(readdirSync(folder)).toEqual(["out.npy"]);
  });

  it("a folder: a non-empty DIR that appears is left as it is", async () => {
    const folder = fresh("appear-dir");
    const out = join(folder, "x");
    const attempt = writeAtomically(
      out,
      async (temp) => {
        writeFileSync(join(temp, "a"), "ours");
        mkdirSync(out);
        writeFileSync(join(out, "b"), "theirs");
      },
      { folder: true, force: false },
    );
    await expect(attempt).rejects.toThrow(/appeared or was filled while extracting/);
    expect(readdirSync(out)).toEqual(["b"]);
    expect(leftovers(folder)).toEqual([]);
  });

  it.skipIf(!HAVE_CLI)("two concurrent converts to one OUT: exactly one writes it", async () => {
    const folder = fresh("concurrent");
    const input = join(folder, "in.b2l");
    writeFileSync(input, b2l.bytes);
    for (let round = 0; round < 4; round++) {
      const out = join(folder, `out${round}.safetensors`);
      const results = await Promise.all(
        [0, 1].map(
          () =>
            new Promise<{ code: number | null; stderr: string }>((done) => {
              const child = spawn(process.execPath, [BUILT_CLI, "convert", input, out], {
                stdio: ["ignore", "ignore", "pipe"],
              });
              let stderr = "";
              child.stderr!.on("data", (d) => (stderr += d));
              // "close", not "exit": stderr is drained only when the stdio streams have closed
              child.on("close", (code) => done({ code, stderr }));
            }),
        ),
      );
      const winners = results.filter((r) => r.code === 0);
      expect(winners, JSON.stringify(results)).toHaveLength(1);
      expect(winners[0]!.stderr).toMatch(/^wrote /);
      const loser = results.find((r) => r.code !== 0)!;
      expect(loser.stderr).toMatch(/exists \(use --force|appeared while it was being written/);
      expect(loser.stderr).not.toMatch(/partial|internal error/);
      expect(lib.readAny(readFileSync(out)).format).toBe("safetensors");
      expect(leftovers(folder)).toEqual([]);
    }
  });
});

/** A bw2l model of `megabytes` MiB of float32 params (big enough that a convert takes a while). */
function bigModel(megabytes: number): Uint8Array {
  const data = new Float32Array(1024 * 256).map((_, j) => (j % 97) / 13);
  const layers = Array.from({ length: megabytes }, () => ({
    arch: "L 1024 256",
    params: [{ dims: [1024, 256, 1, 1], data }],
  }));
  return lib.bw2l.write(lib.bw2l.create({ version: 2, layers }));
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done(child.exitCode);
    else child.on("exit", (code) => done(code));
  });
}

describe.skipIf(!HAVE_CLI)("a signal at any moment leaves no hidden temporary", () => {
  it("convert, extract, patch and convert --out-dir, SIGINT and SIGTERM at moments spread over a whole run", async () => {
    const folder = fresh("signals");
    const input = join(folder, "big.b2l");
    writeFileSync(input, bigModel(32));
    const weights = join(folder, "weights.safetensors");
    expect(run(["convert", input, weights]).code).toBe(0);
    const commands: [string, string[]][] = [
      ["convert", ["convert", input, join(folder, "out", "big.safetensors")]],
      ["extract", ["extract", input, join(folder, "out", "x")]],
      ["patch", ["patch", input, weights, join(folder, "out", "patched.b2l")]],
      [
        "convert --out-dir",
        ["convert", "--out-dir", join(folder, "out", "many"), "--to", "safetensors", input, weights],
      ],
    ];
    const outFolder = join(folder, "out");
    for (const [name, args] of commands) {
      // the length of a whole run, then signals at 24 moments from the start to past its end (killed before the
      // handlers are installed: no exit code, the signal's name)
      const started = Date.now();
      expect(run(args).code, name).toBe(0);
      const whole = Date.now() - started;
      rmSync(outFolder, { recursive: true, force: true });
      for (let i = 0; i < 24; i++) {
        const signal = i % 2 === 0 ? "SIGINT" : "SIGTERM";
        const child = spawn(process.execPath, [BUILT_CLI, ...args], { stdio: "ignore" });
        await new Promise((r) => setTimeout(r, Math.round((whole * (i + 1)) / 22)));
        child.kill(signal);
        const code = await exited(child);
        const moment = `${name} ${signal} at ${i + 1}/22 of ${whole} ms`;
        if (code === null) expect(child.signalCode, moment).toBe(signal);
        else expect([0, 130, 143], moment).toContain(code);
        expect(existsSync(outFolder) ? leftovers(outFolder) : [], moment).toEqual([]);
        rmSync(outFolder, { recursive: true, force: true });
      }
    }
    // 4 x 25 runs whose length grows with the machine's load: 273 s of the former 300 s limit under two busy loops
  }, 900_000);
});

describe.skipIf(!HAVE_CLI)("a closed stdout does not hide a failure", () => {
  /** Runs the CLI with its stdout closed by the reader before it writes; its exit status and stderr. */
  function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout!.destroy();
    let stderr = "";
    child.stderr!.on("data", (d) => (stderr += d));
    return exited(child).then((code) => ({ code, stderr }));
  }
  const folder = fresh("pipes");
  const good = join(folder, "good.b2l");
  const other = join(folder, "other.b2l");
  const bad = join(folder, "bad.b2l");
  writeFileSync(good, b2l.bytes);
  writeFileSync(bad, b2l.bytes.subarray(0, 50));
  const model = lib.bw2l.read(b2l.bytes);
  writeFileSync(other, lib.bw2l.write(model, { quantize: "fp16" }));

  it("verify BAD GOOD exits 1, verify GOOD exits 0", async () => {
    expect((await withClosedStdout(["verify", bad, good, good, good])).code).toBe(1);
    expect((await withClosedStdout(["verify", good, good])).code).toBe(0);
  });

  it("diff A B of different files keeps its status; inspect of a bad file too", async () => {
    const direct = run(["diff", good, other]);
    expect(direct.code).not.toBe(0);
    const piped = await withClosedStdout(["diff", good, other]);
    expect(piped.code).toBe(direct.code);
    expect(piped.stderr).not.toMatch(/EPIPE|internal error/);
    expect((await withClosedStdout(["inspect", good, bad, good])).code).toBe(1);
  });

  it("data streamed to a closed stdout stops with the SIGPIPE status 141, quietly", async () => {
    const track = join(folder, "one.trk");
    writeFileSync(track, lib.spraak.write(lib.spraak.matrix(new Float32Array(1 << 16), { cols: 64 })));
    const r = await withClosedStdout(["convert", track, "-", "--to", "npy"]);
    expect(r.code).toBe(141);
    expect(r.stderr).toBe("");
  });

  it("through a shell with pipefail: verify BAD GOOD | head -1 fails", () => {
    const r = spawnSync(
      "bash",
      [
        "-c",
        `set -o pipefail; "${process.execPath}" "${BUILT_CLI}" verify "${bad}" "${good}" "${good}" | head -1 >/dev/null`,
      ],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(1);
  });
});
