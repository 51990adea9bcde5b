// "tensorfile/kernels": the kernels under their own names, so that bundlers keep only the kernels (and WASM
// families) imported. In Node and Deno it must be the same module state as the main entry's `kernels`.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const built = existsSync(resolve(root, "dist/kernels.node.js"));

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: "utf8" });
}

describe.skipIf(!built)("tensorfile/kernels (dist/)", () => {
  it("in Node (import and require) is the main entry's kernels: same functions, one backend setting", () => {
    const out = JSON.parse(
      node([
        "--input-type=module",
        "-e",
        `
      import * as sub from "tensorfile/kernels";
      import { kernels } from "tensorfile";
      import { createRequire } from "node:module";
      const required = createRequire(process.cwd() + "/")("tensorfile/kernels");
      const perFile = await import(process.cwd() + "/dist/kernels/index.js");
      const same = Object.keys(kernels).every((k) => sub[k] === kernels[k] && required[k] === kernels[k]);
      sub.setBackend("js");
      const shared = kernels.getBackend();
      console.log(JSON.stringify({ sub: Object.keys(sub).sort(), main: Object.keys(kernels).sort(), perFile: Object.keys(perFile).sort(), same, shared }));`,
      ]),
    );
    expect(out.sub).toEqual(out.main);
    expect(out.perFile).toEqual(out.main);
    expect(out.main).toContain("f16ToF32");
    expect(out.same).toBe(true);
    expect(out.shared).toBe("js");
  });
});
