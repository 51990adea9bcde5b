// One version everywhere: package.json's `version`, the newest released section of CHANGELOG.md and what
// `tensorfile --version` prints (bindings/version.ts) must agree, so a release cannot bump one and forget another.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../bindings/cli/run.js";
import { VERSION } from "../bindings/version.js";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

function cliVersion(): Promise<string> {
  let out = "";
  const io = { stdout: { write: (s: string) => ((out += s), true) }, stderr: { write: () => true } };
  return runCli(["--version"], io as never).then(() => out.trim());
}

describe("the version", () => {
  const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { version: string };
  const changelog = readFileSync(join(repo, "CHANGELOG.md"), "utf8");

  it("package.json, bindings/version.ts and tensorfile --version agree", async () => {
    expect(VERSION).toBe(pkg.version);
    expect(await cliVersion()).toBe(`tensorfile ${pkg.version}`);
  });

  it("CHANGELOG.md's newest released section is package.json's version, with a date and a link", () => {
    const released = [...changelog.matchAll(/^## \[(\d+\.\d+\.\d+[^\]]*)\] - (\d{4}-\d{2}-\d{2})$/gm)].map((m) => m[1]);
    expect(released.length).toBeGreaterThan(0);
    expect(released[0]).toBe(pkg.version);
    expect(changelog).toMatch(new RegExp(`^\\[${pkg.version.replace(/\./g, "\\.")}\\]: `, "m"));
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
  });
});
