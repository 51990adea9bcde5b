import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { KERNELS_WASM_BASE64, KERNELS_WASM_SHA256 } from "../../bindings/wasm/kernels.wasm.js";

const root = resolve(import.meta.dirname, "../..");

describe("embedded WASM", () => {
  it("matches a fresh build of assembly/ (run `npm run build` after changing the kernels)", () => {
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-asc-"));
    try {
      const out = join(dir, "kernels.wasm");
      execFileSync(process.execPath, [join(root, "node_modules/assemblyscript/bin/asc.js"), "assembly/index.ts",
        "--target", "release", "--outFile", out, "--textFile", join(dir, "kernels.wat")], { cwd: root, stdio: "pipe" });
      const fresh = readFileSync(out);
      const embedded = Buffer.from(KERNELS_WASM_BASE64, "base64");
      expect(createHash("sha256").update(embedded).digest("hex")).toBe(KERNELS_WASM_SHA256);
      expect(embedded.equals(fresh), "bindings/wasm/kernels.wasm.ts is stale: run npm run build").toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("compiles with SIMD and imports nothing but its memory", () => {
    const module = new WebAssembly.Module(Buffer.from(KERNELS_WASM_BASE64, "base64"));
    expect(WebAssembly.Module.imports(module)).toEqual([{ module: "env", name: "memory", kind: "memory" }]);
    const names = WebAssembly.Module.exports(module).map((e) => e.name);
    for (const k of ["f16ToF32", "f32ToF16", "dequantizeI8", "quantizeI8", "byteSwap16", "byteSwap32", "byteSwap64", "transpose32"]) {
      expect(names).toContain(k);
    }
  });
});
