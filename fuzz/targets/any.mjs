// Jazzer.js target: readAny / detectFormat over every format (laws: ../laws.mjs). Run: npm run fuzz -- any --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("any");
