// Replays inputs through a target's laws once, against dist/, in every input form:
//   node fuzz/replay.mjs TARGET FILE…      (exit 1 when a law breaks; prints the summary of each input)
import { readFileSync } from "node:fs";
import * as lib from "../dist/index.js";
import { checkAnyLaws, checkFormatLaws, checkInputForms } from "./laws.mjs";

const [target, ...files] = process.argv.slice(2);
if (!target || files.length === 0) {
  console.error("usage: node fuzz/replay.mjs TARGET FILE…");
  process.exit(2);
}
let failed = 0;
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  const check = target === "any" ? (input) => checkAnyLaws(lib, input) : (input) => checkFormatLaws(lib, target, input);
  try {
    console.log(`${file}: ${(await checkInputForms(check, bytes, target)).slice(0, 160)}`);
  } catch (error) {
    failed++;
    console.log(`${file}: FAILED ${error?.stack ?? error}`);
  }
}
process.exit(failed > 0 ? 1 : 0);
