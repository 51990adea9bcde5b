/**
 * The fuzzing setup itself: the ELF patch that lets the prebuilt Jazzer.js addon load on glibc 2.36 marks
 * exactly the two version requirements weak, and every target module exports a fuzz function.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { addonPath, weakenVersionNeeds } from "../../fuzz/native/prepare.mjs";

const fuzzDir = join(dirname(fileURLToPath(import.meta.url)), "../../fuzz");
const linuxAddon = join(dirname(addonPath()), "fuzzer-linux-x64.node");

describe("fuzz setup", () => {
  it.skipIf(!existsSync(linuxAddon))(
    "marks GLIBC_2.38 and GLIBCXX_3.4.32 weak in a copy of the linux-x64 addon, and nothing else",
    () => {
      const original = new Uint8Array(readFileSync(linuxAddon));
      const copy = original.slice();
      expect(weakenVersionNeeds(copy, new Set(["GLIBC_2.38", "GLIBCXX_3.4.32"])).sort()).toEqual([
        "GLIBCXX_3.4.32",
        "GLIBC_2.38",
      ]);
      const changed = [...copy.keys()].filter((i) => copy[i] !== original[i]);
      expect(changed.length).toBe(2); // one flags byte (0 -> 2) per requirement
      for (const i of changed) expect([original[i], copy[i]]).toEqual([0, 2]);
      expect(weakenVersionNeeds(copy.slice(), new Set(["GLIBC_9.99"]))).toEqual([]);
    },
  );

  it("has a target module with a fuzz function for every format, readAny, the new input formats and fromUrl", () => {
    const targets = readdirSync(join(fuzzDir, "targets")).sort();
    expect(targets).toEqual(
      [
        "any",
        "april",
        "bw2l",
        "npy",
        "npz",
        "onnx-tensor",
        "onnx",
        "primitiv",
        "safetensors",
        "spraak",
        "tsm",
        "url",
      ].map((t) => `${t}.mjs`),
    );
    for (const target of targets) {
      expect(readFileSync(join(fuzzDir, "targets", target), "utf8")).toContain(
        `export const fuzz = target("${target.replace(".mjs", "")}")`,
      );
      expect(existsSync(join(fuzzDir, "dictionaries", target.replace(".mjs", ".dict")))).toBe(true);
    }
    // `node fuzz/run.mjs all` runs every one of them
    const run = readFileSync(join(fuzzDir, "run.mjs"), "utf8");
    const listed = /const TARGETS = \[([^\]]*)\]/
      .exec(run)?.[1]
      ?.match(/[\w-]+/g)
      ?.sort();
    expect(listed).toEqual(targets.map((t) => t.replace(".mjs", "")).sort());
  });
});
