// Jazzer.js target: the april reader (laws: ../laws.mjs). Run: npm run fuzz -- april --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("april");
