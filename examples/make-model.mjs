// Writes a small wav2letter model (model.b2l) with tensorfile's own builder, so that the other examples have a
// file to open without any download: `node examples/make-model.mjs [DIR]` prints the path it wrote.
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bw2l, kernels } from "tensorfile";

/** Writes `model.b2l` into `dir` (a new temporary folder when not given) and returns its path. */
export function makeModel(dir = mkdtempSync(join(tmpdir(), "tensorfile-example-"))) {
  const ramp = (n, scale = 0.01) => Float32Array.from({ length: n }, (_, i) => Math.sin(i) * scale);
  // #region create
  const model = bw2l.create({
    flags: { criterion: "ctc", samplerate: "16000" },
    config: { criterion: "ctc" },
    tokens: ["a", "b", "c", "|"],
    layers: [
      { arch: "C 40 16 3 1 1 1", params: [{ dims: [3, 1, 40, 16], data: ramp(3 * 40 * 16) }, { dims: [1, 1, 16, 1], data: ramp(16) }] },
      { arch: "R" },
      { arch: "L 16 4", params: [{ dtype: "fp16", dims: [4, 16, 1, 1], data: kernels.f32ToF16(ramp(64, 0.5)) }] },
    ],
  });
  writeFileSync(join(dir, "model.b2l"), bw2l.write(model));
  // #endregion create
  return join(dir, "model.b2l");
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(makeModel(process.argv[2]));
