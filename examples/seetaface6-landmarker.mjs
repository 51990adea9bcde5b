// SeetaFace6's 5-point face landmarker, out of its .csta container and into onnxruntime-web.
//
//   npm run build && node examples/seetaface6-landmarker.mjs [face_landmarker_pts5.csta] [face.npy]
//
// 1. tensorfile reads the .csta (SeetaFace6's obfuscated container) and converts the TenniS module inside to ONNX
//    (tsm.toOnnx), once, in Node; the .onnx is written to a temporary folder (a page would fetch it).
// 2. onnxruntime-web (the same package a browser page uses) runs it on a 112 x 112 grayscale face crop given as
//    float32 pixel values 0..255, shape [1, 1, 112, 112] (input "_input"); the output "Common/EltwiseOP" holds the
//    5 points as [x0, y0, ..., x4, y4] relative to the crop (0..1).
// The face defaults to the fixed test picture of ../shared/fixtures/tennis/outputs/ (the one TenniS's own runtime
// was given there), so the numbers can be compared with TenniS's.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as ort from "onnxruntime-web";
import { npy, tsm } from "tensorfile";

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = resolve(here, "../../shared/fixtures/tennis");
const cstaPath = process.argv[2] ?? join(fixtures, "seetaface6_face_landmarker_pts5.csta");
const facePath = process.argv[3] ?? join(fixtures, "outputs/seetaface6_face_landmarker_pts5/input_0.npy");

if (!existsSync(cstaPath) || !existsSync(facePath)) {
  console.log(`skipped: ${existsSync(cstaPath) ? facePath : cstaPath} is not there (pass a .csta or .tsm and a face .npy)`);
  process.exit(0);
}

// 1. convert once
// #region convert
const module = tsm.read(new Uint8Array(readFileSync(cstaPath))); // a .csta or a .tsm
console.log(tsm.onnxSupport(module).convertible);                 // true (else .blockers lists ops and nodes)
const onnxBytes = tsm.toOnnx(module);                              // Uint8Array: an ONNX ModelProto, opset 17
// #endregion convert
const outDir = mkdtempSync(join(tmpdir(), "seetaface6-onnx-"));
writeFileSync(join(outDir, "face_landmarker_pts5.onnx"), onnxBytes); // what a web page would fetch
console.log(`converted ${cstaPath.split("/").pop()} -> face_landmarker_pts5.onnx (${onnxBytes.length} bytes, ${tsm.tensors(module).length} weight tensors)`);

// 2. run with onnxruntime-web
ort.env.wasm.numThreads = 1;
const session = await ort.InferenceSession.create(onnxBytes);
console.log(`inputs ${JSON.stringify(session.inputNames)} outputs ${JSON.stringify(session.outputNames)}`);
const face = npy.tensors(npy.read(new Uint8Array(readFileSync(facePath))))[0];
const result = await session.run({ _input: new ort.Tensor("float32", face.data, [1, 1, 112, 112]) });
const points = result["Common/EltwiseOP"].data;
for (let i = 0; i < 5; i++) {
  console.log(`point ${i}: (${(points[2 * i] * 112).toFixed(1)}, ${(points[2 * i + 1] * 112).toFixed(1)}) px`);
}
await session.release();
