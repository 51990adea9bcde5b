import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: plain .mjs build scripts
import { buildFamilies } from "../../scripts/build-wasm.mjs";
// @ts-expect-error: plain .mjs build scripts
import { FAMILIES, slotEnd } from "../../scripts/wasm-families.mjs";
import { ALL_FAMILIES } from "../../bindings/wasm/families.js";

interface Family {
  name: string;
  memoryBase: number;
}
const families = FAMILIES as Family[];

async function embedded(name: string): Promise<{ bytes: Uint8Array<ArrayBuffer>; sha256: string }> {
  const module = (await import(`../../bindings/wasm/${name}.wasm.ts`)) as { WASM_HEX: string; WASM_SHA256: string };
  return { bytes: new Uint8Array(Buffer.from(module.WASM_HEX, "hex")), sha256: module.WASM_SHA256 };
}

describe("embedded WASM families", () => {
  it("every family of scripts/wasm-families.mjs is a KernelFamily of bindings/wasm/families.ts, and back", () => {
    expect(ALL_FAMILIES.map((f) => f.name).sort()).toEqual(families.map((f) => f.name).sort());
  });

  it("match a fresh build of assembly/ (run `npm run build` after changing the kernels)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-asc-"));
    try {
      const built = (await buildFamilies(dir)) as Record<string, { bytes: Buffer }>;
      for (const { name } of families) {
        const { bytes, sha256 } = await embedded(name);
        expect(createHash("sha256").update(bytes).digest("hex")).toBe(sha256);
        expect(
          Buffer.from(bytes).equals(built[name]!.bytes),
          `bindings/wasm/${name}.wasm.ts is stale: run npm run build`,
        ).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("have export interfaces (bindings/wasm/<name>.exports.ts) generated from assembly/ and up to date", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tensorfile-asc-"));
    try {
      const built = (await buildFamilies(dir)) as Record<string, { exportsSource: string }>;
      for (const { name } of families) {
        const file = new URL(`../../bindings/wasm/${name}.exports.ts`, import.meta.url);
        expect(readFileSync(file, "utf8"), `bindings/wasm/${name}.exports.ts is stale: run npm run build`).toBe(
          built[name]!.exportsSource,
        );
        // every export but staticEnd (FamilyCommonExports) is a member
        const names = WebAssembly.Module.exports(new WebAssembly.Module((await embedded(name)).bytes)).map(
          (e) => e.name,
        );
        for (const n of names.filter((n) => n !== "staticEnd"))
          expect(built[name]!.exportsSource, name).toMatch(new RegExp(`\\n  ${n}\\(`));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("compile with SIMD, import nothing but their memory, and keep their static data in their own slots", async () => {
    for (const [index, { name, memoryBase }] of families.entries()) {
      const module = new WebAssembly.Module((await embedded(name)).bytes);
      expect(WebAssembly.Module.imports(module)).toEqual([{ module: "env", name: "memory", kind: "memory" }]);
      const memory = new WebAssembly.Memory({ initial: 1 });
      const exports = new WebAssembly.Instance(module, { env: { memory } }).exports as { staticEnd(): number };
      expect(exports.staticEnd(), name).toBeGreaterThanOrEqual(memoryBase);
      expect(exports.staticEnd(), name).toBeLessThanOrEqual(slotEnd(index) as number);
      // nothing written below its slot or after it (a module's data segments stay in its slot)
      const heap = new Uint8Array(memory.buffer);
      expect(
        heap.subarray(0, memoryBase).every((b) => b === 0),
        name,
      ).toBe(true);
      expect(
        heap.subarray(exports.staticEnd()).every((b) => b === 0),
        name,
      ).toBe(true);
    }
  });

  it("export the kernels the wrappers call", async () => {
    const expected: Record<string, string[]> = {
      convert: [
        "byteSwap16",
        "byteSwap32",
        "byteSwap64",
        "copy",
        "f16ToF32",
        "f32ToF16",
        "dequantizeI8",
        "quantizeI8",
        "bf16ToF32",
        "f8e4m3ToF32",
        "f8e5m2ToF32",
      ],
      transpose: ["transpose8", "transpose16", "transpose32", "transpose64"],
      transposeF16: ["transposeF16ToF32"],
      stats: [
        "statsF32",
        "statsF64",
        "histogramF32",
        "histogramF64",
        "widenI8ToF32",
        "widenU8ToF32",
        "widenI16ToF32",
        "widenU16ToF32",
        "widenI32ToF64",
        "widenU32ToF64",
      ],
      diff: ["diffStats"],
    };
    for (const { name } of families) {
      const names = WebAssembly.Module.exports(new WebAssembly.Module((await embedded(name)).bytes)).map((e) => e.name);
      expect(names.sort(), name).toEqual([...expected[name]!, "staticEnd"].sort());
    }
  });
});
