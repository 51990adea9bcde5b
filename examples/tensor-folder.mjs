// A folder of .npy files (as `tensorfile extract` writes it, or numpy's np.save) patched back from code, and what
// a PatchError says (docs/guide.md).
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeModel } from "./make-model.mjs";
const dir = mkdtempSync(join(tmpdir(), "tensorfile-example-"));
makeModel(dir);
process.chdir(dir);
mkdirSync("weights");
// #region tensor-folder
import { patch, PatchError, loadFile, writeNpy } from "tensorfile";
import { openTensorFolder } from "tensorfile/node";
import { readFileSync, writeFileSync } from "node:fs";

// an extract folder (or .npy files named by tensor, as np.save writes them): layers.0.0 doubled
const { tensors } = await loadFile("model.b2l");
const weight = tensors[0];
writeFileSync("weights/layers.0.0.npy", writeNpy({ ...weight, data: weight.data.map((x) => x * 2) }));
const { replaced } = await patch(readFileSync("model.b2l"), await openTensorFolder("weights"));
console.log(replaced);                            // [ 'layers.0.0' ]

// a replacement that does not fit: a PatchError (still a RangeError here) says which and how
try {
  await patch(readFileSync("model.b2l"), [{ name: "layers.0.1", dtype: "float32", shape: [16], data: new Float32Array(16) }]);
} catch (error) {
  if (!(error instanceof PatchError)) throw error;
  console.log(error.problem, error.tensor, error.expectedShape, error.actualShape); // shape layers.0.1 [ 1, 1, 16, 1 ] [ 16 ]
}
// #endregion tensor-folder
rmSync(dir, { recursive: true });
