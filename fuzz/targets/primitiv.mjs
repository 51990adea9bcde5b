// Jazzer.js target: the primitiv reader (laws: ../laws.mjs). Run: npm run fuzz -- primitiv --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("primitiv");
