// Importing the package compiles no WebAssembly and creates no memory: each kernel family's module is compiled on
// the first call of one of its kernels (issue 34: cold import). Checked in a fresh process on dist/.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const built = existsSync(resolve(root, "dist/index.js"));

const probe = `
const counts = { Module: 0, Instance: 0, Memory: 0, compile: 0 };
for (const name of ["Module", "Instance", "Memory"]) {
  const Real = WebAssembly[name];
  WebAssembly[name] = new Proxy(Real, { construct(target, args) { counts[name]++; return Reflect.construct(target, args); } });
}
for (const name of ["compile", "instantiate", "compileStreaming", "instantiateStreaming"]) {
  const real = WebAssembly[name];
  if (real) WebAssembly[name] = (...args) => { counts.compile++; return real(...args); };
}
await import(process.argv[1]);
const before = { ...counts };
const { kernels } = await import("tensorfile");
kernels.f16ToF32(new Uint16Array(4096));
console.log(JSON.stringify({ before, after: counts }));`;

describe.skipIf(!built)("cold import", () => {
  for (const entry of ["tensorfile", "tensorfile/onnx", "tensorfile/kernels"]) {
    it(`import("${entry}") compiles no WebAssembly; the first kernel call compiles its family`, () => {
      const out = JSON.parse(
        execFileSync(process.execPath, ["--input-type=module", "-e", probe, entry], { cwd: root, encoding: "utf8" }),
      );
      expect(out.before).toEqual({ Module: 0, Instance: 0, Memory: 0, compile: 0 });
      expect(out.after.Module).toBe(1);
      expect(out.after.Instance).toBe(1);
    });
  }
});
