// Run by test/runtimes/deno.mjs: `deno run --no-prompt test/runtimes/deno-smoke.mjs` (no permissions needed:
// the WASM travels inside the JS). Imports the built package by relative path, and its subpaths by name (the
// package's own exports map, "deno" condition): each must be the main entry's namespace, not a second copy.
import * as tf from "../../dist/index.js";
import * as april from "tensorfile/april";
import * as bw2l from "tensorfile/bw2l";
import * as kernels from "tensorfile/kernels";
import * as npy from "tensorfile/npy";
import * as npz from "tensorfile/npz";
import * as onnx from "tensorfile/onnx";
import * as onnxTensor from "tensorfile/onnx-tensor";
import * as primitiv from "tensorfile/primitiv";
import * as safetensors from "tensorfile/safetensors";
import * as spraak from "tensorfile/spraak";
import * as tsm from "tensorfile/tsm";
import { smoke } from "./smoke.mjs";

const checks = await smoke(tf);
// static imports: a computed dynamic import() would need --allow-read
const subpaths = { april, bw2l, npy, npz, onnx, "onnx-tensor": onnxTensor, primitiv, safetensors, spraak, tsm };
for (const id of tf.FORMATS.map((f) => f.id)) {
  const sub = subpaths[id];
  if (!sub) throw new Error(`no tensorfile/${id} import here`);
  const ns = tf[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())]; // onnx-tensor: tf.onnxTensor
  const names = Object.keys(ns);
  if (names.length === 0 || Object.keys(sub).length !== names.length || names.some((n) => sub[n] !== ns[n])) {
    throw new Error(`tensorfile/${id} in Deno is not the main entry's ${id}`);
  }
}
if (Object.keys(tf.kernels).some((n) => kernels[n] !== tf.kernels[n])) throw new Error("tensorfile/kernels in Deno is not the main entry's kernels");
checks.push("subpaths");
console.log(`deno ${Deno.version.deno}: ${checks.length} checks passed (${checks.join(", ")})`);
