import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeModel } from "./make-model.mjs";
const dir = mkdtempSync(join(tmpdir(), "tensorfile-example-"));
makeModel(dir);
process.chdir(dir);
// #region patch-diff
import { patch, patchTo, diffTensors, readFromAny, fromFile, writeSafetensors, loadFile } from "tensorfile";
import { createWriteStream, readFileSync, writeFileSync } from "node:fs";
import { finished } from "node:stream/promises";

// in memory: replace one tensor (row-major values; stored the way the format stores it)
const modelBytes = readFileSync("model.b2l");
const { tensors } = await loadFile("model.b2l");
const weight = tensors[0];                        // layers.0.0, float32 [3, 1, 40, 16]
const tuned = Float32Array.from(weight.data, (x) => x * 1.1);
const { bytes, replaced, kept } = await patch(modelBytes, [{ name: weight.name, dtype: "float32", shape: weight.shape, data: tuned }]);
console.log(replaced, kept);                      // [ 'layers.0.0' ] [ 'layers.0.1', 'layers.2.0' ]

// streamed: a model and a weights file of any size, both read lazily; OUT written piece by piece
writeFileSync("tuned.safetensors", writeSafetensors([{ ...weight, data: tuned }]));
const model = await fromFile("model.b2l"), weights = await fromFile("tuned.safetensors");
const out = createWriteStream("tuned.b2l");
await patchTo(model, weights, out, { partial: true });
await finished(out);
await Promise.all([model.close(), weights.close()]);

// what changed: any two readable files, by tensor name
const a = await fromFile("model.b2l"), b = await fromFile("tuned.b2l");
const result = await diffTensors(await readFromAny(a), await readFromAny(b), { atol: 1e-6 });
for (const t of result.tensors) console.log(t.name, t.status, t.maxAbs);
await Promise.all([a.close(), b.close()]);
// #endregion patch-diff
if (Buffer.compare(Buffer.from(bytes), readFileSync("tuned.b2l")) !== 0) throw new Error("patch and patchTo disagree");
rmSync(dir, { recursive: true });
