/**
 * examples/seetaface6-landmarker.mjs runs (on the built package and the SeetaFace6 fixture) and prints exactly the
 * output docs/seetaface6-onnx.md shows. Skips without ../shared or without dist/ (npm test builds it first).
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { haveFixtures } from "./helpers/fixtures.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const built = existsSync(resolve(root, "dist/index.js"));

describe.skipIf(!haveFixtures() || !built)("examples/seetaface6-landmarker.mjs", () => {
  it("prints the output shown in docs/seetaface6-onnx.md", () => {
    const out = execFileSync(process.execPath, [resolve(root, "examples/seetaface6-landmarker.mjs")], {
      encoding: "utf8",
      timeout: 180_000,
    });
    const doc = readFileSync(resolve(root, "docs/seetaface6-onnx.md"), "utf8");
    const block = /<!-- output: examples\/seetaface6-landmarker.mjs -->\n```\w*\n([\s\S]*?)```/.exec(doc);
    expect(block, "the example-output block in the doc").not.toBeNull();
    expect(out).toBe(block![1]);
    // and the points are TenniS's own (manifest of outputs/seetaface6_face_landmarker_pts5)
    expect(out).toContain("point 0: (39.2, 47.5) px");
    expect(out).toContain("point 4: (67.2, 85.7) px");
  }, 180_000); // a node that starts onnxruntime-web: room for a loaded machine
});
