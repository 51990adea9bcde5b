// The page side of docs/seetaface6-onnx.md: run the converted landmarker on a face crop drawn in a canvas.
// (Browser code shown in the docs; examples/seetaface6-landmarker.mjs runs the same model and input handling in Node.)
// #region page
import * as ort from "onnxruntime-web";

const session = await ort.InferenceSession.create("face_landmarker_pts5.onnx");
const canvas = document.querySelector("canvas");            // the face crop
const ctx = canvas.getContext("2d");
const small = new OffscreenCanvas(112, 112);
small.getContext("2d").drawImage(canvas, 0, 0, 112, 112);
const rgba = small.getContext("2d").getImageData(0, 0, 112, 112).data;
const gray = new Float32Array(112 * 112);
for (let i = 0; i < gray.length; i++) gray[i] = 0.299 * rgba[4 * i] + 0.587 * rgba[4 * i + 1] + 0.114 * rgba[4 * i + 2];
const { "Common/EltwiseOP": points } = await session.run({ _input: new ort.Tensor("float32", gray, [1, 1, 112, 112]) });
for (let i = 0; i < 5; i++) {
  ctx.fillRect(points.data[2 * i] * canvas.width - 2, points.data[2 * i + 1] * canvas.height - 2, 4, 4);
}
// #endregion page
