// Diff bench (issue 15).
// (The two-file comparison runs first, in a fresh process, before the kernel suite's arrays exist.)
// 1. The kernel: kernels.diffStats (WASM SIMD, f64 lanes) on two 16M-element float32 arrays, side by side with
//    its TS twin, a plain JS loop a user would write (max |a-b|, count, dot, norms in f64) and memcpy of both.
// 2. `tensorfile diff A B` of two generated ~1 GiB safetensors files (16 float32 tensors of 64 MiB; B = A with
//    one value in a thousand changed), side by side with reading the two files (8 MiB reads, nothing done with
//    the bytes): the target is diff at >= 50% of the read speed, i.e. diff time <= 2x read time. Then the peak
//    memory of the same diff in a child process (one tensor pair at a time: about 2x one tensor).
// Writes bench/results/diff-*.json and bench/results/diff-summary.json.
// Run: npm run build && node bench/diff.bench.mjs [--quick]
import { add, complete, cycle, save, suite } from "benny";
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { kernels, planSafetensors } from "../dist/index.js";
import { runCli } from "../dist/cli/run.js";

const quick = process.argv.includes("--quick");
const folder = new URL("./results/", import.meta.url);
mkdirSync(folder, { recursive: true });
const summary = {};

// ---------------------------------------------------------------------------------------------------------
// 2. two files

const dir = mkdtempSync(join(tmpdir(), "tensorfile-diff-bench-"));
const TENSORS = quick ? 4 : 16;
const SIZE = 4096; // 4096 x 4096 float32 = 64 MiB a tensor
const matrix = Float32Array.from({ length: SIZE * SIZE }, (_, i) => Math.sin(i * 0.001) * 0.1);
const edited = matrix.map((v, i) => (i % 1000 === 0 ? v + 1e-4 : v));

function writeFile(path, values) {
  const plan = planSafetensors(Array.from({ length: TENSORS }, (_, i) => ({ name: `layer${i}.weight`, dtype: "float32", shape: [SIZE, SIZE] })));
  const fd = openSync(path, "w");
  writeSync(fd, plan.header);
  for (let i = 0; i < TENSORS; i++) writeSync(fd, new Uint8Array(values.buffer));
  closeSync(fd);
}
const fileA = join(dir, "a.safetensors");
const fileB = join(dir, "b.safetensors");
writeFile(fileA, matrix);
writeFile(fileB, edited);
const bytes = statSync(fileA).size + statSync(fileB).size;
console.log(`\ntwo files of ${(statSync(fileA).size / 2 ** 30).toFixed(2)} GiB each`);

const chunk = new Uint8Array(8 << 20);
function readAll(path) {
  const fd = openSync(path, "r");
  let total = 0;
  for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0;) total += n;
  closeSync(fd);
  return total;
}
const quiet = { stdout: { isTTY: false, write() {} }, stderr: { isTTY: false, write() {} } };
const fileOptions = { minSamples: 3, maxTime: quick ? 2 : 20, initCount: 1 };
await suite(
  "diff two files",
  add("tensorfile diff A B", async () => {
    const code = await runCli(["diff", fileA, fileB], quiet);
    if (code !== 1) throw new Error(`diff exited ${code}, expected 1 (the files differ)`);
  }, fileOptions),
  add("read both files (8 MiB reads)", () => {
    if (readAll(fileA) + readAll(fileB) !== bytes) throw new Error("short read");
  }, fileOptions),
  cycle(),
  complete((s) => {
    const [diff, read] = s.results;
    const ratio = read.details.mean / diff.details.mean;
    summary["files: tensorfile diff A B"] = { seconds: +diff.details.mean.toFixed(3), gbPerSecond: +(bytes / diff.details.mean / 1e9).toFixed(2) };
    summary["files: read both"] = { seconds: +read.details.mean.toFixed(3), gbPerSecond: +(bytes / read.details.mean / 1e9).toFixed(2) };
    summary["files: diff speed / read speed"] = +ratio.toFixed(2);
    console.log(`\ndiff ${diff.details.mean.toFixed(2)} s (${(bytes / diff.details.mean / 1e9).toFixed(2)} GB/s), read ${read.details.mean.toFixed(2)} s (${(bytes / read.details.mean / 1e9).toFixed(2)} GB/s): diff runs at ${(100 * ratio).toFixed(0)}% of the read speed (target >= 50%)`);
  }),
  save({ file: "diff-files", folder: folder.pathname, format: "json" }),
);

