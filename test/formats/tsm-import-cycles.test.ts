/**
 * No import cycle through the tsm facade, its folder or the ONNX builder (dpdm over the TypeScript sources; type-only
 * imports count too, as they do for the coordinator's cycle check).
 */
import { describe, expect, it } from "vitest";
import { parseCircular, parseDependencyTree } from "dpdm";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

describe("import cycles", () => {
  it("tsm.ts, tsm/*.ts (patch, to-onnx, onnx-ops) and onnx/builder.ts form no cycle", async () => {
    const tree = await parseDependencyTree(
      ["bindings/formats/tsm.ts", "bindings/formats/onnx/builder.ts", "bindings/cli/tsm-onnx.ts"],
      {
        context: root,
        transform: false,
        skipDynamicImports: false,
        extensions: [".ts", ".js"],
      },
    );
    expect(Object.keys(tree).some((f) => f.endsWith("tsm/patch.ts"))).toBe(true);
    expect(Object.keys(tree).some((f) => f.endsWith("tsm/onnx-ops.ts"))).toBe(true);
    expect(parseCircular(tree)).toEqual([]);
  }, 60_000);
});
