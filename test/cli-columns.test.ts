// Tables that fit the terminal (cli/columns.ts) and diff's --only-different / --quiet: long names are shortened
// in the middle on a terminal of COLUMNS width and printed whole into a pipe; the listing options narrow what is
// printed without changing the exit status.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { fitColumn, shortenMiddle, tableWidth } from "../bindings/cli/columns.js";
import { runCli } from "../bindings/cli/run.js";
import { writeSafetensors } from "../bindings/export/safetensors.js";
import type { NamedTensor } from "../bindings/tensor.js";
import { cli } from "./helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-columns-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LONG = "model.encoder.layers.11.self_attention.linear_query_key_value.weight_quantization_scale";
function tensors(changed: boolean): NamedTensor[] {
  return Array.from(
    { length: 4 },
    (_, i) =>
      ({
        name: `${LONG}.${i}`,
        dtype: "float32",
        shape: [3],
        data: new Float32Array([1, 2, changed && i === 2 ? 4 : 3]),
      }) as NamedTensor,
  );
}
const a = join(dir, "a.safetensors");
const b = join(dir, "b.safetensors");
writeFileSync(a, writeSafetensors(tensors(false)));
writeFileSync(b, writeSafetensors(tensors(true)));

/** Runs the CLI in-process with a standard output that says it is a terminal `columns` wide. */
async function onTerminal(columns: number, ...argv: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  const code = await runCli(argv, {
    stdout: { isTTY: true, columns, write: (t: string) => (stdout += t) },
    stderr: { isTTY: false, write: () => true },
  });
  return { code, stdout };
}

describe("shortenMiddle and fitColumn", () => {
  it("keeps head and tail around one ellipsis, never longer than asked, unchanged when it fits", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), fc.integer({ min: 1, max: 90 }), (text, max) => {
        const out = shortenMiddle(text, max);
        const chars = Array.from(text);
        if (chars.length <= max) return out === text;
        const got = Array.from(out);
        const at = got.indexOf("…");
        return (
          got.length === max &&
          at >= 0 &&
          text.startsWith(got.slice(0, at).join("")) &&
          text.endsWith(got.slice(at + 1).join(""))
        );
      }),
    );
  });

  it("shortens only the named column, only as much as the width needs, and never when the width is undefined", () => {
    const rows = [
      ["name", "dtype"],
      [LONG, "float32"],
    ];
    fitColumn(rows, 0, undefined);
    expect(rows[1]![0]).toBe(LONG);
    fitColumn(rows, 0, 60);
    expect(2 + Array.from(rows[1]![0]!).length + 2 + "float32".length).toBe(60);
    expect(rows[1]![1]).toBe("float32");
    expect(rows[0]![0]).toBe("name");
  });

  it("tableWidth: none for a pipe; COLUMNS, else the terminal's width, for a terminal", () => {
    expect(tableWidth({ isTTY: false, columns: 50, write: () => true }, { COLUMNS: "70" })).toBeUndefined();
    expect(tableWidth({ isTTY: true, columns: 50, write: () => true }, { COLUMNS: "70" })).toBe(70);
    expect(tableWidth({ isTTY: true, columns: 50, write: () => true }, { COLUMNS: "x" })).toBe(50);
    expect(tableWidth({ isTTY: true, write: () => true }, {})).toBe(80);
  });
});

describe("diff and stats tables on a terminal and in a pipe", () => {
  it("on an 80-column terminal every diff and stats line fits; piped, the names are whole", async () => {
    const saved = process.env.COLUMNS;
    delete process.env.COLUMNS;
    try {
      for (const argv of [
        ["diff", a, b],
        ["stats", a],
      ]) {
        const narrow = await onTerminal(80, ...argv);
        const lines = narrow.stdout.split("\n").filter((l) => l.startsWith("  "));
        expect(lines.length, argv.join(" ")).toBeGreaterThan(3);
        for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
        expect(narrow.stdout).toContain("…");
        const piped = await cli(...argv);
        expect(piped.stdout).toContain(`${LONG}.2`);
        expect(piped.stdout).not.toContain("…");
      }
    } finally {
      if (saved !== undefined) process.env.COLUMNS = saved;
    }
  });

  it("diff --only-different lists the one different tensor; --quiet prints nothing; the exit status stays", async () => {
    const all = await cli("diff", a, b);
    expect(all.code).toBe(1);
    expect(all.stdout.match(/ equal /g)?.length).toBe(3);
    const only = await cli("diff", a, b, "--only-different");
    expect(only.code).toBe(1);
    expect(only.stdout).toContain(`${LONG}.2`);
    expect(only.stdout).not.toMatch(new RegExp(`${LONG.replace(/\./g, "\\.")}\\.[013]`));
    const json = JSON.parse((await cli("diff", a, b, "--only-different", "--json")).stdout) as {
      tensors: { name: string }[];
      equal: boolean;
    };
    expect(json.tensors.map((t) => t.name)).toEqual([`${LONG}.2`]);
    expect(json.equal).toBe(false);
    const quiet = await cli("diff", a, b, "--quiet");
    expect(quiet).toEqual({ code: 1, stdout: "", stderr: "" });
    expect(await cli("diff", a, a, "--quiet")).toEqual({ code: 0, stdout: "", stderr: "" });
    expect((await cli("diff", a, b, "--quiet", "--json")).code).toBe(2);
  });
});
