// Converting a model that is not in memory: onnx.quantizeTo streams it from its source into a sink, holding its
// structure and one weight at a time (docs/changing-a-model.md#streaming-large-models).
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromFile, onnx } from "tensorfile";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-example-"));
writeFileSync(join(dir, "big.onnx"), onnx.write(onnx.create({
  graph: {
    name: "main",
    nodes: [{ opType: "MatMul", inputs: ["x", "w"], outputs: ["y"] }],
    initializers: [{ name: "w", dtype: "float32", dims: [256, 64], data: Float32Array.from({ length: 256 * 64 }, (_, i) => Math.sin(i)) }],
    inputs: [{ name: "x", dtype: "float32", shape: ["N", 256] }],
    outputs: [{ name: "y", dtype: "float32", shape: ["N", 64] }],
  },
})));
// #region quantize-to
const source = await fromFile(join(dir, "big.onnx"));
try {
  const report = await onnx.quantizeTo(source, createWriteStream(join(dir, "big-fp16.onnx")), { mode: "fp16" });
  console.log(report.tensorsConverted, report.weightBytesBefore, "->", report.weightBytesAfter);
} finally {
  await source.close();
}
// #endregion quantize-to
console.log(statSync(join(dir, "big-fp16.onnx")).size < statSync(join(dir, "big.onnx")).size);
rmSync(dir, { recursive: true });
