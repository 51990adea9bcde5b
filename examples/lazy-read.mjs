import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { makeModel } from "./make-model.mjs";
const dir = dirname(makeModel());
process.chdir(dir);
// #region lazy-read
import { readFromAny, fromFile } from "tensorfile";

const source = await fromFile("model.b2l");         // or fromUrl(url) (HTTP Range requests), fromBlob(file)
try {
  const opened = await readFromAny(source);           // reads the headers only
  const infos = opened.tensorInfos();                 // name, dtype, shape, byteOffset, byteLength, …
  for (const info of infos) console.log(info.name, info.dtype, info.shape, info.byteLength);
  const weight = await opened.loadTensor(infos[0], { dtype: "float32" });
  console.log(weight.name, weight.data.length);
} finally {
  await source.close();                               // a file source holds a file handle: close it
}
// #endregion lazy-read
rmSync(dir, { recursive: true });
