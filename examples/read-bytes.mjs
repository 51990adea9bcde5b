import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { makeModel } from "./make-model.mjs";
const dir = dirname(makeModel());
process.chdir(dir);
// #region read-bytes
import { bw2l, detectFormat, readAny } from "tensorfile";
import { readFileSync } from "node:fs";

const bytes = readFileSync("model.b2l");          // a Node Buffer is a Uint8Array; fetch()'s arrayBuffer() works too
console.log(detectFormat(bytes));                 // "bw2l"
const model = bw2l.read(bytes);                   // the whole file as a plain typed object
for (const t of bw2l.tensors(model)) {            // the uniform view: { name, dtype, shape, data }, row-major
  console.log(t.name, t.dtype, t.shape);
}
console.log(Buffer.compare(bw2l.write(model), bytes));   // 0: write(read(x)) is x, byte for byte

const opened = readAny(bytes);                    // { format, file, tensors() } for any format
if (opened.format === "bw2l") console.log(opened.file.version);   // 2 (file: Bw2lFile here)
for (const t of opened.tensors({ dtype: "float32" })) {
  if (t.dtype === "float32") console.log(t.name, t.data.length);  // data: Float32Array here
}
// #endregion read-bytes
rmSync(dir, { recursive: true });
