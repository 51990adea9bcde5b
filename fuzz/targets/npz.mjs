// Jazzer.js target: the npz reader (laws: ../laws.mjs). Run: npm run fuzz -- npz --seconds N
import { target } from "../harness.mjs";

export const fuzz = target("npz");
