// Jazzer.js target: the ONNX TensorProto (.pb) reader (laws: ../laws.mjs). Run: npm run fuzz -- onnx-tensor --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("onnx-tensor");
