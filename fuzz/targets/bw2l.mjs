// Jazzer.js target: the bw2l reader (laws: ../laws.mjs). Run: npm run fuzz -- bw2l --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("bw2l");
