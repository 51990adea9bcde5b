// `npm run bench:report` regenerates the kernel table of docs/benchmarks.md from one bench run. CI checks that it
// runs and writes a well-formed table (--quick, into a temporary copy of the page), never its numbers.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const built = existsSync(resolve(root, "dist/index.js"));

describe.skipIf(!built)("bench/report.mjs --quick", () => {
  it("writes a table of every kernel against its yardstick between the markers, the rest of the page unchanged", () => {
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-bench-report-"));
    try {
      const out = join(dir, "benchmarks.md");
      execFileSync(process.execPath, ["bench/report.mjs", "--quick", "--out", out], { cwd: root, encoding: "utf8" });
      const page = readFileSync(resolve(root, "docs/benchmarks.md"), "utf8");
      const written = readFileSync(out, "utf8");
      const start = "<!-- kernels-table:start";
      const end = "<!-- kernels-table:end -->";
      expect(written.slice(0, written.indexOf(start))).toBe(page.slice(0, page.indexOf(start)));
      expect(written.slice(written.indexOf(end))).toBe(page.slice(page.indexOf(end)));
      const table = written.slice(written.indexOf(start), written.indexOf(end));
      expect(table).toMatch(/Measured .* UTC on .*, Node v\d+.*load average/);
      for (const kernel of [
        "f16ToF32",
        "bf16ToF32",
        "dequantizeI8",
        "f32ToF16",
        "quantizeI8",
        "byteSwap 2-byte",
        "byteSwap 4-byte",
        "byteSwap 8-byte",
        "stats float32",
        "transpose float32",
        "column-major float16 → row-major float32",
      ]) {
        expect(table, kernel).toContain(`| ${kernel}`);
      }
      expect(table).toContain("odd offset");
      expect(table).toContain("output allocated");
      const rows = table.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| case"));
      for (const row of rows) expect(row.split("|").length, row).toBe(9);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