// ---------------------------------------------------------------------------------------------------------
// 1. the kernel

const N = quick ? 1 << 20 : 1 << 24;
const a = Float32Array.from({ length: N }, (_, i) => Math.sin(i * 0.37) * 0.1);
const b = a.map((v, i) => (i % 1000 === 0 ? v + 1e-3 : v));
const copyA = new Uint8Array(N * 4);
const copyB = new Uint8Array(N * 4);

function jsLoop(x, y, atol) {
  let maxAbs = 0, differing = 0, dot = 0, na = 0, nb = 0;
  for (let i = 0; i < x.length; i++) {
    const p = x[i], q = y[i], d = Math.abs(p - q);
    if (d > maxAbs) maxAbs = d;
    if (d > atol) differing++;
    dot += p * q; na += p * p; nb += q * q;
  }
  return { maxAbs, differing, dot, na, nb };
}

const want = kernels.diffStats(a, b, 0, 0);
if (want.differing !== Math.ceil(N / 1000) || jsLoop(a, b, 0).differing !== want.differing) throw new Error("diffStats: wrong count");
const caseOptions = quick ? { minSamples: 3, maxTime: 0.5 } : { minSamples: 5, maxTime: 2 };
const tag = `${N >> 20}M`;
await suite(
  `diffStats ${tag}`,
  add("wasm (kernels.diffStats)", () => () => kernels.diffStats(a, b, 0, 0), caseOptions),
  add("ts twin (setBackend js)", () => () => { kernels.setBackend("js"); kernels.diffStats(a, b, 0, 0); kernels.setBackend("auto"); }, caseOptions),
  add("plain JS loop (max abs, count, dot, norms)", () => () => jsLoop(a, b, 0), caseOptions),
  add("memcpy of both inputs (Uint8Array.set x 2)", () => () => { copyA.set(new Uint8Array(a.buffer)); copyB.set(new Uint8Array(b.buffer)); }, caseOptions),
  cycle(),
  complete((s) => {
    const memcpy = s.results.find((r) => r.name.startsWith("memcpy"));
    console.log(`\n${"case".padEnd(44)} ${"ms".padStart(8)}  GB/s in  time / memcpy`);
    for (const r of s.results) {
      const ms = r.details.mean * 1000;
      summary[`kernel ${tag}: ${r.name}`] = { ms: +ms.toFixed(2), gbPerSecondIn: +((8 * N) / r.details.mean / 1e9).toFixed(2) };
      console.log(`${r.name.padEnd(44)} ${ms.toFixed(2).padStart(8)}  ${((8 * N) / r.details.mean / 1e9).toFixed(2).padStart(7)}  ${(r.details.mean / memcpy.details.mean).toFixed(2)}`);
    }
  }),
  save({ file: `diff-kernel-${tag}`, folder: folder.pathname, format: "json" }),
);

const script = `
  const { runCli } = await import(${JSON.stringify(new URL("../dist/cli/run.js", import.meta.url).href)});
  let peakRss = 0;
  const timer = setInterval(() => { peakRss = Math.max(peakRss, process.memoryUsage().rss); }, 10);
  const code = await runCli(${JSON.stringify(["diff", fileA, fileB])}, { stdout: { write() {} }, stderr: { write() {} } });
  clearInterval(timer);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  console.log(JSON.stringify({ code, peakRss }));`;
const baseline = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e",
  `await import(${JSON.stringify(new URL("../dist/cli/run.js", import.meta.url).href)}); console.log(JSON.stringify({ rss: process.memoryUsage().rss }))`], { encoding: "utf8" }));
const peak = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }));
summary.memory = { baselineRssMiB: Math.round(baseline.rss / 2 ** 20), peakRssMiB: Math.round(peak.peakRss / 2 ** 20), tensorMiB: matrix.byteLength / 2 ** 20,
  overBaselineOverTensor: +((peak.peakRss - baseline.rss) / matrix.byteLength).toFixed(2) };
console.log(`peak RSS of diff: ${summary.memory.peakRssMiB} MiB (Node baseline ${summary.memory.baselineRssMiB} MiB; one tensor ${summary.memory.tensorMiB} MiB: ${summary.memory.overBaselineOverTensor}x above the baseline)`);
writeFileSync(new URL("diff-summary.json", folder), `${JSON.stringify(summary, null, 2)}\n`);
rmSync(dir, { recursive: true, force: true });
