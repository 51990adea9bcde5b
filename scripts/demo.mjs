// The demo (`npm run demo`): writes a small file of every format with tensorfile's own writers into a temp
// folder, then runs the CLI on each: inspect, convert to safetensors and back to its own format, verify and
// extract. Prints what it did; exits 1 if anything fails.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../dist/cli/run.js";
import { exampleFiles } from "../dist/examples.js";

const dir = mkdtempSync(join(tmpdir(), "tensorfile-demo-"));
const io = { stdout: process.stdout, stderr: process.stdout };
let failures = 0;

async function run(...argv) {
  return runExpecting(0, ...argv);
}

/** Runs the CLI and counts a failure unless it exits with `expected` (1: bad input the CLI must refuse). */
async function runExpecting(expected, ...argv) {
  console.log(`\n$ tensorfile ${argv.map((a) => a.replace(dir, "$DEMO")).join(" ")}`);
  const code = await runCli(argv, io);
  if (code !== 0) console.log(`(exit ${code}${code === expected ? ", as it should" : ""})`);
  if (code !== expected) failures++;
}

console.log(`tensorfile demo: writing one small file of every format into ${dir} (shown as $DEMO)`);
for (const example of exampleFiles()) {
  const path = join(dir, example.name);
  writeFileSync(path, example.bytes);
  console.log(`\n=== ${example.format}: ${example.name} (${example.bytes.length} bytes), ${example.description}`);
  await run("inspect", path);
  await run("convert", path, join(dir, `${example.name}.safetensors`), ...(example.hasFloat16 ? ["--dtype", "float32"] : []));
  const copy = join(dir, `copy-of-${example.name}`);
  await run("convert", path, copy);
  const same = Buffer.compare(readFileSync(copy), Buffer.from(example.bytes)) === 0;
  console.log(same ? "re-encoded file is byte-identical to the original" : "RE-ENCODED FILE DIFFERS");
  if (!same) failures++;
  await run("verify", path);
  const out = join(dir, `${example.name}.extracted`);
  await run("extract", path, out);
  const written = readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  console.log(`  ${written.map((e) => join(e.parentPath ?? e.path, e.name).slice(out.length + 1)).sort().join("  ")}`);
}
console.log(failures === 0 ? `\ndemo finished: ${exampleFiles().length} formats written, inspected, converted, verified and extracted in ${dir}` : `\ndemo FAILED: ${failures} step(s)`);
process.exitCode = failures === 0 ? 0 : 1;
