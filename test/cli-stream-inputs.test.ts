/**
 * FILE as a stream (standard input, a pipe, a FIFO, a character device): the format is checked from the first
 * bytes before more is read (an endless stream that is no model fails at once with "unknown format"), and a whole
 * read stops at a cap (LIMIT, --max-stdin-bytes N or TENSORFILE_MAX_STDIN_BYTES). Runs the built CLI (dist/cli.js)
 * in child processes; each has a generous kill timer, a guard against a hang (it never decides a test by time).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exampleFiles } from "../bindings/examples.js";
import { parseByteCount } from "../bindings/cli/stream-input.js";
import { loadFile, openFile } from "../bindings/load-file.js";
import { SourceError, fromFile } from "../bindings/io/source.js";
import { BUILT_CLI } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-streams-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const onnxExample = exampleFiles().find((e) => e.format === "onnx")!;
const modelPath = join(dir, "model.onnx");
writeFileSync(modelPath, onnxExample.bytes);
const HANG_GUARD_MS = 120_000;
const unix = process.platform !== "win32" && existsSync("/dev/zero");

function run(args: string[], options: { input?: Uint8Array; env?: Record<string, string> } = {}) {
  const r = spawnSync(process.execPath, [BUILT_CLI, ...args], {
    input: options.input,
    env: { ...process.env, ...options.env },
    timeout: HANG_GUARD_MS,
    killSignal: "SIGKILL",
    maxBuffer: 1 << 26,
  });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

function shell(script: string) {
  const r = spawnSync("sh", ["-c", script], {
    timeout: HANG_GUARD_MS,
    killSignal: "SIGKILL",
    maxBuffer: 1 << 26,
    env: { ...process.env, CLI: BUILT_CLI, NODE: process.execPath },
  });
  return { code: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe.runIf(unix)("devices and FIFOs as FILE: the head decides, the rest is never assumed from stat", () => {
  it("inspect /dev/zero and /dev/urandom fail at once with unknown format (they used to be read until memory ran out)", () => {
    for (const device of ["/dev/zero", "/dev/urandom"]) {
      const r = run(["inspect", device]);
      expect(r.code, `${device}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/^tensorfile: unknown format: the first bytes \[/);
      expect(r.stderr).not.toMatch(/internal error/);
    }
  });

  it("a FIFO fed a model is read whole and inspected; one fed endless zeros fails with unknown format", () => {
    const fifo = join(dir, "model.fifo");
    const made = spawnSync("mkfifo", [fifo]);
    if (made.status !== 0) return; // no mkfifo here
    const good = shell(`cat "${modelPath}" > "${fifo}" & "$NODE" "$CLI" inspect "${fifo}" --json; wait`);
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout).format).toBe("onnx");
    // convert opens FILE more than once (its format, then its tensors or a re-encode): a FIFO is read once
    for (const out of ["copy.onnx", "copy.safetensors"]) {
      const converted = shell(
        `cat "${modelPath}" > "${fifo}" & "$NODE" "$CLI" convert "${fifo}" "${join(dir, out)}" --force; status=$?; wait; exit $status`,
      );
      expect(converted.code, `${out}: ${converted.stderr}`).toBe(0);
    }
    expect(Buffer.from(readFileSync(join(dir, "copy.onnx"))).equals(Buffer.from(onnxExample.bytes))).toBe(true);
    // the writer is killed by SIGPIPE once the reader has gone
    const endless = shell(
      `cat /dev/zero > "${fifo}" & "$NODE" "$CLI" inspect "${fifo}"; status=$?; wait; exit $status`,
    );
    expect(endless.code, endless.stderr).toBe(1);
    expect(endless.stderr).toMatch(/unknown format/);
  });

  it("an endless stream behind a model's first bytes stops at the cap with LIMIT", () => {
    const r = shell(`(cat "${modelPath}"; cat /dev/zero) | "$NODE" "$CLI" inspect - --max-stdin-bytes 1M`);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /^tensorfile: standard input is longer than 1048576 bytes, the most read whole .*--max-stdin-bytes/,
    );
  });
});

describe.runIf(unix)(
  "the library's file openers refuse FIFOs and devices instead of trusting stat's size (or waiting)",
  () => {
    it("loadFile, openFile and fromFile on /dev/zero and on a FIFO with no writer: a SourceError saying what it is", async () => {
      const fifo = join(dir, "lonely.fifo");
      const made = spawnSync("mkfifo", [fifo]);
      const paths: [string, RegExp][] = [["/dev/zero", /character device/]];
      if (made.status === 0) paths.push([fifo, /FIFO/]);
      for (const [path, what] of paths) {
        for (const open of [() => loadFile(path), () => openFile(path), () => fromFile(path)]) {
          const error = await open().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error, path).toBeInstanceOf(SourceError);
          expect((error as Error).message).toMatch(what);
          expect((error as Error).message).toMatch(/not a regular file/);
        }
      }
    });

    it("convert --out-dir reports a device input as a failed file (exit 1), not as an empty one", () => {
      const r = run(["convert", "--out-dir", join(dir, "out"), "--to", "safetensors", "/dev/zero", "-j", "1"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/character device, not a regular file/);
      expect(r.stderr).not.toMatch(/internal error|empty file/);
    });
  },
);

describe("standard input: capped whole reads", () => {
  const bytes = onnxExample.bytes;

  it("a model longer than --max-stdin-bytes is LIMIT (exit 1); at or above its length it is read", () => {
    const small = run(["inspect", "-", "--max-stdin-bytes", String(bytes.length - 1)], { input: bytes });
    expect(small.code, small.stderr).toBe(1);
    expect(small.stderr).toMatch(new RegExp(`standard input is longer than ${bytes.length - 1} bytes`));
    const exact = run(["inspect", "-", "--json", "--max-stdin-bytes", String(bytes.length)], { input: bytes });
    expect(exact.code, exact.stderr).toBe(0);
    expect(JSON.parse(exact.stdout).format).toBe("onnx");
  });

  it("TENSORFILE_MAX_STDIN_BYTES sets the cap when the option is absent; the option wins over it", () => {
    const env = { TENSORFILE_MAX_STDIN_BYTES: "16" };
    const capped = run(["inspect", "-"], { input: bytes, env });
    expect(capped.code).toBe(1);
    expect(capped.stderr).toMatch(/longer than 16 bytes.*TENSORFILE_MAX_STDIN_BYTES/);
    const raised = run(["inspect", "-", "--max-stdin-bytes", "1K"], { input: bytes, env });
    expect(raised.code, raised.stderr).toBe(0);
  });

  it("a cap that is not a byte count is a usage error (exit 2), from the option or the environment", () => {
    for (const bad of ["0", "-5", "lots", "5T", "1.5M", ""]) {
      const r = run(["inspect", "-", `--max-stdin-bytes=${bad}`], { input: bytes });
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toMatch(/--max-stdin-bytes takes a number of bytes/);
    }
    const env = run(["inspect", "-"], { input: bytes, env: { TENSORFILE_MAX_STDIN_BYTES: "many" } });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/TENSORFILE_MAX_STDIN_BYTES takes a number of bytes/);
  });

  it("view takes --max-stdin-bytes too (it serves standard input, any bytes)", async () => {
    const { cli } = await import("./helpers/cli.js");
    const r = await cli("view", "-", "--max-stdin-bytes=zero");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-stdin-bytes takes a number of bytes/);
  });

  it("an empty standard input is unknown format (empty file), not a crash", () => {
    const r = run(["inspect", "-"], { input: new Uint8Array(0) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/unknown format: empty file/);
  });
});

describe("parseByteCount", () => {
  it("reads digits with K/M/G (1024s) and refuses 0, fractions, negatives and more than 4 GiB", () => {
    expect(parseByteCount("1000")).toBe(1000);
    expect(parseByteCount("1K")).toBe(1024);
    expect(parseByteCount("512MiB")).toBe(512 * 1024 ** 2);
    expect(parseByteCount("2g")).toBe(2 * 1024 ** 3);
    expect(parseByteCount("4G")).toBe(4 * 1024 ** 3);
    for (const bad of ["0", "-1", "1.5G", "5G", "G", "12 bytes", "0x10"])
      expect(parseByteCount(bad), bad).toBeUndefined();
  });
});
