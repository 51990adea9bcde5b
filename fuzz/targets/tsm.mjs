// Jazzer.js target: the tsm reader (laws: ../laws.mjs). Run: npm run fuzz -- tsm --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("tsm");
