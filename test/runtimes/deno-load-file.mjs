// Run by test/runtimes/deno.mjs with read permission for one temporary folder: loadFile and openFile under Deno
// (node:fs through Deno's Node compatibility). Writes nothing: the Node side wrote the files and the expected
// summaries (name, dtype, shape, sha-256 of the bytes) into DIR/expected.json.
import * as tf from "../../dist/index.js";

const dir = Deno.args[0];
const expected = JSON.parse(await Deno.readTextFile(`${dir}/expected.json`));
const hex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
const summary = async (tensors) => Promise.all(tensors.map(async (t) => {
  const bytes = new Uint8Array(t.data.byteLength);
  bytes.set(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return `${t.name} ${t.dtype} [${t.shape.join(",")}] ${hex(await crypto.subtle.digest("SHA-256", bytes))}`;
}));
let checks = 0;
for (const [name, want] of Object.entries(expected)) {
  for (const [key, options] of [["raw", undefined], ["float32", { dtype: "float32" }]]) {
    const got = await summary((await tf.loadFile(`${dir}/${name}`, options)).tensors);
    if (JSON.stringify(got) !== JSON.stringify(want[key])) throw new Error(`deno loadFile ${name} ${key}: ${JSON.stringify(got)} != ${JSON.stringify(want[key])}`);
    checks++;
  }
  const opened = await tf.openFile(`${dir}/${name}`);
  try {
    if (opened.tensorInfos().length !== want.raw.length) throw new Error(`deno openFile ${name}: wrong tensor count`);
  } finally {
    await opened.close();
  }
  checks++;
}
console.log(`deno ${Deno.version.deno}: loadFile/openFile ${checks} checks passed`);
