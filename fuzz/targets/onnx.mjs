// Jazzer.js target: the onnx reader (laws: ../laws.mjs). Run: npm run fuzz -- onnx --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("onnx");
