// Run by test/runtimes/deno.mjs: `deno run --no-prompt test/runtimes/deno-smoke.mjs` (no permissions needed:
// the WASM travels inside the JS). Imports the built package by relative path.
import * as tf from "../../dist/index.js";
import { smoke } from "./smoke.mjs";

const checks = await smoke(tf);
console.log(`deno ${Deno.version.deno}: ${checks.length} checks passed (${checks.join(", ")})`);
