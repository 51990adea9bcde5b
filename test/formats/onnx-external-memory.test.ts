/**
 * A 3 GiB external ONNX weight is streamed like a raw_data one: convert to .npy (on standard output) and verify
 * read it in chunks from its file, and the CLI's peak memory stays within 256 MiB of what the same commands take
 * for a 24-byte weight (on main it was read whole: SIGABRT, exit 134). The data file is sparse (truncate): no disk
 * is used. Runs the built CLI (dist/cli.js) in a child process, whose peak RSS it reads from resourceUsage().
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BUILT_CLI } from "../helpers/cli.js";
import { buildModel } from "../helpers/onnx-models.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-onnx-ext-mem-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A model whose one float32 weight of `count` elements is in data.bin (sparse: zeros, no disk used). */
function model(label: string, count: number): string {
  const folder = join(dir, label);
  mkdirSync(folder);
  writeFileSync(join(folder, "data.bin"), "");
  truncateSync(join(folder, "data.bin"), count * 4);
  const path = join(folder, "model.onnx");
  writeFileSync(
    path,
    buildModel({
      graph: {
        initializers: [
          { name: "big", dataType: 1, dims: [count], external: { location: "data.bin", length: count * 4 } },
        ],
      },
    }),
  );
  return path;
}

/** Runs the built CLI with standard output to /dev/null; its exit status and peak RSS in bytes. */
function peak(args: string[]): { status: number | null; rss: number; stderr: string } {
  const script = `process.on("exit", () => process.stderr.write("\\nMAXRSS " + process.resourceUsage().maxRSS + "\\n"));
process.argv = [process.argv[0], ${JSON.stringify(BUILT_CLI)}, ...${JSON.stringify(args)}];
await import(${JSON.stringify(pathToFileURL(BUILT_CLI).href)});`;
  const devNull = openSync("/dev/null", "w");
  try {
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", devNull, "pipe"],
      maxBuffer: 1 << 24,
    });
    const stderr = r.stderr.toString();
    const kb = Number(/MAXRSS (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
    return { status: r.status, rss: kb * 1024, stderr };
  } finally {
    closeSync(devNull);
  }
}

describe.skipIf(!existsSync(BUILT_CLI) || process.platform === "win32")("a 3 GiB external weight", () => {
  it("convert to .npy and verify stay within 256 MiB above the same commands on a 24-byte weight", () => {
    const small = model("small", 6);
    const big = model("big", (3 * 2 ** 30) / 4);
    for (const command of [
      ["convert", "{}", "-", "--to", "npy"],
      ["verify", "{}"],
    ]) {
      const base = peak(command.map((a) => (a === "{}" ? small : a)));
      expect(base.status, base.stderr).toBe(0);
      const large = peak(command.map((a) => (a === "{}" ? big : a)));
      expect(large.status, large.stderr).toBe(0);
      expect(
        large.rss - base.rss,
        `${command[0]}: ${large.rss} bytes at peak, ${base.rss} for the small model`,
      ).toBeLessThan(256 * 2 ** 20);
    }
  }, 240_000);
});
