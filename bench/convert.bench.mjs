// CLI convert bench: `tensorfile convert model.b2l out.safetensors --dtype float32` of a ~100 MB fp16 BW2L
// model (benny, in process, side by side with copying the same file), then the peak memory of the same convert
// and of extract, each in a child process, on the ~100 MB file and on a generated ~1 GB one: the CLI streams
// tensor by tensor, so the peak should be about one tensor, not the file.
// Writes bench/results/convert.json and bench/results/convert-memory.json.
// Run: npm run build && node bench/convert.bench.mjs [--quick]
import { add, complete, cycle, save, suite } from "benny";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bw2l, kernels } from "../dist/index.js";
import { runCli } from "../dist/cli/run.js";

const quick = process.argv.includes("--quick");
const dir = mkdtempSync(join(tmpdir(), "tensorfile-convert-bench-"));
const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });

/** A v2 model of `layers` linear layers of size x size fp16 weights (plus a float32 bias each). */
function writeModel(path, layers, size) {
  const halves = kernels.f32ToF16(Float32Array.from({ length: size * size }, (_, i) => Math.sin(i * 0.001) * 0.1));
  const model = bw2l.create({
    config: { criterion: "ctc", quantization: "fp16" },
    tokens: ["a", "b", "#"],
    layers: Array.from({ length: layers }, () => ({
      arch: `L ${size} ${size}`,
      params: [{ dtype: "fp16", dims: [size, size, 1, 1], data: halves }, { dims: [size, 1, 1, 1], data: new Float32Array(size) }],
    })),
  });
  writeFileSync(path, bw2l.write(model));
  return { size: statSync(path).size, largestTensor: size * size * 4 };
}

const quiet = { stdout: { isTTY: false, write() {} }, stderr: { isTTY: false, write() {} } };
const small = join(dir, "model-100MB.b2l");
const smallInfo = writeModel(small, quick ? 4 : 12, 2048); // 12 x 8 MiB halves = ~100 MB
console.log(`fp16 model: ${(smallInfo.size / 1e6).toFixed(1)} MB`);

const summary = {};
await suite(
  "convert fp16 BW2L -> float32 safetensors",
  add("tensorfile convert --dtype float32", async () => {
    const code = await runCli(["convert", small, join(dir, "out.safetensors"), "--dtype", "float32"], quiet);
    if (code !== 0) throw new Error(`convert exited ${code}`);
  }, { minSamples: 3, maxTime: quick ? 1 : 5 }),
  add("copy the file (fs.copyFileSync)", () => {
    copyFileSync(small, join(dir, "copy.b2l"));
  }, { minSamples: 3, maxTime: quick ? 1 : 5 }),
  add("read + write the file (readFileSync + writeFileSync)", () => {
    writeFileSync(join(dir, "copy2.b2l"), readFileSync(small));
  }, { minSamples: 3, maxTime: quick ? 1 : 5 }),
  cycle(),
  complete((s) => {
    for (const r of s.results) summary[r.name] = r.ops;
  }),
  save({ file: "convert", folder: folder.pathname, format: "json" }),
);
const convertOps = summary["tensorfile convert --dtype float32"];
const copyOps = summary["copy the file (fs.copyFileSync)"];
console.log(`convert takes ${(copyOps / convertOps).toFixed(2)}x the time of copying the file (it writes twice the bytes: fp16 -> f32)`);

/**
 * Runs the CLI in a child process and reports its peak RSS, sampled with process.memoryUsage() every 10 ms.
 * (process.resourceUsage().maxRSS is no use here: on Linux a child's maxrss starts at its parent's peak.)
 */
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
const files = [[small, smallInfo]];
if (!quick) {
  const big = join(dir, "model-1GB.b2l");
  files.push([big, writeModel(big, 32, 4096)]); // 32 x 32 MiB halves = ~1.07 GB
}
for (const [path, info] of files) {
  for (const [label, args] of [
    ["convert --dtype float32 -> .safetensors", ["convert", path, join(dir, "peak.safetensors"), "--dtype", "float32"]],
    ["extract", ["extract", path, join(dir, "peak-extract")]],
  ]) {
    const r = peak(args);
    if (r.code !== 0) throw new Error(`${label} exited ${r.code}`);
    rows.push({ file: `${(info.size / 1e6).toFixed(0)} MB`, command: label, seconds: +(r.ms / 1000).toFixed(2),
      peakRssMB: +(r.peakRss / 1e6).toFixed(0), overNodeBaselineMB: +((r.peakRss - baseline.rss) / 1e6).toFixed(0),
      largestTensorMB: +(info.largestTensor / 1e6).toFixed(0) });
    rmSync(join(dir, "peak-extract"), { recursive: true, force: true });
  }
}
console.log(`\nnode + tensorfile loaded, doing nothing: ${(baseline.rss / 1e6).toFixed(0)} MB RSS`);
console.table(rows);
writeFileSync(new URL("convert-memory.json", folder), `${JSON.stringify({ baselineRssMB: +(baseline.rss / 1e6).toFixed(0), rows }, null, 2)}\n`);
rmSync(dir, { recursive: true, force: true });
