import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeModel } from "./make-model.mjs";
const dir = mkdtempSync(join(tmpdir(), "tensorfile-example-"));
makeModel(dir);
process.chdir(dir);
// #region write-export
import { writeSafetensors, writeNpy, writeSafetensorsTo, readFromAny, fromFile, loadFile } from "tensorfile";
import { createWriteStream } from "node:fs";
import { finished } from "node:stream/promises";

const { tensors } = await loadFile("model.b2l");
const safetensors = writeSafetensors(tensors, { source: "demo" });  // Uint8Array; __metadata__ has "format": "pt"
const npy = writeNpy(tensors[0]);                                   // Uint8Array, one tensor
console.log(safetensors.length, npy.length);

// streaming: tensors load one at a time while the previous one is written, so a 10 GB model never sits in memory
const source = await fromFile("model.b2l");
const out = createWriteStream("model.safetensors");
await writeSafetensorsTo(out, await readFromAny(source), { decode: { dtype: "float32" } });
await finished(out);
await source.close();
// #endregion write-export
console.log(statSync("model.safetensors").size);
rmSync(dir, { recursive: true });
