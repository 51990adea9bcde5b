// Jazzer.js target: the npy reader (laws: ../laws.mjs). Run: npm run fuzz -- npy --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("npy");
