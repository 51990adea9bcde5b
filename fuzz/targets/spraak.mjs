// Jazzer.js target: the spraak reader (laws: ../laws.mjs). Run: npm run fuzz -- spraak --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("spraak");
