// Patch bench: `tensorfile patch MODEL WEIGHTS OUT` of a generated ~1 GiB float32 model with a full safetensors of
// new weights (every tensor replaced), side by side with copying the two files (benny, in process, same run),
// then the peak memory of the same patch in a child process against Node's baseline and the largest tensor.
// Two models: bw2l version 2 (column-major: every tensor goes through the transpose kernel, in column bands) and
// a TenniS .tsm (row-major: the new bytes are written as they come).
// Targets (issue 15): time <= 2x copying the two files; peak <= 1.5x the largest tensor above Node's baseline.
// Writes bench/results/patch.json and bench/results/patch-memory.json.
// Run: npm run build && node bench/patch.bench.mjs [--quick]
import { add, complete, cycle, save, suite } from "benny";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, openSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bw2l, tsm, planSafetensors } from "../dist/index.js";
import { runCli } from "../dist/cli/run.js";

const quick = process.argv.includes("--quick");
const dir = mkdtempSync(join(tmpdir(), "tensorfile-patch-bench-"));
const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });

const LAYERS = quick ? 4 : 16;
const SIZE = 4096; // 4096 x 4096 float32 = 64 MiB a tensor
const matrix = Float32Array.from({ length: SIZE * SIZE }, (_, i) => Math.sin(i * 0.001) * 0.1);
const largestTensor = matrix.byteLength;

/** The weights file: every tensor, values changed, written tensor by tensor (never 1 GiB in memory). */
function writeWeights(path, entries) {
  const plan = planSafetensors(entries.map(({ name, shape }) => ({ name, dtype: "float32", shape })));
  const fd = openSync(path, "w");
  writeSync(fd, plan.header);
  const changed = matrix.map((v) => v * 1.01 + 0.001);
  for (const slot of plan.layout) writeSync(fd, new Uint8Array(changed.buffer, 0, slot.end - slot.begin));
  closeSync(fd);
}

function writeBw2l(path) {
  const model = bw2l.create({
    version: 2,
    config: { criterion: "ctc" },
    tokens: ["a", "b", "#"],
    layers: Array.from({ length: LAYERS }, () => ({ arch: `L ${SIZE} ${SIZE}`, params: [{ dims: [SIZE, SIZE, 1, 1], data: matrix }] })),
  });
  writeFileSync(path, bw2l.write(model));
  return Array.from({ length: LAYERS }, (_, i) => ({ name: `layers.${i}.0`, shape: [SIZE, SIZE, 1, 1] }));
}

function writeTsm(path) {
  const nodes = [{ op: "<param>", name: "input" }];
  for (let i = 0; i < LAYERS; i++) nodes.push({ op: "<const>", name: `w${i}`, value: { dtype: "float32", shape: [SIZE, SIZE], data: matrix } });
  nodes.push({ op: "concat", name: "out", inputs: nodes.slice(1).map((n) => n.name) });
  writeFileSync(path, tsm.write(tsm.create({ nodes, inputs: ["input"], outputs: ["out"] })));
  return Array.from({ length: LAYERS }, (_, i) => ({ name: `w${i}`, shape: [SIZE, SIZE] }));
}

const quiet = { stdout: { isTTY: false, write() {} }, stderr: { isTTY: false, write() {} } };
const models = [
  { label: "bw2l v2 (column-major)", model: join(dir, "model.b2l"), weights: join(dir, "w-b2l.safetensors"), out: join(dir, "out.b2l"), write: writeBw2l },
  { label: "tsm (row-major)", model: join(dir, "model.tsm"), weights: join(dir, "w-tsm.safetensors"), out: join(dir, "out.tsm"), write: writeTsm },
];
for (const m of models) {
  writeWeights(m.weights, m.write(m.model));
  m.size = statSync(m.model).size;
  console.log(`${m.label}: model ${(m.size / 2 ** 30).toFixed(2)} GiB, weights ${(statSync(m.weights).size / 2 ** 30).toFixed(2)} GiB`);
}

const options = { minSamples: 3, maxTime: quick ? 2 : 20, initCount: 1 };
const summary = {};
for (const m of models) {
  await suite(
    `patch ${m.label}`,
    add(`tensorfile patch (${m.label})`, async () => {
      const code = await runCli(["patch", m.model, m.weights, m.out, "--force"], quiet);
      if (code !== 0) throw new Error(`patch exited ${code}`);
    }, options),
    add("copy the two files (fs.copyFileSync x 2)", () => {
      copyFileSync(m.model, join(dir, "copy-model"));
      copyFileSync(m.weights, join(dir, "copy-weights"));
    }, options),
    cycle(),
    complete((s) => {
      // benny rounds ops/s to whole numbers: use the mean time of a sample instead
      for (const r of s.results) summary[`${m.label}: ${r.name}`] = { seconds: +r.details.mean.toFixed(3) };
      const [patch, copy] = s.results;
      const ratio = patch.details.mean / copy.details.mean;
      summary[`${m.label}: patch / copy`] = +ratio.toFixed(2);
      console.log(`${m.label}: patch ${patch.details.mean.toFixed(2)} s, copying the two files ${copy.details.mean.toFixed(2)} s: ${ratio.toFixed(2)}x (target <= 2)`);
    }),
    save({ file: `patch-${m.label.split(" ")[0]}`, folder: folder.pathname, format: "json" }),
  );
}

/** Peak RSS of the CLI in a child process (sampled every 10 ms with process.memoryUsage()). */
function peak(args) {
  const script = `
    const { runCli } = await import(${JSON.stringify(new URL("../dist/cli/run.js", import.meta.url).href)});
    let peakRss = 0;
    const timer = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 10);
    const started = performance.now();
    const code = await runCli(${JSON.stringify(args)}, { stdout: { write() {} }, stderr: { write() {} } });
    clearInterval(timer);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    console.log(JSON.stringify({ code, ms: performance.now() - started, peakRss }));`;
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
}

const baseline = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e",
  `await import(${JSON.stringify(new URL("../dist/cli/run.js", import.meta.url).href)}); console.log(JSON.stringify({ rss: process.memoryUsage().rss }))`], { encoding: "utf8" }));
const rows = [];
for (const m of models) {
  const r = peak(["patch", m.model, m.weights, m.out, "--force"]);
  if (r.code !== 0) throw new Error(`patch exited ${r.code}`);
  const over = r.peakRss - baseline.rss;
  rows.push({ model: m.label, fileMiB: Math.round(m.size / 2 ** 20), seconds: +(r.ms / 1000).toFixed(2), peakRssMiB: Math.round(r.peakRss / 2 ** 20),
    overBaselineMiB: Math.round(over / 2 ** 20), largestTensorMiB: largestTensor / 2 ** 20, overOverLargest: +(over / largestTensor).toFixed(2) });
}
console.log(`\nnode + tensorfile loaded, doing nothing: ${Math.round(baseline.rss / 2 ** 20)} MiB RSS`);
console.table(rows);
writeFileSync(new URL("patch-memory.json", folder), `${JSON.stringify({ baselineRssMiB: Math.round(baseline.rss / 2 ** 20), rows, summary }, null, 2)}\n`);
rmSync(dir, { recursive: true, force: true });
