import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const built = existsSync(resolve(root, "dist/index.js"));

describe.skipIf(!built)("the built package (dist/)", () => {
  it("loads with require() (CommonJS, Node >= 20.19) and runs the kernels", () => {
    const script = `
      const tf = require(${JSON.stringify(resolve(root, "dist/index.js"))});
      import(${JSON.stringify(resolve(root, "test/runtimes/smoke.mjs"))}).then(async ({ smoke }) => {
        const checks = await smoke(tf);
        console.log(JSON.stringify({ checks, exports: Object.keys(tf) }));
      }).catch((e) => { console.error(e); process.exit(1); });`;
    const out = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
    expect(out.checks).toContain("transpose");
    for (const name of [
      "bw2l",
      "april",
      "tsm",
      "primitiv",
      "spraak",
      "detectFormat",
      "readAny",
      "kernels",
      "FormatError",
    ]) {
      expect(out.exports).toContain(name);
    }
  });

  it("loads with import()", async () => {
    const tf = await import(resolve(root, "dist/index.js"));
    const { smoke } = await import(resolve(root, "test/runtimes/smoke.mjs"));
    expect(await smoke(tf)).toContain("f16ToF32");
  });
});
