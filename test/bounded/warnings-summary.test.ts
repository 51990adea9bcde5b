/**
 * verify summarizes warnings of one kind (a bw2l file of many sections of one name gave a line per section):
 * the first few of each kind, then one line with the count of the rest; --json still lists every warning.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { summarizeWarnings, warningKind } from "../../bindings/cli/warnings.js";
import { cli } from "../helpers/cli.js";
import { rawFile } from "../helpers/bw2l-builders.js";

describe("verify: warnings summarized", () => {
  it("groups by wording without numbers and quoted names, keeps order, counts the rest", () => {
    expect(warningKind('sections[12] repeats the name "a b" of sections[3]')).toBe(
      "sections[N] repeats the name S of sections[N]",
    );
    const many = Array.from({ length: 12 }, (_, i) => `x ${i}`);
    const { shown, more } = summarizeWarnings(["first", ...many, "last"], 3);
    expect(shown).toEqual(["first", "x 0", "x 1", "x 2", "last"]);
    expect(more).toEqual([{ count: 9, like: "x 0" }]);
    expect(summarizeWarnings(["a 1", "b"], 5)).toEqual({ shown: ["a 1", "b"], more: [] });
  });

  it("a bw2l file of 3,000 sections named alike: a few lines, the count, and every warning in --json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-warn-"));
    try {
      const path = join(dir, "many.b2l");
      const sections = Array.from({ length: 3000 }, () => ({
        name: "s",
        type: "data",
        desc: "",
        data: new Uint8Array(0),
      }));
      writeFileSync(path, rawFile(2, "m", sections));
      const text = await cli("verify", path);
      expect(text.code).toBe(0);
      const lines = text.stdout.trim().split("\n");
      expect(lines.length).toBeLessThan(20);
      expect(text.stdout).toMatch(/… and 2994 more like: sections\[1\] repeats the name "s"/);
      expect(text.stdout).toMatch(/ok with 2999 warnings/);
      const json = await cli("verify", path, "--json");
      expect(JSON.parse(json.stdout).warnings).toHaveLength(2999);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
