// Jazzer.js target: the safetensors reader (laws: ../laws.mjs). Run: npm run fuzz -- safetensors --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("safetensors");
