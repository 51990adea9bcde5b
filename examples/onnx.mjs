// ONNX weights: a small model built with onnx.create, read back, and an .april packaging three such networks.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { april, onnx as onnxBuilder } from "tensorfile";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-onnx-"));
process.chdir(dir);
/** y = x W + b: one MatMul and one Add, W and b initializers. */
function network(name, inputs, outputs) {
  return onnxBuilder.write(onnxBuilder.create({
    producerName: "examples/onnx.mjs",
    graph: {
      name,
      nodes: [
        { name: "matmul", opType: "MatMul", inputs: ["x", "W"], outputs: ["xW"] },
        { name: "add", opType: "Add", inputs: ["xW", "b"], outputs: ["y"] },
      ],
      initializers: [
        { name: "W", dtype: "float32", dims: [inputs, outputs], data: Float32Array.from({ length: inputs * outputs }, (_, i) => i / 10) },
        { name: "b", dtype: "float32", dims: [outputs], data: new Float32Array(outputs).fill(0.5) },
      ],
      inputs: [{ name: "x", dtype: "float32", shape: ["N", inputs] }],
      outputs: [{ name: "y", dtype: "float32", shape: ["N", outputs] }],
    },
  }));
}
writeFileSync("model.onnx", network("tiny", 4, 3));
writeFileSync("model.april", april.write(april.create({
  tokens: ["<blk>", "a", "b"],
  networks: { encoder: network("encoder", 4, 3), decoder: network("decoder", 3, 3), joiner: network("joiner", 3, 3) },
})));
const bytes = new Uint8Array(readFileSync("model.onnx"));

// #region onnx
import { onnx, loadFile } from "tensorfile";                  // or: import * as onnx from "tensorfile/onnx"

const model = onnx.read(bytes);            // ir_version, producer, opset imports, metadata, the graph
console.log(model.graph.nodes[0].opType, model.graph.inputs[0].name);
for (const t of onnx.tensors(model)) console.log(t.name, t.dtype, t.shape);  // every weight, decoded
console.log(onnx.write(model).every((b, i) => b === bytes[i]));  // write(read(x)) is x, byte for byte

const { format, tensors } = await loadFile("model.april");   // "encoder/…", "decoder/…", "joiner/…"
console.log(format, tensors.map((t) => t.name).join(" "));
// #endregion onnx
process.chdir(tmpdir());
rmSync(dir, { recursive: true });
