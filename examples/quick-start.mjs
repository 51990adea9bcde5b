import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { makeModel } from "./make-model.mjs";
const dir = dirname(makeModel());                      // writes model.b2l into a new temporary folder
process.chdir(dir);
// #region quick-start
import { loadFile, openFile } from "tensorfile";

// every tensor in memory, row-major, in one call
const { format, tensors } = await loadFile("model.b2l", { dtype: "float32" });
console.log(format);                                   // "bw2l"
for (const t of tensors) console.log(t.name, t.dtype, t.shape);

// or headers only: pick what to load, then close the file
const opened = await openFile("model.b2l");
const weight = await opened.loadTensor("layers.0.0", { dtype: "float32" });
console.log(weight.shape, weight.data.length);         // [ 3, 1, 40, 16 ] 1920
await opened.close();
// #endregion quick-start
rmSync(dir, { recursive: true });
